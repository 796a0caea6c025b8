// The AVX2 (+FMA) GEMM micro-kernels (compiled with the avx2 flags).
//
// 16 ymm registers: a 6 x 16 tile is 12 accumulators, 2 B vectors and 1 broadcast, enough
// independent FMAs for two 256-bit FMA pipes with 4 cycles latency.
#include <immintrin.h>

#include <cstdint>

#include "kernels/simd/gemm_kernels.hpp"

namespace mlvm::simd::avx2 {
namespace {

struct VF32 {
  using T = float;
  using W = float;
  using V = __m256;
  static constexpr int L = 8;
  static V zero() { return _mm256_setzero_ps(); }
  static V load(const T* p) { return _mm256_load_ps(p); }
  static V loadu(const T* p) { return _mm256_loadu_ps(p); }
  static void storeu(T* p, V v) { _mm256_storeu_ps(p, v); }
  static V bcast(const T* p) { return _mm256_broadcast_ss(p); }
  static V fma(V a, V b, V acc) { return _mm256_fmadd_ps(a, b, acc); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  // x > hi ? hi : x, then < lo ? lo : that. minps/maxps return their second operand unless
  // the first compares less (greater), so NaN and equal zeros pass as x.
  static V clamp(V x, V lo, V hi) { return _mm256_max_ps(lo, _mm256_min_ps(hi, x)); }
};

struct VF64 {
  using T = double;
  using W = double;
  using V = __m256d;
  static constexpr int L = 4;
  static V zero() { return _mm256_setzero_pd(); }
  static V load(const T* p) { return _mm256_load_pd(p); }
  static V loadu(const T* p) { return _mm256_loadu_pd(p); }
  static void storeu(T* p, V v) { _mm256_storeu_pd(p, v); }
  static V bcast(const T* p) { return _mm256_broadcast_sd(p); }
  static V fma(V a, V b, V acc) { return _mm256_fmadd_pd(a, b, acc); }
  static V add(V a, V b) { return _mm256_add_pd(a, b); }
  static V clamp(V x, V lo, V hi) { return _mm256_max_pd(lo, _mm256_min_pd(hi, x)); }  // as VF32's
};

// i32 lanes; fma is the wrapping multiply-add of i32 panels.
struct VI32 {
  using T = int32_t;
  using W = uint32_t;
  using V = __m256i;
  static constexpr int L = 8;
  static V zero() { return _mm256_setzero_si256(); }
  static V load(const void* p) { return _mm256_load_si256(static_cast<const __m256i*>(p)); }
  static V loadu(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
  static void storeu(void* p, V v) { _mm256_storeu_si256(static_cast<__m256i*>(p), v); }
  static V bcast(const void* p) {
    int32_t x;
    __builtin_memcpy(&x, p, 4);
    return _mm256_set1_epi32(x);
  }
  static V add(V a, V b) { return _mm256_add_epi32(a, b); }
  static V sub(V a, V b) { return _mm256_sub_epi32(a, b); }
  static V fma(V a, V b, V acc) { return _mm256_add_epi32(acc, _mm256_mullo_epi32(a, b)); }
};

// i16 pairs -> i32: vpmaddwd is exact modulo 2^32 (see gemm_avx512.cpp). The 6 x 16 tile's
// k loop is one asm block (int_kernel's StepWithLoop): its 12 accumulators, 2 B vectors, the
// broadcast and one product take all 16 ymm registers, and from intrinsics (or per-step asm)
// GCC 12 kept a 4 x 16 tile with a register copy of each accumulator per step. vpmaddwd and
// vpaddd share the vector ALU ports, which this loop keeps busy.
struct MaddPairs {
  static __m256i apply(__m256i acc, __m256i a, __m256i b) {
    return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b));
  }
  template <int MR, int NV>
  static void loop(__m256i (&c)[MR][NV], const char* a, const char* b, int64_t steps) {
    static_assert(MR == 6 && NV == 2, "the asm loop is the 6 x 16 tile's");
    if (steps <= 0) return;
#define MLVM_PAIRS_ROW(i)                        \
  "vpbroadcastd 4*" #i "(%[a]), %%ymm2\n\t"      \
  "vpmaddwd %%ymm0, %%ymm2, %%ymm3\n\t"          \
  "vpaddd %%ymm3, %[c" #i "0], %[c" #i "0]\n\t"  \
  "vpmaddwd %%ymm1, %%ymm2, %%ymm3\n\t"          \
  "vpaddd %%ymm3, %[c" #i "1], %[c" #i "1]\n\t"
    __asm__(
        "1:\n\t"
        "prefetcht0 2048(%[b])\n\t"
        "prefetcht0 2048(%[a])\n\t"
        "vmovdqa (%[b]), %%ymm0\n\t"
        "vmovdqa 32(%[b]), %%ymm1\n\t"
        MLVM_PAIRS_ROW(0) MLVM_PAIRS_ROW(1) MLVM_PAIRS_ROW(2) MLVM_PAIRS_ROW(3) MLVM_PAIRS_ROW(4) MLVM_PAIRS_ROW(5)
        "add $24, %[a]\n\t"
        "add $64, %[b]\n\t"
        "dec %[n]\n\t"
        "jnz 1b"
        : [c00] "+x"(c[0][0]), [c01] "+x"(c[0][1]), [c10] "+x"(c[1][0]), [c11] "+x"(c[1][1]), [c20] "+x"(c[2][0]),
          [c21] "+x"(c[2][1]), [c30] "+x"(c[3][0]), [c31] "+x"(c[3][1]), [c40] "+x"(c[4][0]), [c41] "+x"(c[4][1]),
          [c50] "+x"(c[5][0]), [c51] "+x"(c[5][1]), [a] "+r"(a), [b] "+r"(b), [n] "+r"(steps)
        :
        : "xmm0", "xmm1", "xmm2", "xmm3", "cc", "memory");
#undef MLVM_PAIRS_ROW
  }
};

// s8 quads -> i32 without VNNI: |a| (u8) · (b with a's sign) (s8) by vpmaddubsw — the same
// products — then the i16 pair sums to i32 by vpmaddwd with ones. Exact when B holds no -128
// (GemmKernelTable::s8_sign_quads): a pair sum is then at most 2·128·127 in magnitude, below
// vpmaddubsw's saturation. Per 32 products: vpsignb, vpmaddubsw, vpmaddwd and vpaddd (|a| is
// packed ahead), against two vpmaddwd and two vpaddd for i16 pairs; it is faster for
// the half-size panels and the spread over ports, not fewer instructions, and no exact form
// without VNNI needs fewer: the i16 pair sums of full-range products must be widened per step.
// Written as asm with the accumulator tied ("+x"), as the VNNI steps (gemm_avx512.cpp): GCC
// 12 compiled the intrinsics with a copy of every accumulator to the stack and back per step.
// AT&T order: vpsignb negates its second operand by the first's sign; vpmaddubsw takes the
// signed operand first, then the unsigned one.
// |a| comes packed with A (PackFormat::quads_s8_abs), loaded by a second broadcast: the
// load ports have room, the vector ALU ports this loop saturates do not.
struct SignQuads {
  static constexpr bool kAbsA = true;
  static __m256i apply(__m256i acc, __m256i a, __m256i ua, __m256i b) {
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i t;
    __asm__(
        "vpsignb %[a], %[b], %[t]\n\t"
        "vpmaddubsw %[t], %[ua], %[t]\n\t"
        "vpmaddwd %[ones], %[t], %[t]\n\t"
        "vpaddd %[t], %[acc], %[acc]"
        : [acc] "+x"(acc), [t] "=&x"(t)
        : [a] "x"(a), [b] "x"(b), [ua] "x"(ua), [ones] "x"(ones));
    return acc;
  }
};

// s8 quads -> i32 with B in [0, 127] (GemmKernelTable::s8_unsigned_b_quads): b (u8) · a (s8)
// by vpmaddubsw, then widened as SignQuads does, without its vpsignb and vpabsb.
struct UnsignedBQuads {
  static __m256i apply(__m256i acc, __m256i a, __m256i b) {
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i t;
    __asm__(
        "vpmaddubsw %[a], %[b], %[t]\n\t"
        "vpmaddwd %[ones], %[t], %[t]\n\t"
        "vpaddd %[t], %[acc], %[acc]"
        : [acc] "+x"(acc), [t] "=&x"(t)
        : [a] "x"(a), [b] "x"(b), [ones] "x"(ones));
    return acc;
  }
};

// Two quads at once where A lies within [-64, 64] (7-bit weights) and B within [0, 127] (a
// relu's activations): the two vpmaddubsw's pair sums, each at most 2·127·64, are added in i16
// (4·127·64 = 32512 fits) before the one widening vpmaddwd and vpaddd: 5 instructions per 64
// products against UnsignedBQuads' 6. A is the s8_offset_b_quads panel (its sums after it
// unread), B the plain quads (GemmKernelTable::s8_small_a_unsigned_b_quads).
struct UnsignedBQuadPairs {
  static constexpr bool kPaired = true;
  static __m256i apply(__m256i acc, __m256i a, __m256i b) { return UnsignedBQuads::apply(acc, a, b); }
  static __m256i apply2(__m256i acc, __m256i a0, __m256i b0, __m256i a1, __m256i b1) {
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i t, u;
    __asm__(
        "vpmaddubsw %[a0], %[b0], %[t]\n\t"
        "vpmaddubsw %[a1], %[b1], %[u]\n\t"
        "vpaddw %[u], %[t], %[t]\n\t"
        "vpmaddwd %[ones], %[t], %[t]\n\t"
        "vpaddd %[t], %[acc], %[acc]"
        : [acc] "+x"(acc), [t] "=&x"(t), [u] "=&x"(u)
        : [a0] "x"(a0), [b0] "x"(b0), [a1] "x"(a1), [b1] "x"(b1), [ones] "x"(ones));
    return acc;
  }
};

// u8 (A, packed as a + 128) · s8 (B within [-64, 64]: 7-bit weights) quads without VNNI
// (GemmKernelTable::u8_offset_a_quads): vpmaddubsw with B signed, A unsigned, widened as
// UnsignedBQuads; a pair sum is at most 2·255·64 = 32640. The mirror of UnsignedBQuads, whose
// s8_offset_b_quads form takes A within [-64, 64] and B shifted.
struct UnsignedAQuads {
  static __m256i apply(__m256i acc, __m256i a, __m256i b) { return UnsignedBQuads::apply(acc, b, a); }
};

// AVX-VNNI (the avx2_vnni level, kernels/simd/cpu_features.hpp): the fused, non-saturating
// dot products of gemm_avx512.cpp's DpPairs and DpQuads on ymm, VEX-encoded ({vex}: the
// assembler would otherwise pick the EVEX form, which needs AVX-512). As asm, for the reason
// given there and for SignQuads; "x" keeps the operands in ymm0-15, which VEX can name.
struct VexDpPairs {
  static __m256i apply(__m256i acc, __m256i a, __m256i b) {
    __asm__("%{vex%} vpdpwssd %2, %1, %0" : "+x"(acc) : "x"(a), "x"(b));
    return acc;
  }
};
struct VexDpQuads {  // u8 (A, packed as a + 128) · s8 (B) quads, as DpQuads
  static __m256i apply(__m256i acc, __m256i a, __m256i b) {
    __asm__("%{vex%} vpdpbusd %2, %1, %0" : "+x"(acc) : "x"(a), "x"(b));
    return acc;
  }
};

}  // namespace

#include "kernels/simd/gemm_microkernels.inl"

namespace {

GemmKernelTable make_table(bool vnni) {
  GemmKernelTable t;
  t.f32 = fma_entry<VF32, 6, 2>(256, 120, 2048);
  t.f64 = fma_entry<VF64, 6, 2>(256, 60, 1024);
  t.i16_pairs = int_entry<VI32, MaddPairs, 2, 6, 2>(512, 120, 2048);  // MaddPairs::loop's tile
  // 4 x 16: 8 accumulators, 2 B vectors, a, |a|, the ones and a temporary fit the 16 ymm
  // registers (6 x 16 spilled accumulators). KC 1024 keeps conv2d's K (576) in one block.
  t.s8_sign_quads = int_entry<VI32, SignQuads, 4, 4, 2>(1024, 120, 2048);
  t.s8_unsigned_b_quads = int_entry<VI32, UnsignedBQuads, 4, 4, 2>(1024, 120, 2048);  // as s8_sign_quads
  // One operand within 7 bits, the other shifted to u8: the same steps, no sign trick and no
  // B to check; 128 times the small operand's sums (packed after its panel) taken off.
  t.s8_offset_b_quads = int_entry<VI32, UnsignedBQuads, 4, 4, 2, Correct::a_rows>(1024, 120, 2048);
  t.u8_offset_a_quads = int_entry<VI32, UnsignedAQuads, 4, 4, 2, Correct::b_columns>(1024, 120, 2048);
  // s8_offset_b_quads' tile and blocks, so that its A packed ahead serves both.
  t.s8_small_a_unsigned_b_quads = int_entry<VI32, UnsignedBQuadPairs, 4, 4, 2>(1024, 120, 2048);
  t.pack_quads_u8_offset = &pack_quads_u8_offset_panel;
  t.pack_quads_s8_sums = &pack_quads_s8_sums_panel;
  t.pack_quads_s8 = &pack_quads_s8_panel;
  t.pack_quads_s8_abs = &pack_quads_s8_abs_panel;
  t.pack_pairs16_i8 = &pack_pairs16_i8_panel;
  t.pack_pairs16_i16 = &pack_pairs16_i16_panel;
  t.i32 = fma_entry<VI32, 6, 2>(256, 120, 2048);
  t.i64 = generic_entry<int64_t, uint64_t, 4, 4>(256, 64, 1024);
  t.pack_f32 = &pack_f32_panel;
  if (vnni) {
    // 6 x 16: 12 accumulators, 2 B vectors and the broadcast, as the f32 tile. The u8·s8
    // kernel takes every i8 B: plan_for picks it before the sign-trick ones.
    t.i16_pairs = int_entry<VI32, VexDpPairs, 2, 6, 2>(512, 120, 2048);
    t.u8s8_quads = int_entry<VI32, VexDpQuads, 4, 6, 2, Correct::b_columns>(1024, 120, 2048);
    t.pack_quads_u8_offset = &pack_quads_u8_offset_panel;
    t.pack_quads_s8_sums = &pack_quads_s8_sums_panel;
  }
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

}  // namespace mlvm::simd::avx2
