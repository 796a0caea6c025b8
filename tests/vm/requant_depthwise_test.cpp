// The i8 depthwise convolution with its requantization in the kernel's registers
// (kernels/simd/depthwise_blocked_i8.inl): channels in lanes, so a per-channel multiplier is a
// register of them. Its results must be the unfused program's integers at every SIMD level and
// thread count: the layer chains mlvm-quantize writes (all steps in registers), multipliers
// past i16 and lookup tables (step by step), channels not a multiple of a register, planes of
// fewer pixels than a register, wide strided planes, 5x5 windows and results of every width.
#include <boost/test/unit_test.hpp>

#include <string>

#include "common/requant_check.hpp"

using namespace mlvm;
using namespace mlvm::test;

namespace {

// A depthwise conv2d of x : i8[dims] (C channels) with w : i8[C, 1, k, k] and bias b, then
// `chain` (its last line writes y), checked fused against unfused.
void check_depthwise(const std::string& dims, int64_t c, int64_t k, const std::string& conv_attrs,
                     const std::string& out_type, const std::string& consts, const std::string& chain,
                     std::size_t steps, const Dims& x_shape, uint64_t seed) {
  const std::string kk = std::to_string(k), cc = std::to_string(c);
  check_requant(".input x : i8[" + dims + "]\n.input w : i8[" + cc + ", 1, " + kk + ", " + kk + "]\n" +
                    i32_constant("b", {c}, -20000, 20000, int64_t(seed)) + consts + ".output y : " + out_type + "\n",
                ".output acc", "\n    acc = conv2d x, w, b, " + conv_attrs + ", groups=" + cc + "\n" + chain,
                steps,
                {{"x", full_range(DType::i8, x_shape, seed)},
                 {"w", full_range(DType::i8, {c, 1, k, k}, seed + 1)}});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(vm_requant_depthwise)

BOOST_AUTO_TEST_CASE(layer_chains_into_i8_and_i16) {
  // 20 channels: a register of 16 (8 at AVX2) and a partial one; 14 x 14 and 7 x 7 planes.
  check_depthwise("2, 20, 14, 14", 20, 3, "padding=(1, 1, 1, 1)", "i8[2, 20, 14, 14]",
                  i32_constant("m", {20, 1, 1}, 1, 32767, 3), kRelu6I8, 5, {2, 20, 14, 14}, 11);
  check_depthwise("1, 37, 13, 13", 37, 3, "padding=(1, 1, 1, 1), strides=(2, 2)", "i8[1, 37, 7, 7]",
                  i32_constant("m", {37, 1, 1}, -32768, 32767, 4), kRelu6I8, 5, {1, 37, 13, 13}, 12);
  // Into i16 (the next 1x1 conv's 16-bit input), a clip after a shift of 0 bits.
  check_depthwise("1, 24, 9, 11", 24, 3, "padding=(1, 1, 1, 1)", "i16[1, 24, 9, 11]",
                  i32_constant("m", {24, 1, 1}, 100, 20000, 5), R"(
    acc = relu acc
    t = cvm_right_shift acc, precision=16, shift_bit=2
    t = mul t, m
    t = cvm_right_shift t, precision=14, shift_bit=15
    t = clip t, a_min=0, a_max=4095
    y = cast t, dtype=i16
)",
                  5, {1, 24, 9, 11}, 13);
}

BOOST_AUTO_TEST_CASE(other_chains_step_by_step) {
  // Multipliers past i16's range: the product in 32 bits.
  check_depthwise("1, 19, 14, 14", 19, 3, "padding=(1, 1, 1, 1)", "i8[1, 19, 14, 14]",
                  i32_constant("m", {19, 1, 1}, -5000000, 5000000, 6), R"(
    acc = relu acc
    t = cvm_right_shift acc, precision=8, shift_bit=9
    t = mul t, m
    t = cvm_right_shift t, precision=8, shift_bit=22
    t = cast t, dtype=i8
    y = clip t, a_min=0, a_max=127
)",
                  5, {1, 19, 14, 14}, 14);
  // A clip head, an add and a lookup table (hard-swish as mlvm-quantize writes it).
  std::string table = i32_constant("tb", {200}, -128, 127, 7);
  table.replace(table.find("i32["), 4, "i8[");
  check_depthwise("1, 17, 7, 7", 17, 3, "padding=(1, 1, 1, 1)", "i8[1, 17, 7, 7]",
                  i32_constant("m", {17, 1, 1}, 1, 30000, 8) + i32_constant("off", {1}, 100, 100, 0) + table, R"(
    t = cvm_clip acc, precision=16
    t = mul t, m
    t = cvm_right_shift t, precision=8, shift_bit=22
    t = add off, t
    y = cvm_lut t, tb
)",
                  5, {1, 17, 7, 7}, 15);
  // No multiplier at all: shift, clip, into i32.
  check_depthwise("2, 16, 5, 6", 16, 3, "padding=(1, 1, 1, 1)", "i32[2, 16, 5, 6]", "", R"(
    t = cvm_right_shift acc, precision=12, shift_bit=7
    y = relu t
)",
                  2, {2, 16, 5, 6}, 16);
}

BOOST_AUTO_TEST_CASE(small_planes_wide_strided_planes_and_5x5_windows) {
  // 3 x 3 outputs: fewer pixels than a register, lane by lane.
  check_depthwise("1, 33, 3, 3", 33, 3, "padding=(1, 1, 1, 1)", "i8[1, 33, 3, 3]",
                  i32_constant("m", {33, 1, 1}, 1, 32767, 9), kRelu6I8, 5, {1, 33, 3, 3}, 17);
  // Stride 2 with 50 output columns, which the i8 path also computes channels in lanes.
  check_depthwise("1, 18, 21, 100", 18, 3, "padding=(1, 1, 1, 1), strides=(2, 2)", "i8[1, 18, 11, 50]",
                  i32_constant("m", {18, 1, 1}, 1, 32767, 10), kRelu6I8, 5, {1, 18, 21, 100}, 18);
  check_depthwise("1, 21, 12, 13", 21, 5, "padding=(2, 2, 2, 2)", "i8[1, 21, 12, 13]",
                  i32_constant("m", {21, 1, 1}, 1, 32767, 11), kRelu6I8, 5, {1, 21, 12, 13}, 19);
}

BOOST_AUTO_TEST_SUITE_END()
