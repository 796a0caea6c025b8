// The pixel-major layout of one SIMD level (registers of L channels per pixel) that
// depthwise_blocked and max_pool_blocked compute on: a part of depthwise_impl.inl's body (see
// there and kernels/simd/ew_vec.inl for the inclusion rules).
#pragma once

#include <algorithm>
#include <cstring>
#include <limits>

#include "kernels/simd/conv_depthwise.hpp"
#include "kernels/simd/ew_vec.inl"

namespace mlvm::simd::MLVM_SIMD_NS {
namespace {

// Transposes the L x L block r[i][j] (row i = register i) in place: r[j] becomes what was
// column j.
[[gnu::always_inline]] inline void transpose_block(V<float> (&r)[kLanes<float>]) {
#if MLVM_SIMD_BYTES == 32
  __m256 t[8], u[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i].data, r[i + 1].data);
    t[i + 1] = _mm256_unpackhi_ps(r[i].data, r[i + 1].data);
  }
  for (int i = 0; i < 8; i += 4) {
    u[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);      // column 0 | 4 of rows i .. i + 3
    u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);  // column 1 | 5
    u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int c = 0; c < 4; ++c) {
    r[c] = _mm256_permute2f128_ps(u[c], u[c + 4], 0x20);
    r[c + 4] = _mm256_permute2f128_ps(u[c], u[c + 4], 0x31);
  }
#elif MLVM_SIMD_BYTES == 16
  _MM_TRANSPOSE4_PS(r[0].data, r[1].data, r[2].data, r[3].data);
#elif MLVM_SIMD_BYTES == 64
  // As the 8 x 8 one in each 128-bit block (unpack, then shuffle: u[4g + c] holds in block k
  // column 4k + c of rows 4g .. 4g + 3), then the blocks gathered across the four row groups
  // in two rounds of shuffle_f32x4. (Through memory it was 256 scalar moves: the blocked
  // depthwise convolution ran slower at AVX-512 than at AVX2.)
  __m512 t[16], u[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i].data, r[i + 1].data);
    t[i + 1] = _mm512_unpackhi_ps(r[i].data, r[i + 1].data);
  }
  for (int i = 0; i < 16; i += 4) {
    u[i] = _mm512_shuffle_ps(t[i], t[i + 2], 0x44);
    u[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], 0xEE);
    u[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    u[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int c = 0; c < 4; ++c) {
    const __m512 v0 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x88), v1 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xDD);
    const __m512 w0 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x88);
    const __m512 w1 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xDD);
    r[c] = _mm512_shuffle_f32x4(v0, w0, 0x88);
    r[4 + c] = _mm512_shuffle_f32x4(v1, w1, 0x88);
    r[8 + c] = _mm512_shuffle_f32x4(v0, w0, 0xDD);
    r[12 + c] = _mm512_shuffle_f32x4(v1, w1, 0xDD);
  }
#else
  constexpr int64_t L = kLanes<float>;
  alignas(64) float m[L][L];
  for (int64_t i = 0; i < L; ++i) r[i].store_aligned(m[i]);
  for (int64_t i = 0; i < L; ++i) {
    alignas(64) float col[L];
    for (int64_t j = 0; j < L; ++j) col[j] = m[j][i];
    r[i] = V<float>::load_aligned(col);
  }
#endif
}

// One row of `channels` planes (`plane` floats apart) into the pixel-major row `row` of `cols`
// columns, lane c of column col being src[c·plane + col]: columns [c_lo, c_hi) are the input's,
// the others `pad`, and lanes past `channels` 0. The layout depthwise_blocked and
// max_pool_blocked compute on.
[[gnu::always_inline]] inline void pixel_major_row(float* row, const float* src, int64_t plane, int64_t channels,
                                                   int64_t cols, int64_t c_lo, int64_t c_hi, const V<float>& pad) {
  constexpr int64_t L = kLanes<float>;
  for (int64_t col = 0; col < c_lo; ++col) store(row + col * L, pad);
  for (int64_t col = c_hi; col < cols; ++col) store(row + col * L, pad);
  int64_t col = c_lo;
  if (channels == L) {
    for (; col + L <= c_hi; col += L) {
      V<float> blk[L];
      for (int64_t c = 0; c < L; ++c) blk[c] = load(src + c * plane + col);
      transpose_block(blk);
      for (int64_t q = 0; q < L; ++q) store(row + (col + q) * L, blk[q]);
    }
#if MLVM_SIMD_BYTES != 16
    // The row's last columns as one block of masked loads (lanes past c_hi read nothing): a
    // row narrower than a register (14 or 7 pixels) or not a multiple of one (28, 56) would
    // otherwise go element by element, which took as long as the sums on 14 x 14 planes.
    if (col < c_hi) {
      const int64_t n = c_hi - col;
      V<float> blk[L];
      const LaneMask m = lanes_between(0, n);
      for (int64_t c = 0; c < L; ++c) blk[c] = masked_load(m, src + c * plane + col);
      transpose_block(blk);
      for (int64_t q = 0; q < n; ++q) store(row + (col + q) * L, blk[q]);
      col = c_hi;
    }
#endif
  }
  for (; col < c_hi; ++col)
    for (int64_t c = 0; c < L; ++c) row[col * L + c] = c < channels ? src[c * plane + col] : 0.f;
}

// The pixel-major results out[p·L + c], p < pixels, back into channel planes: y[c·oplane + p]
// for c < channels.
[[gnu::always_inline]] inline void pixel_major_to_planes(float* y, const float* out, int64_t oplane, int64_t pixels,
                                                         int64_t channels) {
  constexpr int64_t L = kLanes<float>;
  int64_t p = 0;
  if (channels == L)
    for (; p + L <= pixels; p += L) {
      V<float> blk[L];
      for (int64_t k = 0; k < L; ++k) blk[k] = load(out + (p + k) * L);
      transpose_block(blk);
      for (int64_t c = 0; c < L; ++c) store(y + c * oplane + p, blk[c]);
    }
  for (; p < pixels; ++p)
    for (int64_t c = 0; c < channels; ++c) y[c * oplane + p] = out[p * L + c];
}

// The output grid of depthwise_blocked, in floats of its pixel-major buffers: an output
// row's first input pixel is sh_step apart, a column's sw_step; tap (i, j) is at
// i·dh_step + j·dw_step from it.
struct DepthwiseGrid {
  int64_t kh, kw, oh, ow, sh_step, sw_step, dh_step, dw_step;
};

}  // namespace
}  // namespace mlvm::simd::MLVM_SIMD_NS
