// Direct conv2d kernels for one input channel per group (depthwise, any channel multiplier):
// a GEMM with K = KH·KW would spend its time packing, so each output plane is computed
// directly.
//
//  * depthwise_plane: every dtype, on the plain plane (bounds checked per tap); the integer
//    path, where it is exact at every level.
//  * ConvRowTable::depthwise_*: floats, with the current SIMD level's registers, over the input
//    plane already zero-padded and split by stride phase (kernels/conv.cpp builds it), where
//    every tap of a row of outputs is a unit-stride run. Compiled once per level
//    (kernels/simd/depthwise_impl.inl in depthwise_{avx512,avx2,sse2}.cpp), with the stride-2
//    column split that building those phase planes needs (for every strided convolution).
//
// This header is included by the per-level translation units: declarations and plain data
// only (the ODR note in kernels/simd/cpu_features.hpp).
#pragma once

#include <cstdint>

#include "kernels/gemm.hpp"

namespace mlvm::simd {

struct DepthwiseGeometry {
  int64_t h, w;          // input plane
  int64_t kh, kw;        // window
  int64_t oh, ow;        // output plane
  int64_t top, left;     // padding before the first row / column
  int64_t sh, sw, dh, dw;
};

// y (oh x ow) = sum over (i, j) of w[i·kw + j] · padded x (row oh·sh - top + i·dh, column
// ow·sw - left + j·dw), summed in (i, j) order from 0, plus `bias` (if non-null, *bias).
// Integers wrap like the GEMM (gemm.hpp). x is one contiguous input plane, w one contiguous
// KH x KW window, y one contiguous output plane.
template <class T>
void depthwise_plane(const T* x, const T* w, const gemm_out_t<T>* bias, const DepthwiseGeometry& geo,
                     gemm_out_t<T>* y);

// One float output plane from phase planes:
//   y[r·ow + c] = clamp(sum over t < taps, in t order from 0, of w[t] · src[tap_off[t] + r·ld + c]
//                       + bias, lo, hi)
// for r < oh, c < ow, where clamp(v, lo, hi) = v < lo ? lo : v > hi ? hi : v (NaN passes;
// lo = -inf, hi = +inf is no clamp). Products are fused into the sum where the level has FMA.
// src must be readable for (lanes - 1) elements past the last element a tap reads.
template <class T>
struct DepthwiseRows {
  const T* src;
  const int64_t* tap_off;
  const T* w;
  int64_t taps, oh, ow, ld;
  T bias, lo, hi;
  T* y;
};

struct ConvRowTable {
  void (*depthwise_f32)(const DepthwiseRows<float>&) = nullptr;
  void (*depthwise_f64)(const DepthwiseRows<double>&) = nullptr;
  // dst[j] = src[2·j] for j < n (4-byte elements: f32, i32): a stride-2 phase row.
  void (*every_other_4)(void* dst, const void* src, int64_t n) = nullptr;
};

// The current level's table.
const ConvRowTable& conv_row_kernels();
// Elements a DepthwiseRows source must be readable past its last read (the widest level's lanes).
inline constexpr int64_t kDepthwiseSlack = 16;

namespace avx512 {
const ConvRowTable& conv_row_table();
}
namespace avx2 {
const ConvRowTable& conv_row_table();
}
namespace sse2 {
const ConvRowTable& conv_row_table();
}

}  // namespace mlvm::simd
