// The float depthwise rows and the stride-2 row split of one SIMD level: the body of depthwise_avx512.cpp,
// depthwise_avx2.cpp and depthwise_sse2.cpp (interface: kernels/simd/conv_depthwise.hpp;
// inclusion rules: kernels/simd/ew_vec.inl).
//
// Four registers of adjacent outputs are summed at once, so each broadcast weight serves four
// fused multiply-adds and the four dependency chains overlap; a row's last partial register
// is computed whole (the source has slack) and stored through a buffer.
#pragma once

#include <algorithm>
#include <limits>

#include "kernels/simd/conv_depthwise.hpp"
#include "kernels/simd/ew_vec.inl"

namespace mlvm::simd::MLVM_SIMD_NS {
namespace {

// The output as (row, column register) pairs, four pairs at a time with four independent
// sums: a plane narrower than four registers (56 columns are 3.5 AVX-512 registers, 7 and 14
// less than one) would otherwise leave one sum per row, a chain of kh·kw dependent
// multiply-adds, and run at the FMA's latency (a quarter of its throughput). A last partial
// register reads past its row (within the plane's slack) and stores only its valid columns.
template <class T>
void depthwise_rows(const DepthwiseRows<T>& a) {
  constexpr int64_t W = kLanes<T>;
  const V<T> vb(a.bias), vlo(a.lo), vhi(a.hi), zero(T(0));
  auto finish = [&](const V<T>& sum) {
    const V<T> v = sum + vb;
    return xsimd::select(v < vlo, vlo, xsimd::select(v > vhi, vhi, v));
  };
  const int64_t per_row = (a.ow + W - 1) / W, pairs = a.oh * per_row;
  auto put = [&](int64_t pair, const V<T>& sum) {
    const int64_t r = pair / per_row, c = pair % per_row * W;
    T* yr = a.y + r * a.ow + c;
    const V<T> out = finish(sum);
    if (c + W <= a.ow) {
      store(yr, out);
    } else {
      alignas(64) T buf[W];
      out.store_aligned(buf);
      std::copy(buf, buf + (a.ow - c), yr);
    }
  };
  auto src = [&](int64_t pair) { return a.src + pair / per_row * a.ld + pair % per_row * W; };
  int64_t q = 0;
  for (; q + 4 <= pairs; q += 4) {
    const T *p0 = src(q), *p1 = src(q + 1), *p2 = src(q + 2), *p3 = src(q + 3);
    V<T> s0 = zero, s1 = zero, s2 = zero, s3 = zero;
    for (int64_t t = 0; t < a.taps; ++t) {
      const V<T> wv(a.w[t]);
      const int64_t off = a.tap_off[t];
      s0 = xsimd::fma(wv, load(p0 + off), s0);
      s1 = xsimd::fma(wv, load(p1 + off), s1);
      s2 = xsimd::fma(wv, load(p2 + off), s2);
      s3 = xsimd::fma(wv, load(p3 + off), s3);
    }
    put(q, s0);
    put(q + 1, s1);
    put(q + 2, s2);
    put(q + 3, s3);
  }
  for (; q < pairs; ++q) {
    const T* p = src(q);
    V<T> s = zero;
    for (int64_t t = 0; t < a.taps; ++t) s = xsimd::fma(V<T>(a.w[t]), load(p + a.tap_off[t]), s);
    put(q, s);
  }
}

// Two registers of source give one of even elements. The loop stops a register early so that
// it never reads past src[2·(n-1)], the last element it needs.
void every_other_4(void* dst_v, const void* src_v, int64_t n) {
  float* dst = static_cast<float*>(dst_v);
  const float* src = static_cast<const float*>(src_v);
  int64_t j = 0;
#if MLVM_SIMD_BYTES == 64
  const __m512i idx = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  for (; j + 16 < n; j += 16) {
    const __m512 a = _mm512_loadu_ps(src + 2 * j), b = _mm512_loadu_ps(src + 2 * j + 16);
    _mm512_storeu_ps(dst + j, _mm512_permutex2var_ps(a, idx, b));
  }
#elif MLVM_SIMD_BYTES == 32
  for (; j + 8 < n; j += 8) {
    const __m256 a = _mm256_loadu_ps(src + 2 * j), b = _mm256_loadu_ps(src + 2 * j + 8);
    const __m256 e = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));  // a0 a2 b0 b2 | a4 a6 b4 b6
    _mm256_storeu_ps(dst + j, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), _MM_SHUFFLE(3, 1, 2, 0))));
  }
#else
  for (; j + 4 < n; j += 4) {
    const __m128 a = _mm_loadu_ps(src + 2 * j), b = _mm_loadu_ps(src + 2 * j + 4);
    _mm_storeu_ps(dst + j, _mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)));
  }
#endif
  for (; j < n; ++j) dst[j] = src[2 * j];
}

// copy_rows_4 (conv_depthwise.hpp): a row at a time, whole registers and then the last few
// elements (masked at AVX-512, where a row of 56 is 3 registers and a masked one).
void copy_rows_4(void* dst_v, int64_t dst_stride, const void* src_v, int64_t src_stride, int64_t rows,
                 int64_t width) {
  constexpr int64_t L = kLanes<float>;
  for (int64_t r = 0; r < rows; ++r) {
    float* dst = static_cast<float*>(dst_v) + r * dst_stride;
    const float* src = static_cast<const float*>(src_v) + r * src_stride;
    int64_t j = 0;
    for (; j + L <= width; j += L) store(dst + j, load(src + j));
#if MLVM_SIMD_BYTES == 64
    if (j < width) {
      const __mmask16 m = __mmask16((1u << (width - j)) - 1);
      _mm512_mask_storeu_ps(dst + j, m, _mm512_maskz_loadu_ps(m, src + j));
    }
#else
    for (; j < width; ++j) dst[j] = src[j];
#endif
  }
}

// max_pool2d's rows (kernels/pool.cpp), f32: m or v, whichever is larger, v when it is NaN and
// m on ties (the pool's max_nan), a register at a time.
inline V<float> max_nan(const V<float>& m, const V<float>& v) {
  return xsimd::select((v > m) | xsimd::isnan(v), v, m);
}

// The even and the odd lanes of the 2L floats a:b, as one register each.
inline void deinterleave(const V<float>& a, const V<float>& b, V<float>& even, V<float>& odd) {
#if MLVM_SIMD_BYTES == 64
  const __m512i ie = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i io = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  even = _mm512_permutex2var_ps(a, ie, b);
  odd = _mm512_permutex2var_ps(a, io, b);
#elif MLVM_SIMD_BYTES == 32
  const __m256 e = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));  // a0 a2 b0 b2 | a4 a6 b4 b6
  const __m256 o = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
  even = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), _MM_SHUFFLE(3, 1, 2, 0)));
  odd = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(o), _MM_SHUFFLE(3, 1, 2, 0)));
#else
  even = _mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
  odd = _mm_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
#endif
}

inline float max_nan(float m, float v) { return (v > m || v != v) ? v : m; }

// max_nan for inputs without NaN, in one instruction: (MAX)PS returns its first operand when
// it is greater, else its second — m on ties, as max_nan. A NaN may be lost: callers check.
inline V<float> max_no_nan(const V<float>& m, const V<float>& v) {
#if MLVM_SIMD_BYTES == 64
  return _mm512_max_ps(v, m);
#elif MLVM_SIMD_BYTES == 32
  return _mm256_max_ps(v, m);
#else
  return _mm_max_ps(v, m);
#endif
}

// MaxPoolRow (conv_depthwise.hpp): registers of outputs read the input rows in place. Each
// input column's maximum over the rows comes first (rows in order), then each output's over
// its three columns: the order of the scratch-row path this replaced, so the same bits. A
// stride-2 register deinterleaves the column maxima once (three permutes), not every row's
// loads (twelve, which bound it: 64 x 111 x 111 -> 55 x 55 took 0.2 ms). A register reads
// just its windows' columns, so a row's last one ends at the row's end; only outputs whose
// windows reach past the row (padding, ceil_mode) go one by one. kRows: the window's rows
// when 3 (unrolled: an interior row of a 3 x 3 pool), else 0 (a.nrows of them, at a padded
// edge). SqueezeNet's first pool: 0.172 -> 0.118 ms, one output of each row having gone
// through the scalar path and the runtime row loop having cost a third.
template <int kRows>
void max3_rows(const MaxPoolRow& a) {
  constexpr int64_t L = kLanes<float>;
  constexpr float lowest = -std::numeric_limits<float>::infinity();
  const int64_t s = a.step, nrows = kRows ? kRows : a.nrows;
  // A register of outputs from j0 reads columns j0·s - left up to this many past it: exactly
  // its windows' columns, so a row's last register needs no column past the row.
  const int64_t reach = (L - 1) * s + 2;
  auto in_row = [&](int64_t j0) {
    const int64_t c = j0 * s - a.left;
    return c >= 0 && c + reach <= a.w - 1;
  };
  auto column_max = [&](int64_t c) {
    float m = lowest;
    if (c < 0 || c >= a.w) return m;
    for (int64_t r = 0; r < nrows; ++r) m = r == 0 ? a.rows[r][c] : max_nan(m, a.rows[r][c]);
    return m;
  };
  auto one = [&](int64_t j) {
    const int64_t c = j * s - a.left;
    a.out[j] = max_nan(max_nan(column_max(c), column_max(c + 1)), column_max(c + 2));
  };
  // Column maxima of the registers at column offsets c + k·step... as one register each.
  auto column_max_v = [&](int64_t c) {
    if constexpr (kRows == 3) {
      return max_nan(max_nan(load(a.rows[0] + c), load(a.rows[1] + c)), load(a.rows[2] + c));
    } else {
      V<float> m(lowest);
      for (int64_t r = 0; r < nrows; ++r) m = r == 0 ? load(a.rows[r] + c) : max_nan(m, load(a.rows[r] + c));
      return m;
    }
  };
  // An interior row (three window rows) by max_no_nan, with the sum of every value read
  // beside it: NaN when any value was NaN (or when +inf and -inf meet), and then false, for
  // the max_nan path to do the register again. max_nan's compare, mask or and blend went
  // through the mask registers, which bound the loop (64 x 111 x 111 -> 55 x 55: 0.12 ms).
  auto block_no_nan = [&](int64_t j0) __attribute__((always_inline)) {
    const int64_t c0 = j0 * s - a.left;
    // Each column's sum on its own, added as a tree (a chain of twelve adds would be a
    // latency as long as the register's work).
    auto column = [&](int64_t c, V<float>& sum) __attribute__((always_inline)) {
      const V<float> r0 = load(a.rows[0] + c), r1 = load(a.rows[1] + c), r2 = load(a.rows[2] + c);
      sum = (r0 + r1) + r2;
      return max_no_nan(max_no_nan(r0, r1), r2);
    };
    V<float> x0, x1, x2, s0, s1, s2, s3;
    if (s == 1) {
      x0 = column(c0, s0);
      x1 = column(c0 + 1, s1);
      x2 = column(c0 + 2, s2);
      s3 = s2;
    } else {
      V<float> even;
      deinterleave(column(c0, s0), column(c0 + L, s1), x0, x1);
      deinterleave(column(c0 + 1, s2), column(c0 + 1 + L, s3), even, x2);
    }
    if (xsimd::any(xsimd::isnan((s0 + s1) + (s2 + s3)))) return false;
    store(a.out + j0, max_no_nan(max_no_nan(x0, x1), x2));
    return true;
  };
  auto block = [&](int64_t j0) __attribute__((always_inline)) {
    if constexpr (kRows == 3)
      if (block_no_nan(j0)) return;
    const int64_t c = j0 * s - a.left;
    V<float> x0, x1, x2;
    if (s == 1) {
      x0 = column_max_v(c);
      x1 = column_max_v(c + 1);
      x2 = column_max_v(c + 2);
    } else {
      // Output k's columns c + 2k, c + 2k + 1 (the even and odd lanes from c) and c + 2k + 2
      // (the odd lanes from c + 1, which read no further than the last window).
      V<float> even;
      deinterleave(column_max_v(c), column_max_v(c + L), x0, x1);
      deinterleave(column_max_v(c + 1), column_max_v(c + 1 + L), even, x2);
    }
    store(a.out + j0, max_nan(max_nan(x0, x1), x2));
  };
  int64_t j = 0;
  while (j < a.ow && j * s - a.left < 0) one(j++);  // windows reaching into the left padding
  for (; j + L <= a.ow && in_row(j); j += L) block(j);
  if (j < a.ow) {
    // A last register as far right as its reads stay in the row (it recomputes some outputs,
    // with the same values), then the rest one by one (windows past the row: padding, ceil_mode).
    const int64_t last = std::min(a.ow - L, (a.w - 1 - reach + a.left) / s);
    if (last >= 0 && last + L > j && in_row(last)) {
      block(last);
      j = last + L;
    }
    for (; j < a.ow; ++j) one(j);
  }
}

void max3_rows_f32(const MaxPoolRow& a) {
  if (a.nrows == 3) max3_rows<3>(a);
  else max3_rows<0>(a);
}

// Transposes the L x L block r[i][j] (row i = register i) in place: r[j] becomes what was
// column j.
inline void transpose_block(V<float> (&r)[kLanes<float>]) {
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
inline void pixel_major_row(float* row, const float* src, int64_t plane, int64_t channels, int64_t cols, int64_t c_lo,
                            int64_t c_hi, const V<float>& pad) {
  constexpr int64_t L = kLanes<float>;
  for (int64_t col = 0; col < c_lo; ++col) store(row + col * L, pad);
  for (int64_t col = c_hi; col < cols; ++col) store(row + col * L, pad);
  int64_t col = c_lo;
  if (channels == L)
    for (; col + L <= c_hi; col += L) {
      V<float> blk[L];
      for (int64_t c = 0; c < L; ++c) blk[c] = load(src + c * plane + col);
      transpose_block(blk);
      for (int64_t q = 0; q < L; ++q) store(row + (col + q) * L, blk[q]);
    }
  for (; col < c_hi; ++col)
    for (int64_t c = 0; c < L; ++c) row[col * L + c] = c < channels ? src[c * plane + col] : 0.f;
}

// The pixel-major results out[p·L + c], p < pixels, back into channel planes: y[c·oplane + p]
// for c < channels.
inline void pixel_major_to_planes(float* y, const float* out, int64_t oplane, int64_t pixels, int64_t channels) {
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

// out[r·ow + q] = finish(sum over taps t = (i, j) in order of w[t] · in[r·sh_step + q·sw_step
// + i·dh_step + j·dw_step]), registers of L channels. KH, KW > 0: that window, its weights
// held in registers; 0: any (g.kh x g.kw). SW > 0: column stride SW and no column dilation
// (g.sw_step = SW·L, g.dw_step = L) as constants, so that every tap's input is a fixed
// displacement from its window row (with runtime column steps the compiler kept a pointer per
// tap and output on the stack and reloaded one for each multiply-add: as many loads again).
template <int KH, int KW, int SW = 0>
void blocked_rows(const float* in, const float* wv, const V<float>& vb, const V<float>& vlo, const V<float>& vhi,
                  const DepthwiseGrid& g, float* out) {
  constexpr int64_t L = kLanes<float>;
  using VF = V<float>;
  const int64_t kh = KH ? KH : g.kh, kw = KW ? KW : g.kw, taps = kh * kw;
  const int64_t sw = SW ? SW * L : g.sw_step, dh = g.dh_step, dw = SW ? L : g.dw_step;
  auto finish = [&](const VF& s) {
    const VF v = s + vb;
    return xsimd::select(v < vlo, vlo, xsimd::select(v > vhi, vhi, v));
  };
  constexpr int kHeld = KH * KW;
  VF held[kHeld > 0 ? kHeld : 1];
  if constexpr (kHeld > 0)
    for (int t = 0; t < kHeld; ++t) held[t] = V<float>::load_unaligned(wv + t * L);
  auto weight = [&](int64_t t) {
    if constexpr (kHeld > 0) return held[t];
    else return V<float>::load_unaligned(wv + t * L);
  };
  const VF zero(0.f);
  for (int64_t r = 0; r < g.oh; ++r) {
    const float* base = in + r * g.sh_step;
    float* orow = out + r * g.ow * L;
    int64_t q = 0;
    for (; q + 4 <= g.ow; q += 4) {
      VF s0 = zero, s1 = zero, s2 = zero, s3 = zero;
      const float* b = base + q * sw;
      for (int64_t i = 0; i < kh; ++i)
        for (int64_t j = 0; j < kw; ++j) {
          const VF w = weight(i * kw + j);
          const float* p = b + i * dh + j * dw;
          s0 = xsimd::fma(w, load(p), s0);
          s1 = xsimd::fma(w, load(p + sw), s1);
          s2 = xsimd::fma(w, load(p + 2 * sw), s2);
          s3 = xsimd::fma(w, load(p + 3 * sw), s3);
        }
      store(orow + q * L, finish(s0));
      store(orow + (q + 1) * L, finish(s1));
      store(orow + (q + 2) * L, finish(s2));
      store(orow + (q + 3) * L, finish(s3));
    }
    for (; q < g.ow; ++q) {
      VF s = zero;
      const float* b = base + q * sw;
      for (int64_t t = 0; t < taps; ++t) s = xsimd::fma(weight(t), load(b + (t / kw) * dh + (t % kw) * dw), s);
      store(orow + q * L, finish(s));
    }
  }
}

// Output rows in strips (depthwise_strip_rows): per strip, the padded input rows it reads are
// transposed into `in`, summed into `out` and transposed back, all while in L2. A strip's
// first kh - sh input rows are the previous strip's last ones, transposed again.
void depthwise_blocked(const DepthwiseBlocked& a) {
  constexpr int64_t L = kLanes<float>;
  using VF = V<float>;
  const int64_t strip = depthwise_strip_rows(L, a.kh, a.kw, a.oh, a.ow, a.sh, a.sw, a.dh, a.dw);
  const int64_t strip_in = (strip - 1) * a.sh + (a.kh - 1) * a.dh + 1;  // padded input rows of a strip
  const int64_t cols = (a.ow - 1) * a.sw + (a.kw - 1) * a.dw + 1;
  const int64_t taps = a.kh * a.kw, plane = a.h * a.w, oplane = a.oh * a.ow;
  float* in = a.work;                      // [strip_in][cols][L]: pad(x) rows, pixel-major
  float* out = in + strip_in * cols * L;   // [strip·ow][L]
  float* wv = out + strip * a.ow * L;      // [taps][L]
  float* bv = wv + taps * L;               // [L]
  for (int64_t t = 0; t < taps; ++t)
    for (int64_t c = 0; c < L; ++c) wv[t * L + c] = c < a.channels ? a.w_taps[c * taps + t] : 0.f;
  for (int64_t c = 0; c < L; ++c) bv[c] = c < a.channels && a.bias ? a.bias[c * a.bias_stride] : 0.f;
  const VF vb = V<float>::load_unaligned(bv), vlo(a.lo), vhi(a.hi), zero(0.f);
  // Input columns [0, w) land at padded columns left + [0, w).
  const int64_t c_lo = std::min(cols, a.left), c_hi = std::max(c_lo, std::min(cols, a.left + a.w));
  float* const y = a.y;
  const int64_t channels = a.channels;

  for (int64_t r0 = 0; r0 < a.oh; r0 += strip) {
    const int64_t orows = std::min(strip, a.oh - r0);
    const int64_t irows = (orows - 1) * a.sh + (a.kh - 1) * a.dh + 1;
    // Padded input rows r0·sh + [0, irows) into `in`.
    for (int64_t r = 0; r < irows; ++r) {
      float* row = in + r * cols * L;
      const int64_t ih = r0 * a.sh + r - a.top;
      if (ih < 0 || ih >= a.h) {
        std::fill(row, row + cols * L, 0.f);
        continue;
      }
      pixel_major_row(row, a.x + ih * a.w - a.left, plane, channels, cols, c_lo, c_hi, zero);
    }

    // Every output pixel of the strip: four at a time along a row, for four independent sums.
    const DepthwiseGrid g{a.kh, a.kw, orows, a.ow, a.sh * cols * L, a.sw * L, a.dh * cols * L, a.dw * L};
    if (a.kh == 3 && a.kw == 3 && a.dw == 1 && a.sw == 1) blocked_rows<3, 3, 1>(in, wv, vb, vlo, vhi, g, out);
    else if (a.kh == 3 && a.kw == 3 && a.dw == 1 && a.sw == 2) blocked_rows<3, 3, 2>(in, wv, vb, vlo, vhi, g, out);
    else if (a.kh == 3 && a.kw == 3) blocked_rows<3, 3>(in, wv, vb, vlo, vhi, g, out);
    else if (a.kh == 5 && a.kw == 5) blocked_rows<5, 5>(in, wv, vb, vlo, vhi, g, out);
    else blocked_rows<0, 0>(in, wv, vb, vlo, vhi, g, out);

    // Back to planes: the strip's pixels are y[c·oplane + r0·ow + p], p < orows·ow.
    pixel_major_to_planes(y + r0 * a.ow, out, oplane, orows * a.ow, channels);
  }
}

// MaxPoolBlocked: the plane block transposed whole into `in` (-inf past the input's columns),
// each output's window reduced in the row path's order, and the results transposed back.
void max_pool_blocked(const MaxPoolBlocked& a) {
  constexpr int64_t L = kLanes<float>;
  using VF = V<float>;
  const int64_t cols = max_pool_blocked_cols(a.w, a.kw, a.ow, a.sw, a.left);
  const int64_t plane = a.h * a.w, oplane = a.oh * a.ow;
  float* in = a.work;               // [h][cols][L]
  float* out = in + a.h * cols * L;  // [oh·ow][L]
  const VF lowest(-std::numeric_limits<float>::infinity());
  const int64_t c_lo = std::min(cols, a.left), c_hi = std::min(cols, a.left + a.w);
  for (int64_t r = 0; r < a.h; ++r)
    pixel_major_row(in + r * cols * L, a.x + r * a.w - a.left, plane, a.channels, cols, c_lo, c_hi, lowest);
  for (int64_t i = 0; i < a.oh; ++i) {
    const int64_t a0 = a.row_taps[2 * i], a1 = a.row_taps[2 * i + 1], hs = i * a.sh - a.top;
    float* orow = out + i * a.ow * L;
    if (a0 >= a1) {
      for (int64_t j = 0; j < a.ow; ++j) store(orow + j * L, lowest);
      continue;
    }
    const float* first = in + (hs + a0) * cols * L;
    for (int64_t j = 0; j < a.ow; ++j) {
      const float* p = first + j * a.sw * L;
      VF m;
      for (int64_t b = 0; b < a.kw; ++b) {
        VF v = load(p + b * L);
        for (int64_t r = 1; r < a1 - a0; ++r) v = max_nan(v, load(p + r * cols * L + b * L));
        m = b == 0 ? v : max_nan(m, v);
      }
      store(orow + j * L, m);
    }
  }
  pixel_major_to_planes(a.y, out, oplane, oplane, a.channels);
}

}  // namespace

const ConvRowTable& conv_row_table() {
  static_assert(kLanes<float> <= kDepthwiseSlack, "the source slack must cover one register");
  static const ConvRowTable table{depthwise_rows<float>, depthwise_rows<double>, every_other_4, depthwise_blocked,
                                  int(kLanes<float>), max3_rows_f32, max_pool_blocked, copy_rows_4};
  return table;
}

}  // namespace mlvm::simd::MLVM_SIMD_NS
