// The float depthwise rows and the stride-2 row split of one SIMD level: the body of depthwise_avx512.cpp,
// depthwise_avx2.cpp and depthwise_sse2.cpp (interface: kernels/simd/conv_depthwise.hpp;
// inclusion rules: kernels/simd/ew_vec.inl).
//
// Four registers of adjacent outputs are summed at once, so each broadcast weight serves four
// fused multiply-adds and the four dependency chains overlap; a row's last partial register
// is computed whole (the source has slack) and stored through a buffer.
#pragma once

#include <algorithm>

#include "kernels/simd/conv_depthwise.hpp"
#include "kernels/simd/ew_vec.inl"

namespace mlvm::simd::MLVM_SIMD_NS {
namespace {

template <class T>
void depthwise_rows(const DepthwiseRows<T>& a) {
  constexpr int64_t W = kLanes<T>;
  const V<T> vb(a.bias), vlo(a.lo), vhi(a.hi), zero(T(0));
  auto finish = [&](const V<T>& sum) {
    const V<T> v = sum + vb;
    return xsimd::select(v < vlo, vlo, xsimd::select(v > vhi, vhi, v));
  };
  for (int64_t r = 0; r < a.oh; ++r) {
    const T* row = a.src + r * a.ld;
    T* yr = a.y + r * a.ow;
    int64_t c = 0;
    for (; c + 4 * W <= a.ow; c += 4 * W) {
      V<T> s0 = zero, s1 = zero, s2 = zero, s3 = zero;
      for (int64_t t = 0; t < a.taps; ++t) {
        const V<T> wv(a.w[t]);
        const T* p = row + a.tap_off[t] + c;
        s0 = xsimd::fma(wv, load(p), s0);
        s1 = xsimd::fma(wv, load(p + W), s1);
        s2 = xsimd::fma(wv, load(p + 2 * W), s2);
        s3 = xsimd::fma(wv, load(p + 3 * W), s3);
      }
      store(yr + c, finish(s0));
      store(yr + c + W, finish(s1));
      store(yr + c + 2 * W, finish(s2));
      store(yr + c + 3 * W, finish(s3));
    }
    for (; c < a.ow; c += W) {
      V<T> s = zero;
      for (int64_t t = 0; t < a.taps; ++t) s = xsimd::fma(V<T>(a.w[t]), load(row + a.tap_off[t] + c), s);
      const V<T> out = finish(s);
      if (c + W <= a.ow) {
        store(yr + c, out);
      } else {
        alignas(64) T buf[W];
        out.store_aligned(buf);
        std::copy(buf, buf + (a.ow - c), yr + c);
      }
    }
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

}  // namespace

const ConvRowTable& conv_row_table() {
  static_assert(kLanes<float> <= kDepthwiseSlack, "the source slack must cover one register");
  static const ConvRowTable table{depthwise_rows<float>, depthwise_rows<double>, every_other_4};
  return table;
}

}  // namespace mlvm::simd::MLVM_SIMD_NS
