// The f32 depthwise plane kernel (simd::DepthwisePlane, kernels/simd/depthwise_plane.inl) at
// every level that has it (AVX2, AVX-512; SSE2 has none), against a scalar loop written from
// its definition with one std::fma per tap in tap order: the kernel must give those very bits,
// at every padding, stride, plane width (partial last registers, rows narrower than one) and
// height (the last block of rows moved back), with the bias and the clamp, NaN and infinities
// included; and it must write nothing outside the output plane.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/simd/conv_depthwise.hpp"
#include "kernels/simd/cpu_features.hpp"
#include "simd_test_support.hpp"

using namespace mlvm;
using namespace mlvm::simd_test;

namespace {

struct PlaneCase {
  int64_t h, w, top, left, bottom, right, sh, sw;
};

// y[r][q] = clamp(fma-chain over (i, j) of w[i·3 + j] · pad(x)[r·sh + i][q·sw + j] + bias).
std::vector<float> reference(const PlaneCase& c, const std::vector<float>& x, const float* wt, float bias, float lo,
                             float hi, int64_t oh, int64_t ow) {
  std::vector<float> y;
  for (int64_t r = 0; r < oh; ++r)
    for (int64_t q = 0; q < ow; ++q) {
      float s = 0.f;
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j < 3; ++j) {
          const int64_t ih = r * c.sh + i - c.top, iw = q * c.sw + j - c.left;
          const float v = ih >= 0 && ih < c.h && iw >= 0 && iw < c.w ? x[std::size_t(ih * c.w + iw)] : 0.f;
          s = std::fma(wt[i * 3 + j], v, s);
        }
      const float v = s + bias;
      y.push_back(v < lo ? lo : v > hi ? hi : v);
    }
  return y;
}

const std::vector<PlaneCase>& plane_cases() {
  static const std::vector<PlaneCase> c = {
      {56, 56, 1, 1, 1, 1, 1, 1},    // MobileNet's 56 x 56: 3.5 AVX-512 registers a row
      {14, 14, 1, 1, 1, 1, 1, 1},    // one partial register a row; the second block moved back
      {8, 16, 0, 0, 0, 0, 1, 1},     // 6 output rows: fewer than a block, not offered
      {10, 16, 0, 0, 0, 0, 1, 1},    // oh 8, exactly one block; ow 14
      {12, 34, 2, 2, 2, 2, 1, 1},    // two zero rows and columns on each side
      {9, 33, 2, 0, 1, 3, 1, 1},     // asymmetric: the right padding past a whole register
      {20, 2, 1, 1, 1, 1, 1, 1},     // rows of 2: every load mostly padding
      {37, 71, 1, 1, 1, 1, 2, 2},    // stride 2, odd widths
      {112, 112, 1, 1, 1, 1, 2, 2},  // MobileNet's 112 x 112 stride 2
      {17, 40, 0, 1, 1, 0, 2, 2},    // stride 2, asymmetric
      {20, 79, 1, 1, 1, 1, 1, 2},    // column stride 2 only
      {33, 30, 1, 0, 1, 2, 2, 1},    // row stride 2 only
      {16, 64, 1, 1, 1, 1, 1, 1},    // rows of whole registers at both levels
  };
  return c;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(depthwise_plane)

BOOST_AUTO_TEST_CASE(same_bits_as_the_fma_chain_at_every_level) {
  LevelGuard guard;
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  int checked_levels = 0;
  for (simd::Level level : levels()) {
    simd::set_level_for_testing(level);
    const auto& table = simd::conv_row_kernels();
    if (level == simd::Level::sse2) {
      BOOST_TEST(!table.depthwise_plane);  // no masked loads: DepthwiseBlocked serves it
      continue;
    }
    BOOST_REQUIRE(table.depthwise_plane);
    ++checked_levels;
    Rng rng{91};
    for (std::size_t ci = 0; ci < plane_cases().size(); ++ci) {
      const PlaneCase& c = plane_cases()[ci];
      const int64_t oh = (c.h + c.top + c.bottom - 3) / c.sh + 1, ow = (c.w + c.left + c.right - 3) / c.sw + 1;
      if (!simd::depthwise_plane_fits(3, 3, c.sh, c.sw, 1, 1, oh)) {
        BOOST_TEST(oh < simd::kDepthwisePlaneRows);  // only too few rows is out
        continue;
      }
      for (int variant = 0; variant < 4; ++variant) {
        BOOST_TEST_CONTEXT(simd::level_name(level) << " case " << ci << " variant " << variant) {
          // Exactly the plane: a read past it is a heap overflow for the sanitizers.
          std::vector<float> x(std::size_t(c.h * c.w));
          for (float& v : x) v = float(rng.uniform(-2, 2));
          float wt[9];
          for (float& v : wt) v = float(rng.uniform(-2, 2));
          float bias = 0.f, lo = -inf, hi = inf;
          if (variant == 1) {  // bias and a relu6-like clamp
            bias = 0.25f;
            lo = 0.f;
            hi = 1.5f;
          }
          if (variant == 3) {  // the specials through the clamp too: NaN stays, infinities clamp
            lo = -0.5f;
            hi = 1.5f;
          }
          if (variant >= 2) {  // specials in the first and last rows and columns
            x.front() = nan;
            x.back() = inf;
            x[std::size_t(c.w - 1)] = -inf;
            x[std::size_t((c.h - 1) * c.w)] = -0.f;
            wt[4] = -0.f;
          }
          const std::vector<float> want = reference(c, x, wt, bias, lo, hi, oh, ow);
          // Guards around y: nothing is written outside it.
          const int64_t guard_n = 64;
          std::vector<float> buf(std::size_t(oh * ow + 2 * guard_n), 12345.f);
          float* y = buf.data() + guard_n;
          table.depthwise_plane({x.data(), c.h, c.w, 3, 3, oh, ow, c.top, c.left, c.sh, c.sw, wt, bias, lo, hi, y});
          int bad = 0;
          for (int64_t e = 0; e < oh * ow; ++e)
            if (!same_bits(want[std::size_t(e)], y[e]) && bad++ < 3)
              BOOST_ERROR("output " << e / ow << "," << e % ow << ": got " << y[e] << ", want "
                                    << want[std::size_t(e)]);
          BOOST_TEST(bad == 0);
          for (int64_t g = 0; g < guard_n; ++g) {
            BOOST_TEST(buf[std::size_t(g)] == 12345.f);
            BOOST_TEST(buf[std::size_t(guard_n + oh * ow + g)] == 12345.f);
          }
        }
      }
    }
  }
  if (simd::cpu_best_level() != simd::Level::sse2) BOOST_TEST(checked_levels >= 1);
}

BOOST_AUTO_TEST_SUITE_END()
