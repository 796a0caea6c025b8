// SIMD runs of the normalization ops' rows (kernels/norm.cpp): a row's mean and variance, and
// the affine map that normalizes it. One table per SIMD level, built like the elementwise
// table (kernels/simd/ew.hpp): norm_<level>.cpp compiles kernels/simd/norm_impl.inl with that
// level's flags; norm_kernels() picks by level().
//
// Results are the same at every level, bit for bit: the runs are the plain scalar loops below,
// which each level's compiler vectorizes without reordering them (no fast-math, and ISO C++
// contracts no multiply-add), so only the width of the registers changes.
//   mean, var: in f64, two passes over the row (mean, then squared deviations: no
//     cancellation); each pass sums the elements before the last whole sixteen into sixteen
//     partial sums, element i into partial i mod 16, and the rest in order into a tail; the
//     partials are combined pairwise, neighbours first ((p0 + p1) + (p2 + p3)) + ..., and
//     the tail added last. var is biased (divided by n).
//   affine: y[i] = ((x[i] - hi) - lo) * a + b, the mean given as hi + lo in the dtype (x - hi
//     is exact near the mean; lo keeps the mean's rounding error).
//   scaled: y[i] = ((x[i] - hi) - lo) * a * s[i] + b[i] (+ b[i] only when b is not null).
#pragma once

#include <cstdint>

namespace mlvm::simd {

template <class T>
struct NormRuns {
  void (*mean_var)(const T* x, int64_t n, double* mean, double* var) = nullptr;
  void (*affine)(const T* x, T* y, int64_t n, T hi, T lo, T a, T b) = nullptr;
  void (*scaled)(const T* x, T* y, int64_t n, T hi, T lo, T a, const T* s, const T* b) = nullptr;
};

struct NormTable {
  NormRuns<float> f32;
  NormRuns<double> f64;
};

// The table of the current level (simd::level()).
const NormTable& norm_kernels();

namespace avx512 {
const NormTable& norm_table();
}
namespace avx2 {
const NormTable& norm_table();
}
namespace sse2 {
const NormTable& norm_table();
}

}  // namespace mlvm::simd
