// The CVM unary ops (cvm_right_shift, cvm_left_shift, cvm_clip, cvm_precision) against exact
// integer references, for every shift and precision and every signed dtype.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "unary_cases.hpp"

using namespace mlvm;
using namespace mlvm::testing;

BOOST_AUTO_TEST_SUITE(kernels_unary_cvm)

BOOST_AUTO_TEST_CASE(cvm_right_shift_every_shift) {
  uint64_t seed = 7;
  for (DType t : kSignedDTypes)
    for (int p : {1, 2, 5, 8, 9, 16, 17, 31, 32})
      for (int b = 1; b <= 32; ++b) {
        Tensor x = make_input(t, Dims{64}, Layout::contiguous, Fill::full, seed++);
        // Values at the rounding boundaries of this shift: ±2^(b-1)·k ± 1.
        for (int k = 0; k < 16; ++k) {
          __int128 base = (__int128(1) << (b - 1)) * (k - 8);
          __int128 v = base + (k % 3) - 1;
          if (v >= lo_of(t) && v <= hi_of(t))
            write_elem(t, x.storage()->data() + k * x.itemsize(), iv(int64_t(v)));
        }
        UnaryCase c{"cvm_right_shift",
                    Opcode::cvm_right_shift,
                    kSignedDTypes,
                    cvm_attrs(Opcode::cvm_right_shift, {p, b}),
                    [p, b](DType, Val v) { return iv(ref_right_shift(v.i, p, b)); },
                    0,
                    t};
        BOOST_TEST_CONTEXT("p=" << p << " b=" << b << " " << dtype_name(t)) {
          check_case(c, x);
        }
      }
  // Hand-checked values: round half up.
  Tensor x = Tensor::empty(DType::i32, Dims{6});
  const int32_t v[] = {5, 6, 7, -5, -6, -7};
  std::memcpy(x.raw_data(), v, sizeof v);
  Tensor y = run_op(Opcode::cvm_right_shift, {x},
                    cvm_attrs(Opcode::cvm_right_shift, {8, 2}));  // x / 4 rounded half up
  const int32_t want[] = {1, 2, 2, -1, -1, -2};
  for (int k = 0; k < 6; ++k) BOOST_TEST(y.data<int32_t>()[k] == want[k]);
  Tensor big = Tensor::empty(DType::i64, Dims{2});
  big.data<int64_t>()[0] = INT64_MAX;
  big.data<int64_t>()[1] = INT64_MIN;
  Tensor s = run_op(Opcode::cvm_right_shift, {big}, cvm_attrs(Opcode::cvm_right_shift, {32, 32}));
  BOOST_TEST(s.data<int64_t>()[0] == INT32_MAX);  // 2^32 clipped to 2^31-1
  BOOST_TEST(s.data<int64_t>()[1] == -int64_t(INT32_MAX));
}

BOOST_AUTO_TEST_CASE(cvm_left_shift_and_clip_every_shift) {
  uint64_t seed = 9;
  for (DType t : kSignedDTypes)
    for (int p : {1, 2, 8, 9, 16, 32})
      for (int b = 1; b <= 32; ++b) {
        Tensor x =
            make_input(t, Dims{48}, Layout::contiguous, b % 2 ? Fill::full : Fill::small, seed++);
        UnaryCase c{"cvm_left_shift",
                    Opcode::cvm_left_shift,
                    kSignedDTypes,
                    cvm_attrs(Opcode::cvm_left_shift, {p, b}),
                    [p, b](DType dt, Val v) { return iv(ref_left_shift(dt, v.i, p, b)); },
                    0,
                    t};
        BOOST_TEST_CONTEXT("p=" << p << " b=" << b << " " << dtype_name(t)) {
          check_case(c, x);
        }
      }
  for (DType t : kSignedDTypes)
    for (int p = 1; p <= 32; ++p) {
      Tensor x = make_input(t, Dims{40}, Layout::contiguous, Fill::full, seed++);
      UnaryCase c{"cvm_clip",
                  Opcode::cvm_clip,
                  kSignedDTypes,
                  cvm_attrs(Opcode::cvm_clip, {p}),
                  [p](DType dt, Val v) {
                    const int64_t alpha = (int64_t(1) << (p - 1)) - 1;
                    return iv(clip_i(v.i, std::max<int64_t>(-alpha, lo_of(dt)),
                                     std::min<int64_t>(alpha, hi_of(dt))));
                  },
                  0,
                  t};
      BOOST_TEST_CONTEXT("cvm_clip p=" << p << " " << dtype_name(t)) {
        check_case(c, x);
      }
    }
  Tensor x = Tensor::empty(DType::i32, Dims{3});
  const int32_t v[] = {3, -3, 1 << 30};
  std::memcpy(x.raw_data(), v, sizeof v);
  Tensor y = run_op(Opcode::cvm_left_shift, {x}, cvm_attrs(Opcode::cvm_left_shift, {8, 2}));
  BOOST_TEST(y.data<int32_t>()[0] == 12);
  BOOST_TEST(y.data<int32_t>()[1] == -12);
  BOOST_TEST(y.data<int32_t>()[2] == 127);  // 2^32 computed without overflow, clipped
}

BOOST_AUTO_TEST_CASE(cvm_precision_values) {
  Tensor x = Tensor::empty(DType::i64, Dims{11});
  const int64_t v[] = {0, 1, -1, 2, 3, 4, 127, -128, INT64_MIN, INT64_MAX, 255};
  const int64_t want[] = {1, 1, 1, 2, 2, 3, 7, 8, 64, 63, 8};
  std::memcpy(x.raw_data(), v, sizeof v);
  Tensor y = run_op(Opcode::cvm_precision, {x}, attrs_for(Opcode::cvm_precision));
  BOOST_TEST(y.dtype() == DType::i64);  // the input's dtype
  for (int k = 0; k < 11; ++k) BOOST_TEST(y.data<int64_t>()[k] == want[k]);
}

BOOST_AUTO_TEST_SUITE_END()
