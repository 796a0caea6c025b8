// The f32 <-> integer cast runs (simd::EwTable::cast_from_f32, cast_to_f32) under every SIMD
// level this CPU has, called directly, against the cast op's rule written out here in long
// double: truncation toward zero, saturation to the dtype's range, NaN to 0; and the integers
// to f32 rounded to nearest. Values: the specials, each range's ends and their neighbours (the
// floats next to 2^31, 2^15, 2^7, 256), halves, and random magnitudes up to 1e12; every length
// up to a few registers (the vector loops' tails), from unaligned starts.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/simd/cpu_features.hpp"
#include "kernels/simd/ew.hpp"
#include "simd_test_support.hpp"

using namespace mlvm;
using namespace mlvm::simd_test;

namespace {

template <class TO>
TO cast_rule(float v) {
  if (std::isnan(v)) return TO(0);
  const long double t = std::trunc((long double)v);
  if (t <= (long double)std::numeric_limits<TO>::lowest()) return std::numeric_limits<TO>::lowest();
  if (t >= (long double)std::numeric_limits<TO>::max()) return std::numeric_limits<TO>::max();
  return TO(t);
}

// The floats around the integer dtypes' ends, the specials, and random ones.
std::vector<float> cast_inputs(Rng& rng, int64_t n) {
  std::vector<float> edges = {NAN, -NAN, INFINITY, -INFINITY, 0.f, -0.f, 0.5f, -0.5f, 0.99999994f, -0.99999994f,
                              1e-40f, -1e-40f};
  for (double e : {128.0, 256.0, 32768.0, 65536.0, 2147483648.0, 4294967296.0})
    for (double s : {1.0, -1.0}) {
      const float f = float(s * e);
      edges.insert(edges.end(), {f, std::nextafter(f, 0.f), std::nextafter(f, s * INFINITY), f - float(s),
                                 f - float(s) * 0.5f, f + float(s) * 0.5f});
    }
  std::vector<float> x(static_cast<std::size_t>(n));
  for (float& v : x) {
    const uint64_t r = rng.next();
    if (r % 3 == 0) v = edges[(r >> 8) % edges.size()];
    else v = float(std::ldexp(double(int64_t(rng.next() % 2000001) - 1000000) / 1e6, int((r >> 8) % 41)));
  }
  return x;
}

template <class TI>
std::vector<TI> int_inputs(Rng& rng, int64_t n) {
  std::vector<TI> x(static_cast<std::size_t>(n));
  for (TI& v : x) {
    const uint64_t r = rng.next();
    v = r % 5 == 0 ? std::numeric_limits<TI>::lowest() : r % 5 == 1 ? std::numeric_limits<TI>::max() : TI(rng.next());
  }
  return x;
}

template <class T>
void check_casts_of(const simd::EwTable& t, Rng& rng) {
  const int e = int(dtype_of<T>::value);
  BOOST_TEST_REQUIRE(t.cast_from_f32[e] != nullptr);
  BOOST_TEST_REQUIRE(t.cast_to_f32[e] != nullptr);
  for (int64_t n = 0; n <= 70; ++n) {
    const int64_t skew = n % 3;  // unaligned starts
    std::vector<float> xs = cast_inputs(rng, n + skew);
    std::vector<T> y(static_cast<std::size_t>(n + skew) + 1, T(0x5A));
    t.cast_from_f32[e](y.data() + skew, xs.data() + skew, n);
    int bad = 0;
    for (int64_t k = 0; k < n; ++k) {
      const float v = xs[std::size_t(k + skew)];
      const T want = cast_rule<T>(v);
      if (y[std::size_t(k + skew)] != want && bad++ < 3)
        BOOST_ERROR("f32 " << v << " -> " << int64_t(y[std::size_t(k + skew)]) << ", want " << int64_t(want)
                           << " (length " << n << ")");
    }
    BOOST_TEST(bad == 0);
    BOOST_TEST(y.back() == T(0x5A));  // nothing past the n elements

    std::vector<T> xi = int_inputs<T>(rng, n + skew);
    std::vector<float> yf(static_cast<std::size_t>(n + skew) + 1, -7.f);
    t.cast_to_f32[e](yf.data() + skew, xi.data() + skew, n);
    for (int64_t k = 0; k < n; ++k) {
      const float want = float(xi[std::size_t(k + skew)]);
      BOOST_TEST(std::memcmp(&yf[std::size_t(k + skew)], &want, 4) == 0,
                 int64_t(xi[std::size_t(k + skew)]) << " -> f32 at " << k << " of " << n);
    }
    BOOST_TEST(yf.back() == -7.f);
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(simd_casts)

BOOST_AUTO_TEST_CASE(f32_and_integers_every_level) {
  LevelGuard guard;
  for (simd::Level level : levels()) {
    simd::set_level_for_testing(level);
    const simd::EwTable& t = simd::ew_kernels();
    BOOST_TEST_CONTEXT(simd::level_name(level)) {
      Rng rng{61};
      check_casts_of<int8_t>(t, rng);
      check_casts_of<uint8_t>(t, rng);
      check_casts_of<int16_t>(t, rng);
      check_casts_of<int32_t>(t, rng);
      // Only these: the others go through the kernels' own loops.
      BOOST_TEST(t.cast_from_f32[int(simd::Elem::i64)] == nullptr);
      BOOST_TEST(t.cast_to_f32[int(simd::Elem::f64)] == nullptr);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
