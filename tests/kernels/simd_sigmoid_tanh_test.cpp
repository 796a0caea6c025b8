// The SIMD runs of sigmoid (f32, f64), tanh and erf (f32) at every SIMD level this CPU has: within
// simd::kSigmoidMaxUlp / kTanhMaxUlp / kErfMaxUlp of the function computed in long double, over a sweep of
// f32 bit patterns (every exponent and sign: the series/exp switch of tanh, the saturated
// ends, subnormals) and the specials; the same value gives the same bits at every position of
// a run; and through the kernels, contiguous tensors get the level's run and flipped views
// the same function.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "common/one_result.hpp"
#include "common/tensors.hpp"
#include "kernels/simd/cpu_features.hpp"
#include "kernels/simd/ew.hpp"
#include "simd_test_support.hpp"

using namespace mlvm;
using namespace mlvm::simd_test;

namespace {

long double sigmoid_ld(long double x) { return 1.0L / (1.0L + std::exp(-x)); }
long double tanh_ld(long double x) { return std::tanh(x); }
long double erf_ld(long double x) { return std::erf(x); }

std::vector<float> f32_sweep() {
  std::vector<float> x = f32_bit_sweep();
  const float inf = std::numeric_limits<float>::infinity();
  for (float v : {0.f, -0.f, 0.55f, -0.55f, 0.5499999f, 0.5500001f, 1e-30f, -1e-30f, 9.1f, -9.1f,
                  17.f, -17.f, 88.f, -88.f, -104.f, 104.f, inf, -inf,
                  std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::max(),
                  std::numeric_limits<float>::lowest(), std::numeric_limits<float>::denorm_min()})
    x.push_back(v);
  for (int k = 0; k < 20000; ++k) x.push_back(-12.f + 24.f * float(k) / 20000.f);  // the body
  return x;
}

template <class T>
void check_accuracy(simd::UnaryOp op, long double (*ref)(long double), const std::vector<T>& x, int max_ulp,
                    const char* name) {
  for (simd::Level l : levels()) {
    simd::set_level_for_testing(l);
    const simd::UnaryRun run = simd::ew_kernels().unary[int(op)][int(dtype_of<T>::value)];
    BOOST_REQUIRE(run);
    std::vector<T> y(x.size());
    run(y.data(), x.data(), int64_t(x.size()));
    uint64_t worst = 0;
    T worst_x = 0;
    for (std::size_t k = 0; k < x.size(); ++k) {
      const uint64_t d = ulp_distance(T(ref((long double)x[k])), y[k]);
      if (d > worst) {
        worst = d;
        worst_x = x[k];
      }
    }
    BOOST_TEST(worst <= uint64_t(max_ulp),
               simd::level_name(l) << ": " << name << " is " << worst << " ulp off at " << worst_x);
    // Position independence: one value at every position of a 37-element run.
    for (T v : {T(0.3), T(-0.7), T(5), T(-20)}) {
      std::vector<T> in(37, v), out(37);
      run(out.data(), in.data(), 37);
      for (int k = 1; k < 37; ++k) BOOST_TEST(same_bits(out[0], out[k]));
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kernels_simd_sigmoid_tanh)

BOOST_AUTO_TEST_CASE(sigmoid_f32_every_level) {
  LevelGuard guard;
  check_accuracy<float>(simd::UnaryOp::sigmoid, sigmoid_ld, f32_sweep(), simd::kSigmoidMaxUlp, "sigmoid f32");
}

BOOST_AUTO_TEST_CASE(tanh_f32_every_level) {
  LevelGuard guard;
  check_accuracy<float>(simd::UnaryOp::tanh, tanh_ld, f32_sweep(), simd::kTanhMaxUlp, "tanh f32");
  // -0 keeps its sign; the ends are exactly +-1.
  for (simd::Level l : levels()) {
    simd::set_level_for_testing(l);
    const simd::UnaryRun run = simd::ew_kernels().unary[int(simd::UnaryOp::tanh)][int(DType::f32)];
    const float in[3] = {-0.f, 30.f, -std::numeric_limits<float>::infinity()};
    float out[3];
    run(out, in, 3);
    BOOST_TEST(std::signbit(out[0]));
    BOOST_TEST(out[0] == 0.f);
    BOOST_TEST(out[1] == 1.f);
    BOOST_TEST(out[2] == -1.f);
  }
}

BOOST_AUTO_TEST_CASE(erf_f32_every_level) {
  LevelGuard guard;
  std::vector<float> x = f32_sweep();
  for (float v : {0.99999994f, 1.f, 1.0000001f, 3.9f, 3.92f, 4.f, -4.f, 4.0000005f, 1e-38f, -1e-45f})
    x.push_back(v);
  for (int k = 0; k < 20000; ++k) x.push_back(-4.5f + 9.f * float(k) / 20000.f);  // both regions
  check_accuracy<float>(simd::UnaryOp::erf, erf_ld, x, simd::kErfMaxUlp, "erf f32");
  // -0 keeps its sign; the ends are exactly +-1; NaN passes.
  for (simd::Level l : levels()) {
    simd::set_level_for_testing(l);
    const simd::UnaryRun run = simd::ew_kernels().unary[int(simd::UnaryOp::erf)][int(DType::f32)];
    const float in[5] = {-0.f, 5.f, -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                         std::numeric_limits<float>::infinity()};
    float out[5];
    run(out, in, 5);
    BOOST_TEST(std::signbit(out[0]));
    BOOST_TEST(out[0] == 0.f);
    BOOST_TEST(out[1] == 1.f);
    BOOST_TEST(out[2] == -1.f);
    BOOST_TEST(std::isnan(out[3]));
    BOOST_TEST(out[4] == 1.f);
    BOOST_TEST(!simd::ew_kernels().unary[int(simd::UnaryOp::erf)][int(DType::f64)]);
  }
}

BOOST_AUTO_TEST_CASE(sigmoid_f64_every_level_and_no_f64_tanh) {
  LevelGuard guard;
  Rng rng{77};
  std::vector<double> x;
  for (int k = 0; k < 100000; ++k) x.push_back(rng.uniform(-750, 750) * (k % 3 == 0 ? 0.01 : 1.0));
  for (double v : {0.0, -0.0, 36.7, 37.0, -708.0, -745.0, -746.0, std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()})
    x.push_back(v);
  check_accuracy<double>(simd::UnaryOp::sigmoid, sigmoid_ld, x, simd::kSigmoidMaxUlp, "sigmoid f64");
  for (simd::Level l : levels()) {
    simd::set_level_for_testing(l);
    BOOST_TEST(!simd::ew_kernels().unary[int(simd::UnaryOp::tanh)][int(DType::f64)]);
  }
}

// exp and sigmoid give the same bits at AVX2 and AVX-512 (AVX-512 rounds n and scales by 2^n
// with roundscale and scalef, AVX2 by a magic-number sum and an exponent-field multiply): over
// the f32 sweep and a spread of f64 values, including the subnormal results. (SSE2 has no
// fused multiply-add: its polynomial rounds twice per step, and its bits differ.)
template <class T>
void expect_same_bits_at_fma_levels(simd::UnaryOp op, const std::vector<T>& x, const char* name) {
  std::vector<T> first, y(x.size());
  simd::Level first_level{};
  for (simd::Level l : levels()) {
    if (l == simd::Level::sse2) continue;
    simd::set_level_for_testing(l);
    simd::ew_kernels().unary[int(op)][int(dtype_of<T>::value)](y.data(), x.data(), int64_t(x.size()));
    if (first.empty()) {
      first = y;
      first_level = l;
      continue;
    }
    int64_t differ = 0;
    for (std::size_t k = 0; k < x.size(); ++k) differ += !same_bits(first[k], y[k]);
    BOOST_TEST(differ == 0, name << ": " << differ << " results differ between " << simd::level_name(first_level)
                                 << " and " << simd::level_name(l));
  }
}

BOOST_AUTO_TEST_CASE(exp_and_sigmoid_same_bits_at_avx2_and_avx512) {
  LevelGuard guard;
  const std::vector<float> x = f32_sweep();
  expect_same_bits_at_fma_levels<float>(simd::UnaryOp::exp, x, "exp f32");
  expect_same_bits_at_fma_levels<float>(simd::UnaryOp::sigmoid, x, "sigmoid f32");
  Rng rng{5};
  std::vector<double> d;
  for (int k = 0; k < 100000; ++k) d.push_back(rng.uniform(-760, 720) * (k % 3 == 0 ? 0.01 : 1.0));
  expect_same_bits_at_fma_levels<double>(simd::UnaryOp::exp, d, "exp f64");
  expect_same_bits_at_fma_levels<double>(simd::UnaryOp::sigmoid, d, "sigmoid f64");
}

// Through the kernels: a flipped and a broadcast view give the values of the contiguous run.
BOOST_AUTO_TEST_CASE(kernels_on_views_match_the_run) {
  using mlvm::testing::run_op;
  std::vector<float> v(203);
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = -15.f + 0.15f * float(k);
  const Tensor x = mlvm::testing::make(DType::f32, Dims{203}, std::vector<double>(v.begin(), v.end()));
  for (Opcode op : {Opcode::sigmoid, Opcode::tanh, Opcode::erf}) {
    const simd::UnaryOp sop = op == Opcode::sigmoid ? simd::UnaryOp::sigmoid
                              : op == Opcode::tanh  ? simd::UnaryOp::tanh
                                                    : simd::UnaryOp::erf;
    const simd::UnaryRun run = simd::ew_kernels().unary[int(sop)][0];
    std::vector<float> want(v.size());
    run(want.data(), v.data(), int64_t(v.size()));
    const Tensor y = run_op(op, {x});
    const Tensor yf = run_op(op, {x.with_layout(Dims{203}, Dims{-1}, 202)});
    for (std::size_t k = 0; k < v.size(); ++k) {
      BOOST_TEST(same_bits(want[k], y.data<float>()[k]));
      // A flipped view takes the scalar loop (only contiguous runs are vectorised): the same
      // function within a few ulp.
      const long double r = op == Opcode::sigmoid ? sigmoid_ld(v[k]) : op == Opcode::tanh ? tanh_ld(v[k]) : erf_ld(v[k]);
      BOOST_TEST(std::fabs((long double)y.data<float>()[k] - r) <= 1e-6L);
      BOOST_TEST(std::fabs((long double)yf.data<float>()[202 - k] - r) <= 1e-6L);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
