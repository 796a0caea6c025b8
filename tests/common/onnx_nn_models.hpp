// Shared by the neural-network lowering tests (tests/onnx/lower_*_test.cpp): hand-built ONNX
// models through the protobuf API, running them, counting ops, and naive references.
#pragma once

#include <onnx/onnx_pb.h>

#include <boost/test/unit_test.hpp>


#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ir/op_table.hpp"
#include "mlvm/mlvm.hpp"
#include "tensor/copy.hpp"
#include "tensor/storage.hpp"
#include "vm/program_access.hpp"
#include "onnx/lowering.hpp"
#include "onnx/tensor_proto.hpp"
#include "tensor/file_read.hpp"
#include "common/onnx_backend.hpp"

using namespace mlvm;


namespace mlvm::testing::onnx_nn {

using namespace mlvm;


// A one-graph ONNX model built through the protobuf API.
struct Model {
  onnx::ModelProto m;
  onnx::GraphProto* g;

  explicit Model(int opset) {
    m.set_ir_version(8);
    auto* o = m.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    g = m.mutable_graph();
    g->set_name("t");
  }
  // dims: -1 is a symbolic dim "N".
  void input(const std::string& name, const std::vector<int64_t>& dims,
             int elem = onnx::TensorProto::FLOAT) {
    auto* vi = g->add_input();
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    auto* shape = tt->mutable_shape();
    for (int64_t d : dims) {
      auto* dim = shape->add_dim();
      if (d < 0) dim->set_dim_param("N");
      else dim->set_dim_value(d);
    }
  }
  // An output of `rank` symbolic dims.
  void output(const std::string& name, int rank, int elem = onnx::TensorProto::FLOAT) {
    auto* vi = g->add_output();
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    auto* shape = tt->mutable_shape();
    for (int k = 0; k < rank; ++k) shape->add_dim()->set_dim_param("d" + std::to_string(k));
  }
  void init(const std::string& name, const std::vector<int64_t>& dims, const std::vector<float>& v) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    for (float x : v) t->add_float_data(x);
  }
  void init_i64(const std::string& name, const std::vector<int64_t>& v) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(int64_t(v.size()));
    for (int64_t x : v) t->add_int64_data(x);
  }
  onnx::NodeProto* node(const std::string& op, const std::vector<std::string>& in,
                        const std::vector<std::string>& out) {
    auto* n = g->add_node();
    n->set_op_type(op);
    for (const auto& s : in) n->add_input(s);
    for (const auto& s : out) n->add_output(s);
    return n;
  }
  std::vector<uint8_t> bytes() const {
    std::string s = m.SerializeAsString();
    return std::vector<uint8_t>(s.begin(), s.end());
  }
  Program program() const {
    std::vector<uint8_t> b = bytes();
    return Program::from_onnx_bytes(b);
  }
};

inline void attr(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
inline void attr(onnx::NodeProto* n, const std::string& name, float v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}
inline void attr(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}
inline void attr(onnx::NodeProto* n, const std::string& name, const std::string& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

inline Tensor f32(const std::vector<int64_t>& dims, const std::function<float(int64_t)>& fill) {
  Tensor t = Tensor::empty(DType::f32, Dims(std::span<const int64_t>(dims)));
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = fill(i);
  return t;
}
// A fixed pseudo-random fill in [-2, 2).
inline float noise(int64_t i) { return float((i * 7919 + 13) % 101) / 25.25f - 2.0f; }

inline std::vector<float> values(const Tensor& t) {
  Tensor c = contiguous(t);
  return std::vector<float>(c.data<float>(), c.data<float>() + c.numel());
}

inline std::vector<Tensor> run(const Program& p, const std::vector<Tensor>& in) {
  Session s(p);
  return s.run_positional(std::span<const Tensor>(in));
}

inline void check_close(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-4f) {
  BOOST_TEST_REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    BOOST_TEST(std::fabs(got[i] - want[i]) <= tol * (1 + std::fabs(want[i])),
               "element " << i << ": " << got[i] << " vs " << want[i]);
}

inline int count_ops(const Program& p, const std::string& op) {
  int n = 0;
  for (const auto& ins : program_module(p).code)
    if (op_info(ins.op).name == op) ++n;
  return n;
}

inline std::string import_error(const Model& m) {
  try {
    m.program();
  } catch (const Error& e) {
    return e.message();
  }
  return "";
}


// Naive NCHW convolution (one group) with explicit pads.
inline std::vector<float> naive_conv(const Tensor& x, const Tensor& w, int64_t sh, int64_t sw, int64_t top,
                              int64_t left, int64_t oh, int64_t ow) {
  const auto& xd = x.shape();
  const auto& wd = w.shape();
  std::vector<float> out;
  const float* xp = x.data<float>();
  const float* wp = w.data<float>();
  for (int64_t n = 0; n < xd[0]; ++n)
    for (int64_t o = 0; o < wd[0]; ++o)
      for (int64_t p = 0; p < oh; ++p)
        for (int64_t q = 0; q < ow; ++q) {
          float acc = 0;
          for (int64_t c = 0; c < wd[1]; ++c)
            for (int64_t i = 0; i < wd[2]; ++i)
              for (int64_t j = 0; j < wd[3]; ++j) {
                int64_t h = p * sh - top + i, v = q * sw - left + j;
                if (h < 0 || h >= xd[2] || v < 0 || v >= xd[3]) continue;
                acc += xp[((n * xd[1] + c) * xd[2] + h) * xd[3] + v] *
                       wp[((o * wd[1] + c) * wd[2] + i) * wd[3] + j];
              }
          out.push_back(acc);
        }
  return out;
}


}  // namespace mlvm::testing::onnx_nn
