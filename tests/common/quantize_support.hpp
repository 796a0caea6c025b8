// What the quantizer suites (tests/quantize/) share: programs from text, runs, the module's
// constants by name, seeded calibration data, the digits data set's files, and accuracy.
#pragma once

#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "bytecode/verifier.hpp"
#include "common/tensor_helpers.hpp"
#include "common/tensors.hpp"
#include "mlvm/mlvm.hpp"
#include "quantize/quantizer.hpp"
#include "vm/program_access.hpp"

namespace mlvm::quant_test {

inline const std::string kSamples = MLVM_SOURCE_DIR "/samples/";
inline const std::string kCalibration = kSamples + "quantize/data/digits_train.npz";
inline const std::string kTestImages = kSamples + "digits/data/test_x.npy";
inline const std::string kTestLabels = kSamples + "digits/data/test_y.npy";

inline Program assemble(const std::string& text) { return Program::assemble(text, "test.mlasm"); }

// The quantized module as a Program, verified again with strict precision (as mlvm-asm
// --strict-precision would), so every suite checks the proof on what it runs.
inline Program strict_program(const Module& m) {
  VerifyOptions o;
  o.strict_precision = true;
  return program_from_module(m, o);
}

inline TensorMap run(const Program& p, const TensorMap& inputs = {}) {
  Session s(p);
  return s.run(inputs);
}

inline const Tensor& constant_named(const Module& m, const std::string& name) {
  for (const ConstDecl& c : m.constants)
    if (c.name == name) return c.value;
  BOOST_FAIL("the module has no constant '" + name + "'");
  static const Tensor none;
  return none;
}

// Uniform f32 values in [lo, hi), from a fixed seed.
inline Tensor random_f32(const Dims& shape, double lo, double hi, uint64_t seed) {
  mlvm::testing::Rng rng{seed};
  std::vector<double> v(std::size_t(checked_numel(shape)));
  for (double& x : v) x = rng.uniform(lo, hi);
  return mlvm::testing::make(DType::f32, shape, v);
}

inline double max_abs_diff(const Tensor& a, const Tensor& b) {
  const std::vector<double> x = mlvm::testing::values(a), y = mlvm::testing::values(b);
  BOOST_REQUIRE_EQUAL(x.size(), y.size());
  double m = 0;
  for (std::size_t k = 0; k < x.size(); ++k) m = std::max(m, std::fabs(x[k] - y[k]));
  return m;
}

inline double max_abs(const Tensor& a) {
  double m = 0;
  for (double x : mlvm::testing::values(a)) m = std::max(m, std::fabs(x));
  return m;
}

// Percent of rows of `logits` [N, C] whose argmax is the label.
inline double accuracy(const Tensor& logits, const Tensor& labels) {
  const std::vector<double> l = mlvm::testing::values(logits);
  const std::vector<int64_t> y = mlvm::testing::int_values(labels);
  const std::size_t classes = std::size_t(logits.dim(1));
  int64_t hits = 0;
  for (std::size_t r = 0; r < y.size(); ++r) {
    const auto row = l.begin() + std::ptrdiff_t(r * classes);
    hits += int64_t(std::max_element(row, row + std::ptrdiff_t(classes)) - row) == y[r];
  }
  return 100.0 * double(hits) / double(y.size());
}

// The report's rows as their ops, in order.
inline std::vector<std::string> report_ops(const std::vector<quant::LayerReport>& layers) {
  std::vector<std::string> ops;
  for (const quant::LayerReport& l : layers) ops.push_back(l.op);
  return ops;
}

// The report's row for the op named `op` (the test fails without one).
inline const quant::LayerReport& report_row(const quant::QuantizeResult& r, const std::string& op) {
  for (const quant::LayerReport& l : r.layers)
    if (l.op == op) return l;
  BOOST_FAIL("the report has no row " + op);
  return r.layers.front();
}

}  // namespace mlvm::quant_test
