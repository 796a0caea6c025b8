// The CVM clip and shift ops at their dtype's bounds: every i8 value against every precision and
// shift (exhaustive), and the extreme values of i16/i32/i64, at every SIMD level. The reference
// is the formula of ../shared/spec/ops.md ("Catalogue": cvm_clip, cvm_right_shift,
// cvm_left_shift) in exact int64 arithmetic, clipped to ±(2^(p-1)-1); a clip range wider than
// the dtype leaves every value of the dtype unchanged (the dtype's minimum included).
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "common/op_runner.hpp"
#include "simd_test_support.hpp"

using namespace mlvm;
using namespace mlvm::testing;
using mlvm::simd_test::LevelGuard;
using mlvm::simd_test::levels;

namespace {

int64_t alpha_of(int p) { return (int64_t(1) << (p - 1)) - 1; }

int64_t clip_to(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

// The CVM result, then saturated to T: only a range wider than T can reach past T, and then
// every in-range value of T is already its own result.
template <class T>
int64_t to_dtype(int64_t v) {
  return clip_to(v, int64_t(std::numeric_limits<T>::min()), int64_t(std::numeric_limits<T>::max()));
}

int64_t ref_clip(int64_t x, int p) { return clip_to(x, -alpha_of(p), alpha_of(p)); }

// floor((floor(x / 2^(b-1)) + 1) / 2), with floor division written out (no shifts), in 128
// bits so that the + 1 cannot overflow at INT64_MAX.
__int128 floor_div(__int128 a, __int128 d) {
  __int128 q = a / d;
  if ((a % d != 0) && ((a < 0) != (d < 0))) --q;
  return q;
}
int64_t ref_right_shift(int64_t x, int p, int b) {
  return ref_clip(int64_t(floor_div(floor_div(x, __int128(1) << (b - 1)) + 1, 2)), p);
}

// x * 2^b in 128 bits, then clipped: exact for every int64 x and b <= 32.
int64_t ref_left_shift(int64_t x, int p, int b) {
  const __int128 v = __int128(x) * (__int128(1) << b);
  const __int128 a = alpha_of(p);
  return int64_t(v < -a ? -a : v > a ? a : v);
}

template <class T>
Tensor tensor_of(const std::vector<T>& v) {
  Tensor t = Tensor::empty(dtype_of<T>::value, Dims{int64_t(v.size())});
  std::memcpy(t.raw_data(), v.data(), v.size() * sizeof(T));
  return t;
}

// Runs the three ops on `xs` for every precision p (and shift b) and compares with the reference.
template <class T>
void check_all(const std::vector<T>& xs, const std::vector<int>& shifts) {
  const Tensor x = tensor_of(xs);
  int failures = 0;
  for (int p = 1; p <= 32 && failures < 5; ++p) {
    const Tensor c = run_all(Opcode::cvm_clip, {x}, attrs_for(Opcode::cvm_clip, {AttrValue::integer(p)}))[0];
    for (std::size_t k = 0; k < xs.size(); ++k) {
      const int64_t want = to_dtype<T>(ref_clip(xs[k], p)), got = c.data<T>()[k];
      if (want != got && failures++ < 5)
        BOOST_ERROR("cvm_clip " << dtype_name(x.dtype()) << " x=" << int64_t(xs[k]) << " p=" << p << ": " << got
                                << ", want " << want);
    }
    for (int b : shifts) {
      const Attrs a = attrs_for(Opcode::cvm_right_shift, {AttrValue::integer(p), AttrValue::integer(b)});
      const Tensor r = run_all(Opcode::cvm_right_shift, {x}, a)[0];
      const Tensor l = run_all(Opcode::cvm_left_shift, {x}, a)[0];
      for (std::size_t k = 0; k < xs.size(); ++k) {
        const int64_t want_r = to_dtype<T>(ref_right_shift(xs[k], p, b)), got_r = r.data<T>()[k];
        const int64_t want_l = to_dtype<T>(ref_left_shift(xs[k], p, b)), got_l = l.data<T>()[k];
        if (want_r != got_r && failures++ < 5)
          BOOST_ERROR("cvm_right_shift x=" << int64_t(xs[k]) << " p=" << p << " b=" << b << ": " << got_r
                                           << ", want " << want_r);
        if (want_l != got_l && failures++ < 5)
          BOOST_ERROR("cvm_left_shift x=" << int64_t(xs[k]) << " p=" << p << " b=" << b << ": " << got_l
                                          << ", want " << want_l);
      }
    }
  }
}

template <class T>
std::vector<T> extremes() {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {L::min(), T(L::min() + 1), T(L::min() + 2), T(-1), T(0), T(1), T(L::max() - 1), L::max()};
  // Around the clip bound of every precision, where it fits the dtype.
  for (int p = 1; p <= 32; ++p) {
    const int64_t a = alpha_of(p);
    for (int64_t d : {-1, 0, 1})
      for (int64_t s : {-1, 1})
        if (s * (a + d) >= int64_t(L::min()) && s * (a + d) <= int64_t(L::max())) v.push_back(T(s * (a + d)));
  }
  return v;
}

std::vector<int> all_shifts() {
  std::vector<int> b;
  for (int k = 1; k <= 32; ++k) b.push_back(k);
  return b;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kernels_cvm_bounds)

BOOST_AUTO_TEST_CASE(every_i8_value_precision_and_shift) {
  std::vector<int8_t> xs;
  for (int v = -128; v <= 127; ++v) xs.push_back(int8_t(v));
  LevelGuard guard;
  for (simd::Level level : levels()) {
    simd::set_level_for_testing(level);
    BOOST_TEST_CONTEXT("SIMD level " << int(level)) { check_all(xs, all_shifts()); }
  }
}

BOOST_AUTO_TEST_CASE(a_range_wider_than_the_dtype_keeps_its_minimum) {
  // The reported case: i8 -128 through cvm_clip with precision 12 came out as -127.
  const Tensor x = tensor_of<int8_t>({-128, -127, 127});
  const Tensor wide = run_all(Opcode::cvm_clip, {x}, attrs_for(Opcode::cvm_clip, {AttrValue::integer(12)}))[0];
  BOOST_TEST(wide.data<int8_t>()[0] == -128);
  BOOST_TEST(wide.data<int8_t>()[2] == 127);
  const Tensor exact = run_all(Opcode::cvm_clip, {x}, attrs_for(Opcode::cvm_clip, {AttrValue::integer(8)}))[0];
  BOOST_TEST(exact.data<int8_t>()[0] == -127);  // precision 8 is the CVM range ±127
}

BOOST_AUTO_TEST_CASE(extremes_of_wider_dtypes) {
  LevelGuard guard;
  for (simd::Level level : levels()) {
    simd::set_level_for_testing(level);
    BOOST_TEST_CONTEXT("SIMD level " << int(level)) {
      check_all(extremes<int16_t>(), all_shifts());
      check_all(extremes<int32_t>(), all_shifts());
      check_all(extremes<int64_t>(), all_shifts());
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
