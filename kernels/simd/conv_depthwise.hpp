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

#include <algorithm>
#include <cstdint>

#include "kernels/gemm.hpp"
#include "kernels/simd/ew.hpp"

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

// Up to `lanes` (the level's f32 lanes) float depthwise planes at once, one channel per lane
// (channel multiplier 1): the input planes are transposed into a zero-padded pixel-major
// buffer (each pixel one register of channels), every output pixel is then a sum of
// kh·kw full-register products at any stride, and the result is transposed back. Small
// planes (7 x 7, 14 x 14) and strided ones waste no lanes and build no phase planes. Each
// output element gets the sum of DepthwiseRows: taps in order from 0, then the bias, then the
// clamp, so the bits are the same.
//   y[c][r·ow + q] = clamp(sum over (i, j) of w[c·kh·kw + i·kw + j] · pad(x)[c][r·sh + i·dh][q·sw + j·dw]
//                          + bias[c·bias_stride], lo, hi)   for c < channels,
// where x[c] (h x w) is at x + c·h·w, y[c] (oh x ow) at y + c·oh·ow, pad(x) has `top` zero rows
// and `left` zero columns before the plane and zeros past it, and bias may be null (0).
struct DepthwiseBlocked {
  const float* x;
  int64_t channels;  // 1 .. lanes
  int64_t h, w, kh, kw, oh, ow, top, left, sh, sw, dh, dw;
  const float* w_taps;
  const float* bias;
  int64_t bias_stride;
  float lo, hi;
  float* y;
  float* work;  // depthwise_blocked_work(...) floats
};

// DepthwiseBlocked over i8 planes where its f32 sums are exact (kernels/depthwise_exact.hpp),
// each result the i32 sum plus bias (wrapping) through a requantization chain:
//   y[c·oh·ow + p] = chain_c(int32(sum_c(p)) + bias[c·f.bias_stride])   for c < f.channels,
// with sum_c(p) DepthwiseBlocked's sum (f.w_taps the weights as f32, f.bias null, f.lo and
// f.hi infinite, f.x and f.y unused), chain_c the ops in order (RequantOp, none when nops is
// 0) with ops[mul_op] (a mul; mul_op < 0: none) multiplying by mul_values[c] instead of its
// value, and each result stored as its low out_bytes bytes (4, 2 or 1: i32, i16, i8/u8).
struct DepthwiseBlockedI8 {
  DepthwiseBlocked f;
  const int8_t* x;
  const int32_t* bias;  // null: none
  const RequantOp* ops;
  int nops;
  int mul_op;
  const int32_t* mul_values;
  void* y;
  int out_bytes;
};

// The same convolution and results as DepthwiseBlockedI8 over i8 or i16 planes, summed in
// integers: each lane of a pixel-major register holds a channel's two neighbouring taps as
// i16, multiplied by its weight pair in one vpmaddwd (kernels/simd/depthwise_blocked_pairs.inl),
// exact modulo 2^32 for any i16 weights and inputs.
//   y[c·oh·ow + p] = chain_c(sum over (i, j) of w[c·kh·kw + i·kw + j] · pad(x)[c][...] +
//                    bias[c·bias_stride])    (modulo 2^32)
// q as for DepthwiseBlockedI8 (q.f.w_taps unused, q.f.work depthwise_pairs_work floats), with
// the input q.x (i8) or, where that is null, x16.
struct DepthwisePairsBlocked {
  DepthwiseBlockedI8 q;
  const int16_t* x16;
  const int16_t* w;
};

// Output rows a DepthwiseBlocked call computes at once: as many as keep its pixel-major input
// and output strips (lanes channels each) within about 96 KiB, so they stay in L2 while the
// planes stream through (a whole 112 x 112 plane would be 800 KiB).
inline int64_t depthwise_strip_rows(int64_t lanes, int64_t kh, int64_t kw, int64_t oh, int64_t ow, int64_t sh,
                                    int64_t sw, int64_t dh, int64_t dw, int64_t budget_kib = 96) {
  const int64_t cols = (ow - 1) * sw + (kw - 1) * dw + 1;
  const int64_t per_row = lanes * (sh * cols + ow), halo = lanes * ((kh - 1) * dh + 1 - sh) * cols;
  const int64_t budget = (budget_kib << 10) / int64_t(sizeof(float));
  return std::clamp<int64_t>((budget - std::max<int64_t>(0, halo)) / std::max<int64_t>(1, per_row), 1, oh);
}

// Scratch floats for a DepthwiseBlocked call at a level of `lanes` f32 lanes.
inline int64_t depthwise_blocked_work(int64_t lanes, int64_t kh, int64_t kw, int64_t oh, int64_t ow, int64_t sh,
                                      int64_t sw, int64_t dh, int64_t dw) {
  const int64_t strip = depthwise_strip_rows(lanes, kh, kw, oh, ow, sh, sw, dh, dw);
  const int64_t rows = (strip - 1) * sh + (kh - 1) * dh + 1, cols = (ow - 1) * sw + (kw - 1) * dw + 1;
  return lanes * (rows * cols + strip * ow + kh * kw + 1);
}

// DepthwisePairsBlocked's strips may take twice DepthwiseBlocked's L2: its halo rows cost a
// conversion to pairs each, and PP-OCRv4's 12-row planes are then one strip, not two.
inline constexpr int64_t kDepthwisePairsKiB = 192;
// Scratch (4-byte units) for a DepthwisePairsBlocked call: the strip's pair rows and sums as
// for DepthwiseBlocked, kh·ceil(kw/2) weight pairs and an i16 row dw columns longer.
inline int64_t depthwise_pairs_work(int64_t lanes, int64_t kh, int64_t kw, int64_t oh, int64_t ow, int64_t sh,
                                    int64_t sw, int64_t dh, int64_t dw) {
  const int64_t strip = depthwise_strip_rows(lanes, kh, kw, oh, ow, sh, sw, dh, dw, kDepthwisePairsKiB);
  const int64_t rows = (strip - 1) * sh + (kh - 1) * dh + 1, cols = (ow - 1) * sw + (kw - 1) * dw + 1;
  return lanes * (rows * cols + strip * ow + kh * ((kw + 1) / 2)) + (lanes * (cols + dw) + 1) / 2;
}

// One f32 depthwise plane, pixels in lanes, straight from the input plane with masked loads
// (kernels/simd/depthwise_plane.inl): no transposes and no copy, so on planes whose rows fill
// registers (14 and wider at AVX-512) it beats DepthwiseBlocked (3x3 at 56 x 56: 0.085 against
// 0.104 ms, at 112 x 112: 0.065 against 0.120). Each output gets DepthwiseBlocked's very sum:
//   y[r·ow + q] = clamp(sum over (i, j) in order of w_taps[i·kw + j] · pad(x)[r·sh + i][q·sw + j]
//                       + bias, lo, hi)
// where x (h x w) has `top` zero rows and `left` zero columns before it and zeros past it.
// Only where depthwise_plane_fits.
struct DepthwisePlane {
  const float* x;
  int64_t h, w, kh, kw, oh, ow, top, left, sh, sw;
  const float* w_taps;
  float bias, lo, hi;
  float* y;
};
inline constexpr int64_t kDepthwisePlaneRows = 8;  // output rows summed at once
// 3x3 windows at strides 1 and 2, no dilation, at least kDepthwisePlaneRows output rows. (5x5
// windows were slower than DepthwiseBlocked: 25 weights and 8 sums do not fit in registers.)
inline bool depthwise_plane_fits(int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t dh, int64_t dw,
                                 int64_t oh) {
  return kh == 3 && kw == 3 && (sh == 1 || sh == 2) && (sw == 1 || sw == 2) && dh == 1 && dw == 1 &&
         oh >= kDepthwisePlaneRows;
}

// max_pool2d f32 without dilation over small planes, a register of channels at a time
// (pixel-major, as DepthwiseBlocked): rows of a few registers made kernels/pool.cpp's row path
// pay a call per row and per window row. Each output is the row path's value, NaNs included:
// per window column b the max over the window's valid rows a0 .. a1 - 1 in order, then over b
// in order, each step max(m, v) = v > m or v NaN ? v : m; columns past the input are -inf, and
// a window with no valid row gives -inf.
//   y[c][i·ow + j] for c < channels, where x[c] (h x w) is at x + c·h·w, y[c] at y + c·oh·ow,
//   window row a of output row i is input row i·sh - top + a for a in [a0, a1) = row_taps[2i],
//   row_taps[2i + 1], and window column b is input column j·sw - left + b, b < kw.
struct MaxPoolBlocked {
  const float* x;
  int64_t channels;  // 1 .. lanes
  int64_t h, w, kh, kw, oh, ow, sh, sw, top, left;
  const int64_t* row_taps;  // 2·oh values
  float* y;
  float* work;  // max_pool_blocked_work(...) floats
};

// The padded columns a MaxPoolBlocked plane row spans: the last window's end, or the input's.
inline int64_t max_pool_blocked_cols(int64_t w, int64_t kw, int64_t ow, int64_t sw, int64_t left) {
  return std::max((ow - 1) * sw + kw, left + w);
}
inline int64_t max_pool_blocked_work(int64_t lanes, int64_t h, int64_t w, int64_t kw, int64_t oh, int64_t ow,
                                     int64_t sw, int64_t left) {
  return lanes * (h * max_pool_blocked_cols(w, kw, ow, sw, left) + oh * ow);
}

// One output row of an f32 max_pool2d with 3-wide windows at column step 1 or 2 (no
// dilation), NaN winning and ties keeping the earlier value (the pool's max_nan):
//   out[j] = max over r < nrows (in order) of max(x_r[j·step - left + b] for b = 0, 1, 2),
// j < ow, where x_r is the input row rows[r] (w columns; columns outside [0, w) are padding,
// -inf), and -inf when nrows is 0 (a window wholly in padding rows).
struct MaxPoolRow {
  const float* const* rows;
  int64_t nrows, w, left, ow, step;
  float* out;
};

struct ConvRowTable {
  void (*depthwise_f32)(const DepthwiseRows<float>&) = nullptr;
  void (*depthwise_f64)(const DepthwiseRows<double>&) = nullptr;
  // dst[j] = src[2·j] for j < n (4-byte elements: f32, i32): a stride-2 phase row.
  void (*every_other_4)(void* dst, const void* src, int64_t n) = nullptr;
  void (*depthwise_blocked)(const DepthwiseBlocked&) = nullptr;
  void (*depthwise_plane)(const DepthwisePlane&) = nullptr;  // null at SSE2 (no masked loads)
  int lanes = 0;  // f32 lanes: channels per depthwise_blocked call
  // max_pool2d's f32 output rows of 3-wide windows (kernels/pool.cpp).
  void (*max3_rows_f32)(const MaxPoolRow&) = nullptr;
  void (*max_pool_blocked)(const MaxPoolBlocked&) = nullptr;
  // dst[r·dst_stride + j] = src[r·src_stride + j] for r < rows, j < width, 4-byte elements
  // (f32, i32): the implicit-GEMM convolution's output rows out of its wide rows, which cost
  // a library call per row of 56.
  void (*copy_rows_4)(void* dst, int64_t dst_stride, const void* src, int64_t src_stride, int64_t rows,
                      int64_t width) = nullptr;
  // depthwise_plane for 8- and 16-bit integers, vectorized with the level's instructions.
  void (*depthwise_plane_i8)(const int8_t*, const int8_t*, const int32_t*, const DepthwiseGeometry&,
                             int32_t*) = nullptr;
  void (*depthwise_plane_u8)(const uint8_t*, const uint8_t*, const int32_t*, const DepthwiseGeometry&,
                             int32_t*) = nullptr;
  void (*depthwise_plane_i16)(const int16_t*, const int16_t*, const int32_t*, const DepthwiseGeometry&,
                              int32_t*) = nullptr;
  // The exact integer depthwise's sums back to i32 (kernels/depthwise_exact.cpp), null at
  // SSE2: y[k] = int32(s[k]) + b wrapping, s holding integers below 2^24.
  void (*f32_to_i32_plus)(const float* s, int32_t b, int32_t* y, int64_t n) = nullptr;
  // The exact i8 depthwise with its requantization (kernels/depthwise_exact.cpp), null at SSE2.
  void (*depthwise_blocked_i8)(const DepthwiseBlockedI8&) = nullptr;
  // The integer depthwise in i16 pairs with its requantization, null at SSE2.
  void (*depthwise_blocked_pairs)(const DepthwisePairsBlocked&) = nullptr;
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
