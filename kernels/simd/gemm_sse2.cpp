// The SSE2 GEMM micro-kernels (the x86-64 baseline; compiled with the sse2 flags).
//
// SSE2 has no FMA, so the float kernels multiply and add (two roundings per step) and give
// slightly different float results from the avx2/avx512 levels; each level is deterministic.
#include <emmintrin.h>
#include <xmmintrin.h>

#include <cstdint>

#include "kernels/simd/gemm_kernels.hpp"

namespace mlvm::simd::sse2 {
namespace {

struct VF32 {
  using T = float;
  using W = float;
  using V = __m128;
  static constexpr int L = 4;
  static V zero() { return _mm_setzero_ps(); }
  static V load(const T* p) { return _mm_load_ps(p); }
  static V loadu(const T* p) { return _mm_loadu_ps(p); }
  static void storeu(T* p, V v) { _mm_storeu_ps(p, v); }
  static V bcast(const T* p) { return _mm_set1_ps(*p); }
  static V fma(V a, V b, V acc) { return _mm_add_ps(acc, _mm_mul_ps(a, b)); }
  static V add(V a, V b) { return _mm_add_ps(a, b); }
  // x > hi ? hi : x, then < lo ? lo : that. minps/maxps return their second operand unless
  // the first compares less (greater), so NaN and equal zeros pass as x.
  static V clamp(V x, V lo, V hi) { return _mm_max_ps(lo, _mm_min_ps(hi, x)); }
};

struct VF64 {
  using T = double;
  using W = double;
  using V = __m128d;
  static constexpr int L = 2;
  static V zero() { return _mm_setzero_pd(); }
  static V load(const T* p) { return _mm_load_pd(p); }
  static V loadu(const T* p) { return _mm_loadu_pd(p); }
  static void storeu(T* p, V v) { _mm_storeu_pd(p, v); }
  static V bcast(const T* p) { return _mm_set1_pd(*p); }
  static V fma(V a, V b, V acc) { return _mm_add_pd(acc, _mm_mul_pd(a, b)); }
  static V add(V a, V b) { return _mm_add_pd(a, b); }
  static V clamp(V x, V lo, V hi) { return _mm_max_pd(lo, _mm_min_pd(hi, x)); }  // as VF32's
};

struct VI32 {
  using T = int32_t;
  using W = uint32_t;
  using V = __m128i;
  static constexpr int L = 4;
  static V zero() { return _mm_setzero_si128(); }
  static V load(const void* p) { return _mm_load_si128(static_cast<const __m128i*>(p)); }
  static V loadu(const void* p) { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }
  static void storeu(void* p, V v) { _mm_storeu_si128(static_cast<__m128i*>(p), v); }
  static V bcast(const void* p) {
    int32_t x;
    __builtin_memcpy(&x, p, 4);
    return _mm_set1_epi32(x);
  }
  static V add(V a, V b) { return _mm_add_epi32(a, b); }
  static V sub(V a, V b) { return _mm_sub_epi32(a, b); }
};

// i16 pairs -> i32: pmaddwd is exact modulo 2^32 (see gemm_avx512.cpp).
struct MaddPairs {
  static __m128i apply(__m128i acc, __m128i a, __m128i b) { return _mm_add_epi32(acc, _mm_madd_epi16(a, b)); }
};

}  // namespace

#include "kernels/simd/gemm_microkernels.inl"

namespace {

GemmKernelTable make_table() {
  GemmKernelTable t;
  t.f32 = fma_entry<VF32, 4, 2>(256, 128, 2048);
  t.f64 = fma_entry<VF64, 4, 2>(256, 64, 1024);
  t.i16_pairs = int_entry<VI32, MaddPairs, 2, 4, 2>(512, 128, 2048);
  // SSE2 has no 32-bit low multiply (pmulld is SSE4.1).
  t.i32 = generic_entry<int32_t, uint32_t, 4, 8>(256, 128, 2048);
  t.i64 = generic_entry<int64_t, uint64_t, 4, 4>(256, 64, 1024);
  return t;
}

}  // namespace

const GemmKernelTable& gemm_table() {
  static const GemmKernelTable t = make_table();
  return t;
}

}  // namespace mlvm::simd::sse2
