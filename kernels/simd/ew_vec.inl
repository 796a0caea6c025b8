// Vector helpers shared by the per-level kernel bodies (ew_impl.inl, reduce_impl.inl).
//
// Not a header: it is included inside a per-level translation unit after that unit has
// defined
//   MLVM_SIMD_NS     the level's namespace (avx512, avx2, sse2)
//   MLVM_SIMD_ARCH   the xsimd architecture type of that level
//   MLVM_SIMD_BYTES  the register width in bytes (64, 32, 16)
// Everything here lives in an anonymous namespace inside mlvm::simd::MLVM_SIMD_NS, so no
// function compiled with one level's instructions can be picked by the linker for another
// (the ODR note in kernels/simd/cpu_features.hpp).
#pragma once

#if !defined(MLVM_SIMD_NS) || !defined(MLVM_SIMD_ARCH) || !defined(MLVM_SIMD_BYTES)
#error "define MLVM_SIMD_NS, MLVM_SIMD_ARCH and MLVM_SIMD_BYTES before including this file"
#endif

// GCC 12's AVX-512 intrinsics (e.g. _mm512_sqrt_ps) pass _mm512_undefined_ps() as the
// ignored merge source, which -Wmaybe-uninitialized (or -Wuninitialized, as for the integer
// max in max_pool_impl.inl's no_nan) reports once inlined (GCC bug 105593).
#if defined(__GNUC__) && !defined(__clang__) && MLVM_SIMD_BYTES == 64
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <xsimd/xsimd.hpp>

// Lets the compiler vectorize a plain loop whose output may be the very same array as an
// input (an in-place op): each iteration reads and writes index k only, so there is no
// loop-carried dependence, but without the hint the compiler versions the loop on an alias
// check that an exact alias fails.
#if defined(__clang__)
#define MLVM_SIMD_INDEPENDENT _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__)
#define MLVM_SIMD_INDEPENDENT _Pragma("GCC ivdep")
#else
#define MLVM_SIMD_INDEPENDENT
#endif

namespace mlvm::simd::MLVM_SIMD_NS {
namespace {

using Arch = MLVM_SIMD_ARCH;
template <class T>
using V = xsimd::batch<T, Arch>;
template <class T>
inline constexpr int64_t kLanes = int64_t(V<T>::size);

static_assert(sizeof(V<float>) == MLVM_SIMD_BYTES, "xsimd arch and register width disagree");

// Beware: xsimd 8.1's operator!= on float registers is an *ordered* compare on AVX and
// AVX-512 (false when a side is NaN, unlike C++'s !=), so NaN tests use xsimd::isnan.

// Integer arithmetic that wraps without UB: computed in an unsigned type at least as wide as
// `unsigned`, so that small types do not promote to signed int.
template <class T>
using WideUnsigned =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
template <class T>
inline T wrapping_add(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return T(WideUnsigned<T>(a) + WideUnsigned<T>(b));
  else
    return a + b;
}
template <class T>
inline T wrapping_sub(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return T(WideUnsigned<T>(a) - WideUnsigned<T>(b));
  else
    return a - b;
}
template <class T>
inline T wrapping_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return T(WideUnsigned<T>(a) * WideUnsigned<T>(b));
  else
    return a * b;
}

template <class T>
inline V<T> load(const T* p) {
  return V<T>::load_unaligned(p);
}
template <class T>
inline void store(T* p, const V<T>& v) {
  v.store_unaligned(p);
}

// Non-temporal store of one register to a register-aligned address.
#if MLVM_SIMD_BYTES == 64
inline void stream_register(void* p, __m512 r) {
  _mm512_stream_ps(static_cast<float*>(p), r);
}
inline void stream_register(void* p, __m512d r) {
  _mm512_stream_pd(static_cast<double*>(p), r);
}
inline void stream_register(void* p, __m512i r) {
  _mm512_stream_si512(static_cast<__m512i*>(p), r);
}
#elif MLVM_SIMD_BYTES == 32
inline void stream_register(void* p, __m256 r) {
  _mm256_stream_ps(static_cast<float*>(p), r);
}
inline void stream_register(void* p, __m256d r) {
  _mm256_stream_pd(static_cast<double*>(p), r);
}
inline void stream_register(void* p, __m256i r) {
  _mm256_stream_si256(static_cast<__m256i*>(p), r);
}
#else
inline void stream_register(void* p, __m128 r) {
  _mm_stream_ps(static_cast<float*>(p), r);
}
inline void stream_register(void* p, __m128d r) {
  _mm_stream_pd(static_cast<double*>(p), r);
}
inline void stream_register(void* p, __m128i r) {
  _mm_stream_si128(static_cast<__m128i*>(p), r);
}
#endif

template <class T>
inline void stream(T* p, const V<T>& v) {
  stream_register(p, v.data);
}

// The even and the odd lanes of the 2L floats a:b, as one register each (max_pool2d's
// stride-2 rows, Winograd's deinterleaved tile loads).
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

// Lanes 1.. of a followed by lane 0 of b: a row's values moved one lane down, the next value
// shifted in (max_pool2d's third window column at stride 2, from the first's).
inline V<float> shift_in(const V<float>& a, const V<float>& b) {
#if MLVM_SIMD_BYTES == 64
  return _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(b), _mm512_castps_si512(a), 1));
#elif MLVM_SIMD_BYTES == 32
  const __m256 down = _mm256_permutevar8x32_ps(a, _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 7));
  return _mm256_blend_ps(down, _mm256_permutevar8x32_ps(b, _mm256_setzero_si256()), 0x80);
#else
  const __m128 t = _mm_shuffle_ps(a, b, _MM_SHUFFLE(0, 0, 3, 3));  // a3 a3 b0 b0
  return _mm_shuffle_ps(a, t, _MM_SHUFFLE(2, 0, 2, 1));            // a1 a2 a3 b0
#endif
}

// a·b + c and c - a·b, floats. At AVX2 and AVX-512 rounded once, by the fused instruction:
// xsimd's AVX-512 arch has no fma of its own, and its generic x * y + z was fused only where
// the compiler contracted it (GCC at -O2, not at the sanitizer builds' -O1), so exp's bits
// there differed from AVX2's. SSE2 has no fused multiply-add: two roundings.
template <class T>
inline V<T> fused_mul_add(const V<T>& a, const V<T>& b, const V<T>& c) {
#if MLVM_SIMD_BYTES == 64
  if constexpr (std::is_same_v<T, float>) return V<T>(_mm512_fmadd_ps(a, b, c));
  else return V<T>(_mm512_fmadd_pd(a, b, c));
#else
  return xsimd::fma(a, b, c);
#endif
}
template <class T>
inline V<T> fused_neg_mul_add(const V<T>& a, const V<T>& b, const V<T>& c) {
#if MLVM_SIMD_BYTES == 64
  if constexpr (std::is_same_v<T, float>) return V<T>(_mm512_fnmadd_ps(a, b, c));
  else return V<T>(_mm512_fnmadd_pd(a, b, c));
#else
  return xsimd::fnma(a, b, c);
#endif
}

// deinterleave's even and odd lanes in an order of the level's choosing, the same for every
// call: lane-wise arithmetic on such registers, then deinterleaved_in_order, gives what it would
// on deinterleave's. At AVX2 this saves two cross-lane permutes per call (one per result).
inline void deinterleave_any_order(const V<float>& a, const V<float>& b, V<float>& even, V<float>& odd) {
#if MLVM_SIMD_BYTES == 32
  even = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));  // a0 a2 b0 b2 | a4 a6 b4 b6
  odd = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
#else
  deinterleave(a, b, even, odd);
#endif
}
inline V<float> deinterleaved_in_order(const V<float>& v) {
#if MLVM_SIMD_BYTES == 32
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(v), _MM_SHUFFLE(3, 1, 2, 0)));
#else
  return v;
#endif
}

// v < lo ? lo : v > hi ? hi : v in each lane (NaN fails both compares and passes): clip, and
// the fused relu/clip the conv kernels apply as they store their sums.
template <class T>
inline V<T> clip_lanes(const V<T>& v, const V<T>& lo, const V<T>& hi) {
  if constexpr (std::is_same_v<T, float>) {
    // The same lanes in two instructions instead of two compares and two blends: x86's
    // max(a, b) is a > b ? a : b, so max(lo, v) keeps v unless v < lo (a NaN v fails the
    // compare and stays), and min(hi, ·) likewise.
#if MLVM_SIMD_BYTES == 64
    return V<T>(_mm512_min_ps(hi, _mm512_max_ps(lo, v)));
#elif MLVM_SIMD_BYTES == 32
    return V<T>(_mm256_min_ps(hi, _mm256_max_ps(lo, v)));
#else
    return V<T>(_mm_min_ps(hi, _mm_max_ps(lo, v)));
#endif
  } else {
    return xsimd::select(v < lo, lo, xsimd::select(v > hi, hi, v));
  }
}

#if MLVM_SIMD_BYTES != 16
// Masked float loads and stores (AVX-512, AVX2; SSE2 has none): lanes outside the mask are
// neither read (a load gives 0 there) nor written, and raise no fault.
#if MLVM_SIMD_BYTES == 64
using LaneMask = __mmask16;
// Lanes l with lo <= l < hi.
inline LaneMask lanes_between(int64_t lo, int64_t hi) {
  lo = std::clamp<int64_t>(lo, 0, 16);
  hi = std::clamp<int64_t>(hi, lo, 16);
  return LaneMask(((1u << hi) - 1) & ~((1u << lo) - 1));
}
inline V<float> masked_load(LaneMask m, const float* p) { return _mm512_maskz_loadu_ps(m, p); }
inline void masked_store(LaneMask m, float* p, const V<float>& v) { _mm512_mask_storeu_ps(p, m, v); }
#else
using LaneMask = __m256i;
inline LaneMask lanes_between(int64_t lo, int64_t hi) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  lo = std::clamp<int64_t>(lo, 0, 8);
  hi = std::clamp<int64_t>(hi, lo, 8);
  return _mm256_andnot_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(int(lo)), lane),
                             _mm256_cmpgt_epi32(_mm256_set1_epi32(int(hi)), lane));
}
inline V<float> masked_load(LaneMask m, const float* p) { return _mm256_maskload_ps(p, m); }
inline void masked_store(LaneMask m, float* p, const V<float>& v) { _mm256_maskstore_ps(p, m, v); }
#endif
#endif

// Non-temporal stores are weakly ordered: fence them before anyone else may read the output.
inline void stream_fence() {
  _mm_sfence();
}

// Elements to write one by one before `p` is register-aligned (all of n if it never is).
template <class T>
inline int64_t elements_before_aligned(const T* p, int64_t n) {
  const uintptr_t addr = reinterpret_cast<uintptr_t>(p);
  if (addr % sizeof(T) != 0) return n;
  const int64_t mis = int64_t(addr % MLVM_SIMD_BYTES);
  const int64_t head = mis == 0 ? 0 : (MLVM_SIMD_BYTES - mis) / int64_t(sizeof(T));
  return head < n ? head : n;
}

}  // namespace
}  // namespace mlvm::simd::MLVM_SIMD_NS
