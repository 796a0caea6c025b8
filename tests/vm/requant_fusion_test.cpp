// Plan-time fusion of the integer path's requantization (vm/fuse.cpp, Kind::requant): the
// relu, cvm_right_shift and cvm_clip steps that alone read an integer conv2d, dense or matmul's
// result are folded into it, and the fused program gives the very integers of the unfused one
// at every SIMD level and thread count — odd sizes, padding, strides, depthwise, strided
// inputs, inputs holding -128 or only non-negative values (the AVX2 kernels' cases), results
// in several cache blocks. The unfused reference is the same program with the intermediate
// also declared an output, which keeps it alive and so blocks fusion (checked on its plan).
#include <boost/test/unit_test.hpp>

#include "common/tensor_helpers.hpp"
#include "common/tensors.hpp"
#include "kernels/simd/cpu_features.hpp"
#include "vm/compiled.hpp"
#include "vm/program_access.hpp"
#include "vm/vm_test_util.hpp"

using namespace mlvm;
using namespace mlvm::test;
using namespace mlvm::testing;

namespace {

// Which steps are fused away, and the requantization each step carries, if any.
struct Fused {
  std::vector<bool> absorbed;
  std::vector<const FusedActivation*> requant;
};

Fused fused_of(const Program& p) {
  const ExecPlan& plan = ProgramAccess::compiled(p).plan;
  Fused f;
  for (std::size_t pc = 0; pc < plan.code.size(); ++pc) {
    f.absorbed.push_back(plan.code[pc].kind == StepKind::fused);
    const StepExtras* x = plan.extras_of(pc);
    f.requant.push_back(x && x->activation && x->activation->kind == FusedActivation::Kind::requant
                            ? &*x->activation
                            : nullptr);
  }
  return f;
}

// header + body must fuse the `chain` steps after step 0 into it; with `hidden` (the
// intermediate declared an output) nothing may fuse. Output y agrees bit for bit.
void check_requant(const std::string& header, const std::string& hidden, const std::string& body,
                   std::size_t chain, const TensorMap& inputs) {
  const Program fused = program_from(header + body, "fused.mlasm");
  const Program plain = program_from(header + hidden + "\n" + body, "plain.mlasm");
  const Fused f = fused_of(fused), u = fused_of(plain);
  BOOST_REQUIRE(chain + 1 <= f.absorbed.size());
  BOOST_TEST(f.requant[0] != nullptr);
  for (std::size_t k = 1; k <= chain; ++k) BOOST_TEST(f.absorbed[k]);
  for (std::size_t pc = 0; pc < u.absorbed.size(); ++pc) BOOST_TEST((!u.absorbed[pc] && !u.requant[pc]));
  expect_same_y_everywhere(fused, plain, inputs);
}

Tensor full_range(DType dt, const Dims& shape, uint64_t seed, Layout lay = Layout::contiguous) {
  return make_input(dt, shape, lay, Fill::full, seed);  // -128 and 127 among them for i8
}
Tensor nonnegative(DType dt, const Dims& shape, uint64_t seed) {
  return make_input(dt, shape, Layout::contiguous, Fill::positive, seed);
}

}  // namespace

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

BOOST_AUTO_TEST_CASE(a_relu_alone_or_a_clip_before_the_shift_stays_unfused) {
  // Nothing to requantize (a relu alone), and a clip before the shift (the chain stops there:
  // the conv and its clip fuse, the shift runs on its own).
  const Program relu_only = program_from(R"(
.input x : i8[1, 2, 5, 5]
.input w : i8[3, 2, 3, 3]
.output y : i32[1, 3, 3, 3]
    h = conv2d x, w
    y = relu h
)");
  BOOST_TEST(!fused_of(relu_only).absorbed[1]);
  const Program clip_first = program_from(R"(
.input x : i8[1, 2, 5, 5]
.input w : i8[3, 2, 3, 3]
.output y : i32[1, 3, 3, 3]
    h = conv2d x, w
    c = cvm_clip h, precision=12
    y = cvm_right_shift c, precision=8, shift_bit=2
)");
  const Fused f = fused_of(clip_first);
  BOOST_TEST(f.absorbed[1]);
  BOOST_TEST(!f.absorbed[2]);
}

BOOST_AUTO_TEST_SUITE_END()
