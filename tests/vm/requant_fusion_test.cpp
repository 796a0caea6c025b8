// Plan-time fusion of the integer path's requantization (vm/fuse.cpp, Kind::requant): the
// relu, cvm_right_shift and cvm_clip steps that alone read an integer conv2d, dense or matmul's
// result are folded into it, and the fused program gives the very integers of the unfused one
// at every SIMD level and thread count — odd sizes, padding, strides, depthwise, strided
// inputs, inputs holding -128 or only non-negative values (the AVX2 kernels' cases), results
// in several cache blocks. The unfused reference is the same program with the intermediate
// also declared an output, which keeps it alive and so blocks fusion (checked on its plan).
#include <boost/test/unit_test.hpp>

#include <string>

#include "common/requant_check.hpp"
#include "common/tensor_helpers.hpp"
#include "common/tensors.hpp"
#include "kernels/simd/cpu_features.hpp"

using namespace mlvm;
using namespace mlvm::test;
using namespace mlvm::testing;

BOOST_AUTO_TEST_SUITE(vm_requant_fusion)

BOOST_AUTO_TEST_CASE(conv_relu_shift_clip) {
  check_requant(R"(
.input x : i8[2, 16, 13, 11]
.input w : i8[20, 16, 3, 3]
.input b : i32[20]
.output y : i32[2, 20, 13, 11]
)", ".output h : i32[2, 20, 13, 11]", R"(
    h = conv2d x, w, b, padding=(1, 1)
    r = relu h
    s = cvm_right_shift r, precision=8, shift_bit=7
    y = cvm_clip s, precision=6
)", 3, {{"x", full_range(DType::i8, {2, 16, 13, 11}, 1)}, {"w", full_range(DType::i8, {20, 16, 3, 3}, 2)},
          {"b", full_range(DType::i32, {20}, 3)}});
}

BOOST_AUTO_TEST_CASE(conv_in_several_row_blocks_nonnegative_input) {
  // 24 x 69-wide rows of i32: the result goes through L2 in blocks of rows; x >= 0 takes the
  // AVX2 level's unsigned-B kernel.
  check_requant(R"(
.input x : i8[1, 8, 70, 67]
.input w : i8[24, 8, 3, 3]
.output y : i32[1, 24, 70, 67]
)", ".output h : i32[1, 24, 70, 67]", R"(
    h = conv2d x, w, padding=(1, 1)
    y = cvm_right_shift h, precision=8, shift_bit=9
)", 1, {{"x", nonnegative(DType::i8, {1, 8, 70, 67}, 4)}, {"w", full_range(DType::i8, {24, 8, 3, 3}, 5)}});
}

BOOST_AUTO_TEST_CASE(strided_conv_of_a_strided_input_then_clip) {
  check_requant(R"(
.input x : i8[1, 6, 17, 15]
.input w : i8[7, 6, 3, 5]
.output y : i32[1, 7, 9, 7]
)", ".output h : i32[1, 7, 9, 7]", R"(
    h = conv2d x, w, padding=(1, 1, 1, 1), strides=(2, 2)
    y = cvm_clip h, precision=9
)", 1, {{"x", full_range(DType::i8, {1, 6, 17, 15}, 6, Layout::flipped)}, {"w", full_range(DType::i8, {7, 6, 3, 5}, 7)}});
}

BOOST_AUTO_TEST_CASE(unpadded_conv_and_depthwise) {
  check_requant(R"(
.input x : i8[1, 5, 9, 12]
.input w : i8[4, 5, 2, 2]
.output y : i32[1, 4, 8, 11]
)", ".output h : i32[1, 4, 8, 11]", R"(
    h = conv2d x, w
    t = cvm_right_shift h, precision=5, shift_bit=2
    y = relu t
)", 2, {{"x", full_range(DType::i8, {1, 5, 9, 12}, 8, Layout::sliced)}, {"w", full_range(DType::i8, {4, 5, 2, 2}, 9)}});
  check_requant(R"(
.input x : i8[2, 6, 19, 21]
.input w : i8[6, 1, 3, 3]
.input b : i32[6]
.output y : i32[2, 6, 10, 11]
)", ".output h : i32[2, 6, 10, 11]", R"(
    h = conv2d x, w, b, padding=(1, 1), strides=(2, 2), groups=6
    y = cvm_right_shift h, precision=8, shift_bit=4
)", 1, {{"x", full_range(DType::i8, {2, 6, 19, 21}, 10)}, {"w", full_range(DType::i8, {6, 1, 3, 3}, 11)},
          {"b", full_range(DType::i32, {6}, 12)}});
}

BOOST_AUTO_TEST_CASE(grouped_and_dilated_convs) {
  check_requant(R"(
.input x : i8[2, 12, 15, 14]
.input w : i8[10, 6, 3, 3]
.output y : i32[2, 10, 15, 14]
)", ".output h : i32[2, 10, 15, 14]", R"(
    h = conv2d x, w, padding=(1, 1), groups=2
    y = cvm_right_shift h, precision=7, shift_bit=6
)", 1, {{"x", full_range(DType::i8, {2, 12, 15, 14}, 26)}, {"w", full_range(DType::i8, {10, 6, 3, 3}, 27)}});
  check_requant(R"(
.input x : i8[1, 5, 21, 19]
.input w : i8[8, 5, 3, 3]
.output y : i32[1, 8, 21, 19]
)", ".output h : i32[1, 8, 21, 19]", R"(
    h = conv2d x, w, padding=(2, 2), dilation=(2, 2)
    y = cvm_clip h, precision=10
)", 1, {{"x", full_range(DType::i8, {1, 5, 21, 19}, 28)}, {"w", full_range(DType::i8, {8, 5, 3, 3}, 29)}});
}

BOOST_AUTO_TEST_CASE(dense_in_several_row_blocks) {
  // 2000 x 300 i32 results: more than one 2 MB block.
  check_requant(R"(
.input x : i8[2000, 19]
.input w : i8[300, 19]
.input b : i32[300]
.output y : i32[2000, 300]
)", ".output h : i32[2000, 300]", R"(
    h = dense x, w, b
    r = relu h
    y = cvm_right_shift r, precision=8, shift_bit=3
)", 2, {{"x", full_range(DType::i8, {2000, 19}, 13)}, {"w", full_range(DType::i8, {300, 19}, 14, Layout::transposed)},
          {"b", full_range(DType::i32, {300}, 15)}});
}

BOOST_AUTO_TEST_CASE(dense_odd_sizes_and_batched_matmul_wide_shift) {
  check_requant(R"(
.input x : i8[37, 53]
.input w : i8[29, 53]
.output y : i32[37, 29]
)", ".output h : i32[37, 29]", R"(
    h = dense x, w
    y = cvm_clip h, precision=12
)", 1, {{"x", full_range(DType::i8, {37, 53}, 16)}, {"w", full_range(DType::i8, {29, 53}, 17)}});
  // shift_bit 32: the 64-bit form of the rounding shift.
  check_requant(R"(
.input a : i16[3, 5, 7]
.input b : i16[3, 7, 9]
.output y : i32[3, 5, 9]
)", ".output h : i32[3, 5, 9]", R"(
    h = matmul a, b
    t = cvm_right_shift h, precision=32, shift_bit=32
    y = cvm_clip t, precision=2
)", 2, {{"a", full_range(DType::i16, {3, 5, 7}, 18)}, {"b", full_range(DType::i16, {3, 7, 9}, 19)}});
}

BOOST_AUTO_TEST_CASE(dense_clip_then_relu) {
  check_requant(R"(
.input x : i8[9, 31]
.input w : i8[14, 31]
.output y : i32[9, 14]
)", ".output h : i32[9, 14]", R"(
    h = dense x, w
    c = cvm_clip h, precision=11
    y = relu c
)", 2, {{"x", full_range(DType::i8, {9, 31}, 30)}, {"w", full_range(DType::i8, {14, 31}, 31)}});
}

BOOST_AUTO_TEST_CASE(i64_dense) {
  check_requant(R"(
.input x : i64[6, 10]
.input w : i64[5, 10]
.output y : i64[6, 5]
)", ".output h : i64[6, 5]", R"(
    h = dense x, w
    y = cvm_right_shift h, precision=20, shift_bit=17
)", 1, {{"x", full_range(DType::i64, {6, 10}, 20)}, {"w", full_range(DType::i64, {5, 10}, 21)}});
}

BOOST_AUTO_TEST_CASE(the_chains_mlvm_quantize_writes) {
  // quantize/rescale.cpp's requantize: a fresh register for the first shift, then the
  // multiplier and the final shift over it (these stay unfused), and a relu written in place.
  check_requant(R"(
.input x : i8[1, 7, 12, 10]
.input w : i8[9, 7, 3, 3]
.input b : i32[9]
.input m : i32[9, 1, 1]
.output y : i8[1, 9, 12, 10]
)", ".output acc : i32[1, 9, 12, 10]", R"(
    acc = conv2d x, w, b, padding=(1, 1)
    acc = relu acc
    t = cvm_right_shift acc, precision=16, shift_bit=3
    t = mul t, m
    t = cvm_right_shift t, precision=8, shift_bit=9
    y = cast t, dtype=i8
)", 2, {{"x", full_range(DType::i8, {1, 7, 12, 10}, 22)}, {"w", full_range(DType::i8, {9, 7, 3, 3}, 23)},
          {"b", full_range(DType::i32, {9}, 24)}, {"m", make_input(DType::i32, {9, 1, 1}, Layout::contiguous, Fill::small, 25)}});
}

BOOST_AUTO_TEST_CASE(mlvm_quantize_chain_with_constant_multipliers_and_a_lookup_table) {
  // quantize/rescale.cpp's requantization by per-channel constant multipliers, then
  // lower_pointwise.cpp's table: the cast to i32 (no step), the table's offset and the
  // cvm_lut, whose indices reach below 0 and past the table (clipped); the final cast to i16
  // too, which the conv then writes (a narrowing requantization).
  const std::string consts = i32_constant("m", {9, 1, 1}, 1, 30000, 3) + i32_constant("off", {1}, 2040, 2040, 0) +
                             i32_constant("tab", {4000}, -32767, 32767, 11);
  check_requant(R"(
.input x : i8[1, 7, 12, 10]
.input w : i8[9, 7, 3, 3]
.input b : i32[9]
.output y : i16[1, 9, 12, 10]
)" + consts, ".output acc : i32[1, 9, 12, 10]", R"(
    acc = conv2d x, w, b, padding=(1, 1)
    t = cvm_right_shift acc, precision=16, shift_bit=3
    t = mul t, m
    t = cvm_right_shift t, precision=12, shift_bit=14
    i = cast t, dtype=i32
    i = add off, i
    q = cvm_lut i, tab
    y = cast q, dtype=i16
)", 7, {{"x", full_range(DType::i8, {1, 7, 12, 10}, 40)}, {"w", full_range(DType::i8, {9, 7, 3, 3}, 41)},
          {"b", full_range(DType::i32, {9}, 42)}});
}

BOOST_AUTO_TEST_CASE(mlvm_quantize_integer_hard_swish) {
  // quantize/lower_product.cpp's x · clip(x + a, lo, hi): add, clip and mul of the chain's
  // value by that (one self_mul step, either operand order), then a shift, a multiplier, a
  // bias and a shift; into i8 after a 1x1 conv, into i16 after an i16 depthwise one (the
  // kernels' register chains, LayerChain's tail 2), and with a clip for the shift.
  const std::string consts = i32_constant("m", {9, 1, 1}, 1, 30000, 3) + i32_constant("a", {1}, 192, 192, 0) +
                             i32_constant("k", {1}, -9000, -9000, 0) + i32_constant("c", {1}, 77777, 77777, 0);
  check_requant(R"(
.input x : i8[1, 7, 12, 21]
.input w : i8[9, 7, 1, 1]
.input b : i32[9]
.output y : i8[1, 9, 12, 21]
)" + consts, ".output acc : i32[1, 9, 12, 21]", R"(
    acc = conv2d x, w, b
    t = cvm_clip acc, precision=16
    t = mul t, m
    t = cvm_right_shift t, precision=12, shift_bit=10
    u = add t, a
    u = clip u, a_min=0, a_max=384
    p = mul t, u
    p = cvm_right_shift p, precision=16, shift_bit=5
    p = mul p, k
    p = add p, c
    p = cvm_right_shift p, precision=8, shift_bit=14
    y = cast p, dtype=i8
)", 11, {{"x", full_range(DType::i8, {1, 7, 12, 21}, 50)}, {"w", full_range(DType::i8, {9, 7, 1, 1}, 51)},
           {"b", full_range(DType::i32, {9}, 52)}});
  check_requant(R"(
.input x : i16[2, 6, 19, 37]
.input w : i16[6, 1, 5, 5]
.output y : i16[2, 6, 19, 37]
)" + consts + i32_constant("m6", {1, 6, 1, 1}, -500, 20000, 5),
                ".output acc : i32[2, 6, 19, 37]", R"(
    acc = conv2d x, w, padding=(2, 2), groups=6
    t = cvm_right_shift acc, precision=16, shift_bit=9
    t = mul m6, t
    t = cvm_right_shift t, precision=12, shift_bit=13
    u = add a, t
    u = clip u, a_min=-100, a_max=384
    p = mul u, t
    p = cvm_clip p, precision=16
    p = mul p, k
    p = cvm_right_shift p, precision=16, shift_bit=12
    y = cast p, dtype=i16
)", 10, {{"x", full_range(DType::i16, {2, 6, 19, 37}, 53)}, {"w", full_range(DType::i16, {6, 1, 5, 5}, 54)}});
}

BOOST_AUTO_TEST_CASE(per_channel_multipliers_of_depthwise_and_grouped_convs) {
  // The multiplier of channel g·OC/groups + o, in the depthwise planes and in each group's
  // GEMM blocks; i16 inputs as mlvm-quantize widens them; a relu and a clip among the steps.
  check_requant(R"(
.input x : i16[2, 6, 19, 21]
.input w : i16[6, 1, 3, 3]
.output y : i32[2, 6, 10, 11]
)" + i32_constant("m", {1, 6, 1, 1}, -500, 20000, 5),
                ".output acc : i32[2, 6, 10, 11]", R"(
    acc = conv2d x, w, padding=(1, 1), strides=(2, 2), groups=6
    t = cvm_right_shift acc, precision=16, shift_bit=9
    t = mul m, t
    t = relu t
    t = cvm_right_shift t, precision=9, shift_bit=13
    y = cvm_clip t, precision=7
)", 5, {{"x", full_range(DType::i16, {2, 6, 19, 21}, 43)}, {"w", full_range(DType::i16, {6, 1, 3, 3}, 44)}});
  check_requant(R"(
.input x : i8[2, 12, 15, 14]
.input w : i8[10, 6, 3, 3]
.output y : i32[2, 10, 15, 14]
)" + i32_constant("m", {10, 1, 1}, 1, 30000, 6),
                ".output acc : i32[2, 10, 15, 14]", R"(
    acc = conv2d x, w, padding=(1, 1), groups=2
    t = cvm_clip acc, precision=16
    t = mul t, m
    y = cvm_right_shift t, precision=8, shift_bit=12
)", 3, {{"x", full_range(DType::i8, {2, 12, 15, 14}, 45)}, {"w", full_range(DType::i8, {10, 6, 3, 3}, 46)}});
}

BOOST_AUTO_TEST_CASE(per_column_multipliers_of_dense_and_matmul) {
  // 2000 x 300: rows in more than one cache block, each row's column j by multiplier j.
  check_requant(R"(
.input x : i8[2000, 19]
.input w : i8[300, 19]
.output y : i32[2000, 300]
)" + i32_constant("m", {300}, 1, 30000, 7) + i32_constant("tab", {256}, -127, 127, 8),
                ".output h : i32[2000, 300]", R"(
    h = dense x, w
    t = cvm_right_shift h, precision=16, shift_bit=2
    t = mul t, m
    t = cvm_right_shift t, precision=8, shift_bit=16
    y = cvm_lut t, tab
)", 4, {{"x", full_range(DType::i8, {2000, 19}, 47)}, {"w", full_range(DType::i8, {300, 19}, 48)}});
  check_requant(R"(
.input a : i8[3, 5, 7]
.input b : i8[3, 7, 9]
.output y : i32[3, 5, 9]
)" + i32_constant("m", {1, 1, 9}, -3, 3, 9) + i32_constant("one", {1, 1}, 5, 5, 0),
                ".output h : i32[3, 5, 9]", R"(
    h = matmul a, b
    t = mul h, one
    t = mul t, m
    y = add t, one
)", 3, {{"a", full_range(DType::i8, {3, 5, 7}, 49)}, {"b", full_range(DType::i8, {3, 7, 9}, 50)}});
}

BOOST_AUTO_TEST_CASE(constants_per_row_or_widening_the_result_stay_unfused) {
  // A multiplier per dense row ([9, 1]) is not per column; one of [2, 3, 1, 1] against a
  // [1, 3, 3, 3] result broadcasts it to [2, 3, 3, 3]; an add of more than one element, a
  // table that is not a constant and a cast to another dtype end the chain too.
  const Program per_row = program_from(R"(
.input x : i8[9, 31]
.input w : i8[14, 31]
.output y : i32[9, 14]
)" + i32_constant("m", {9, 1}, 1, 100, 1) + R"(
    h = dense x, w
    t = cvm_right_shift h, precision=16, shift_bit=4
    y = mul t, m
)");
  Fused f = fused_of(per_row);
  BOOST_TEST((f.absorbed[1] && !f.absorbed[2]));
  const Program widening = program_from(R"(
.input x : i8[1, 2, 5, 5]
.input w : i8[3, 2, 3, 3]
.output y : i32[2, 3, 3, 3]
)" + i32_constant("m", {2, 3, 1, 1}, 1, 100, 2) + R"(
    h = conv2d x, w
    y = mul h, m
)");
  BOOST_TEST(!fused_of(widening).absorbed[1]);
  const Program others = program_from(R"(
.input x : i8[1, 2, 5, 5]
.input w : i8[3, 2, 3, 3]
.input tab : i32[50]
.output y : i32[1, 3, 3, 3]
.output z : i64[1, 3, 3, 3]
)" + i32_constant("two", {3, 1, 1}, 1, 2, 3) + R"(
    h = conv2d x, w
    t = add h, two
    y = cvm_lut t, tab
    g = conv2d x, w
    s = cvm_right_shift g, precision=8, shift_bit=4
    z = cast s, dtype=i64
)");
  f = fused_of(others);
  BOOST_TEST((!f.absorbed[1] && !f.absorbed[2] && f.absorbed[4] && !f.absorbed[5]));
}

BOOST_AUTO_TEST_CASE(narrowing_requantization_on_every_conv_path) {
  // The chain's last step a cast to i8, u8 or i16, or a table of them: the conv writes those
  // elements itself. Through the window GEMM (stride 1, padded: AVX-512 VNNI), the phase
  // planes (strided), the input as is (1x1), a grouped conv and the depthwise planes; tables
  // with negative entries (sign-extended, then truncated back).
  const std::string t8 = i32_constant("t8", {300}, -127, 127, 12);
  std::string i8_table = t8;
  i8_table.replace(i8_table.find("i32["), 4, "i8[");
  std::string u8_table = i32_constant("tu", {300}, 0, 255, 13);
  u8_table.replace(u8_table.find("i32["), 4, "u8[");
  check_requant(R"(
.input x : i8[1, 7, 13, 17]
.input w : i8[9, 7, 3, 3]
.output y : i8[1, 9, 13, 17]
)" + i32_constant("m", {9, 1, 1}, 1, 30000, 14),
                ".output acc : i32[1, 9, 13, 17]", R"(
    acc = conv2d x, w, padding=(1, 1)
    t = cvm_right_shift acc, precision=16, shift_bit=6
    t = mul t, m
    t = cvm_right_shift t, precision=8, shift_bit=15
    y = cast t, dtype=i8
)", 4, {{"x", full_range(DType::i8, {1, 7, 13, 17}, 53)}, {"w", full_range(DType::i8, {9, 7, 3, 3}, 54)}});
  check_requant(R"(
.input x : i16[2, 12, 9, 10]
.input w : i16[20, 12, 1, 1]
.output y : i8[2, 20, 9, 10]
)" + i8_table, ".output acc : i32[2, 20, 9, 10]", R"(
    acc = conv2d x, w
    t = cvm_right_shift acc, precision=9, shift_bit=20
    y = cvm_lut t, t8
)", 2, {{"x", full_range(DType::i16, {2, 12, 9, 10}, 55)}, {"w", full_range(DType::i16, {20, 12, 1, 1}, 56)}});
  check_requant(R"(
.input x : i8[1, 6, 17, 15]
.input w : i8[8, 6, 3, 3]
.output y : u8[1, 8, 8, 7]
)" + u8_table, ".output acc : i32[1, 8, 8, 7]", R"(
    acc = conv2d x, w, strides=(2, 2)
    t = cvm_right_shift acc, precision=10, shift_bit=5
    y = cvm_lut t, tu
)", 2, {{"x", full_range(DType::i8, {1, 6, 17, 15}, 57)}, {"w", full_range(DType::i8, {8, 6, 3, 3}, 58)}});
  check_requant(R"(
.input x : i8[2, 12, 15, 14]
.input w : i8[10, 6, 3, 3]
.output y : u8[2, 10, 15, 14]
)", ".output acc : i32[2, 10, 15, 14]", R"(
    acc = conv2d x, w, padding=(1, 1), groups=2
    t = relu acc
    t = cvm_right_shift t, precision=9, shift_bit=9
    y = cast t, dtype=u8
)", 3, {{"x", full_range(DType::i8, {2, 12, 15, 14}, 59)}, {"w", full_range(DType::i8, {10, 6, 3, 3}, 60)}});
  check_requant(R"(
.input x : i16[2, 6, 19, 21]
.input w : i16[6, 1, 3, 3]
.output y : i16[2, 6, 10, 11]
)", ".output acc : i32[2, 6, 10, 11]", R"(
    acc = conv2d x, w, padding=(1, 1), strides=(2, 2), groups=6
    t = cvm_right_shift acc, precision=16, shift_bit=12
    y = cast t, dtype=i16
)", 2, {{"x", full_range(DType::i16, {2, 6, 19, 21}, 61)}, {"w", full_range(DType::i16, {6, 1, 3, 3}, 62)}});
  // MobileNet's ReLU6 as mlvm-quantize writes it: a clip of the requantized integers.
  check_requant(R"(
.input x : i16[1, 8, 11, 12]
.input w : i16[8, 1, 3, 3]
.output y : i16[1, 8, 11, 12]
)" + i32_constant("m", {8, 1, 1}, 1, 30000, 15),
                ".output acc : i32[1, 8, 11, 12]", R"(
    acc = conv2d x, w, padding=(1, 1), groups=8
    acc = relu acc
    t = cvm_right_shift acc, precision=16, shift_bit=9
    t = mul t, m
    t = cvm_right_shift t, precision=16, shift_bit=13
    t = clip t, a_min=0, a_max=24576
    y = cast t, dtype=i16
)", 6, {{"x", full_range(DType::i16, {1, 8, 11, 12}, 63)}, {"w", full_range(DType::i16, {8, 1, 3, 3}, 64)}});
}

BOOST_AUTO_TEST_CASE(a_clip_after_the_narrowing_cast_joins_the_chain) {
  // ReLU6 of an 8-bit layer as mlvm-quantize writes it: the clip after the cast to i8. It is
  // a step before the narrowing when the chain keeps the value within i8 (precision 8), on
  // the 1x1 path of MobileNet's expansions and on a padded 3x3 one, and for u8 after a relu.
  const std::string m = i32_constant("m", {11, 1, 1}, 1, 30000, 16);
  for (const char* conv : {"acc = conv2d x, w1", "acc = conv2d x, w3, padding=(1, 1)"})
    check_requant(R"(
.input x : i8[1, 13, 15, 17]
.input w1 : i8[11, 13, 1, 1]
.input w3 : i8[11, 13, 3, 3]
.output y : i8[1, 11, 15, 17]
)" + m, ".output acc : i32[1, 11, 15, 17]", std::string("\n    ") + conv + R"(
    acc = relu acc
    t = cvm_right_shift acc, precision=16, shift_bit=3
    t = mul t, m
    t = cvm_right_shift t, precision=8, shift_bit=17
    q = cast t, dtype=i8
    y = clip q, a_min=0, a_max=96
)", 6, {{"x", full_range(DType::i8, {1, 13, 15, 17}, 65)}, {"w1", full_range(DType::i8, {11, 13, 1, 1}, 66)},
        {"w3", full_range(DType::i8, {11, 13, 3, 3}, 67)}});
  check_requant(R"(
.input x : i8[2, 5, 9, 7]
.input w : i8[6, 5, 1, 1]
.output y : u8[2, 6, 9, 7]
)", ".output acc : i32[2, 6, 9, 7]", R"(
    acc = conv2d x, w
    t = cvm_right_shift acc, precision=8, shift_bit=6
    t = relu t
    q = cast t, dtype=u8
    y = clip q, a_min=3, a_max=100
)", 4, {{"x", full_range(DType::i8, {2, 5, 9, 7}, 68)}, {"w", full_range(DType::i8, {6, 5, 1, 1}, 69)}});
  // After a multiplier the chain's own bounds say nothing of the range (the precision
  // tracking proves it): the cast is fused, the clip stays a step of its own, the bits agree.
  const std::string header = R"(
.input x : i8[1, 13, 15, 17]
.input w : i8[11, 13, 1, 1]
.output y : i8[1, 11, 15, 17]
.const three : i32[1] = [3]
)";
  const std::string body = R"(
    acc = conv2d x, w
    t = cvm_right_shift acc, precision=5, shift_bit=9
    t = mul t, three
    q = cast t, dtype=i8
    y = clip q, a_min=0, a_max=40
)";
  const Program fused = program_from(header + body, "fused.mlasm");
  const Program plain = program_from(header + ".output acc : i32[1, 11, 15, 17]\n" + body, "plain.mlasm");
  const Fused f = fused_of(fused);
  BOOST_REQUIRE(f.absorbed.size() == 5);
  BOOST_TEST((f.requant[0] != nullptr && f.absorbed[1] && f.absorbed[2] && f.absorbed[3] && !f.absorbed[4]));
  expect_same_y_everywhere(fused, plain, {{"x", full_range(DType::i8, {1, 13, 15, 17}, 70)},
                                          {"w", full_range(DType::i8, {11, 13, 1, 1}, 71)}});
}

BOOST_AUTO_TEST_CASE(a_relu_alone_stays_unfused_a_shift_after_a_clip_is_a_step) {
  // Nothing to requantize (a relu alone). A clip before the shift ends the first stage (one
  // map clamp(rshift(v))); the shift after it is then a step of its own, in order.
  const Program relu_only = program_from(R"(
.input x : i8[1, 2, 5, 5]
.input w : i8[3, 2, 3, 3]
.output y : i32[1, 3, 3, 3]
    h = conv2d x, w
    y = relu h
)");
  BOOST_TEST(!fused_of(relu_only).absorbed[1]);
  check_requant(R"(
.input x : i8[1, 2, 5, 5]
.input w : i8[3, 2, 3, 3]
.output y : i32[1, 3, 3, 3]
)", ".output h : i32[1, 3, 3, 3]", R"(
    h = conv2d x, w
    c = cvm_clip h, precision=12
    y = cvm_right_shift c, precision=8, shift_bit=2
)", 2, {{"x", full_range(DType::i8, {1, 2, 5, 5}, 51)}, {"w", full_range(DType::i8, {3, 2, 3, 3}, 52)}});
}

BOOST_AUTO_TEST_SUITE_END()
