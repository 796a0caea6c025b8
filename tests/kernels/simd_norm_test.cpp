// The normalization rows (kernels/simd/norm.hpp) at every SIMD level this CPU runs: the mean
// and variance follow the documented summation order bit for bit (a scalar loop here, built
// from the header's words), lie within a few ulps of a long double two-pass reference even
// for values far from zero, and the affine and scaled maps give the scalar expressions' bits.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <vector>

#include "kernels/simd/norm.hpp"
#include "simd_test_support.hpp"

using namespace mlvm;
using namespace mlvm::simd_test;

namespace {

template <class T>
const simd::NormRuns<T>& runs() {
  if constexpr (std::is_same_v<T, float>) return simd::norm_kernels().f32;
  else return simd::norm_kernels().f64;
}

// The order kernels/simd/norm.hpp documents: element i of the leading whole sixteens into
// partial i mod 16, the rest into a tail in order; partials pairwise, neighbours first.
template <class T, class F>
double documented_sum(const std::vector<T>& x, F f) {
  std::vector<double> p(16, 0.0);
  const std::size_t whole = x.size() / 16 * 16;
  for (std::size_t i = 0; i < whole; ++i) p[i % 16] += f(double(x[i]));
  double tail = 0;
  for (std::size_t i = whole; i < x.size(); ++i) tail += f(double(x[i]));
  while (p.size() > 1) {
    std::vector<double> q;
    for (std::size_t k = 0; k < p.size(); k += 2) q.push_back(p[k] + p[k + 1]);
    p = q;
  }
  return p[0] + tail;
}

template <class T>
std::vector<T> row(std::size_t n, double center, uint64_t seed) {
  Rng r{seed};
  std::vector<T> x(n);
  for (T& v : x) v = T(center + r.uniform(-3, 3));
  return x;
}

const std::size_t kNormSizes[] = {1, 7, 15, 16, 17, 31, 33, 768, 1001};

}  // namespace

BOOST_AUTO_TEST_SUITE(simd_norm)

BOOST_AUTO_TEST_CASE(mean_and_variance_follow_the_documented_order_at_every_level) {
  LevelGuard guard;
  auto check = [&]<class T>() {
    for (std::size_t n : kNormSizes)
      for (double center : {0.0, 1000.0}) {
        const std::vector<T> x = row<T>(n, center, n * 31 + uint64_t(center));
        const double mean = documented_sum(x, [](double v) { return v; }) / double(n);
        const double var =
            documented_sum(x, [mean](double v) { return (v - mean) * (v - mean); }) / double(n);
        long double lm = 0, lv = 0;
        for (T v : x) lm += (long double)v;
        lm /= (long double)n;
        for (T v : x) lv += ((long double)v - lm) * ((long double)v - lm);
        lv /= (long double)n;
        for (simd::Level l : levels()) {
          simd::set_level_for_testing(l);
          BOOST_TEST_CONTEXT(simd::level_name(l) << " " << sizeof(T) * 8 << "-bit, n " << n
                                                 << ", around " << center) {
            double got_mean = -1, got_var = -1;
            runs<T>().mean_var(x.data(), int64_t(n), &got_mean, &got_var);
            BOOST_TEST(same_bits(mean, got_mean));
            BOOST_TEST(same_bits(var, got_var));
            BOOST_TEST(std::abs(got_mean - double(lm)) <= 1e-13 * (std::abs(double(lm)) + 1));
            BOOST_TEST(std::abs(got_var - double(lv)) <= 1e-12 * (double(lv) + 1e-300));
          }
        }
      }
  };
  check.operator()<float>();
  check.operator()<double>();
}

BOOST_AUTO_TEST_CASE(an_empty_row_has_nan_statistics) {
  LevelGuard guard;
  for (simd::Level l : levels()) {
    simd::set_level_for_testing(l);
    double mean = 0, var = 0;
    const float none = 0;
    runs<float>().mean_var(&none, 0, &mean, &var);
    BOOST_TEST(std::isnan(mean));
    BOOST_TEST(std::isnan(var));
  }
}

BOOST_AUTO_TEST_CASE(affine_and_scaled_give_the_scalar_bits_at_every_level) {
  LevelGuard guard;
  auto check = [&]<class T>() {
    for (std::size_t n : kNormSizes) {
      const std::vector<T> x = row<T>(n, 5.0, n), s = row<T>(n, 0.0, n + 1), b = row<T>(n, 1.0, n + 2);
      const T hi = T(5.0078125), lo = T(1e-7), a = T(0.7);
      std::vector<T> want_affine(n), want_scaled(n), want_unbiased(n);
      for (std::size_t i = 0; i < n; ++i) {
        want_affine[i] = ((x[i] - hi) - lo) * a + b[0];
        const T t = ((x[i] - hi) - lo) * a * s[i];
        want_scaled[i] = t + b[i];
        want_unbiased[i] = t;
      }
      for (simd::Level l : levels()) {
        simd::set_level_for_testing(l);
        BOOST_TEST_CONTEXT(simd::level_name(l) << " " << sizeof(T) * 8 << "-bit, n " << n) {
          std::vector<T> y(n + 1, T(-42));  // one past the row: must stay untouched
          runs<T>().affine(x.data(), y.data(), int64_t(n), hi, lo, a, b[0]);
          for (std::size_t i = 0; i < n; ++i) BOOST_TEST(same_bits(want_affine[i], y[i]));
          BOOST_TEST(y[n] == T(-42));
          runs<T>().scaled(x.data(), y.data(), int64_t(n), hi, lo, a, s.data(), b.data());
          for (std::size_t i = 0; i < n; ++i) BOOST_TEST(same_bits(want_scaled[i], y[i]));
          runs<T>().scaled(x.data(), y.data(), int64_t(n), hi, lo, a, s.data(), nullptr);
          for (std::size_t i = 0; i < n; ++i) BOOST_TEST(same_bits(want_unbiased[i], y[i]));
          BOOST_TEST(y[n] == T(-42));
        }
      }
    }
  };
  check.operator()<float>();
  check.operator()<double>();
}

BOOST_AUTO_TEST_SUITE_END()
