// The quantizer's arithmetic (quantize/scales.hpp) on hand-computed cases: power-of-two
// exponents, per-channel weights, biases, constants, requantization multipliers and shifts,
// and the integer pipeline they stand for.
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "common/checks.hpp"
#include "quantize/scales.hpp"

using namespace mlvm;
using namespace mlvm::quant;
using mlvm::testing::expect_error;

BOOST_AUTO_TEST_SUITE(quantize_scales)

BOOST_AUTO_TEST_CASE(pow2_exponent_is_the_finest_scale_that_holds_the_range) {
  BOOST_TEST(pow2_exponent(1.0, 8) == 6);     // 64 <= 127 < 128
  BOOST_TEST(pow2_exponent(0.3, 8) == 8);     // 76.8 <= 127 < 153.6
  BOOST_TEST(pow2_exponent(127.0, 8) == 0);
  BOOST_TEST(pow2_exponent(127.5, 8) == -1);  // 63.75
  BOOST_TEST(pow2_exponent(1.0, 16) == 14);   // 16384 <= 32767 < 32768
  BOOST_TEST(pow2_exponent(0.0, 8) == 0);     // nothing to hold
  BOOST_TEST(pow2_exponent(1e-300, 8) == 100);  // clamped
  BOOST_TEST(pow2_exponent(1e-310, 8) == 100);  // 127 / 1e-310 overflows a double
  BOOST_TEST(pow2_exponent(1e300, 8) == -100);
}

BOOST_AUTO_TEST_CASE(weights_are_quantized_per_output_channel) {
  // Row 0: max 1 -> scale 1/127; row 1: max 0.1 -> scale 0.1/127; row 2: all zeros -> the
  // floor, 1/127/64. No element sits on a rounding tie.
  const Tensor w = make_tensor<float>({3, 3}, {0.75f, -1.0f, 0.2f, 0.1f, 0.0f, -0.03f, 0.0f, 0.0f, 0.0f});
  const ChannelWeights q = quantize_weights(w);
  BOOST_TEST(q.q.dtype() == DType::i8);
  BOOST_TEST(to_vector<int8_t>(q.q) == (std::vector<int8_t>{95, -127, 25, 127, 0, -38, 0, 0, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(q.scale.size() == 3u);
  BOOST_TEST(q.scale[0] == 1.0 / 127, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(q.scale[1] == double(0.1f) / 127, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(q.scale[2] == 1.0 / 127 / 64, boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(seven_bit_weights_hold_63) {
  // The same rows in 7 bits: scales max / 63 (the floor 1/63/64); 0.75·63 = 47.25, 0.2·63 =
  // 12.6, -0.03/0.1·63 = -18.9. Only 7 and 8 bits are kernels' formats.
  const Tensor w = make_tensor<float>({3, 3}, {0.75f, -1.0f, 0.2f, 0.1f, 0.0f, -0.03f, 0.0f, 0.0f, 0.0f});
  const ChannelWeights q = quantize_weights(w, 7);
  BOOST_TEST(to_vector<int8_t>(q.q) == (std::vector<int8_t>{47, -63, 13, 63, 0, -19, 0, 0, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(q.scale[0] == 1.0 / 63, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(q.scale[1] == double(0.1f) / 63, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(q.scale[2] == 1.0 / 63 / 64, boost::test_tools::tolerance(1e-12));
  expect_error([&] { quantize_weights(w, 6); }, ErrorKind::invalid, "weight bits must be 7 or 8, got 6");
}

BOOST_AUTO_TEST_CASE(a_tiny_channel_gets_the_floor_scale) {
  const Tensor w = make_tensor<float>({2, 1}, {1.0f, 1e-9f});
  const ChannelWeights q = quantize_weights(w);
  BOOST_TEST(q.scale[1] == 1.0 / 127 / 64, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(to_vector<int8_t>(q.q)[1] == 0);
}

BOOST_AUTO_TEST_CASE(biases_go_to_each_channels_accumulator_scale) {
  const Tensor b = make_tensor<float>({2}, {1.0f, -2.0f});
  const Tensor q = quantize_bias(b, std::ldexp(1.0, -6), {1.0 / 127, 0.5 / 127});
  BOOST_TEST(q.dtype() == DType::i32);
  BOOST_TEST(to_vector<int32_t>(q) == (std::vector<int32_t>{8128, -32512}), boost::test_tools::per_element());
  expect_error([&] { quantize_bias(make_tensor<float>({1}, {1e9f}), 1.0, {1e-3}); }, ErrorKind::invalid,
               {"output channel 0", "must fit 31 bits"});
  expect_error([&] { quantize_bias(b, 1.0, {1.0}); }, ErrorKind::invalid, "2 values for 1 output channels");
}

BOOST_AUTO_TEST_CASE(constants_are_rounded_at_their_exponent) {
  const Tensor c = make_tensor<float>({3}, {0.5f, -1.25f, 0.3f});
  BOOST_TEST(to_vector<int32_t>(quantize_constant(c, 4, 30)) == (std::vector<int32_t>{8, -20, 5}),
             boost::test_tools::per_element());
  expect_error([&] { quantize_constant(c, 40, 30); }, ErrorKind::invalid, {"constant element 0", "30 bits"});
}

BOOST_AUTO_TEST_CASE(requant_keeps_the_accumulator_within_half_of_16_bits) {
  // acc_max 1000 fits: no pre-shift; 0.5 * 2^15 = 16384 is the largest multiplier <= 32767.
  Requant r = choose_requant({0.5, 0.25}, 1000);
  BOOST_TEST(r.pre_shift == 0);
  BOOST_TEST(r.shift == 15);
  BOOST_TEST(r.multiplier == (std::vector<int32_t>{16384, 8192}), boost::test_tools::per_element());
  // 100000 / 2^3 = 12500 <= 16383.5; then 0.5 * 2^(3 + 12) = 16384.
  r = choose_requant({0.5, 0.25}, 100000);
  BOOST_TEST(r.pre_shift == 3);
  BOOST_TEST(r.shift == 12);
  BOOST_TEST(r.multiplier == (std::vector<int32_t>{16384, 8192}), boost::test_tools::per_element());
  // 1e6 / 2^6 = 15625; 3e-5 * 2^30 = 32212.25 -> 32212, 2^31 would give 64424.
  r = choose_requant({3e-5}, 1e6);
  BOOST_TEST(r.pre_shift == 6);
  BOOST_TEST(r.shift == 24);
  BOOST_TEST(r.multiplier == (std::vector<int32_t>{32212}), boost::test_tools::per_element());
  expect_error([&] { choose_requant({40000.0}, 1); }, ErrorKind::invalid, "too large for a right shift");
}

BOOST_AUTO_TEST_CASE(the_integer_pipeline_rounds_half_up_and_clips) {
  // docs/ops.md's cvm_right_shift example.
  std::vector<int64_t> got;
  for (int64_t x : {-7, -6, -5, 5, 6, 7}) got.push_back(cvm_right_shift_value(x, 8, 2));
  BOOST_TEST(got == (std::vector<int64_t>{-2, -1, -1, 1, 2, 2}), boost::test_tools::per_element());
  const Requant r{0, 15, {16384, 8192}};
  BOOST_TEST(requant_value(1000, r, 0, 16) == 500);  // 1000 * 0.5
  BOOST_TEST(requant_value(1000, r, 0, 8) == 127);   // clipped to 8 bits
  BOOST_TEST(requant_value(-1001, r, 1, 16) == -250);  // -250.25
  // A pre-shift first: 100000 >> 3 = 12500, * 16384 >> 12 = 50000 -> clipped at 32767.
  BOOST_TEST(requant_value(100000, Requant{3, 12, {16384}}, 0, 16) == 32767);
  BOOST_TEST(requant_value(100000, Requant{3, 13, {16384}}, 0, 16) == 25000);
}

BOOST_AUTO_TEST_SUITE_END()
