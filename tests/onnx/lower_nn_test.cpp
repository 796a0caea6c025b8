// The neural-network lowerings (onnx/lower_nn*.cpp) on hand-built models, for what Debian's
// backend test data does not cover: auto_pad SAME_LOWER with strides, Gemm's transA with
// alpha/beta, opset-11 Softmax/LogSoftmax/Hardmax on rank 3, the BatchNormalization fold into
// Conv/Gemm, the native normalizations, 3-D convolutions and pools and ConvTranspose against
// naive references, MaxPool's Indices, LpPool, GridSample and RoiAlign against C++ ports of
// ONNX Runtime, dynamic batch dims, Resize/Upsample (and the backend Resize tests with
// constant scales/sizes); also MaxUnpool, SoftmaxCrossEntropyLoss and the integer
// convolutions (lower_signal.cpp, lower_loss.cpp, lower_quant.cpp) on cases the backend data
// lacks.
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
#include "onnx/lowering.hpp"
#include "onnx/tensor_proto.hpp"
#include "tensor/file_read.hpp"
#include "common/onnx_backend.hpp"

using namespace mlvm;

namespace {

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
    return Program::from_onnx(b);
  }
};

void attr(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
void attr(onnx::NodeProto* n, const std::string& name, float v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}
void attr(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}
void attr(onnx::NodeProto* n, const std::string& name, const std::string& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

Tensor f32(const std::vector<int64_t>& dims, const std::function<float(int64_t)>& fill) {
  Tensor t = Tensor::empty(DType::f32, Dims(std::span<const int64_t>(dims)));
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = fill(i);
  return t;
}
// A fixed pseudo-random fill in [-2, 2).
float noise(int64_t i) { return float((i * 7919 + 13) % 101) / 25.25f - 2.0f; }

std::vector<float> values(const Tensor& t) {
  Tensor c = contiguous(t);
  return std::vector<float>(c.data<float>(), c.data<float>() + c.numel());
}

std::vector<Tensor> run(const Program& p, const std::vector<Tensor>& in) {
  Session s(p);
  return s.run(std::span<const Tensor>(in));
}

void check_close(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-4f) {
  BOOST_TEST_REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    BOOST_TEST(std::fabs(got[i] - want[i]) <= tol * (1 + std::fabs(want[i])),
               "element " << i << ": " << got[i] << " vs " << want[i]);
}

int count_ops(const Program& p, const std::string& op) {
  int n = 0;
  for (const auto& ins : p.module().code)
    if (op_info(ins.op).name == op) ++n;
  return n;
}

std::string import_error(const Model& m) {
  try {
    m.program();
  } catch (const Error& e) {
    return e.message();
  }
  return "";
}

// The importer's loop over a one-graph model of static f32 inputs, with NodeContext::graph
// set: what the lowerings that look at a node's neighbours (the BatchNormalization fold) see.
Program lower_with_graph(const Model& m) {
  const onnx::GraphProto& g = *m.g;
  Emitter e("t");
  std::map<std::string, Val> vals;
  std::vector<std::pair<std::string, std::string>> outs;
  for (const auto& o : g.output()) {
    outs.emplace_back(o.name(), e.fresh_name(o.name()));
    e.reserve_output(o.name(), outs.back().second);
  }
  for (const auto& in : g.input()) {
    TensorType t;
    t.dtype = DType::f32;
    for (const auto& d : in.type().tensor_type().shape().dim()) t.dims.push_back(d.dim_value());
    vals[in.name()] = e.input(e.fresh_name(in.name()), t, false);
  }
  for (const auto& init : g.initializer()) {
    OnnxTensor t = tensor_from_proto(init, init.name());
    vals[init.name()] = e.constant(std::move(t.value), t.scalar);
  }
  std::map<std::string, LowerFn> table;
  for (auto family : {elementwise_lowerings(), shape_lowerings(), nn_lowerings()})
    for (const LoweringEntry& l : family) table[l.op_type] = l.fn;
  const int opset = int(m.m.opset_import(0).version());
  for (const auto& n : g.node()) {
    std::vector<Val> in;
    for (const auto& name : n.input()) in.push_back(name.empty() ? Val{} : vals.at(name));
    NodeContext ctx(n, opset, e, std::move(in), "");
    ctx.graph = &g;
    std::vector<Val> r = table.at(n.op_type())(ctx);
    for (int k = 0; k < n.output_size(); ++k) {
      if (n.output(k).empty()) continue;
      vals[n.output(k)] = r[std::size_t(k)];
      e.name_value(r[std::size_t(k)], n.output(k));
    }
  }
  std::vector<std::pair<std::string, Val>> outputs;
  for (const auto& [onnx_name, name] : outs) outputs.emplace_back(name, vals.at(onnx_name));
  return Program::from_module(e.finish(outputs));
}

// Naive NCHW convolution (one group) with explicit pads.
std::vector<float> naive_conv(const Tensor& x, const Tensor& w, int64_t sh, int64_t sw, int64_t top,
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

}  // namespace

BOOST_AUTO_TEST_SUITE(onnx_lower_nn)

BOOST_AUTO_TEST_CASE(conv_auto_pad_same_lower_and_upper_with_stride_2) {
  // H = 5, W = 6, kernel 3, stride 2: output 3 x 3; total padding 2 over H (1 + 1) and 1 over
  // W, which SAME_LOWER puts in front (left = 1, right = 0) and SAME_UPPER behind.
  for (const std::string mode : {"SAME_LOWER", "SAME_UPPER"}) {
    Model m(11);
    m.input("x", {1, 2, 5, 6});
    m.input("w", {3, 2, 3, 3});
    m.output("y", 4);
    auto* n = m.node("Conv", {"x", "w"}, {"y"});
    attr(n, "auto_pad", mode);
    attr(n, "strides", std::vector<int64_t>{2, 2});
    Tensor x = f32({1, 2, 5, 6}, noise), w = f32({3, 2, 3, 3}, [](int64_t i) { return noise(i * 3 + 1); });
    auto out = run(m.program(), {x, w});
    BOOST_TEST(out[0].shape() == Dims({1, 3, 3, 3}));
    int64_t left = mode == "SAME_LOWER" ? 1 : 0;
    check_close(values(out[0]), naive_conv(x, w, 2, 2, 1, left, 3, 3));
  }
}

BOOST_AUTO_TEST_CASE(conv_same_with_a_dynamic_spatial_dim_is_refused) {
  Model m(11);
  m.input("x", {1, 1, -1, 5});
  m.input("w", {1, 1, 3, 3});
  m.output("y", 4);
  attr(m.node("Conv", {"x", "w"}, {"y"}), "auto_pad", std::string("SAME_LOWER"));
  BOOST_TEST(import_error(m).find("auto_pad=SAME_LOWER with dynamic dims is not supported") != std::string::npos,
             import_error(m));
}

BOOST_AUTO_TEST_CASE(conv_1d_with_groups_pads_bias_and_dynamic_batch) {
  Model m(13);
  m.input("x", {-1, 4, 7});
  m.init("w", {4, 2, 3}, std::vector<float>(24, 0.5f));
  m.init("b", {4}, {1, 2, 3, 4});
  m.output("y", 3);
  auto* n = m.node("Conv", {"x", "w", "b"}, {"y"});
  attr(n, "group", int64_t(2));
  attr(n, "pads", std::vector<int64_t>{1, 0});
  Program p = m.program();
  Tensor x = f32({2, 4, 7}, [](int64_t) { return 1.0f; });
  auto out = run(p, {x});
  BOOST_TEST(out[0].shape() == Dims({2, 4, 6}));
  // Each output sums 2 channels x 3 taps of 0.5 (one tap in the padding at position 0).
  std::vector<float> v = values(out[0]);
  for (int64_t n2 = 0; n2 < 2; ++n2)
    for (int64_t o = 0; o < 4; ++o)
      for (int64_t q = 0; q < 6; ++q)
        BOOST_TEST(v[std::size_t((n2 * 4 + o) * 6 + q)] == float(o + 1) + (q == 0 ? 2.0f : 3.0f));
}

// Conv 3-D as 2-D convolutions of depth slices: groups, pads, strides, dilations, bias and a
// dynamic batch, against a naive 3-D convolution.
BOOST_AUTO_TEST_CASE(conv_3d_with_groups_pads_strides_dilations_and_a_dynamic_batch) {
  Model m(11);
  m.input("x", {-1, 4, 5, 4, 6});
  std::vector<float> wv;
  for (int64_t i = 0; i < 6 * 2 * 3 * 2 * 3; ++i) wv.push_back(noise(i * 3 + 5));
  m.init("w", {6, 2, 3, 2, 3}, wv);
  m.init("b", {6}, {1, 2, 3, 4, 5, 6});
  m.output("y", 5);
  auto* n = m.node("Conv", {"x", "w", "b"}, {"y"});
  attr(n, "group", int64_t(2));
  attr(n, "pads", std::vector<int64_t>{2, 0, 1, 1, 1, 0});
  attr(n, "strides", std::vector<int64_t>{2, 1, 2});
  attr(n, "dilations", std::vector<int64_t>{2, 1, 1});
  Tensor x = f32({2, 4, 5, 4, 6}, noise);
  auto out = run(m.program(), {x});
  // D: (5 + 3 - 5) / 2 + 1 = 2; H: (4 + 1 - 2) + 1 = 4; W: (6 + 1 - 3) / 2 + 1 = 3.
  BOOST_TEST(out[0].shape() == Dims({2, 6, 2, 4, 3}));
  std::vector<float> want;
  const float* xv = x.data<float>();
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t o = 0; o < 6; ++o)
      for (int64_t od = 0; od < 2; ++od)
        for (int64_t oh = 0; oh < 4; ++oh)
          for (int64_t ow = 0; ow < 3; ++ow) {
            double acc = o + 1;
            for (int64_t ci = 0; ci < 2; ++ci)
              for (int64_t kd = 0; kd < 3; ++kd)
                for (int64_t kh = 0; kh < 2; ++kh)
                  for (int64_t kw = 0; kw < 3; ++kw) {
                    int64_t d = od * 2 - 2 + kd * 2, h = oh - 0 + kh, w = ow * 2 - 1 + kw;
                    if (d < 0 || d >= 5 || h < 0 || h >= 4 || w < 0 || w >= 6) continue;
                    int64_t c = (o / 3) * 2 + ci;
                    acc += double(xv[(((b * 4 + c) * 5 + d) * 4 + h) * 6 + w]) *
                           wv[std::size_t((((o * 2 + ci) * 3 + kd) * 2 + kh) * 3 + kw)];
                  }
            want.push_back(float(acc));
          }
  check_close(values(out[0]), want);
}

BOOST_AUTO_TEST_CASE(conv_transpose_3d_with_strides_pads_dilations_groups_and_output_padding) {
  const int64_t n = 2, c = 4, d = 3, h = 2, w = 3, ocg = 2, g = 2, kd = 2, kh = 3, kw = 2;
  const int64_t sd = 2, sh = 1, sw = 2, dd = 2, pd0 = 1, pd1 = 0, ph0 = 1, ph1 = 1, pw0 = 0, pw1 = 1, opd = 1;
  Model m(11);
  m.input("x", {n, c, d, h, w});
  std::vector<float> wv;
  for (int64_t i = 0; i < c * ocg * kd * kh * kw; ++i) wv.push_back(noise(i * 7 + 3));
  m.init("w", {c, ocg, kd, kh, kw}, wv);
  m.init("b", {4}, {0.5f, -1, 2, 0});
  m.output("y", 5);
  auto* node = m.node("ConvTranspose", {"x", "w", "b"}, {"y"});
  attr(node, "group", g);
  attr(node, "strides", std::vector<int64_t>{sd, sh, sw});
  attr(node, "dilations", std::vector<int64_t>{dd, 1, 1});
  attr(node, "pads", std::vector<int64_t>{pd0, ph0, pw0, pd1, ph1, pw1});
  attr(node, "output_padding", std::vector<int64_t>{opd, 0, 1});
  Tensor x = f32({n, c, d, h, w}, noise);
  auto out = run(m.program(), {x});
  const int64_t od = (d - 1) * sd + opd + dd * (kd - 1) + 1 - pd0 - pd1;   // 7
  const int64_t oh = (h - 1) * sh + (kh - 1) + 1 - ph0 - ph1;               // 2
  const int64_t ow = (w - 1) * sw + 1 + (kw - 1) + 1 - pw0 - pw1;           // 6
  BOOST_TEST_REQUIRE(out[0].shape() == Dims({n, g * ocg, od, oh, ow}));
  std::vector<float> want(std::size_t(n * g * ocg * od * oh * ow), 0.0f);
  const float bias[] = {0.5f, -1, 2, 0};
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < g * ocg; ++o)
      for (int64_t i = 0; i < od * oh * ow; ++i) want[std::size_t((b * g * ocg + o) * od * oh * ow + i)] = bias[o];
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ci = 0; ci < c; ++ci)
      for (int64_t z = 0; z < d; ++z)
        for (int64_t y = 0; y < h; ++y)
          for (int64_t xx = 0; xx < w; ++xx)
            for (int64_t o = 0; o < ocg; ++o)
              for (int64_t a = 0; a < kd; ++a)
                for (int64_t p = 0; p < kh; ++p)
                  for (int64_t q = 0; q < kw; ++q) {
                    int64_t tz = z * sd - pd0 + a * dd, ty = y * sh - ph0 + p, tx = xx * sw - pw0 + q;
                    if (tz < 0 || tz >= od || ty < 0 || ty >= oh || tx < 0 || tx >= ow) continue;
                    int64_t oc = (ci / (c / g)) * ocg + o;
                    want[std::size_t((((b * g * ocg + oc) * od + tz) * oh + ty) * ow + tx)] +=
                        x.data<float>()[(((b * c + ci) * d + z) * h + y) * w + xx] *
                        wv[std::size_t((((ci * ocg + o) * kd + a) * kh + p) * kw + q)];
                  }
  check_close(values(out[0]), want);
}

// Pools 3-D with pads and ceil_mode: max, and average counting the padding or not.
BOOST_AUTO_TEST_CASE(pools_3d_with_pads_and_ceil_mode) {
  Tensor x = f32({1, 2, 4, 3, 5}, noise);
  const float* xv = x.data<float>();
  for (const std::string op : {"MaxPool", "AveragePool"})
    for (int64_t include : {0, 1}) {
      if (op == "MaxPool" && include) continue;
      Model m(11);
      m.input("x", {1, 2, 4, 3, 5});
      m.output("y", 5);
      auto* n = m.node(op, {"x"}, {"y"});
      attr(n, "kernel_shape", std::vector<int64_t>{3, 2, 2});
      attr(n, "pads", std::vector<int64_t>{1, 1, 0, 1, 0, 1});
      attr(n, "strides", std::vector<int64_t>{2, 2, 2});
      attr(n, "ceil_mode", int64_t(1));
      if (op == "AveragePool") attr(n, "count_include_pad", include);
      auto out = run(m.program(), {x});
      // D: ceil((4 + 2 - 3) / 2) + 1 = 3 (the last window starts at 3 < 4 + 1); H: ceil((3 + 1 - 2)
      // / 2) + 1 = 2; W: ceil((5 + 1 - 2) / 2) + 1 = 3.
      BOOST_TEST_REQUIRE(out[0].shape() == Dims({1, 2, 3, 2, 3}));
      std::vector<float> want;
      for (int64_t c = 0; c < 2; ++c)
        for (int64_t od = 0; od < 3; ++od)
          for (int64_t oh = 0; oh < 2; ++oh)
            for (int64_t ow = 0; ow < 3; ++ow) {
              double mx = -1e30, sum = 0;
              int64_t cnt = 0, cnt_pad = 0;
              for (int64_t kd = 0; kd < 3; ++kd)
                for (int64_t kh = 0; kh < 2; ++kh)
                  for (int64_t kw = 0; kw < 2; ++kw) {
                    int64_t d = od * 2 - 1 + kd, h = oh * 2 - 1 + kh, w = ow * 2 + kw;
                    // Inside input + padding: d in [-1, 5), h in [-1, 3), w in [0, 6).
                    if (d >= -1 && d < 5 && h >= -1 && h < 3 && w >= 0 && w < 6) ++cnt_pad;
                    if (d < 0 || d >= 4 || h < 0 || h >= 3 || w < 0 || w >= 5) continue;
                    double v = xv[((c * 4 + d) * 3 + h) * 5 + w];
                    mx = std::max(mx, v);
                    sum += v;
                    ++cnt;
                  }
              want.push_back(float(op == "MaxPool" ? mx : sum / double(include ? cnt_pad : cnt)));
            }
      check_close(values(out[0]), want);
    }
}

BOOST_AUTO_TEST_CASE(maxpool_indices_row_and_column_major_and_1d) {
  // x (2, 1, 3, 4), 2x2 windows, stride 2 over W, 1 over H: maxima at known cells.
  Tensor x = f32({2, 1, 3, 4}, [](int64_t i) { return float((i * 7) % 11); });
  for (int64_t order : {0, 1}) {
    Model m(12);
    m.input("x", {2, 1, 3, 4});
    m.output("y", 4);
    m.output("i", 4, onnx::TensorProto::INT64);
    auto* n = m.node("MaxPool", {"x"}, {"y", "i"});
    attr(n, "kernel_shape", std::vector<int64_t>{2, 2});
    attr(n, "strides", std::vector<int64_t>{1, 2});
    attr(n, "storage_order", order);
    Program p = m.program();
    BOOST_TEST(count_ops(p, "max_pool2d_indices") == 1);
    auto out = run(p, {x});
    BOOST_TEST(out[1].shape() == Dims({2, 1, 2, 2}));
    Tensor idx = contiguous(out[1]);
    std::vector<float> y = values(out[0]);
    for (int64_t k = 0; k < 8; ++k) {
      const int64_t n2 = k / 4, oh = k / 2 % 2, ow = k % 2;
      int64_t best = -1;
      for (int64_t dh = 0; dh < 2; ++dh)
        for (int64_t dw = 0; dw < 2; ++dw) {
          int64_t at = n2 * 12 + (oh + dh) * 4 + ow * 2 + dw;
          if (best < 0 || x.data<float>()[at] > x.data<float>()[best]) best = at;
        }
      BOOST_TEST(y[std::size_t(k)] == x.data<float>()[best]);
      const int64_t h = best % 12 / 4, w = best % 4;
      BOOST_TEST(idx.data<int64_t>()[k] == (order ? n2 * 12 + w * 3 + h : best));
    }
  }
  Model m(12);
  m.input("x", {1, 2, 5});
  m.output("y", 3);
  m.output("i", 3, onnx::TensorProto::INT64);
  attr(m.node("MaxPool", {"x"}, {"y", "i"}), "kernel_shape", std::vector<int64_t>{2});
  auto out = run(m.program(), {f32({1, 2, 5}, [](int64_t i) { return float((i * 3) % 7); })});
  // (0 3 6 2 5), (1 4 0 3 6): indices into the flat (1, 2, 5).
  Tensor idx = contiguous(out[1]);
  const int64_t want[] = {1, 2, 2, 4, 6, 6, 8, 9};
  for (int k = 0; k < 8; ++k) BOOST_TEST(idx.data<int64_t>()[k] == want[k]);
}

// MaxPool's values and indices back through MaxUnpool, to a constant output_shape one larger.
BOOST_AUTO_TEST_CASE(maxunpool_inverts_maxpool_with_a_constant_output_shape) {
  Model m(11);
  m.input("x", {1, 2, 5, 5});
  m.init_i64("shape", {1, 2, 5, 5});
  m.output("y", 4);
  auto* p = m.node("MaxPool", {"x"}, {"v", "i"});
  attr(p, "kernel_shape", std::vector<int64_t>{2, 2});
  attr(p, "strides", std::vector<int64_t>{2, 2});
  auto* u = m.node("MaxUnpool", {"v", "i", "shape"}, {"y"});
  attr(u, "kernel_shape", std::vector<int64_t>{2, 2});
  attr(u, "strides", std::vector<int64_t>{2, 2});
  Tensor x = f32({1, 2, 5, 5}, [](int64_t i) { return float((i * 13) % 17); });
  auto out = run(m.program(), {x});
  BOOST_TEST(out[0].shape() == Dims({1, 2, 5, 5}));
  std::vector<float> y = values(out[0]), want(50, 0.0f);
  for (int c = 0; c < 2; ++c)
    for (int oh = 0; oh < 2; ++oh)
      for (int ow = 0; ow < 2; ++ow) {
        int best = -1;
        for (int dh = 0; dh < 2; ++dh)
          for (int dw = 0; dw < 2; ++dw) {
            int at = c * 25 + (oh * 2 + dh) * 5 + ow * 2 + dw;
            if (best < 0 || x.data<float>()[at] > x.data<float>()[best]) best = at;
          }
        want[std::size_t(best)] = x.data<float>()[best];
      }
  check_close(y, want);
}

BOOST_AUTO_TEST_CASE(lp_pool_and_global_lp_pool) {
  Model m(11);
  m.input("x", {1, 2, 3, 3});
  m.output("y", 4);
  m.output("g", 4);
  m.output("g1", 3);
  auto* n = m.node("LpPool", {"x"}, {"y"});
  attr(n, "kernel_shape", std::vector<int64_t>{2, 2});
  attr(n, "pads", std::vector<int64_t>{1, 1, 0, 0});
  attr(n, "strides", std::vector<int64_t>{2, 2});
  attr(n, "p", int64_t(3));
  m.node("GlobalLpPool", {"x"}, {"g"});
  m.init_i64("shape3", {1, 2, 9});
  m.node("Reshape", {"x", "shape3"}, {"x1"});
  attr(m.node("GlobalLpPool", {"x1"}, {"g1"}), "p", int64_t(1));
  Program p = m.program();
  BOOST_TEST(count_ops(p, "lp_pool2d") == 3);
  Tensor x = f32({1, 2, 3, 3}, noise);
  auto out = run(p, {x});
  BOOST_TEST(out[0].shape() == Dims({1, 2, 2, 2}));
  const float* xv = x.data<float>();
  std::vector<float> want, g, g1;
  for (int c = 0; c < 2; ++c) {
    for (int oh = 0; oh < 2; ++oh)
      for (int ow = 0; ow < 2; ++ow) {
        double acc = 0;
        for (int dh = 0; dh < 2; ++dh)
          for (int dw = 0; dw < 2; ++dw) {
            int h = oh * 2 - 1 + dh, w = ow * 2 - 1 + dw;
            if (h < 0 || w < 0 || h >= 3 || w >= 3) continue;
            acc += std::pow(std::fabs(xv[c * 9 + h * 3 + w]), 3.0);
          }
        want.push_back(float(std::cbrt(acc)));
      }
    double s2 = 0, s1 = 0;
    for (int i = 0; i < 9; ++i) s2 += double(xv[c * 9 + i]) * xv[c * 9 + i], s1 += std::fabs(xv[c * 9 + i]);
    g.push_back(float(std::sqrt(s2)));
    g1.push_back(float(s1));
  }
  check_close(values(out[0]), want);
  BOOST_TEST(out[1].shape() == Dims({1, 2, 1, 1}));
  check_close(values(out[1]), g);
  BOOST_TEST(out[2].shape() == Dims({1, 2, 1}));
  check_close(values(out[2]), g1);
}

// Naive 2-D transposed convolution: (N, C, H, W) x (C, OCg, KH, KW), groups, output
// (OH, OW) with the given top/left padding.
std::vector<float> naive_conv_transpose(const Tensor& x, const Tensor& w, int64_t groups, int64_t sh,
                                        int64_t sw, int64_t top, int64_t left, int64_t oh, int64_t ow) {
  const auto& xd = x.shape();
  const auto& wd = w.shape();
  const int64_t cg = xd[1] / groups, ocg = wd[1], oc = ocg * groups;
  std::vector<float> out(std::size_t(xd[0] * oc * oh * ow), 0.0f);
  for (int64_t n = 0; n < xd[0]; ++n)
    for (int64_t c = 0; c < xd[1]; ++c)
      for (int64_t i = 0; i < xd[2]; ++i)
        for (int64_t j = 0; j < xd[3]; ++j)
          for (int64_t o = 0; o < ocg; ++o)
            for (int64_t p = 0; p < wd[2]; ++p)
              for (int64_t q = 0; q < wd[3]; ++q) {
                int64_t h = i * sh - top + p, v = j * sw - left + q, g = c / cg;
                if (h < 0 || h >= oh || v < 0 || v >= ow) continue;
                out[std::size_t(((n * oc + g * ocg + o) * oh + h) * ow + v)] +=
                    x.data<float>()[((n * xd[1] + c) * xd[2] + i) * xd[3] + j] *
                    w.data<float>()[((c * ocg + o) * wd[2] + p) * wd[3] + q];
              }
  return out;
}

BOOST_AUTO_TEST_CASE(conv_transpose_auto_pad_groups_output_shape_and_1d) {
  Tensor x = f32({1, 4, 3, 3}, noise), w = f32({4, 1, 2, 3}, [](int64_t i) { return noise(i * 3 + 7); });
  // Stride 2: natural size (3-1)*2 + (2, 3) = (6, 7); SAME asks for (6, 6): total padding
  // (0, 1), the odd one at the end for SAME_UPPER, at the beginning for SAME_LOWER.
  for (const std::string mode : {"SAME_UPPER", "SAME_LOWER"}) {
    Model m(11);
    m.input("x", {1, 4, 3, 3});
    m.input("w", {4, 1, 2, 3});
    m.output("y", 4);
    auto* n = m.node("ConvTranspose", {"x", "w"}, {"y"});
    attr(n, "auto_pad", mode);
    attr(n, "strides", std::vector<int64_t>{2, 2});
    attr(n, "group", int64_t(2));
    Program p = m.program();
    BOOST_TEST(count_ops(p, "conv_transpose2d") == 1);
    auto out = run(p, {x, w});
    BOOST_TEST(out[0].shape() == Dims({1, 2, 6, 6}));
    check_close(values(out[0]), naive_conv_transpose(x, w, 2, 2, 2, 0, mode == "SAME_UPPER" ? 0 : 1, 6, 6));
  }
  {
    // output_shape (8, 9) beyond the natural (6, 7): the extra cells hold the bias.
    Model m(11);
    m.input("x", {1, 4, 3, 3});
    m.input("w", {4, 1, 2, 3});
    m.init("b", {1}, {1.5f});
    m.output("y", 4);
    auto* n = m.node("ConvTranspose", {"x", "w", "b"}, {"y"});
    attr(n, "strides", std::vector<int64_t>{2, 2});
    attr(n, "output_shape", std::vector<int64_t>{1, 1, 8, 9});
    auto out = run(m.program(), {x, w});
    BOOST_TEST(out[0].shape() == Dims({1, 1, 8, 9}));
    std::vector<float> want = naive_conv_transpose(x, w, 1, 2, 2, 0, 0, 8, 9);
    for (float& v : want) v += 1.5f;
    check_close(values(out[0]), want);
  }
  {
    // 1-D with pads and output_padding: (5-1)*3 + 1 + 2 - 1 - 0 = 14.
    Model m(11);
    m.input("x", {2, 1, 5});
    m.init("w", {1, 2, 2}, {1, -1, 0.5f, 2});
    m.output("y", 3);
    auto* n = m.node("ConvTranspose", {"x", "w"}, {"y"});
    attr(n, "strides", std::vector<int64_t>{3});
    attr(n, "pads", std::vector<int64_t>{1, 0});
    attr(n, "output_padding", std::vector<int64_t>{1});
    Tensor x1 = f32({2, 1, 5}, noise);
    auto out = run(m.program(), {x1});
    BOOST_TEST(out[0].shape() == Dims({2, 2, 14}));
    Tensor x4 = f32({2, 1, 1, 5}, noise), w4 = f32({1, 2, 1, 2}, [](int64_t i) {
      const float v[] = {1, -1, 0.5f, 2};
      return v[i];
    });
    check_close(values(out[0]), naive_conv_transpose(x4, w4, 1, 1, 3, 0, 1, 1, 14));
  }
}

BOOST_AUTO_TEST_CASE(avgpool_same_lower_excludes_the_padding_from_the_count) {
  Model m(11);
  m.input("x", {1, 1, 3, 3});
  m.output("y", 4);
  auto* n = m.node("AveragePool", {"x"}, {"y"});
  attr(n, "kernel_shape", std::vector<int64_t>{2, 2});
  attr(n, "auto_pad", std::string("SAME_LOWER"));
  auto out = run(m.program(), {f32({1, 1, 3, 3}, [](int64_t i) { return float(i + 1); })});
  // Padding one row/column in front: windows [1], [1,2], [2,3], ... averaged over real cells.
  check_close(values(out[0]), {1, 1.5f, 2.5f, 2.5f, 3, 4, 5.5f, 6, 7});
}

BOOST_AUTO_TEST_CASE(gemm_trans_a_with_alpha_beta_and_a_matrix_c) {
  // Y = 0.5 * A^T * B + 2 * C, A (K=3, M=2), B (3, 4), C (2, 4); B both as an input (matmul)
  // and as an initializer (folded into dense).
  for (bool b_const : {false, true}) {
    Model m(13);
    m.input("a", {3, 2});
    Tensor b = f32({3, 4}, [](int64_t i) { return noise(i + 5); });
    if (b_const) m.init("b", {3, 4}, values(b));
    else m.input("b", {3, 4});
    m.input("c", {2, 4});
    m.output("y", 2);
    auto* n = m.node("Gemm", {"a", "b", "c"}, {"y"});
    attr(n, "transA", int64_t(1));
    attr(n, "alpha", 0.5f);
    attr(n, "beta", 2.0f);
    Tensor a = f32({3, 2}, noise), c = f32({2, 4}, [](int64_t i) { return float(i); });
    Program p = m.program();
    auto out = b_const ? run(p, {a, c}) : run(p, {a, b, c});
    std::vector<float> want;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 4; ++j) {
        float acc = 0;
        for (int k = 0; k < 3; ++k) acc += a.data<float>()[k * 2 + i] * b.data<float>()[k * 4 + j];
        want.push_back(0.5f * acc + 2.0f * c.data<float>()[i * 4 + j]);
      }
    check_close(values(out[0]), want);
    if (b_const) BOOST_TEST(count_ops(p, "dense") == 1);
  }
}

BOOST_AUTO_TEST_CASE(gemm_with_constant_weights_and_row_bias_is_one_dense) {
  Model m(11);
  m.input("a", {-1, 3});
  m.init("b", {3, 2}, {1, 2, 3, 4, 5, 6});
  m.init("c", {1, 2}, {10, 20});
  m.output("y", 2);
  attr(m.node("Gemm", {"a", "b", "c"}, {"y"}), "alpha", 2.0f);
  Program p = m.program();
  BOOST_TEST(p.module().code.size() <= 2u);  // dense (+ the output copy)
  BOOST_TEST(count_ops(p, "dense") == 1);
  auto out = run(p, {f32({1, 3}, [](int64_t i) { return float(i + 1); })});
  check_close(values(out[0]), {2 * 22 + 10, 2 * 28 + 20});
}

// Opset 11: the input is seen as 2-D (2, 3 * 4) at axis 1.
BOOST_AUTO_TEST_CASE(softmax_family_opset_11_rank_3_axis_1_flattens) {
  Tensor x = f32({2, 3, 4}, noise);
  x.data<float>()[5] = x.data<float>()[9] = 5.0f;  // a tie in batch 0: the first one wins
  std::vector<float> sm, lsm, hm;
  for (int b = 0; b < 2; ++b) {
    const float* p = x.data<float>() + b * 12;
    float mx = *std::max_element(p, p + 12), s = 0;
    int arg = int(std::max_element(p, p + 12) - p);
    for (int i = 0; i < 12; ++i) s += std::exp(p[i] - mx);
    for (int i = 0; i < 12; ++i) {
      sm.push_back(std::exp(p[i] - mx) / s);
      lsm.push_back(p[i] - mx - std::log(s));
      hm.push_back(i == arg ? 1.0f : 0.0f);
    }
  }
  for (const std::string op : {"Softmax", "LogSoftmax", "Hardmax"}) {
    Model m(11);
    m.input("x", {2, 3, 4});
    m.output("y", 3);
    attr(m.node(op, {"x"}, {"y"}), "axis", int64_t(1));
    auto out = run(m.program(), {x});
    BOOST_TEST(out[0].shape() == Dims({2, 3, 4}));
    check_close(values(out[0]), op == "Softmax" ? sm : op == "LogSoftmax" ? lsm : hm);
  }
}

BOOST_AUTO_TEST_CASE(softmax_opset_13_runs_along_one_axis) {
  Model m(13);
  m.input("x", {2, 3});
  m.output("y", 2);
  attr(m.node("Softmax", {"x"}, {"y"}), "axis", int64_t(0));
  auto out = run(m.program(), {f32({2, 3}, [](int64_t i) { return float(i); })});
  float e3 = std::exp(3.0f);
  float p0 = 1 / (1 + e3);
  check_close(values(out[0]), {p0, p0, p0, 1 - p0, 1 - p0, 1 - p0});
}

BOOST_AUTO_TEST_CASE(batchnorm_with_constant_statistics_folds_into_one_mul_add) {
  Model m(15);
  m.input("x", {2, 3, 2, 2});
  m.init("s", {3}, {1, 2, 0.5f});
  m.init("b", {3}, {0, 1, -1});
  m.init("mean", {3}, {0.5f, -1, 2});
  m.init("var", {3}, {4, 0.25f, 1});
  m.output("y", 4);
  attr(m.node("BatchNormalization", {"x", "s", "b", "mean", "var"}, {"y"}), "epsilon", 0.01f);
  Program p = m.program();
  BOOST_TEST(count_ops(p, "sqrt") == 0);
  BOOST_TEST(count_ops(p, "div") == 0);
  BOOST_TEST(count_ops(p, "mul") == 1);
  BOOST_TEST(count_ops(p, "add") == 1);
  Tensor x = f32({2, 3, 2, 2}, noise);
  auto out = run(p, {x});
  const float s[] = {1, 2, 0.5f}, b[] = {0, 1, -1}, mean[] = {0.5f, -1, 2}, var[] = {4, 0.25f, 1};
  std::vector<float> want;
  for (int64_t i = 0; i < 24; ++i) {
    int c = int(i / 4 % 3);
    want.push_back((x.data<float>()[i] - mean[c]) / std::sqrt(var[c] + 0.01f) * s[c] + b[c]);
  }
  check_close(values(out[0]), want);
}

// Conv -> BatchNormalization -> Relu: W scaled per output channel, the shift in the bias;
// nothing is left of the BatchNormalization (when the importer gives the lowerings the graph).
BOOST_AUTO_TEST_CASE(batchnorm_folds_into_the_conv_before_it) {
  const float s[] = {1, 2, 0.5f, -1}, b[] = {0, 1, -1, 0.25f}, mean[] = {0.5f, -1, 2, 0},
              var[] = {4, 0.25f, 1, 2}, bias[] = {0.1f, -0.2f, 0.3f, 0};
  auto model = [&](bool with_bias, bool conv_output_too) {
    Model m(15);
    m.input("x", {2, 3, 5, 5});
    std::vector<float> w;
    for (int64_t i = 0; i < 4 * 3 * 9; ++i) w.push_back(noise(i * 5 + 2));
    m.init("w", {4, 3, 3, 3}, w);
    m.init("cb", {4}, {bias[0], bias[1], bias[2], bias[3]});
    m.init("s", {4}, {s[0], s[1], s[2], s[3]});
    m.init("b", {4}, {b[0], b[1], b[2], b[3]});
    m.init("mean", {4}, {mean[0], mean[1], mean[2], mean[3]});
    m.init("var", {4}, {var[0], var[1], var[2], var[3]});
    m.output("y", 4);
    if (conv_output_too) m.output("t", 4);
    std::vector<std::string> in = {"x", "w"};
    if (with_bias) in.push_back("cb");
    attr(m.node("Conv", in, {"t"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
    attr(m.node("BatchNormalization", {"t", "s", "b", "mean", "var"}, {"u"}), "epsilon", 0.01f);
    m.node("Relu", {"u"}, {"y"});
    return m;
  };
  Tensor x = f32({2, 3, 5, 5}, noise);
  for (bool with_bias : {false, true}) {
    Model m = model(with_bias, false);
    Tensor wt = f32({4, 3, 3, 3}, [](int64_t i) { return noise(i * 5 + 2); });
    std::vector<float> conv = naive_conv(x, wt, 1, 1, 1, 1, 5, 5);
    std::vector<float> want;
    for (std::size_t i = 0; i < conv.size(); ++i) {
      int c = int(i / 25 % 4);
      float t = conv[i] + (with_bias ? bias[c] : 0.0f);
      want.push_back(std::max(0.0f, (t - mean[c]) / std::sqrt(var[c] + 0.01f) * s[c] + b[c]));
    }
    Program folded = lower_with_graph(m);
    BOOST_TEST(folded.module().code.size() == 2u);  // conv2d, relu
    BOOST_TEST(count_ops(folded, "conv2d") == 1);
    BOOST_TEST(count_ops(folded, "relu") == 1);
    check_close(values(run(folded, {x})[0]), want);
    // The importer's result is the same (folded or not).
    check_close(values(run(m.program(), {x})[0]), want);
  }
  // The conv's output is also a graph output: it must stay, so nothing is folded.
  Program both = lower_with_graph(model(true, true));
  BOOST_TEST(count_ops(both, "conv2d") == 1);
  BOOST_TEST(count_ops(both, "mul") == 1);
  BOOST_TEST(count_ops(both, "add") == 1);
}

BOOST_AUTO_TEST_CASE(batchnorm_folds_into_a_gemm_with_constant_weights) {
  for (bool tb : {false, true}) {
    Model m(15);
    m.input("a", {2, 3});
    // B' (3, 2) = [[1, 2], [3, 4], [5, 6]] (stored transposed with transB).
    if (tb) m.init("w", {2, 3}, {1, 3, 5, 2, 4, 6});
    else m.init("w", {3, 2}, {1, 2, 3, 4, 5, 6});
    m.init("c", {2}, {10, 20});
    m.init("s", {2}, {2, -1});
    m.init("b", {2}, {1, 0.5f});
    m.init("mean", {2}, {3, -2});
    m.init("var", {2}, {0.25f, 4});
    m.output("y", 2);
    auto* g = m.node("Gemm", {"a", "w", "c"}, {"t"});
    attr(g, "alpha", 0.5f);
    attr(g, "beta", 2.0f);
    attr(g, "transB", int64_t(tb));
    attr(m.node("BatchNormalization", {"t", "s", "b", "mean", "var"}, {"u"}), "epsilon", 0.0f);
    m.node("Relu", {"u"}, {"y"});
    Program p = lower_with_graph(m);
    BOOST_TEST(p.module().code.size() == 2u);  // dense, relu
    BOOST_TEST(count_ops(p, "dense") == 1);
    Tensor a = f32({2, 3}, [](int64_t i) { return float(i) - 2; });
    const float bw[3][2] = {{1, 2}, {3, 4}, {5, 6}}, cv[] = {10, 20}, sv[] = {2, -1}, bv[] = {1, 0.5f},
                mv[] = {3, -2}, vv[] = {0.25f, 4};
    std::vector<float> want;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) {
        float t = 2 * cv[j];
        for (int k = 0; k < 3; ++k) t += 0.5f * a.data<float>()[i * 3 + k] * bw[k][j];
        want.push_back(std::max(0.0f, (t - mv[j]) / std::sqrt(vv[j]) * sv[j] + bv[j]));
      }
    check_close(values(run(p, {a})[0]), want);
    check_close(values(run(m.program(), {a})[0]), want);
  }
}

BOOST_AUTO_TEST_CASE(batchnorm_with_run_time_statistics_is_the_native_op) {
  Model m(15);
  m.input("x", {2, 3, 4});
  m.input("mean", {3});
  m.init("s", {3}, {1, 2, 3});
  m.init("b", {3}, {0, 1, 2});
  m.init("var", {3}, {1, 4, 9});
  m.output("y", 3);
  m.node("BatchNormalization", {"x", "s", "b", "mean", "var"}, {"y"});
  Program p = m.program();
  BOOST_TEST(p.module().code.size() == 1u);
  BOOST_TEST(count_ops(p, "batch_norm") == 1);
  Tensor x = f32({2, 3, 4}, noise), mean = f32({3}, [](int64_t i) { return float(i) * 0.5f; });
  std::vector<float> want;
  for (int64_t i = 0; i < 24; ++i) {
    int c = int(i / 4 % 3);
    want.push_back((x.data<float>()[i] - mean.data<float>()[c]) / std::sqrt(float((c + 1) * (c + 1)) + 1e-5f) *
                       float(c + 1) + float(c));
  }
  check_close(values(run(p, {x, mean})[0]), want);
}

BOOST_AUTO_TEST_CASE(normalizations_are_one_native_instruction_each) {
  Model m(17);
  m.input("x", {2, 3, 4});
  m.init("s", {3}, {1, 2, 3});
  m.init("b", {3}, {0, 1, 2});
  m.init("ls", {4}, {1, -1, 2, 0.5f});
  m.output("inorm", 3);
  m.output("lnorm", 3);
  m.output("mvn", 3);
  m.output("lrn", 3);
  attr(m.node("InstanceNormalization", {"x", "s", "b"}, {"inorm"}), "epsilon", 0.5f);
  m.node("LayerNormalization", {"x", "ls"}, {"lnorm"});
  attr(m.node("MeanVarianceNormalization", {"x"}, {"mvn"}), "axes", std::vector<int64_t>{1, 2});
  attr(m.node("LRN", {"x"}, {"lrn"}), "size", int64_t(2));
  Program p = m.program();
  BOOST_TEST(p.module().code.size() == 4u);
  for (const char* op : {"instance_norm", "layer_norm", "mean_variance_normalization", "lrn"})
    BOOST_TEST(count_ops(p, op) == 1, op);
  Tensor x = f32({2, 3, 4}, noise);
  auto out = run(p, {x});
  const float* xv = x.data<float>();
  auto stats = [&](const std::vector<int64_t>& idx) {
    double m1 = 0, m2 = 0;
    for (int64_t i : idx) m1 += xv[i];
    m1 /= double(idx.size());
    for (int64_t i : idx) m2 += (xv[i] - m1) * (xv[i] - m1);
    return std::pair<double, double>{m1, m2 / double(idx.size())};
  };
  std::vector<float> in_want(24), ln_want(24), mvn_want(24), lrn_want(24);
  const float ls[] = {1, -1, 2, 0.5f};
  for (int64_t n = 0; n < 2; ++n) {
    std::vector<int64_t> all;
    for (int64_t c = 0; c < 3; ++c) {
      std::vector<int64_t> plane;
      for (int64_t w = 0; w < 4; ++w) plane.push_back((n * 3 + c) * 4 + w), all.push_back((n * 3 + c) * 4 + w);
      auto [mu, var] = stats(plane);
      for (int64_t i : plane) {
        in_want[std::size_t(i)] = float((xv[i] - mu) / std::sqrt(var + 0.5) * double(c + 1) + double(c));
        ln_want[std::size_t(i)] = float((xv[i] - mu) / std::sqrt(var + 1e-5) * ls[i % 4]);
      }
    }
    auto [mu, var] = stats(all);
    for (int64_t i : all) mvn_want[std::size_t(i)] = float((xv[i] - mu) / (std::sqrt(var) + 1e-9));
    // size 2: channels [c, c + 1].
    for (int64_t c = 0; c < 3; ++c)
      for (int64_t w = 0; w < 4; ++w) {
        int64_t i = (n * 3 + c) * 4 + w;
        double sq = double(xv[i]) * xv[i];
        if (c + 1 < 3) sq += double(xv[i + 4]) * xv[i + 4];
        lrn_want[std::size_t(i)] = float(xv[i] / std::pow(1.0 + 1e-4 / 2 * sq, 0.75));
      }
  }
  check_close(values(out[0]), in_want);
  check_close(values(out[1]), ln_want);
  check_close(values(out[2]), mvn_want);
  check_close(values(out[3]), lrn_want);
}

// stash_type double with the statistics read: decomposed in f64 (the native op returns them
// as f32).
BOOST_AUTO_TEST_CASE(layer_norm_stash_type_double_statistics_are_f64) {
  Model m(17);
  m.input("x", {2, 3});
  m.init("s", {3}, {1, 1, 1});
  m.output("y", 2);
  m.output("mean", 2, onnx::TensorProto::DOUBLE);
  m.output("inv", 2, onnx::TensorProto::DOUBLE);
  attr(m.node("LayerNormalization", {"x", "s"}, {"y", "mean", "inv"}), "stash_type", int64_t(11));
  Program p = m.program();
  BOOST_TEST(count_ops(p, "layer_norm") == 0);
  auto out = run(p, {f32({2, 3}, [](int64_t i) { return float(i * i); })});
  BOOST_TEST(out[1].dtype() == DType::f64);
  BOOST_TEST(out[1].shape() == Dims({2, 1}));
  Tensor mean = contiguous(out[1]);
  BOOST_TEST(mean.data<double>()[0] == 5.0 / 3);
  BOOST_TEST(mean.data<double>()[1] == 50.0 / 3);
}

BOOST_AUTO_TEST_CASE(batchnorm_training_outputs_are_refused) {
  Model m(9);
  m.input("x", {1, 2, 2});
  for (const char* n : {"s", "b", "mean", "var"}) m.init(n, {2}, {1, 1});
  m.output("y", 3);
  m.output("rm", 1);
  m.node("BatchNormalization", {"x", "s", "b", "mean", "var"}, {"y", "rm", "", "", ""});
  BOOST_TEST(import_error(m).find("inference only") != std::string::npos, import_error(m));
}

BOOST_AUTO_TEST_CASE(depth_to_space_and_back_with_a_dynamic_batch) {
  Model m(13);
  m.input("x", {-1, 8, 2, 3});
  m.output("y", 4);
  m.output("z", 4);
  auto* d = m.node("DepthToSpace", {"x"}, {"t"});
  attr(d, "blocksize", int64_t(2));
  attr(d, "mode", std::string("DCR"));
  attr(m.node("SpaceToDepth", {"t"}, {"z"}), "blocksize", int64_t(2));
  m.node("Identity", {"t"}, {"y"});
  Tensor x = f32({3, 8, 2, 3}, [](int64_t i) { return float(i); });
  auto out = run(m.program(), {x});
  BOOST_TEST(out[0].shape() == Dims({3, 2, 4, 6}));
  // DCR: y[n, c, h*2+i, w*2+j] = x[n, (i*2+j)*2 + c, h, w].
  std::vector<float> y = values(out[0]);
  BOOST_TEST(y[0 * 24 + 1 * 6 + 1] == x.data<float>()[(3 * 2 + 0) * 6]);  // c=0, h=0, i=1, w=0, j=1
  check_close(values(out[1]), values(x));  // SpaceToDepth inverts DCR
}

BOOST_AUTO_TEST_CASE(resize_nearest_with_integer_scales_is_upsampling) {
  Model m(13);
  m.input("x", {1, 1, 2, 2});
  m.init("scales", {4}, {1, 1, 2, 3});
  m.output("y", 4);
  m.node("Resize", {"x", "", "scales"}, {"y"});  // half_pixel + round_prefer_floor: replication
  Program p = m.program();
  BOOST_TEST(count_ops(p, "upsampling") == 1);
  auto out = run(p, {f32({1, 1, 2, 2}, [](int64_t i) { return float(i + 1); })});
  check_close(values(out[0]), {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4});
}

BOOST_AUTO_TEST_CASE(resize_modes_that_are_not_replication_are_the_resize_op) {
  auto ops = [](const std::string& coord, const std::string& mode, const std::string& nearest) {
    Model m(13);
    m.input("x", {1, 1, 4, 4});
    m.init("scales", {4}, {1, 1, 2, 2});
    m.output("y", 4);
    auto* n = m.node("Resize", {"x", "", "scales"}, {"y"});
    attr(n, "coordinate_transformation_mode", coord);
    attr(n, "mode", mode);
    attr(n, "nearest_mode", nearest);
    Program p = m.program();
    return std::pair<int, int>{count_ops(p, "upsampling"), count_ops(p, "resize")};
  };
  BOOST_TEST((ops("asymmetric", "nearest", "floor") == std::pair<int, int>{1, 0}));
  BOOST_TEST((ops("tf_half_pixel_for_nn", "nearest", "floor") == std::pair<int, int>{1, 0}));
  BOOST_TEST((ops("align_corners", "nearest", "floor") == std::pair<int, int>{0, 1}));
  BOOST_TEST((ops("half_pixel", "nearest", "ceil") == std::pair<int, int>{0, 1}));
  BOOST_TEST((ops("half_pixel", "linear", "floor") == std::pair<int, int>{0, 1}));
}

// Resize with scales: the output dims are floor(dims * scales) and the coordinates use the
// scales themselves (not sizes / dims); with sizes, the scale is sizes / dims.
BOOST_AUTO_TEST_CASE(resize_by_scales_floors_the_sizes_and_keeps_the_scales) {
  Model m(13);
  m.input("x", {1, 1, 1, 5});
  m.init("scales", {4}, {1, 1, 1, 0.5f});
  m.output("y", 4);
  attr(m.node("Resize", {"x", "", "scales"}, {"y"}), "coordinate_transformation_mode", std::string("asymmetric"));
  auto out = run(m.program(), {f32({1, 1, 1, 5}, [](int64_t i) { return float(i * 10); })});
  BOOST_TEST(out[0].shape() == Dims({1, 1, 1, 2}));  // floor(5 * 0.5)
  check_close(values(out[0]), {0, 20});  // x = 2 * i (scale 0.5), not 2.5 * i (5 / 2)
  Model d(13);
  d.input("x", {3, 2, 2});
  d.init_i64("sizes", {3, 2, 4});
  d.output("y", 3);
  attr(d.node("Resize", {"x", "", "", "sizes"}, {"y"}), "mode", std::string("linear"));
  out = run(d.program(), {f32({3, 2, 2}, [](int64_t i) { return float(i % 4); })});
  BOOST_TEST(out[0].shape() == Dims({3, 2, 4}));
  std::vector<float> y = values(out[0]);
  check_close(std::vector<float>(y.begin(), y.begin() + 4), {0, 0.25f, 0.75f, 1});
}

// Debian's backend tests of Resize and Upsample pass scales, sizes and roi as graph inputs,
// which mlvm needs at import time: here they become initializers (from test_data_set_0), and
// every one of those tests must then pass.
BOOST_AUTO_TEST_CASE(backend_resize_tests_with_constant_scales_and_sizes) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(testing::kBackendDataRoot) / "node";
  if (!fs::is_directory(root)) return;
  int checked = 0;
  for (const auto& e : fs::directory_iterator(root)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("test_resize", 0) != 0 && name.rfind("test_upsample", 0) != 0) continue;
    // align_corners with scales that do not give whole lengths: mlvm divides by the output
    // length R as ONNX Runtime does; the test data (ONNX's Python reference) by scale * L
    // (docs/ops.md, resize).
    if (name == "test_resize_downsample_scales_linear_align_corners" ||
        name == "test_resize_downsample_scales_cubic_align_corners")
      continue;
    onnx::ModelProto m;
    std::vector<uint8_t> bytes = read_file_bounded((e.path() / "model.onnx").string(), 1 << 20, "model");
    BOOST_TEST_REQUIRE(m.ParseFromArray(bytes.data(), int(bytes.size())));
    const fs::path set = e.path() / "test_data_set_0";
    auto* g = m.mutable_graph();
    for (int k = g->input_size() - 1; k >= 1; --k) {
      std::vector<uint8_t> pb = read_file_bounded((set / ("input_" + std::to_string(k) + ".pb")).string(), 1 << 20, "pb");
      auto* init = g->add_initializer();
      BOOST_TEST_REQUIRE(init->ParseFromArray(pb.data(), int(pb.size())));
      init->set_name(g->input(k).name());
      g->mutable_input()->DeleteSubrange(k, 1);
    }
    std::string s = m.SerializeAsString();
    try {
      Program p = Program::from_onnx(std::vector<uint8_t>(s.begin(), s.end()));
      Tensor x = testing::backend_detail::read_pb(set / "input_0.pb").value;
      auto out = run(p, {x});
      std::string diff = testing::backend_detail::compare(out[0], testing::backend_detail::read_pb(set / "output_0.pb"), 1e-3, 1e-7);
      BOOST_TEST(diff.empty(), name << ": " << diff);
    } catch (const Error& err) {
      BOOST_TEST(false, name << ": " << err.message());
    }
    ++checked;
  }
  BOOST_TEST(checked >= 20);
}

BOOST_AUTO_TEST_CASE(upsample_opset_7_reads_its_scales_attribute) {
  Model m(7);
  m.input("x", {1, 2, 1, 2});
  m.output("y", 4);
  auto* n = m.node("Upsample", {"x"}, {"y"});
  auto* a = n->add_attribute();
  a->set_name("scales");
  a->set_type(onnx::AttributeProto::FLOATS);
  for (float s : {1.0f, 1.0f, 2.0f, 2.0f}) a->add_floats(s);
  auto out = run(m.program(), {f32({1, 2, 1, 2}, [](int64_t i) { return float(i); })});
  check_close(values(out[0]), {0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3});
  BOOST_TEST(count_ops(m.program(), "upsampling") == 1);
  // 1.5: floor(1 * 1.5) = 1 row, asymmetric coordinates, "simple" rounding (truncation).
  a->set_floats(2, 1.5f);
  a->set_floats(3, 1.5f);
  Program p = m.program();
  BOOST_TEST(count_ops(p, "resize") == 1);
  out = run(p, {f32({1, 2, 1, 2}, [](int64_t i) { return float(i); })});
  BOOST_TEST(out[0].shape() == Dims({1, 2, 1, 3}));
  check_close(values(out[0]), {0, 0, 1, 2, 2, 3});
}

// f64 scores, int32 labels, ignore_index -1 without weights: the mean over the labels kept.
BOOST_AUTO_TEST_CASE(softmax_cross_entropy_f64_with_int32_labels_and_ignore_index) {
  Model m(13);
  m.input("x", {3, 2}, onnx::TensorProto::DOUBLE);
  m.input("t", {3}, onnx::TensorProto::INT32);
  m.output("loss", 0, onnx::TensorProto::DOUBLE);
  m.output("logp", 2, onnx::TensorProto::DOUBLE);
  attr(m.node("SoftmaxCrossEntropyLoss", {"x", "t"}, {"loss", "logp"}), "ignore_index", int64_t(-1));
  Tensor x = Tensor::empty(DType::f64, Dims{3, 2}), t = Tensor::empty(DType::i32, Dims{3});
  const double xv[] = {1, 2, 0, 0, 5, -1};
  const int32_t tv[] = {1, -1, 0};
  for (int i = 0; i < 6; ++i) x.data<double>()[i] = xv[i];
  for (int i = 0; i < 3; ++i) t.data<int32_t>()[i] = tv[i];
  auto out = run(m.program(), {x, t});
  BOOST_TEST(out[0].dtype() == DType::f64);
  BOOST_TEST(out[0].shape() == Dims({1}));
  const double l0 = -(2 - std::log(std::exp(1.0) + std::exp(2.0)));
  const double l2 = -(5 - std::log(std::exp(5.0) + std::exp(-1.0)));
  BOOST_TEST(std::fabs(contiguous(out[0]).data<double>()[0] - (l0 + l2) / 2) < 1e-12);
  BOOST_TEST(out[1].shape() == Dims({3, 2}));
}

// ONNX Runtime's GridSample (onnxruntime/core/providers/cpu/tensor/grid_sample.cc), one
// output value, as the reference for every mode, padding mode and align_corners.
float ort_grid_sample(const float* img, int64_t h, int64_t w, float gx, float gy, const std::string& mode,
                      const std::string& padding, bool align) {
  auto denorm = [&](float g, int64_t len) {
    return align ? (g + 1) / 2 * float(len - 1) : ((g + 1) * float(len) - 1) / 2;
  };
  const float x_min = align ? 0.0f : -0.5f, x_max = align ? float(w - 1) : float(w) - 0.5f;
  const float y_min = align ? 0.0f : -0.5f, y_max = align ? float(h - 1) : float(h) - 0.5f;
  auto reflect = [](float x, float lo, float hi) {
    const float range = hi - lo;
    if (x < lo) {
      float dx = lo - x;
      int n = int(dx / range);
      float r = dx - float(n) * range;
      return n % 2 == 0 ? lo + r : hi - r;
    }
    if (x > hi) {
      float dx = x - hi;
      int n = int(dx / range);
      float r = dx - float(n) * range;
      return n % 2 == 0 ? hi - r : lo + r;
    }
    return x;
  };
  auto at = [&](int64_t r, int64_t c) -> float {
    if (padding == "zeros") return c >= 0 && c < w && r >= 0 && r < h ? img[r * w + c] : 0.0f;
    if (padding == "border") {
      c = std::clamp<int64_t>(c, 0, w - 1);
      r = std::clamp<int64_t>(r, 0, h - 1);
    } else {
      c = int64_t(reflect(float(c), x_min, x_max));
      r = int64_t(reflect(float(r), y_min, y_max));
    }
    return img[r * w + c];
  };
  float x = denorm(gx, w), y = denorm(gy, h);
  if (mode == "nearest") {
    x = std::nearbyint(x);
    y = std::nearbyint(y);
  }
  if (x < x_min || x > x_max || y < y_min || y > y_max) {
    if (padding == "border") {
      x = std::clamp(x, 0.0f, float(w - 1));
      y = std::clamp(y, 0.0f, float(h - 1));
    } else if (padding == "reflection") {
      x = reflect(x, x_min, x_max);
      y = reflect(y, y_min, y_max);
    }
  }
  if (mode == "nearest") return at(int64_t(y), int64_t(x));
  if (mode == "bilinear") {
    int64_t x1 = int64_t(std::floor(x)), y1 = int64_t(std::floor(y)), x2 = x1 + 1, y2 = y1 + 1;
    float dx2 = float(x2) - x, dx1 = x - float(x1), dy2 = float(y2) - y, dy1 = y - float(y1);
    return dy2 * (dx2 * at(y1, x1) + dx1 * at(y1, x2)) + dy1 * (dx2 * at(y2, x1) + dx1 * at(y2, x2));
  }
  auto coeffs = [](float t, float* cf) {
    const float a = -0.75f;
    t = std::fabs(t);
    cf[0] = ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a;
    cf[1] = ((a + 2) * t - (a + 3)) * t * t + 1;
    cf[2] = ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1;
    cf[3] = ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a;
  };
  int64_t x0 = int64_t(std::floor(x)) - 1, y0 = int64_t(std::floor(y)) - 1;
  float cx[4], cy[4], v[4];
  coeffs(x - float(x0) - 1, cx);
  coeffs(y - float(y0) - 1, cy);
  for (int i = 0; i < 4; ++i) {
    v[i] = 0;
    for (int j = 0; j < 4; ++j) v[i] += cx[j] * at(y0 + i, x0 + j);
  }
  return cy[0] * v[0] + cy[1] * v[1] + cy[2] * v[2] + cy[3] * v[3];
}

BOOST_AUTO_TEST_CASE(grid_sample_every_mode_padding_and_align_corners) {
  const int64_t n = 2, ch = 2, h = 3, w = 4, oh = 3, ow = 5;
  Tensor x = f32({n, ch, h, w}, noise);
  // Grid points in [-1.9, 1.9): inside, near the edges and well outside.
  Tensor grid = f32({n, oh, ow, 2}, [](int64_t i) { return float((i * 37 + 11) % 76) / 20.0f - 1.9f; });
  for (const std::string mode : {"nearest", "bilinear", "bicubic"})
    for (const std::string padding : {"zeros", "border", "reflection"})
      for (int64_t align : {0, 1}) {
        Model m(16);
        m.input("x", {n, ch, h, w});
        m.input("grid", {n, oh, ow, 2});
        m.output("y", 4);
        auto* node = m.node("GridSample", {"x", "grid"}, {"y"});
        attr(node, "mode", mode);
        attr(node, "padding_mode", padding);
        attr(node, "align_corners", align);
        auto out = run(m.program(), {x, grid});
        BOOST_TEST_REQUIRE(out[0].shape() == Dims({n, ch, oh, ow}));
        std::vector<float> want;
        for (int64_t b = 0; b < n; ++b)
          for (int64_t c = 0; c < ch; ++c)
            for (int64_t i = 0; i < oh * ow; ++i) {
              const float* g = grid.data<float>() + (b * oh * ow + i) * 2;
              want.push_back(ort_grid_sample(x.data<float>() + (b * ch + c) * h * w, h, w, g[0], g[1], mode,
                                             padding, align != 0));
            }
        BOOST_TEST_CONTEXT(mode << ", " << padding << ", align_corners=" << align) {
          check_close(values(out[0]), want);
        }
      }
}

// ONNX Runtime's RoiAlign (onnxruntime/core/providers/cpu/object_detection/roialign.cc) for one
// region and channel.
std::vector<float> ort_roi_align(const float* img, int64_t h, int64_t w, const float* roi, int64_t oh,
                                 int64_t ow, int64_t sr, float scale, bool half_pixel, bool avg) {
  const float off = half_pixel ? 0.5f : 0.0f;
  float sw = roi[0] * scale - off, sh = roi[1] * scale - off, ew = roi[2] * scale - off, eh = roi[3] * scale - off;
  float rw = ew - sw, rh = eh - sh;
  if (!half_pixel) rw = std::max(rw, 1.0f), rh = std::max(rh, 1.0f);
  const float bh = rh / float(oh), bw = rw / float(ow);
  std::vector<float> out;
  for (int64_t ph = 0; ph < oh; ++ph)
    for (int64_t pw = 0; pw < ow; ++pw) {
      float acc = 0;
      bool first = true;
      for (int64_t iy = 0; iy < sr; ++iy)
        for (int64_t ix = 0; ix < sr; ++ix) {
          float y = sh + float(ph) * bh + (float(iy) + 0.5f) * bh / float(sr);
          float x = sw + float(pw) * bw + (float(ix) + 0.5f) * bw / float(sr);
          float w1 = 0, w2 = 0, w3 = 0, w4 = 0;
          int64_t p1 = 0, p2 = 0, p3 = 0, p4 = 0;
          if (!(y < -1.0f || y > float(h) || x < -1.0f || x > float(w))) {
            y = std::max(y, 0.0f);
            x = std::max(x, 0.0f);
            int64_t yl = int64_t(y), xl = int64_t(x), yh, xh;
            if (yl >= h - 1) yh = yl = h - 1, y = float(yl);
            else yh = yl + 1;
            if (xl >= w - 1) xh = xl = w - 1, x = float(xl);
            else xh = xl + 1;
            float ly = y - float(yl), lx = x - float(xl), hy = 1 - ly, hx = 1 - lx;
            w1 = hy * hx, w2 = hy * lx, w3 = ly * hx, w4 = ly * lx;
            p1 = yl * w + xl, p2 = yl * w + xh, p3 = yh * w + xl, p4 = yh * w + xh;
          }
          if (avg) {
            acc += w1 * img[p1] + w2 * img[p2] + w3 * img[p3] + w4 * img[p4];
          } else {
            float v = std::max(std::max(std::max(w1 * img[p1], w2 * img[p2]), w3 * img[p3]), w4 * img[p4]);
            acc = first ? v : std::max(acc, v);
            first = false;
          }
        }
      out.push_back(avg ? acc / float(sr * sr) : acc);
    }
  return out;
}

BOOST_AUTO_TEST_CASE(roi_align_avg_and_max_both_coordinate_modes) {
  const int64_t n = 2, ch = 2, h = 5, w = 6, r = 4;
  Tensor x = f32({n, ch, h, w}, noise);
  // Regions inside, crossing the edges, beyond them, and smaller than a pixel.
  const float rv[] = {0.5f, 1, 4, 3.5f, -2, -1, 3, 9, 5, 4, 13, 11, 2, 2, 2.3f, 2.2f};
  Tensor rois = f32({r, 4}, [&](int64_t i) { return rv[i]; });
  Tensor batch = Tensor::empty(DType::i64, Dims{r});
  const int64_t bv[] = {0, 1, 1, 0};
  for (int i = 0; i < r; ++i) batch.data<int64_t>()[i] = bv[i];
  for (const std::string mode : {"avg", "max"})
    for (const std::string coord : {"half_pixel", "output_half_pixel"}) {
      Model m(16);
      m.input("x", {n, ch, h, w});
      m.input("rois", {r, 4});
      m.input("b", {r}, onnx::TensorProto::INT64);
      m.output("y", 4);
      auto* node = m.node("RoiAlign", {"x", "rois", "b"}, {"y"});
      attr(node, "mode", mode);
      attr(node, "coordinate_transformation_mode", coord);
      attr(node, "output_height", int64_t(2));
      attr(node, "output_width", int64_t(3));
      attr(node, "sampling_ratio", int64_t(2));
      attr(node, "spatial_scale", 0.5f);
      auto out = run(m.program(), {x, rois, batch});
      BOOST_TEST_REQUIRE(out[0].shape() == Dims({r, ch, 2, 3}));
      std::vector<float> want;
      for (int64_t i = 0; i < r; ++i)
        for (int64_t c = 0; c < ch; ++c) {
          std::vector<float> v = ort_roi_align(x.data<float>() + (bv[i] * ch + c) * h * w, h, w, rv + i * 4, 2, 3, 2,
                                               0.5f, coord == "half_pixel", mode == "avg");
          want.insert(want.end(), v.begin(), v.end());
        }
      BOOST_TEST_CONTEXT(mode << ", " << coord) { check_close(values(out[0]), want); }
    }
}

// QLinearConv with per-channel weight scales and zero points, a bias, an int8 output that
// saturates, and ties rounded to even; MatMulInteger with per-row / per-column zero points.
BOOST_AUTO_TEST_CASE(qlinear_conv_per_channel_and_matmul_integer_per_row_zero_points) {
  auto u8 = [](const std::vector<int64_t>& dims, const std::function<int(int64_t)>& f) {
    Tensor t = Tensor::empty(DType::u8, Dims(std::span<const int64_t>(dims)));
    for (int64_t i = 0; i < t.numel(); ++i) t.data<uint8_t>()[i] = uint8_t(f(i));
    return t;
  };
  {
    Model m(13);
    m.input("x", {1, 1, 3, 3}, onnx::TensorProto::UINT8);
    m.input("w", {2, 1, 2, 2}, onnx::TensorProto::UINT8);
    m.init("xs", {}, {0.5f});
    m.init("ws", {2}, {0.25f, 1.0f});
    m.init("ys", {}, {1.0f});
    auto* xz = m.g->add_initializer();
    xz->set_name("xz"), xz->set_data_type(onnx::TensorProto::UINT8), xz->add_int32_data(10);
    auto* wz = m.g->add_initializer();
    wz->set_name("wz"), wz->set_data_type(onnx::TensorProto::UINT8), wz->add_dims(2), wz->add_int32_data(3), wz->add_int32_data(100);
    auto* yz = m.g->add_initializer();
    yz->set_name("yz"), yz->set_data_type(onnx::TensorProto::INT8), yz->add_int32_data(-5);
    auto* b = m.g->add_initializer();
    b->set_name("b"), b->set_data_type(onnx::TensorProto::INT32), b->add_dims(2), b->add_int32_data(1), b->add_int32_data(-7);
    m.output("y", 4, onnx::TensorProto::INT8);
    m.node("QLinearConv", {"x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"}, {"y"});
    Tensor x = u8({1, 1, 3, 3}, [](int64_t i) { return int(i * 29 % 256); });
    Tensor w = u8({2, 1, 2, 2}, [](int64_t i) { return int(i * 61 % 256); });
    auto out = run(m.program(), {x, w});
    BOOST_TEST_REQUIRE(out[0].shape() == Dims({1, 2, 2, 2}));
    BOOST_TEST(out[0].dtype() == DType::i8);
    const int wzv[] = {3, 100}, bv[] = {1, -7};
    const float wsv[] = {0.25f, 1.0f};
    for (int o = 0; o < 2; ++o)
      for (int p = 0; p < 2; ++p)
        for (int q = 0; q < 2; ++q) {
          int acc = bv[o];
          for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j)
              acc += (x.data<uint8_t>()[(p + i) * 3 + q + j] - 10) * (w.data<uint8_t>()[o * 4 + i * 2 + j] - wzv[o]);
          float v = std::nearbyint(float(acc) * (0.5f * wsv[o] / 1.0f)) - 5;
          int want = int(std::clamp(v, -128.0f, 127.0f));
          BOOST_TEST(int(contiguous(out[0]).data<int8_t>()[(o * 2 + p) * 2 + q]) == want, o << p << q);
        }
  }
  {
    Model m(13);
    m.input("a", {3, 2}, onnx::TensorProto::UINT8);
    m.input("b", {2, 2}, onnx::TensorProto::UINT8);
    auto* az = m.g->add_initializer();
    az->set_name("az"), az->set_data_type(onnx::TensorProto::UINT8), az->add_dims(3);
    for (int v : {1, 2, 3}) az->add_int32_data(v);
    auto* bz = m.g->add_initializer();
    bz->set_name("bz"), bz->set_data_type(onnx::TensorProto::UINT8), bz->add_dims(2);
    for (int v : {200, 0}) bz->add_int32_data(v);
    m.output("y", 2, onnx::TensorProto::INT32);
    m.node("MatMulInteger", {"a", "b", "az", "bz"}, {"y"});
    Tensor a = u8({3, 2}, [](int64_t i) { return int(i * 50); }), b = u8({2, 2}, [](int64_t i) { return int(255 - i); });
    auto out = run(m.program(), {a, b});
    Tensor y = contiguous(out[0]);
    const int azv[] = {1, 2, 3}, bzv[] = {200, 0};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 2; ++j) {
        int want = 0;
        for (int k = 0; k < 2; ++k)
          want += (a.data<uint8_t>()[i * 2 + k] - azv[i]) * (b.data<uint8_t>()[k * 2 + j] - bzv[j]);
        BOOST_TEST(y.data<int32_t>()[i * 2 + j] == want);
      }
  }
}

BOOST_AUTO_TEST_CASE(matmul_of_two_vectors_is_an_onnx_scalar) {
  Model m(13);
  m.input("a", {3});
  m.input("b", {3});
  m.output("y", 0);
  m.node("MatMul", {"a", "b"}, {"y"});
  auto out = run(m.program(), {f32({3}, [](int64_t i) { return float(i + 1); }),
                               f32({3}, [](int64_t) { return 2.0f; })});
  check_close(values(out[0]), {12});
}

BOOST_AUTO_TEST_CASE(activations_on_their_edges) {
  struct Case {
    std::string op;
    std::function<float(float)> f;
  };
  std::vector<Case> cases = {
      {"Softplus", [](float v) { return float(std::log1p(std::exp(double(v)))); }},
      {"Ceil", [](float v) { return std::ceil(v); }},
      {"HardSwish", [](float v) { return v * std::clamp(v / 6 + 0.5f, 0.0f, 1.0f); }},
      {"Softsign", [](float v) { return v / (1 + std::fabs(v)); }},
  };
  const std::vector<float> xs = {-100, -3.5f, -0.5f, 0, 0.5f, 2.5f, 3, 100};
  for (const Case& cs : cases) {
    Model m(14);
    m.input("x", {int64_t(xs.size())});
    m.output("y", 1);
    m.node(cs.op, {"x"}, {"y"});
    auto out = run(m.program(), {f32({int64_t(xs.size())}, [&](int64_t i) { return xs[std::size_t(i)]; })});
    std::vector<float> want;
    for (float v : xs) want.push_back(cs.f(v));
    BOOST_TEST_CONTEXT(cs.op) { check_close(values(out[0]), want); }
  }
}

BOOST_AUTO_TEST_SUITE_END()
