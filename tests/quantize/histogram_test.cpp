// The calibration histogram (quantize/histogram.hpp): its error estimate against the error of
// actually rounding and clipping the samples, and the exponent it picks on hand-computed cases.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "quantize/histogram.hpp"
#include "quantize/scales.hpp"

using namespace mlvm::quant;

namespace {

// The mean squared error of q = clip(round(x * 2^e), -qmax, qmax), computed on the samples.
double exact_error(const std::vector<double>& xs, int e, int64_t qmax) {
  double sum = 0;
  for (double x : xs) {
    const double q = std::clamp(std::round(std::ldexp(x, e)), -double(qmax), double(qmax));
    const double d = x - std::ldexp(q, -e);
    sum += d * d;
  }
  return sum / double(xs.size());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(quantize_histogram)

BOOST_AUTO_TEST_CASE(the_estimate_follows_the_error_of_rounding_and_clipping) {
  std::mt19937 rng(7);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> xs(200000);
  for (double& x : xs) x = normal(rng);
  MagnitudeHistogram h;
  h.add(xs);
  BOOST_TEST(h.total() == xs.size());
  double largest = 0;
  for (double x : xs) largest = std::max(largest, std::fabs(x));
  const int e_max = pow2_exponent(largest, 8);
  for (int e = e_max; e <= e_max + 4; ++e) {
    const double exact = exact_error(xs, e, 127), estimate = h.squared_error(e, 127);
    BOOST_TEST_INFO("e = " << e << ": exact " << exact << ", estimated " << estimate);
    BOOST_TEST(estimate == exact, boost::test_tools::tolerance(0.15));
  }
  // A normal distribution's tail is thin: its maximum (about 4.5 sigma here, held with steps of
  // 2^-4) wastes half the levels, and the least error clips it at 127/32 = 4 sigma (e_max + 1).
  const int best = h.best_exponent(e_max, 127);
  BOOST_TEST(best > e_max);
  for (int e = e_max; e <= e_max + 4; ++e) BOOST_TEST(exact_error(xs, best, 127) <= exact_error(xs, e, 127) * 1.05);
}

BOOST_AUTO_TEST_CASE(a_flat_range_keeps_its_maximum) {
  // 1.0 everywhere: e = 6 holds it as 64 (error (1/64)^2 / 12 per value by the estimate, 0 in
  // fact); e = 7 would clip every value to 127/128.
  MagnitudeHistogram h;
  const std::vector<double> ones(1000, 1.0);
  h.add(ones);
  BOOST_TEST(h.best_exponent(6, 127) == 6);
  // Uniform over [-1.9, 1.9] (e = 6: up to 121.6): e = 7 would clip values above 0.99, half
  // of them, by up to 0.9.
  std::vector<double> uniform;
  for (int k = -1000; k <= 1000; ++k) uniform.push_back(k * 1.9 / 1000.0);
  MagnitudeHistogram u;
  u.add(uniform);
  BOOST_TEST(u.best_exponent(6, 127) == 6);
}

BOOST_AUTO_TEST_CASE(one_outlier_among_many_is_clipped) {
  // 10^5 values in [0, 1) and one 20. Holding 20 (e = 2, steps of 1/4) costs each value about
  // (1/4)^2 / 12 = 0.0052; e = 3 (top 127/8 = 15.9) clips the outlier by 4.1, which costs
  // 4.1^2 / 10^5 = 0.00017, and rounds the rest to (1/8)^2 / 12 = 0.0013; e = 4 (top 7.94)
  // clips it by 12.1: 0.00145 + 0.00033, more than e = 3.
  std::vector<double> xs;
  for (int k = 0; k < 100000; ++k) xs.push_back((k + 0.5) / 100000.0);
  xs.push_back(20.0);
  MagnitudeHistogram h;
  h.add(xs);
  BOOST_TEST(pow2_exponent(20.0, 8) == 2);
  BOOST_TEST(h.best_exponent(2, 127) == 3);
  for (int e = 2; e <= 6; ++e) {
    BOOST_TEST_INFO("e = " << e);
    BOOST_TEST(h.squared_error(e, 127) == exact_error(xs, e, 127), boost::test_tools::tolerance(0.1));
  }
}

BOOST_AUTO_TEST_CASE(zeros_and_non_finite_values_do_not_move_the_choice) {
  MagnitudeHistogram h;
  const std::vector<double> zeros(100, 0.0);
  h.add(zeros);
  BOOST_TEST(h.best_exponent(3, 127) == 3);  // nothing but zeros: the given exponent
  BOOST_TEST(h.squared_error(3, 127) == 0.0);
  const std::vector<double> odd{std::nan(""), INFINITY, -INFINITY, 1e-300, -0.0};
  h.add(odd);
  BOOST_TEST(h.total() == 105u);
  BOOST_TEST(h.best_exponent(3, 127) == 3);
}

BOOST_AUTO_TEST_SUITE_END()
