// The float depthwise rows and the stride-2 row split of one SIMD level: the body of depthwise_avx512.cpp,
// depthwise_avx2.cpp and depthwise_sse2.cpp (interface: kernels/simd/conv_depthwise.hpp;
// inclusion rules: kernels/simd/ew_vec.inl), with max_pool2d's kernels (max_pool_impl.inl)
// and the pixel-major layout both use (pixel_major.inl).
//
// Four registers of adjacent outputs are summed at once, so each broadcast weight serves four
// fused multiply-adds and the four dependency chains overlap; a row's last partial register
// is computed whole (the source has slack) and stored through a buffer.
#pragma once

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <numeric>
#include <type_traits>
#include <vector>

#include "kernels/simd/conv_depthwise.hpp"
#include "kernels/simd/cpu_features.hpp"
#include "kernels/simd/ew_vec.inl"
#include "kernels/simd/depthwise_exact_io.inl"
#include "kernels/simd/depthwise_plane.inl"
#include "kernels/simd/max_pool_impl.inl"
#include "kernels/simd/pixel_major.inl"
#include "kernels/simd/requant_vec.inl"

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
    return clip_lanes(v, vlo, vhi);
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
      s0 = fused_mul_add(wv, load(p0 + off), s0);
      s1 = fused_mul_add(wv, load(p1 + off), s1);
      s2 = fused_mul_add(wv, load(p2 + off), s2);
      s3 = fused_mul_add(wv, load(p3 + off), s3);
    }
    put(q, s0);
    put(q + 1, s1);
    put(q + 2, s2);
    put(q + 3, s3);
  }
  for (; q < pairs; ++q) {
    const T* p = src(q);
    V<T> s = zero;
    for (int64_t t = 0; t < a.taps; ++t) s = fused_mul_add(V<T>(a.w[t]), load(p + a.tap_off[t]), s);
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
      const LaneMask m = lanes_between(0, width - j);
      masked_store(m, dst + j, masked_load(m, src + j));
    }
#else
    for (; j < width; ++j) dst[j] = src[j];
#endif
  }
}

// out[r·ow + q] = finish(sum over taps t = (i, j) in order of w[t] · in[r·sh_step + q·sw_step
// + i·dh_step + j·dw_step]), registers of L channels. KH, KW > 0: that window, its weights
// held in registers; 0: any (g.kh x g.kw). SW > 0: column stride SW and no column dilation
// (g.sw_step = SW·L, g.dw_step = L) as constants, so that every tap's input is a fixed
// displacement from its window row (with runtime column steps the compiler kept a pointer per
// tap and output on the stack and reloaded one for each multiply-add: as many loads again).
template <int KH, int KW, int SW = 0>
[[gnu::always_inline]] inline void blocked_rows(const float* in, const float* wv, const V<float>& vb,
                                                const V<float>& vlo, const V<float>& vhi, const DepthwiseGrid& g,
                                                float* out) {
  constexpr int64_t L = kLanes<float>;
  using VF = V<float>;
  const int64_t kh = KH ? KH : g.kh, kw = KW ? KW : g.kw, taps = kh * kw;
  const int64_t sw = SW ? SW * L : g.sw_step, dh = g.dh_step, dw = SW ? L : g.dw_step;
  auto finish = [&](const VF& s) {
    const VF v = s + vb;
    return clip_lanes(v, vlo, vhi);
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
    // Groups of four outputs; a row of at least four whose width is not a multiple of four
    // ends with a group moved back to end at the row's end (its first outputs are computed
    // twice, to the same bits), not with outputs one at a time at a quarter of the rate.
    const int64_t grouped = g.ow >= 4 ? g.ow : 0;
    for (int64_t q0 = 0; q0 < grouped; q0 += 4) {
      const int64_t q = std::min(q0, g.ow - 4);
      VF s0 = zero, s1 = zero, s2 = zero, s3 = zero;
      const float* b = base + q * sw;
      for (int64_t i = 0; i < kh; ++i)
        for (int64_t j = 0; j < kw; ++j) {
          const VF w = weight(i * kw + j);
          const float* p = b + i * dh + j * dw;
          s0 = fused_mul_add(w, load(p), s0);
          s1 = fused_mul_add(w, load(p + sw), s1);
          s2 = fused_mul_add(w, load(p + 2 * sw), s2);
          s3 = fused_mul_add(w, load(p + 3 * sw), s3);
        }
      store(orow + q * L, finish(s0));
      store(orow + (q + 1) * L, finish(s1));
      store(orow + (q + 2) * L, finish(s2));
      store(orow + (q + 3) * L, finish(s3));
    }
    for (int64_t q = grouped; q < g.ow; ++q) {
      VF s = zero;
      const float* b = base + q * sw;
      for (int64_t t = 0; t < taps; ++t) s = fused_mul_add(weight(t), load(b + (t / kw) * dh + (t % kw) * dw), s);
      store(orow + q * L, finish(s));
    }
  }
}

// Output rows in strips (depthwise_strip_rows): per strip, the padded input rows it reads are
// made pixel-major in `in` (fill(row, ih, cols, c_lo, c_hi) for input row ih, whose columns
// [0, w) land at padded columns [c_lo, c_hi)), summed into `out` and handed on, all while in
// L2: emit(out, pixels, at) with the strip's pixels (out may be overwritten) from pixel `at` of each output plane. A
// strip's first kh - sh input rows are the previous strip's last ones, made again.
template <class Fill, class Emit>
void blocked_strips(const DepthwiseBlocked& a, Fill fill, Emit emit) {
  constexpr int64_t L = kLanes<float>;
  using VF = V<float>;
  const int64_t strip = depthwise_strip_rows(L, a.kh, a.kw, a.oh, a.ow, a.sh, a.sw, a.dh, a.dw);
  const int64_t strip_in = (strip - 1) * a.sh + (a.kh - 1) * a.dh + 1;  // padded input rows of a strip
  const int64_t cols = (a.ow - 1) * a.sw + (a.kw - 1) * a.dw + 1;
  const int64_t taps = a.kh * a.kw;
  float* in = a.work;                      // [strip_in][cols][L]: pad(x) rows, pixel-major
  float* out = in + strip_in * cols * L;   // [strip·ow][L]
  float* wv = out + strip * a.ow * L;      // [taps][L]
  float* bv = wv + taps * L;               // [L]
  for (int64_t t = 0; t < taps; ++t)
    for (int64_t c = 0; c < L; ++c) wv[t * L + c] = c < a.channels ? a.w_taps[c * taps + t] : 0.f;
  for (int64_t c = 0; c < L; ++c) bv[c] = c < a.channels && a.bias ? a.bias[c * a.bias_stride] : 0.f;
  const VF vb = V<float>::load_unaligned(bv), vlo(a.lo), vhi(a.hi);
  // Input columns [0, w) land at padded columns left + [0, w).
  const int64_t c_lo = std::min(cols, a.left), c_hi = std::max(c_lo, std::min(cols, a.left + a.w));

  for (int64_t r0 = 0; r0 < a.oh; r0 += strip) {
    const int64_t orows = std::min(strip, a.oh - r0);
    const int64_t irows = (orows - 1) * a.sh + (a.kh - 1) * a.dh + 1;
    // Padded input rows r0·sh + [0, irows) into `in`.
    for (int64_t r = 0; r < irows; ++r) {
      float* row = in + r * cols * L;
      const int64_t ih = r0 * a.sh + r - a.top;
      if (ih < 0 || ih >= a.h) std::fill(row, row + cols * L, 0.f);
      else fill(row, ih, cols, c_lo, c_hi);
    }

    // Every output pixel of the strip: four at a time along a row, for four independent sums.
    const DepthwiseGrid g{a.kh, a.kw, orows, a.ow, a.sh * cols * L, a.sw * L, a.dh * cols * L, a.dw * L};
    if (a.kh == 3 && a.kw == 3 && a.dw == 1 && a.sw == 1) blocked_rows<3, 3, 1>(in, wv, vb, vlo, vhi, g, out);
    else if (a.kh == 3 && a.kw == 3 && a.dw == 1 && a.sw == 2) blocked_rows<3, 3, 2>(in, wv, vb, vlo, vhi, g, out);
    else if (a.kh == 3 && a.kw == 3) blocked_rows<3, 3>(in, wv, vb, vlo, vhi, g, out);
    else if (a.kh == 5 && a.kw == 5 && a.dw == 1 && a.sw == 1) blocked_rows<5, 5, 1>(in, wv, vb, vlo, vhi, g, out);
    else if (a.kh == 5 && a.kw == 5 && a.dw == 1 && a.sw == 2) blocked_rows<5, 5, 2>(in, wv, vb, vlo, vhi, g, out);
    else if (a.kh == 5 && a.kw == 5) blocked_rows<5, 5>(in, wv, vb, vlo, vhi, g, out);
    else blocked_rows<0, 0>(in, wv, vb, vlo, vhi, g, out);
    emit(out, orows * a.ow, r0 * a.ow);
  }
}

void depthwise_blocked(const DepthwiseBlocked& a) {
  const int64_t plane = a.h * a.w, oplane = a.oh * a.ow;
  const V<float> zero(0.f);
  blocked_strips(
      a,
      [&](float* row, int64_t ih, int64_t cols, int64_t c_lo, int64_t c_hi) {
        pixel_major_row(row, a.x + ih * a.w - a.left, plane, a.channels, cols, c_lo, c_hi, zero);
      },
      // Back to planes: the strip's pixels are y[c·oplane + at + p], p < pixels.
      [&](float* out, int64_t pixels, int64_t at) {
        pixel_major_to_planes(a.y + at, out, oplane, pixels, a.channels);
      });
}

#include "kernels/simd/depthwise_plain.inl"
#include "kernels/simd/depthwise_blocked_i8.inl"
#include "kernels/simd/depthwise_blocked_pairs.inl"
#include "kernels/simd/depthwise_pairs.inl"

}  // namespace

const ConvRowTable& conv_row_table() {
  static_assert(kLanes<float> <= kDepthwiseSlack, "the source slack must cover one register");
#if MLVM_SIMD_BYTES == 16
  constexpr void (*depthwise_plane)(const DepthwisePlane&) = nullptr;
#endif
  static const ConvRowTable table{depthwise_rows<float>, depthwise_rows<double>, every_other_4,
                                  depthwise_blocked,     depthwise_plane,        int(kLanes<float>),
                                  max3_rows_f32,         max_pool_blocked,       copy_rows_4,
                                  pairs_depthwise_plane<int8_t>, pairs_depthwise_plane<uint8_t>,
                                  pairs_depthwise_plane<int16_t>, f32_to_i32_plus, depthwise_blocked_i8,
                                  depthwise_blocked_pairs};
  return table;
}

}  // namespace mlvm::simd::MLVM_SIMD_NS
