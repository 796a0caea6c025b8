// Two corrections PP-OCRv4's recognizer needed (docs/quantize.md, "A real model"), each checked
// against numbers computed here: a conv2d's bias takes back what rounding its weights takes
// away at the calibrated mean of its input (bias correction), so a flat input (a rendered
// line's white margin) comes out as the float program computes it; and a matmul by constant
// weights followed by an add of a constant over its columns is one layer with that bias, the
// product not rounded to 8 bits first.
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "bytecode/builder.hpp"
#include "bytecode/disassembler.hpp"
#include "common/quantize_support.hpp"

using namespace mlvm;
using namespace mlvm::quant_test;
using mlvm::testing::int_values;
using mlvm::testing::values;

namespace {

const Dims kBcWeights{3, 2, 3, 3};

// conv2d (no padding: every output sees 9 taps of each input channel) by large weights, as a
// folded batch norm makes them; y is the output (16 bits).
Program bc_conv(const Tensor& w, const Tensor& b) {
  ModuleBuilder m("bc");
  m.input("x", tensor_type(DType::f32, {kDynamic, 2, 6, 6}));
  m.output("y");
  m.constant("w", w);
  m.constant("b", b);
  m.emit("y", "conv2d", {"x", "w", "b"});
  return program_from_module(m.build());
}

// Samples around channel means 0.75 and -0.5 (+-0.05), and the flat input at the means.
Tensor bc_samples(const std::vector<double>& means, int64_t count, double noise, uint64_t seed) {
  mlvm::testing::Rng rng{seed};
  std::vector<double> v(std::size_t(count * 2 * 36));
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = means[(k / 36) % 2] + (noise > 0 ? rng.uniform(-noise, noise) : 0.0);
  return mlvm::testing::make(DType::f32, {count, 2, 6, 6}, v);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(quantize_bias_correction)

BOOST_AUTO_TEST_CASE(a_conv_bias_takes_back_the_weights_rounding_at_the_input_mean) {
  const Tensor w = random_f32(kBcWeights, -8, 8, 71), b = random_f32({3}, -1, 1, 72);
  const std::vector<double> means{0.75, -0.5};
  const Tensor x = bc_samples(means, 16, 0.05, 73);
  const Program f = bc_conv(w, b);
  const quant::QuantizeResult r = quant::quantize_program(f, x);

  // By hand: the calibrated channel means, the weights per output channel (scale max|w[o]| /
  // 127, rounded half away from zero), and the float bias less the rounding at the means.
  const std::vector<double> xv = values(x), wv = values(w), bv = values(b);
  std::vector<double> mean(2, 0.0);
  for (std::size_t k = 0; k < xv.size(); ++k) mean[(k / 36) % 2] += xv[k] / (16.0 * 36.0);
  const int ex = r.layers[0].exponent;
  BOOST_TEST(ex == 7);  // max |x| = 0.8: 0.8 * 128 = 102 <= 127
  std::vector<int64_t> wq(wv.size()), bq(3);
  std::vector<double> rounding(3, 0.0);  // what the uncorrected integer conv loses on a flat input
  for (std::size_t o = 0; o < 3; ++o) {
    double top = 0;
    for (std::size_t k = 0; k < 18; ++k) top = std::max(top, std::fabs(wv[o * 18 + k]));
    const double s = top / 127.0;
    double c = 0;
    for (std::size_t k = 0; k < 18; ++k) {
      wq[o * 18 + k] = int64_t(std::round(wv[o * 18 + k] / s));
      c += (wv[o * 18 + k] - double(wq[o * 18 + k]) * s) * mean[k / 9];
      rounding[o] += (wv[o * 18 + k] - double(wq[o * 18 + k]) * s) * means[k / 9];
    }
    bq[o] = int64_t(std::round((bv[o] + c) / (std::ldexp(1.0, -ex) * s)));
  }
  BOOST_TEST(int_values(constant_named(r.module, "w.q")) == wq, boost::test_tools::per_element());
  BOOST_TEST(int_values(constant_named(r.module, "b.q")) == bq, boost::test_tools::per_element());

  // On the flat input (both means are multiples of 2^-7: no input rounding) the rounding of
  // the weights was worth more than 0.02 on some channel; corrected, every output is within
  // a tenth of the largest of it (what is left: the calibration mean's noise, the bias's and
  // the requantization's rounding).
  const Tensor flat = bc_samples(means, 1, 0.0, 0);
  const std::vector<double> fy = values(run(f, {{"x", flat}}).at("y"));
  const std::vector<double> qy = values(run(strict_program(r.module), {{"x", flat}}).at("y"));
  double worst = 0;
  for (double d : rounding) worst = std::max(worst, std::fabs(d));
  BOOST_TEST(worst > 0.02);
  BOOST_REQUIRE_EQUAL(fy.size(), qy.size());
  for (std::size_t k = 0; k < fy.size(); ++k) BOOST_TEST(std::fabs(qy[k] - fy[k]) < 0.1 * worst);
}

BOOST_AUTO_TEST_CASE(a_conv_without_a_bias_gets_one) {
  ModuleBuilder m("nb");
  m.input("x", tensor_type(DType::f32, {kDynamic, 2, 6, 6}));
  m.output("y");
  m.constant("w", random_f32(kBcWeights, -8, 8, 74));
  m.emit("y", "conv2d", {"x", "w"});
  const Program f = program_from_module(m.build());
  const Tensor x = bc_samples({0.75, -0.5}, 8, 0.05, 75);
  const quant::QuantizeResult r = quant::quantize_program(f, x);
  BOOST_TEST(int_values(constant_named(r.module, "y.bias.q")).size() == 3u);
  const Tensor flat = bc_samples({0.75, -0.5}, 1, 0.0, 0);
  const Tensor fy = run(f, {{"x", flat}}).at("y");
  BOOST_TEST(max_abs_diff(run(strict_program(r.module), {{"x", flat}}).at("y"), fy) < 0.01);
}

BOOST_AUTO_TEST_CASE(a_matmul_and_the_add_of_its_bias_are_one_layer) {
  // x [?, 4, 8] @ w [8, 5] + b [5]: ONNX's MatMul and Add for a linear layer.
  const Tensor w = random_f32({8, 5}, -1, 1, 76), b = random_f32({5}, -2, 2, 77);
  ModuleBuilder m("mm");
  m.input("x", tensor_type(DType::f32, {kDynamic, 4, 8}));
  m.output("y");
  m.constant("w", w);
  m.constant("b", b);
  m.emit("h", "matmul", {"x", "w"});
  m.emit("y", "add", {"h", "b"});
  const Program f = program_from_module(m.build());
  const Tensor x = random_f32({16, 4, 8}, -1, 1, 78);
  const quant::QuantizeResult r = quant::quantize_program(f, x);
  BOOST_TEST(report_ops(r.layers) == (std::vector<std::string>{"input", "matmul+add"}), boost::test_tools::per_element());
  BOOST_TEST(r.layers[1].bits == 16);
  // The bias at each column's accumulator scale, by hand: b[j] / (2^-ex * max_i |w[i, j]| / 127).
  const std::vector<double> wv = values(w), bv = values(b);
  const int ex = r.layers[0].exponent;
  std::vector<int64_t> bq(5);
  for (std::size_t j = 0; j < 5; ++j) {
    double top = 0;
    for (std::size_t i = 0; i < 8; ++i) top = std::max(top, std::fabs(wv[i * 5 + j]));
    bq[j] = int64_t(std::round(bv[j] / (std::ldexp(1.0, -ex) * top / 127.0)));
  }
  BOOST_TEST(int_values(constant_named(r.module, "y.bias.q")) == bq, boost::test_tools::per_element());
  // No 8-bit product between the matmul and its bias: the only i8 values are the input's and
  // the weights'.
  const std::string text = disassemble(r.module).text;
  std::size_t casts = 0;
  for (std::size_t at = text.find("dtype=i8"); at != std::string::npos; at = text.find("dtype=i8", at + 1)) ++casts;
  BOOST_TEST(casts == 1u);
  const Tensor fy = run(f, {{"x", x}}).at("y");
  BOOST_TEST(max_abs_diff(run(strict_program(r.module), {{"x", x}}).at("y"), fy) < 0.02 * max_abs(fy));
}

BOOST_AUTO_TEST_SUITE_END()
