// The i8 GEMM's choice of kernel by B's values (kernels/gemm.hpp): at the AVX2 level (no VNNI)
// a B without negatives takes the vpmaddubsw kernel with B as u8, one with negatives but free
// of -128 the sign-trick kernel, a B holding one -128 anywhere the i16 pairs; with VNNI
// (avx512 on a CPU with it, avx2 with AVX-VNNI) the u8·s8 quads take every B. Either way, at
// every level, on 1, 2 and 3 threads and with operands packed ahead, the result is the exact
// sum modulo 2^32 of an independent loop, bit for bit. The values are the ones where
// vpmaddubsw would saturate if the choice were wrong: A at -128 against B at ±127 (pair sums
// of ±32512, the largest the kernels see), and A negative against B's -128. An operand
// packed ahead within [-64, 64] (7-bit weights) takes, at AVX2 without VNNI, the kernels that
// shift the other one to u8, whatever its values: at the extremes, 2·255·64 = 32640.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "common/guard_pages.hpp"
#include "kernels/gemm.hpp"
#include "kernels/simd/cpu_features.hpp"
#include "kernels/thread_pool.hpp"
#include "simd_test_support.hpp"

using namespace mlvm;
using mlvm::testing::guarded_vector;

namespace {

using simd_test::LevelGuard;
using simd_test::levels;

struct Shape {
  int64_t m, n, k;
};

// Around the sign kernel's blocks: MR 6, NR 16, KU 4, KC 1024, MC 120; M = 1; K past KC.
const Shape kShapes[] = {{1, 1, 1},    {6, 16, 4},    {7, 17, 5},     {5, 40, 1030}, {13, 33, 2100},
                         {1, 300, 77}, {130, 70, 65}, {64, 100, 576}, {3, 2100, 9}};

// Row-major A (m x k) and B (k x n); C = A·B + bias per column, modulo 2^32.
std::vector<int32_t> naive(const Shape& s, const std::vector<int8_t>& a, const std::vector<int8_t>& b,
                           const std::vector<int32_t>& bias) {
  std::vector<int32_t> c(std::size_t(s.m * s.n));
  for (int64_t i = 0; i < s.m; ++i)
    for (int64_t j = 0; j < s.n; ++j) {
      uint32_t sum = uint32_t(bias[std::size_t(j)]);
      for (int64_t k = 0; k < s.k; ++k)
        sum += uint32_t(int32_t(a[std::size_t(i * s.k + k)]) * int32_t(b[std::size_t(k * s.n + j)]));
      c[std::size_t(i * s.n + j)] = int32_t(sum);
    }
  return c;
}

// Runs the GEMM on no pool, on pools of 2 and 3, and with A and B packed ahead; every result
// must equal the naive one. Returns the kernel that ran unpacked (gemm_int8_kernel).
int check(const Shape& s, const std::vector<int8_t>& av, const std::vector<int8_t>& bv, std::mt19937_64& rng,
           ThreadPool* pool2, ThreadPool* pool3) {
  const guarded_vector<int8_t> a(av.begin(), av.end()), b(bv.begin(), bv.end());
  std::vector<int32_t> bias(std::size_t(s.n));
  for (auto& v : bias) v = int32_t(rng());
  const std::vector<int32_t> want = naive(s, av, bv, bias);
  GemmArgs<int8_t> g;
  g.m = s.m, g.n = s.n, g.k = s.k;
  g.a = a.data(), g.rsa = s.k, g.csa = 1;
  g.b = b.data(), g.rsb = s.n, g.csb = 1;
  g.ldc = s.n;
  g.bias = bias.data(), g.bias_stride = 1;
  const auto pa = gemm_prepack_a(g), pb = gemm_prepack_b(g);
  auto small = [](const std::vector<int8_t>& v) {
    return std::all_of(v.begin(), v.end(), [](int8_t x) { return x >= -64 && x <= 64; });
  };
  // Packed ahead: A within 7 bits first, then B, where the level has the sign trick.
  const bool offsets = gemm_prefers_b_values<int8_t>();
  const int offset_kernel = offsets && small(av) ? 4 : offsets && small(bv) ? 5 : 0;
  // Variants 6-8: A alone packed ahead, B packed here (kernel 6 when A is small and B holds no
  // negative value).
  const bool b_nonnegative = std::all_of(bv.begin(), bv.end(), [](int8_t x) { return x >= 0; });
  for (int variant = 0; variant < 9; ++variant) {
    GemmArgs<int8_t> gv = g;
    if (variant >= 3) gv.a_packed = pa.get();
    if (variant >= 3 && variant < 6) gv.b_packed = pb.get();
    ThreadPool* pool = variant % 3 == 1 ? pool2 : variant % 3 == 2 ? pool3 : nullptr;
    guarded_vector<int32_t> c(std::size_t(s.m * s.n), 7);
    gv.c = c.data();
    gemm(gv, pool);
    BOOST_TEST_CONTEXT("variant " << variant) {
      BOOST_TEST((std::memcmp(c.data(), want.data(), want.size() * 4) == 0));
      // B packed ahead is known free of -128, not of negatives: the sign trick at most.
      const int unpacked = gemm_int8_kernel(g);
      if (variant >= 3 && variant < 6)
        BOOST_TEST(gemm_int8_kernel(gv) == (offset_kernel ? offset_kernel : unpacked == 2 ? 1 : unpacked));
      if (variant >= 6 && offsets && small(av)) BOOST_TEST(gemm_int8_kernel(gv) == (b_nonnegative ? 6 : 4));
    }
  }
  return gemm_int8_kernel(g);
}

std::vector<int8_t> fill(int64_t count, std::mt19937_64& rng, int lo, int hi) {
  std::vector<int8_t> v(static_cast<std::size_t>(count));
  std::uniform_int_distribution<int> d(lo, hi);
  for (auto& x : v) x = int8_t(d(rng));
  return v;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(gemm_int8)

// B in [0, 127] takes the u8 kernel at AVX2 and B in [-127, 127] the sign kernel (A over the
// whole range, -128 included); one -1 planted in the first, at its first, a middle or its last
// element, sends it to the sign kernel, one -128 in the second to the pairs.
BOOST_AUTO_TEST_CASE(b_values) {
  LevelGuard guard;
  ThreadPool pool2(2), pool3(3);
  for (const simd_test::GemmLevel& level : simd_test::gemm_levels()) {
    simd_test::set_gemm_level(level);
    const bool quads = simd::level() == simd::Level::avx2 ? simd::avx2_uses_vnni() : simd::level() == simd::Level::avx512 && simd::cpu_has_avx512_vnni();
    // Without VNNI at avx2 the kernel follows B's values; elsewhere one kernel takes every B.
    const int general = quads ? 3 : 0;
    const int sign = simd::level() == simd::Level::avx2 && !quads ? 1 : general, unsigned_b = sign == 1 ? 2 : general;
    std::mt19937_64 rng(44);
    for (const Shape& s : kShapes)
      BOOST_TEST_CONTEXT(simd::current_level_name() << " m=" << s.m << " n=" << s.n << " k=" << s.k) {
        const std::vector<int8_t> a = fill(s.m * s.k, rng, -128, 127);
        const std::vector<int8_t> b_pos = fill(s.k * s.n, rng, 0, 127), b = fill(s.k * s.n, rng, -127, 127);
        BOOST_TEST(check(s, a, b_pos, rng, &pool2, &pool3) == unsigned_b);
        if (s.k * s.n >= 64) BOOST_TEST(check(s, a, b, rng, &pool2, &pool3) == sign);
        for (int64_t at : {int64_t(0), s.k * s.n / 2, s.k * s.n - 1}) {
          std::vector<int8_t> b1 = b_pos, b2 = b;
          b1[std::size_t(at)] = -1;
          b2[std::size_t(at)] = -128;
          BOOST_TEST(check(s, a, b1, rng, &pool2, &pool3) == sign);
          BOOST_TEST(check(s, a, b2, rng, &pool2, &pool3) == general);
        }
      }
  }
}

// The extremes: A all -128 against B all 127 (the u8 kernel), all -127, and ±127 mixed (pair
// sums of ±32512); A ±127 against B all 127 and all -127; and A negative against B all -128,
// which must take neither (-(-128) wraps in s8, and 128 is no s8 either).
BOOST_AUTO_TEST_CASE(extremes) {
  LevelGuard guard;
  ThreadPool pool2(2), pool3(3);
  for (const simd_test::GemmLevel& level : simd_test::gemm_levels()) {
    simd_test::set_gemm_level(level);
    const bool quads = simd::level() == simd::Level::avx2 ? simd::avx2_uses_vnni() : simd::level() == simd::Level::avx512 && simd::cpu_has_avx512_vnni();
    // Without VNNI at avx2 the kernel follows B's values; elsewhere one kernel takes every B.
    const int general = quads ? 3 : 0;
    const int sign = simd::level() == simd::Level::avx2 && !quads ? 1 : general, unsigned_b = sign == 1 ? 2 : general;
    std::mt19937_64 rng(45);
    for (const Shape& s : {Shape{7, 33, 1030}, Shape{13, 17, 64}, Shape{1, 1, 4099}})
      BOOST_TEST_CONTEXT(simd::current_level_name() << " m=" << s.m << " n=" << s.n << " k=" << s.k) {
        const std::vector<int8_t> lo_a(std::size_t(s.m * s.k), int8_t(-128));
        const std::vector<int8_t> mixed_a = fill(s.m * s.k, rng, -1, 0);
        std::vector<int8_t> pm_a = mixed_a, pm_b(std::size_t(s.k * s.n));
        for (auto& x : pm_a) x = x ? int8_t(-127) : int8_t(127);
        for (auto& x : pm_b) x = rng() % 2 ? int8_t(-127) : int8_t(127);
        BOOST_TEST(check(s, lo_a, std::vector<int8_t>(pm_b.size(), 127), rng, &pool2, &pool3) == unsigned_b);
        BOOST_TEST(check(s, pm_a, std::vector<int8_t>(pm_b.size(), 127), rng, &pool2, &pool3) == unsigned_b);
        BOOST_TEST(check(s, lo_a, std::vector<int8_t>(pm_b.size(), -127), rng, &pool2, &pool3) == sign);
        BOOST_TEST(check(s, lo_a, pm_b, rng, &pool2, &pool3) == sign);
        BOOST_TEST(check(s, pm_a, std::vector<int8_t>(pm_b.size(), -127), rng, &pool2, &pool3) == sign);
        BOOST_TEST(check(s, lo_a, std::vector<int8_t>(pm_b.size(), -128), rng, &pool2, &pool3) == general);
        BOOST_TEST(check(s, pm_a, std::vector<int8_t>(pm_b.size(), -128), rng, &pool2, &pool3) == general);
      }
  }
}

// A within [-64, 64] against B over the whole range, -128 and 127 included, and the mirror:
// the offset kernels (4 and 5) when packed ahead at AVX2 without VNNI, and against B within
// [0, 127] (kernel 6), the extremes of their
// pair sums (A ±64 against B -128 and 127, i.e. u8 0 and 255), K past KC (the corrections per
// k block), every level and pool.
BOOST_AUTO_TEST_CASE(seven_bit_operands) {
  LevelGuard guard;
  ThreadPool pool2(2), pool3(3);
  for (const simd_test::GemmLevel& level : simd_test::gemm_levels()) {
    simd_test::set_gemm_level(level);
    std::mt19937_64 rng(46);
    for (const Shape& s : {Shape{7, 33, 1030}, Shape{13, 17, 64}, Shape{1, 1, 4099}, Shape{64, 100, 576},
                           Shape{5, 40, 9}})
      BOOST_TEST_CONTEXT(simd::current_level_name() << " m=" << s.m << " n=" << s.n << " k=" << s.k) {
        const std::vector<int8_t> a7 = fill(s.m * s.k, rng, -64, 64), b7 = fill(s.k * s.n, rng, -64, 64);
        const std::vector<int8_t> a = fill(s.m * s.k, rng, -128, 127), b = fill(s.k * s.n, rng, -128, 127);
        std::vector<int8_t> a_ext(a7.size()), b_ext(b.size()), a_ext8(a.size()), b_ext7(b7.size());
        for (auto& x : a_ext) x = rng() % 2 ? int8_t(64) : int8_t(-64);
        for (auto& x : b_ext) x = rng() % 2 ? int8_t(127) : int8_t(-128);
        for (auto& x : a_ext8) x = rng() % 2 ? int8_t(127) : int8_t(-128);
        for (auto& x : b_ext7) x = rng() % 2 ? int8_t(64) : int8_t(-64);
        check(s, a7, b, rng, &pool2, &pool3);
        check(s, a_ext, b_ext, rng, &pool2, &pool3);
        check(s, std::vector<int8_t>(a7.size(), 64), std::vector<int8_t>(b.size(), 127), rng, &pool2, &pool3);
        check(s, std::vector<int8_t>(a7.size(), -64), std::vector<int8_t>(b.size(), -128), rng, &pool2, &pool3);
        check(s, a, b7, rng, &pool2, &pool3);
        check(s, a_ext8, b_ext7, rng, &pool2, &pool3);
        // B within [0, 127] (kernel 6 with A alone packed ahead): four products of ±64 · 127
        // summed in i16, ±32512, and random ones.
        const std::vector<int8_t> b_pos = fill(s.k * s.n, rng, 0, 127);
        check(s, a7, b_pos, rng, &pool2, &pool3);
        check(s, a_ext, std::vector<int8_t>(b.size(), 127), rng, &pool2, &pool3);
        check(s, std::vector<int8_t>(a7.size(), 64), std::vector<int8_t>(b.size(), 127), rng, &pool2, &pool3);
        check(s, std::vector<int8_t>(a7.size(), -64), std::vector<int8_t>(b.size(), 127), rng, &pool2, &pool3);
      }
  }
}

BOOST_AUTO_TEST_SUITE_END()
