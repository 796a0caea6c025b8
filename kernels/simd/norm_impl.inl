// The normalization rows of one level: the body of norm_avx512.cpp, norm_avx2.cpp and
// norm_sse2.cpp (interface and result rules: kernels/simd/norm.hpp). Plain loops, written so
// that the compiler vectorizes them with this unit's instruction set: the eight partial sums
// are independent lanes, and nothing is reordered, so every level gives the same bits.
//
// Not a header: included once per level after MLVM_SIMD_NS is defined; everything lives in
// that level's namespace (the ODR note in kernels/simd/cpu_features.hpp).
#pragma once

#if !defined(MLVM_SIMD_NS)
#error "define MLVM_SIMD_NS before including this file"
#endif

#include <cstdint>

#include "kernels/simd/norm.hpp"

namespace mlvm::simd::MLVM_SIMD_NS {
namespace {

// Σ f(x[i]) in f64: sixteen partial sums, combined in a fixed order (kernels/simd/norm.hpp).
// Sixteen, so that even AVX2 has four independent chains of adds in flight (eight were
// bound by the adder's latency).
template <class T, class F>
double sum_of(const T* x, int64_t n, F f) {
  double a[16] = {};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int l = 0; l < 16; ++l) a[l] += f(double(x[i + l]));
  double tail = 0;
  for (; i < n; ++i) tail += f(double(x[i]));
  for (int w = 8; w >= 1; w /= 2)
    for (int l = 0; l < w; ++l) a[l] = a[2 * l] + a[2 * l + 1];
  return a[0] + tail;
}

template <class T>
void mean_var(const T* x, int64_t n, double* mean, double* var) {
  const double m = sum_of(x, n, [](double v) { return v; }) / double(n);
  *mean = m;
  *var = sum_of(x, n, [m](double v) { return (v - m) * (v - m); }) / double(n);
}

template <class T>
void affine(const T* x, T* y, int64_t n, T hi, T lo, T a, T b) {
  for (int64_t i = 0; i < n; ++i) y[i] = ((x[i] - hi) - lo) * a + b;
}

template <class T>
void scaled(const T* x, T* y, int64_t n, T hi, T lo, T a, const T* s, const T* b) {
  if (b)
    for (int64_t i = 0; i < n; ++i) y[i] = ((x[i] - hi) - lo) * a * s[i] + b[i];
  else
    for (int64_t i = 0; i < n; ++i) y[i] = ((x[i] - hi) - lo) * a * s[i];
}

template <class T>
NormRuns<T> runs() {
  NormRuns<T> r;
  r.mean_var = &mean_var<T>;
  r.affine = &affine<T>;
  r.scaled = &scaled<T>;
  return r;
}

}  // namespace

const NormTable& norm_table() {
  static const NormTable table{runs<float>(), runs<double>()};
  return table;
}

}  // namespace mlvm::simd::MLVM_SIMD_NS
