// One dense layer with known weights, quantized and checked number by number against a hand
// (numpy) computation of docs/quantize.md's method: the input exponent, the i8 weights and i32
// biases per channel, the requantization's pre-shift, multipliers and shift, and every output
// integer of the run.
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "common/checks.hpp"
#include "common/quantize_support.hpp"

using namespace mlvm;
using namespace mlvm::quant_test;

namespace {

// No weight or input sits on a rounding tie, so the expected integers below do not depend on
// how ties round.
const char* const kDense = R"(
.program one_dense
.input  x : f32[?, 4]
.const  w : f32[2, 4] = [[0.75, -1.0, 0.2, 0.55], [0.1, 0.0, -0.03, 0.06]]
.const  b : f32[2] = [0.5, -0.25]
.output y : f32[?, 2]
    y = dense x, w, b
)";

Tensor calibration() {
  return make_tensor<float>({3, 4}, {1.0f, -1.0f, 0.5f, 2.0f, -0.5f, 0.25f, 1.0f, -2.0f, 0.3f, 0.7f, -1.5f, 1.0f});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(quantize_dense_exact)

BOOST_AUTO_TEST_CASE(scales_shifts_and_outputs_match_the_hand_computation) {
  const Program f = assemble(kDense);
  const quant::QuantizeResult r = quant::quantize_program(f, calibration());
  // The input: max |x| = 2, so 2^5 (2 * 32 = 64 <= 127 < 128).
  BOOST_TEST_REQUIRE(r.layers.size() == 2u);
  BOOST_TEST(r.layers[0].op == "input");
  BOOST_TEST(r.layers[0].exponent == 5);
  BOOST_TEST(r.input == "x");
  BOOST_TEST(r.samples == 3);

  // Per channel: scale max|w[o]| / 127 (1/127 and 0.1/127); w / scale rounded.
  BOOST_TEST(mlvm::testing::int_values(constant_named(r.module, "w.q")) ==
                 (std::vector<int64_t>{95, -127, 25, 70, 127, 0, -38, 76}),
             boost::test_tools::per_element());
  // b / (2^-5 * scale[o]): 0.5 * 32 * 127 = 2032; -0.25 * 32 * 1270 = -10160.
  BOOST_TEST(mlvm::testing::int_values(constant_named(r.module, "b.q")) == (std::vector<int64_t>{2032, -10160}),
             boost::test_tools::per_element());

  // The float outputs reach 3.45 (y is read by the output only: 16 bits): 3.45 * 2^13 =
  // 28262 <= 32767. The accumulator range, 0.45 / (2^-5 * 0.1/127) = 18288 on channel 1,
  // exceeds 16383.5: pre-shift 1. Factors 2^-5 * scale[o] * 2^13 = 2.016, 0.2016; the largest
  // shift keeping 2.016 * 2^(1 + shift) <= 32767 is 12: multipliers 16513, 1651.
  const quant::LayerReport& d = r.layers[1];
  BOOST_TEST(d.op == "dense");
  BOOST_TEST(d.result == "y");
  BOOST_TEST(d.has_weights);
  BOOST_TEST(d.weight_scale_min == double(0.1f) / 127, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(d.weight_scale_max == 1.0 / 127, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(d.exponent == 13);
  BOOST_TEST(d.bits == 16);
  BOOST_TEST(d.requantized);
  BOOST_TEST(d.pre_shift == 1);
  BOOST_TEST(d.shift == 12);
  BOOST_TEST(d.multiplier_min == 1651);
  BOOST_TEST(d.multiplier_max == 16513);
  BOOST_TEST(mlvm::testing::int_values(constant_named(r.module, "y.q.mult")) == (std::vector<int64_t>{16513, 1651}),
             boost::test_tools::per_element());

  // The run: xq = round(x * 32); acc = xq . wq + bq = [[14016, -1840], [-4184, -18272],
  // [1228, -4634]]; (acc >> 1, rounding half up) * M >> 12 (rounding half up), as integers
  // [[28253, -371], [-8434, -3683], [2475, -934]], dequantized by 2^-13.
  const Program q = strict_program(r.module);
  const Tensor y = run(q, {{"x", calibration()}}).at("y");
  BOOST_TEST(y.dtype() == DType::f32);
  const std::vector<double> want{28253, -371, -8434, -3683, 2475, -934};
  std::vector<double> got = mlvm::testing::values(y);
  for (double& v : got) v = std::ldexp(v, 13);
  BOOST_TEST(got == want, boost::test_tools::per_element());
  // The float program's own outputs are within the quantization error.
  const Tensor yf = run(f, {{"x", calibration()}}).at("y");
  BOOST_TEST(max_abs_diff(y, yf) < 0.03);
  BOOST_TEST(r.layers[1].max_error == max_abs_diff(y, yf), boost::test_tools::tolerance(1e-6));
}

BOOST_AUTO_TEST_CASE(the_program_keeps_the_float_signature_and_proves_every_integer) {
  const quant::QuantizeResult r = quant::quantize_program(assemble(kDense), calibration());
  const Program q = strict_program(r.module);
  BOOST_TEST_REQUIRE(q.inputs().size() == 1u);
  BOOST_TEST(q.inputs()[0].to_string() == "x : f32[?, 4]");
  BOOST_TEST_REQUIRE(q.outputs().size() == 1u);
  BOOST_TEST(q.outputs()[0].to_string() == "y : f32[?, 2]");
  BOOST_TEST(r.module.precision_check);
  // Every signed integer an arithmetic op reads or makes has a proven precision within its
  // type (only the cast from float, before its cvm_clip, is unproven).
  VerifyOptions o;
  o.strict_precision = true;
  const VerifyResult v = verify_module(r.module, o);
  BOOST_TEST_REQUIRE(v.ok());
  int arithmetic = 0;
  for (std::size_t pc = 0; pc < r.module.code.size(); ++pc) {
    if (!(op_info(r.module.code[pc].op).flags & OpFlags::ARITH)) continue;
    ++arithmetic;
    for (const auto* types : {&v.arg_types[pc], &v.result_types[pc]})
      for (const TensorType& t : *types)
        if (is_signed_int(t.dtype))
          BOOST_TEST((t.precision > 0 && t.precision <= int(8 * dtype_size(t.dtype))), t.to_string());
  }
  BOOST_TEST(arithmetic >= 2);  // the dense and the multiplier
}

BOOST_AUTO_TEST_CASE(inputs_outside_the_calibrated_range_saturate_instead_of_wrapping) {
  const quant::QuantizeResult r = quant::quantize_program(assemble(kDense), calibration());
  // x = -100 is far past the calibrated 2: it clips to -127 (= -3.97); acc = 127 * 127 + 2032
  // = 18161, and the output clips at 32767 * 2^-13 = 3.9998779... (the float is 100.5),
  // never wrapping around.
  const Tensor y = run(strict_program(r.module), {{"x", make_tensor<float>({1, 4}, {0, -100, 0, 0})}}).at("y");
  BOOST_TEST(mlvm::testing::values(y)[0] == 32767.0 / 8192, boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_SUITE_END()
