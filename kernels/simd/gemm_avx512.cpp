// The AVX-512 GEMM micro-kernels (compiled with the avx512 flags, VNNI included; the VNNI
// kernels are only handed out when the CPU has it — see gemm_kernels.cpp).
//
// Zen 4 runs a 512-bit FMA per cycle (two 256-bit halves) with 4 cycles latency, so 16 or more
// independent accumulators keep it busy; 32 zmm registers leave room for MR·NV accumulators,
// NV B vectors and one broadcast. Cache blocks: a KC x NR B micro-panel stays in L1 while the
// MR-row A panels of an MC x KC block stream from L2.
#include <immintrin.h>

#include <cstdint>

#include "kernels/simd/gemm_kernels.hpp"

namespace mlvm::simd::avx512 {
namespace {

struct VF32 {
  using T = float;
  using W = float;
  using V = __m512;
  static constexpr int L = 16;
  static V zero() { return _mm512_setzero_ps(); }
  static V load(const T* p) { return _mm512_load_ps(p); }
  static V loadu(const T* p) { return _mm512_loadu_ps(p); }
  static void storeu(T* p, V v) { _mm512_storeu_ps(p, v); }
  static V bcast(const T* p) { return _mm512_set1_ps(*p); }
  static V fma(V a, V b, V acc) { return _mm512_fmadd_ps(a, b, acc); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  // x > hi ? hi : x, then < lo ? lo : that. minps/maxps return their second operand unless
  // the first compares less (greater), so NaN and equal zeros pass as x.
  static V clamp(V x, V lo, V hi) { return _mm512_max_ps(lo, _mm512_min_ps(hi, x)); }
};

struct VF64 {
  using T = double;
  using W = double;
  using V = __m512d;
  static constexpr int L = 8;
  static V zero() { return _mm512_setzero_pd(); }
  static V load(const T* p) { return _mm512_load_pd(p); }
  static V loadu(const T* p) { return _mm512_loadu_pd(p); }
  static void storeu(T* p, V v) { _mm512_storeu_pd(p, v); }
  static V bcast(const T* p) { return _mm512_set1_pd(*p); }
  static V fma(V a, V b, V acc) { return _mm512_fmadd_pd(a, b, acc); }
  static V add(V a, V b) { return _mm512_add_pd(a, b); }
  static V clamp(V x, V lo, V hi) { return _mm512_max_pd(lo, _mm512_min_pd(hi, x)); }  // as VF32's
};

// i32 lanes; fma is the wrapping multiply-add of i32 panels.
struct VI32 {
  using T = int32_t;
  using W = uint32_t;
  using V = __m512i;
  static constexpr int L = 16;
  static V zero() { return _mm512_setzero_si512(); }
  static V load(const void* p) { return _mm512_load_si512(p); }
  static V loadu(const void* p) { return _mm512_loadu_si512(p); }
  static void storeu(void* p, V v) { _mm512_storeu_si512(p, v); }
  static V bcast(const void* p) {
    int32_t x;
    __builtin_memcpy(&x, p, 4);
    return _mm512_set1_epi32(x);
  }
  static V add(V a, V b) { return _mm512_add_epi32(a, b); }
  static V sub(V a, V b) { return _mm512_sub_epi32(a, b); }
  static V fma(V a, V b, V acc) { return _mm512_add_epi32(acc, _mm512_mullo_epi32(a, b)); }
};

// i64 lanes (AVX-512DQ has the 64-bit low multiply).
struct VI64 {
  using T = int64_t;
  using W = uint64_t;
  using V = __m512i;
  static constexpr int L = 8;
  static V zero() { return _mm512_setzero_si512(); }
  static V load(const void* p) { return _mm512_load_si512(p); }
  static V loadu(const void* p) { return _mm512_loadu_si512(p); }
  static void storeu(void* p, V v) { _mm512_storeu_si512(p, v); }
  static V bcast(const int64_t* p) { return _mm512_set1_epi64(*p); }
  static V add(V a, V b) { return _mm512_add_epi64(a, b); }
  static V fma(V a, V b, V acc) { return _mm512_add_epi64(acc, _mm512_mullo_epi64(a, b)); }
};

// i16 pairs -> i32: vpmaddwd is exact modulo 2^32 (its one overflow, (-32768)² · 2 = 2^31,
// wraps to -2^31, which is the same residue).
struct MaddPairs {
  static __m512i apply(__m512i acc, __m512i a, __m512i b) {
    return _mm512_add_epi32(acc, _mm512_madd_epi16(a, b));
  }
};
// The VNNI steps are written as asm with the accumulator tied to the destination ("+v"):
// GCC 12 compiles _mm512_dpbusd_epi32 / _mm512_dpwssd_epi32 in the unrolled kernel as a copy
// of every accumulator into a scratch register, the dot product there, and a copy back (plus
// two stack spills): 30 moves per 16 dot products, which halved the int8 conv2d kernel.
//
// The same with VNNI's fused, non-saturating vpdpwssd: acc += a (i16 pairs) · b (i16 pairs).
struct DpPairs {
  static __m512i apply(__m512i acc, __m512i a, __m512i b) {
    __asm__("vpdpwssd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b));
    return acc;
  }
};
// u8 (A) · s8 (B) quads -> i32, non-saturating vpdpbusd: each 4-product sum fits in 18 bits,
// the add into the accumulator wraps. AT&T order: the signed operand (b) first, then the
// unsigned one (a).
struct DpQuads {
  static __m512i apply(__m512i acc, __m512i a, __m512i b) {
    __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b));
    return acc;
  }
};

}  // namespace

#include "kernels/simd/gemm_microkernels.inl"

namespace {

// Shapes measured on Zen 4 (1024^3): 8x32 f32 runs as fast as 14x32, 12x32 and 6x64 (all
// within noise of 100 GFLOP/s) and wastes no rows on M = 64 (conv2d's output channels); for
// the int kernels 12x32, 14x32 and 6x64 were clearly slower than 8x32. KC 512 (f32) and 1024
// (u8·s8) beat 256: fewer passes over C, while the B micro-panel still streams well from L2.
GemmKernelTable make_table(bool vnni) {
  GemmKernelTable t;
  t.f32 = fma_entry<VF32, 8, 2>(512, 128, 2048);
  t.f32_short = fma_entry<VF32, 7, 2>(512, 126, 2048);
  t.f64 = fma_entry<VF64, 8, 2>(256, 64, 1024);
  t.i16_pairs = vnni ? int_entry<VI32, DpPairs, 2, 8, 2>(512, 128, 2048)
                     : int_entry<VI32, MaddPairs, 2, 8, 2>(512, 128, 2048);
  if (vnni) t.u8s8_quads = int_entry<VI32, DpQuads, 4, 8, 2, Correct::b_columns>(1024, 128, 2048);
  t.i32 = fma_entry<VI32, 8, 2>(256, 128, 2048);
  t.pack_f32 = &pack_f32_panel;
  t.pack_pairs16_i16 = &avx2::pack_pairs16_i16_panel;
  if (vnni) {
    t.pack_quads_u8_offset = &pack_quads_u8_offset_panel;
    t.pack_quads_s8_sums = &pack_quads_s8_sums_panel;
    t.pack_window_s8_sums = &pack_window_s8_sums_panel;
  }
  t.i64 = fma_entry<VI64, 8, 2>(256, 64, 1024);
  return t;
}

}  // namespace

const GemmKernelTable& gemm_table() {
  static const GemmKernelTable t = make_table(false);
  return t;
}

const GemmKernelTable& gemm_table_vnni() {
  static const GemmKernelTable t = make_table(true);
  return t;
}

}  // namespace mlvm::simd::avx512
