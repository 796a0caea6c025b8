// The conversion of the exact integer depthwise's f32 sums back to i32 with the bias
// (kernels/depthwise_exact.cpp), of one SIMD level: a part of depthwise_impl.inl's body
// (inclusion rules: kernels/simd/ew_vec.inl). The plain loop compiled at the baseline level cost
// a few % of a quantized MobileNet-V2 at AVX-512; this converts 16 (AVX-512) or 8 values at a
// time. (Its input's i8 -> f32 conversion is the cast op's run, EwTable::cast_to_f32.)
#pragma once

#include <cstdint>

#include "kernels/simd/ew_vec.inl"

namespace mlvm::simd::MLVM_SIMD_NS {
namespace {

#if MLVM_SIMD_BYTES == 64 || MLVM_SIMD_BYTES == 32
// y[k] = int32(s[k]) + b (wrapping), k < n, each s[k] an integer below 2^24 in magnitude (so
// the conversion is exact whatever its rounding).
void f32_to_i32_plus(const float* s, int32_t b, int32_t* y, int64_t n) {
  int64_t k = 0;
#if MLVM_SIMD_BYTES == 64
  const __m512i vb = _mm512_set1_epi32(b);
  for (; k + 16 <= n; k += 16)
    _mm512_storeu_si512(y + k, _mm512_add_epi32(_mm512_cvttps_epi32(_mm512_loadu_ps(s + k)), vb));
#else
  const __m256i vb = _mm256_set1_epi32(b);
  for (; k + 8 <= n; k += 8)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + k),
                        _mm256_add_epi32(_mm256_cvttps_epi32(_mm256_loadu_ps(s + k)), vb));
#endif
  for (; k < n; ++k) y[k] = int32_t(uint32_t(int32_t(s[k])) + uint32_t(b));
}
#else
constexpr void (*f32_to_i32_plus)(const float*, int32_t, int32_t*, int64_t) = nullptr;
#endif

}  // namespace
}  // namespace mlvm::simd::MLVM_SIMD_NS
