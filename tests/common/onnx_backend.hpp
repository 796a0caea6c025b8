// Debian's libonnx-testdata backend suites: each test folder holds model.onnx and
// test_data_set_N/{input_K.pb, output_K.pb}. run_backend_test imports the model, runs every
// data set and compares with the expected outputs (rtol 1e-3, atol 1e-7 for floats unless the
// caller says otherwise; exact for integers and bools).
#pragma once

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "common/guard_pages.hpp"
#include "mlvm/mlvm.hpp"
#include "tensor/copy.hpp"
#include "tensor/storage.hpp"
#include "vm/program_access.hpp"
#include "onnx/tensor_proto.hpp"
#include "tensor/file_read.hpp"

namespace mlvm::testing {

namespace fs = std::filesystem;

inline const char* kBackendDataRoot = "/usr/share/libonnx-testdata/data";
inline const char* kBackendSuites[] = {"node", "pytorch-converted", "pytorch-operator", "simple"};

enum class BackendOutcome { pass, fail, out_of_scope };

struct BackendResult {
  BackendOutcome outcome = BackendOutcome::fail;
  std::string reason;  // why it failed, or why it is out of scope
};

namespace backend_detail {

inline bool mlvm_dtypes_only(const onnx::ModelProto& m, std::string& why) {
  auto check = [&](const onnx::ValueInfoProto& v) {
    if (!v.type().has_tensor_type()) {
      why = "'" + v.name() + "' is not a tensor";
      return false;
    }
    int32_t t = v.type().tensor_type().elem_type();
    // f16/bf16 compute in f32 (widened): their tests expect 16-bit results, so they stay out.
    if (!dtype_from_onnx(t) || t == onnx::TensorProto::FLOAT16 || t == onnx::TensorProto::BFLOAT16) {
      why = "'" + v.name() + "' has dtype " + onnx_dtype_name(t);
      return false;
    }
    return true;
  };
  for (const auto& v : m.graph().input())
    if (!check(v)) return false;
  for (const auto& v : m.graph().output())
    if (!check(v)) return false;
  return true;
}

inline std::string compare(const Tensor& got, const OnnxTensor& want, double rtol, double atol) {
  const Tensor& w = want.value;
  if (got.dtype() != w.dtype())
    return "dtype " + std::string(dtype_name(got.dtype())) + ", expected " + std::string(dtype_name(w.dtype()));
  if (!(got.shape() == w.shape()))
    return "shape " + dims_to_string(got.shape()) + ", expected " + (want.scalar ? "[]" : dims_to_string(w.shape()));
  Tensor g = contiguous(got), e = contiguous(w);
  const int64_t n = g.numel();
  Tensor gf = g.with_layout(Dims{n}, Dims{1}, g.offset()), ef = e.with_layout(Dims{n}, Dims{1}, e.offset());
  for (int64_t i = 0; i < n; ++i) {
    int64_t idx[1] = {i};
    if (is_float(w.dtype())) {
      double a = gf.get_double(idx), b = ef.get_double(idx);
      if (std::isnan(a) && std::isnan(b)) continue;
      if (std::isinf(a) || std::isinf(b)) {
        if (a == b) continue;
      } else if (std::fabs(a - b) <= atol + rtol * std::fabs(b)) {
        continue;
      }
      std::ostringstream os;
      os << "element " << i << " is " << a << ", expected " << b;
      return os.str();
    }
    if (gf.get_int(idx) != ef.get_int(idx))
      return "element " + std::to_string(i) + " is " + std::to_string(gf.get_int(idx)) +
             ", expected " + std::to_string(ef.get_int(idx));
  }
  return {};
}

inline OnnxTensor read_pb(const fs::path& p) {
  std::vector<uint8_t> bytes = read_file_bounded(p.string(), int64_t(1) << 30, "tensor");
  return tensor_from_proto_bytes(bytes, p.filename().string());
}

}  // namespace backend_detail

// The test folders of every suite that exist on this machine, as "suite/test_name".
inline std::vector<std::string> backend_tests() {
  std::vector<std::string> out;
  for (const char* suite : kBackendSuites) {
    fs::path dir = fs::path(kBackendDataRoot) / suite;
    if (!fs::is_directory(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir))
      if (fs::exists(e.path() / "model.onnx"))
        out.push_back(std::string(suite) + "/" + e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline BackendResult run_backend_test(const std::string& folder, double rtol = 1e-3,
                                      double atol = 1e-7) {
  const fs::path dir = fs::path(kBackendDataRoot) / folder;
  const std::string model_path = (dir / "model.onnx").string();
  {
    std::vector<uint8_t> bytes = read_file_bounded(model_path, int64_t(1) << 31, "model");
    onnx::ModelProto m;
    std::string why;
    if (!m.ParseFromArray(bytes.data(), int(bytes.size())))
      return {BackendOutcome::out_of_scope, "model does not parse"};
    if (!backend_detail::mlvm_dtypes_only(m, why)) {
      // Out of mlvm's dtypes: the import must still fail cleanly (an Error, no crash).
      try {
        Program::from_onnx(model_path);
      } catch (const Error&) {
      }
      return {BackendOutcome::out_of_scope, why};
    }
  }
  try {
    Program program = Program::from_onnx(model_path);
    std::vector<fs::path> sets;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0)
        sets.push_back(e.path());
    std::sort(sets.begin(), sets.end());
    const auto inputs = program.inputs();
    for (const fs::path& set : sets) {
      std::vector<Tensor> args;
      for (std::size_t k = 0;; ++k) {
        fs::path p = set / ("input_" + std::to_string(k) + ".pb");
        if (!fs::exists(p)) break;
        // Lent as a host lends an array: flush against a guard page (common/guard_pages.hpp).
        args.push_back(guarded_copy(backend_detail::read_pb(p).value));
      }
      // A model whose initializers double as inputs takes only its true inputs.
      if (args.size() > inputs.size()) args.resize(inputs.size());
      SessionOptions so;
      so.threads = test_threads();
      so.max_memory = int64_t(4) << 30;
      so.max_steps = 50'000'000;
      Session session(program, so);
      std::vector<Tensor> got = session.run_positional(args);
      for (std::size_t k = 0;; ++k) {
        fs::path p = set / ("output_" + std::to_string(k) + ".pb");
        if (!fs::exists(p)) break;
        if (k >= got.size()) return {BackendOutcome::fail, "fewer outputs than expected"};
        std::string diff = backend_detail::compare(got[k], backend_detail::read_pb(p), rtol, atol);
        if (!diff.empty())
          return {BackendOutcome::fail, set.filename().string() + " output " + std::to_string(k) + ": " + diff};
      }
    }
    return {BackendOutcome::pass, {}};
  } catch (const Error& e) {
    std::string msg = std::string(error_kind_name(e.kind())) + ": " + e.message();
    std::replace(msg.begin(), msg.end(), '\n', ' ');
    return {BackendOutcome::fail, msg};
  }
}

}  // namespace mlvm::testing
