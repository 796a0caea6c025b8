// A requantization chain (simd::RequantOp) a register at a time, of one SIMD level: what the
// chain's runs (ew_requant_run.inl) and the integer depthwise's epilogue
// (depthwise_blocked_i8.inl) apply to their registers, so both give the bits of the step-by-step
// path. The steps' arithmetic is the runs' own (cvm_right_shift_run's 32-bit lanes, clip_run,
// the wrapping mul and add, lut32_run). Inclusion rules: kernels/simd/ew_vec.inl.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>

#include "kernels/simd/ew.hpp"
#include "kernels/simd/ew_vec.inl"

namespace mlvm::simd::MLVM_SIMD_NS {
namespace {

#if MLVM_SIMD_BYTES == 64 || MLVM_SIMD_BYTES == 32  // SSE2 has no 32-bit min, max or multiply

namespace requant_detail {

#if MLVM_SIMD_BYTES == 64
using IV = __m512i;
constexpr int64_t kLanes = 16;
inline IV load(const int32_t* p) { return _mm512_loadu_si512(p); }
inline IV splat(int32_t v) { return _mm512_set1_epi32(v); }
// t · m as vpmaddwd's i16 products, where t and m are in i16's range and m's high halves are
// zero: the low halves' product plus the high halves' (t's sign bits) times 0. One uop against
// vpmulld's two.
inline IV madd16(IV t, IV m) { return _mm512_madd_epi16(t, m); }
inline IV sra_by(IV v, int bits) { return _mm512_srav_epi32(v, splat(bits)); }  // one uop, as in rshift_round
inline IV add(IV a, IV b) { return _mm512_add_epi32(a, b); }
inline IV mul(IV a, IV b) { return _mm512_mullo_epi32(a, b); }
// The f32 lanes at p truncated to i32 (a depthwise kernel's exact sums), and a register's bits
// seen as the other type.
inline IV truncate(const float* p) { return _mm512_cvttps_epi32(_mm512_loadu_ps(p)); }
inline __m512 as_f32(IV v) { return _mm512_castsi512_ps(v); }
inline IV as_i32(__m512 v) { return _mm512_castps_si512(v); }
// 16-bit lanes (LayerChain::i8_pack): saturating packs within 128-bit blocks, the high half of
// signed products, an add, an arithmetic shift and bounds.
inline IV packs32(IV a, IV b) { return _mm512_packs_epi32(a, b); }
inline IV packs16(IV a, IV b) { return _mm512_packs_epi16(a, b); }
inline IV mulhi16(IV a, IV b) { return _mm512_mulhi_epi16(a, b); }
inline IV splat16(int32_t v) { return _mm512_set1_epi16(int16_t(v)); }
inline IV add16(IV a, IV b) { return _mm512_add_epi16(a, b); }
inline IV sra16(IV v, int bits) { return _mm512_sra_epi16(v, _mm_cvtsi32_si128(bits)); }
inline IV clamp16(IV v, IV lo, IV hi) { return _mm512_min_epi16(_mm512_max_epi16(v, lo), hi); }
// packs16(packs32(a, b), packs32(c, d)) holds in each 128-bit block k the 4-byte groups
// a[4k..], b[4k..], c[4k..], d[4k..]: these dword indices put a, b, c and d in order.
inline IV order_quads(IV v) {
  return _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), v);
}
inline void store_bytes(void* dst, int64_t k, IV v) { _mm512_storeu_si512(static_cast<uint8_t*>(dst) + k, v); }
// A register's narrowing store is one vpmovdb or vpmovdw: layer_rows packs none together.
constexpr bool kPackStores = false;
// cvm_right_shift's rounding, (q >> 1) + (q & 1) of q = v >> shift, clamped (a layer chain's
// shifts that cannot overflow take LayerChain's shorter forms).
inline IV rshift_round(const RequantOp& o, IV v) {
  const IV q = _mm512_srav_epi32(v, splat(o.shift));  // one uop; vpsrad by an xmm count is two
  const IV t = _mm512_add_epi32(_mm512_srai_epi32(q, 1), _mm512_and_si512(q, splat(1)));
  return _mm512_min_epi32(_mm512_max_epi32(t, splat(o.lo)), splat(o.hi));
}
template <RequantOp::Kind K>
inline IV vector_step(const RequantOp& o, IV v) {
  switch (K) {
    case RequantOp::Kind::rshift:
      return rshift_round(o, v);
    case RequantOp::Kind::clip:
      return _mm512_min_epi32(_mm512_max_epi32(v, splat(o.lo)), splat(o.hi));
    case RequantOp::Kind::mul:
      return mul(v, splat(o.value));
    case RequantOp::Kind::add:
      return add(v, splat(o.value));
    case RequantOp::Kind::lut: {
      const int32_t top = int32_t(std::min<int64_t>(o.count - 1, INT32_MAX));
      const IV i = _mm512_min_epi32(_mm512_max_epi32(v, _mm512_setzero_si512()), splat(top));
      return _mm512_i32gather_epi32(i, o.table, 4);
    }
    case RequantOp::Kind::self_mul:
      return mul(v, vector_step<RequantOp::Kind::clip>(o, add(v, splat(o.value))));
  }
  return v;
}
inline void store(void* dst, int64_t k, IV v, int out_bytes) {
  if (out_bytes == 1)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(static_cast<uint8_t*>(dst) + k), _mm512_cvtepi32_epi8(v));
  else if (out_bytes == 2)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(static_cast<uint16_t*>(dst) + k), _mm512_cvtepi32_epi16(v));
  else
    _mm512_storeu_si512(static_cast<int32_t*>(dst) + k, v);
}
#elif MLVM_SIMD_BYTES == 32
using IV = __m256i;
constexpr int64_t kLanes = 8;
inline IV load(const int32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
inline IV splat(int32_t v) { return _mm256_set1_epi32(v); }
// As the AVX-512 madd16: vpmaddwd, one uop against vpmulld's two.
inline IV madd16(IV t, IV m) { return _mm256_madd_epi16(t, m); }
inline IV sra_by(IV v, int bits) { return _mm256_srav_epi32(v, splat(bits)); }
inline IV add(IV a, IV b) { return _mm256_add_epi32(a, b); }
inline IV mul(IV a, IV b) { return _mm256_mullo_epi32(a, b); }
inline IV truncate(const float* p) { return _mm256_cvttps_epi32(_mm256_loadu_ps(p)); }  // as the AVX-512 ones
inline __m256 as_f32(IV v) { return _mm256_castsi256_ps(v); }
inline IV as_i32(__m256 v) { return _mm256_castps_si256(v); }
// As the AVX-512 ones, two 128-bit blocks.
inline IV packs32(IV a, IV b) { return _mm256_packs_epi32(a, b); }
inline IV packs16(IV a, IV b) { return _mm256_packs_epi16(a, b); }
inline IV mulhi16(IV a, IV b) { return _mm256_mulhi_epi16(a, b); }
inline IV splat16(int32_t v) { return _mm256_set1_epi16(int16_t(v)); }
inline IV add16(IV a, IV b) { return _mm256_add_epi16(a, b); }
inline IV sra16(IV v, int bits) { return _mm256_sra_epi16(v, _mm_cvtsi32_si128(bits)); }
inline IV clamp16(IV v, IV lo, IV hi) { return _mm256_min_epi16(_mm256_max_epi16(v, lo), hi); }
inline IV order_quads(IV v) { return _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)); }
inline void store_bytes(void* dst, int64_t k, IV v) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(static_cast<uint8_t*>(dst) + k), v);
}
// packs32(a, b) holds a's and b's 4-value groups alternating; these qword indices put a, then b.
inline IV order_pairs(IV v) { return _mm256_permute4x64_epi64(v, 0xD8); }
// A register's narrowing store (store below) is a pack, an extract and two 4-byte stores, or a
// pack, a permute and a 16-byte store: layer_rows packs 2 or 4 registers into one.
constexpr bool kPackStores = true;
// cvm_right_shift's rounding, (q >> 1) + (q & 1) of q = v >> shift, clamped (a layer chain's
// shifts that cannot overflow take LayerChain's shorter forms).
inline IV rshift_round(const RequantOp& o, IV v) {
  const IV q = _mm256_srav_epi32(v, splat(o.shift));  // one uop; vpsrad by an xmm count is two
  const IV t = _mm256_add_epi32(_mm256_srai_epi32(q, 1), _mm256_and_si256(q, splat(1)));
  return _mm256_min_epi32(_mm256_max_epi32(t, splat(o.lo)), splat(o.hi));
}
template <RequantOp::Kind K>
inline IV vector_step(const RequantOp& o, IV v) {
  switch (K) {
    case RequantOp::Kind::rshift:
      return rshift_round(o, v);
    case RequantOp::Kind::clip:
      return _mm256_min_epi32(_mm256_max_epi32(v, splat(o.lo)), splat(o.hi));
    case RequantOp::Kind::mul:
      return mul(v, splat(o.value));
    case RequantOp::Kind::add:
      return add(v, splat(o.value));
    case RequantOp::Kind::lut: {
      const int32_t top = int32_t(std::min<int64_t>(o.count - 1, INT32_MAX));
      const IV i = _mm256_min_epi32(_mm256_max_epi32(v, _mm256_setzero_si256()), splat(top));
      return _mm256_i32gather_epi32(reinterpret_cast<const int*>(o.table), i, 4);
    }
    case RequantOp::Kind::self_mul:
      return mul(v, vector_step<RequantOp::Kind::clip>(o, add(v, splat(o.value))));
  }
  return v;
}
// Truncation by masking first: packus then saturates nothing, and the packs work within
// 128-bit lanes (elements 0-3 in the low lane, 4-7 in the high one).
inline void store(void* dst, int64_t k, IV v, int out_bytes) {
  if (out_bytes == 1) {
    const IV m = _mm256_and_si256(v, splat(0xFF));
    const IV p = _mm256_packus_epi16(_mm256_packus_epi32(m, m), _mm256_setzero_si256());
    uint8_t* y = static_cast<uint8_t*>(dst) + k;
    const int32_t lo = _mm_cvtsi128_si32(_mm256_castsi256_si128(p)), hi = _mm_cvtsi128_si32(_mm256_extracti128_si256(p, 1));
    std::memcpy(y, &lo, 4);
    std::memcpy(y + 4, &hi, 4);
  } else if (out_bytes == 2) {
    const IV m = _mm256_and_si256(v, splat(0xFFFF));
    const IV p = _mm256_permute4x64_epi64(_mm256_packus_epi32(m, m), 0x08);  // 64-bit parts 0 and 2
    _mm_storeu_si128(reinterpret_cast<__m128i*>(static_cast<uint16_t*>(dst) + k), _mm256_castsi256_si128(p));
  } else {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(static_cast<int32_t*>(dst) + k), v);
  }
}
#endif

// One step over m values (a multiple of the lanes), the kind chosen once for the whole loop.
template <RequantOp::Kind K>
void step_loop(const RequantOp o, const int32_t* in, int32_t* out, int64_t m) {
  for (int64_t j = 0; j < m; j += kLanes) store(out, j, vector_step<K>(o, load(in + j)), 4);
}
inline void apply_step(const RequantOp& o, const int32_t* in, int32_t* out, int64_t m) {
  switch (o.kind) {
    case RequantOp::Kind::rshift: return step_loop<RequantOp::Kind::rshift>(o, in, out, m);
    case RequantOp::Kind::clip: return step_loop<RequantOp::Kind::clip>(o, in, out, m);
    case RequantOp::Kind::mul: return step_loop<RequantOp::Kind::mul>(o, in, out, m);
    case RequantOp::Kind::add: return step_loop<RequantOp::Kind::add>(o, in, out, m);
    case RequantOp::Kind::lut: return step_loop<RequantOp::Kind::lut>(o, in, out, m);
    case RequantOp::Kind::self_mul: return step_loop<RequantOp::Kind::self_mul>(o, in, out, m);
  }
}

// Any step, the kind chosen at run time: for the one register of a tail.
inline IV any_step(const RequantOp& o, IV v) {
  switch (o.kind) {
    case RequantOp::Kind::rshift: return vector_step<RequantOp::Kind::rshift>(o, v);
    case RequantOp::Kind::clip: return vector_step<RequantOp::Kind::clip>(o, v);
    case RequantOp::Kind::mul: return vector_step<RequantOp::Kind::mul>(o, v);
    case RequantOp::Kind::add: return vector_step<RequantOp::Kind::add>(o, v);
    case RequantOp::Kind::lut: return vector_step<RequantOp::Kind::lut>(o, v);
    case RequantOp::Kind::self_mul: return vector_step<RequantOp::Kind::self_mul>(o, v);
  }
  return v;
}

// Fewer values than a register, one at a time, the same arithmetic in scalars.
inline int32_t scalar_step(const RequantOp& o, int32_t v) {
  switch (o.kind) {
    case RequantOp::Kind::rshift:
      return cvm_round_shift32(v, o.shift, o.lo, o.hi);
    case RequantOp::Kind::clip:
      return v < o.lo ? o.lo : v > o.hi ? o.hi : v;
    case RequantOp::Kind::mul:
      return int32_t(uint32_t(v) * uint32_t(o.value));
    case RequantOp::Kind::add:
      return int32_t(uint32_t(v) + uint32_t(o.value));
    case RequantOp::Kind::lut: {
      const int64_t top = std::min<int64_t>(o.count - 1, INT32_MAX);
      return o.table[v < 0 ? 0 : v > top ? top : v];
    }
    case RequantOp::Kind::self_mul:
      return self_mul32(v, o.value, o.lo, o.hi);
  }
  return v;
}

inline void tail(const RequantOp* ops, int nops, const int32_t* src, void* dst, int64_t k, int64_t n, int out_bytes) {
  for (; k < n; ++k) {
    int32_t v = src[k];
    for (int s = 0; s < nops; ++s) v = scalar_step(ops[s], v);
    // By bytes: dst may be src itself (in-place narrowing), read as int32_t.
    const uint32_t u = uint32_t(v);
    if (out_bytes == 1) static_cast<uint8_t*>(dst)[k] = uint8_t(u);
    else if (out_bytes == 2) std::memcpy(static_cast<std::byte*>(dst) + 2 * k, &u, 2);  // little-endian: the low half
    else std::memcpy(static_cast<std::byte*>(dst) + 4 * k, &u, 4);
  }
}

// The chains mlvm-quantize writes for a layer, with every step in registers (no store and
// load between steps): a head — cvm_right_shift, or cvm_clip where the accumulator needs no
// shift — the per-channel multiplier, a shift, then a clip (ReLU6), or an add and a lookup
// table (an activation as a table: hard-sigmoid), or an integer hard-swish (LayerChain::tail
// 2), or nothing.
//
// The multiplier's product in i16 products (madd16): the head clamps every value within i16's
// range (the quantizer's clamp to 16 bits: quantize/scales.hpp), and the multiplier is in it
// (the callers check). A clip after the second shift's clamp is one clamp when their ranges
// meet: clamp(clamp(x, lo, hi), lo', hi') = clamp(x, max(lo, lo'), min(hi, hi')).
//
// Each shift of s = shift_bit bits is round half up, r(v) = floor((v + 2^(s-1)) / 2^s) (the
// same as cvm_right_shift's (q >> 1) + (q & 1) of q = v >> (s - 1)), so where the sum cannot
// overflow a shift and its clamp are an add, a shift and two bounds, one instruction fewer:
//  * the head clamps first, clamp(r(v), lo, hi) = r(clamp(v, lo·2^s - 2^(s-1),
//    hi·2^s + 2^(s-1) - 1)), r being monotone and those the least and greatest v of r(v) in
//    [lo, hi]; then v + 2^(s-1) <= (hi + 1)·2^s - 1, which must fit in 32 bits (head 1);
//  * the second shift adds first: its operand is a product of two i16 values, at most 2^30
//    in magnitude, so v + 2^(s-1) fits for s <= 30 (fast_c).
struct LayerChain {
  int head = 0;  // 0: a shift (rshift_round), 1: a shift clamping first, 2: a clip
  bool fast_c = false;  // the second shift adds first
  // What follows the second shift: 0 nothing (or a clip, merged into c), 1 an add and a
  // table, 2 mlvm-quantize's integer hard-swish: self_mul, a shift (or clip), a multiplier,
  // an add (none: of 0) and a shift; 3 the same where nothing overflows (layer_chain_of
  // checks), so both products are i16 products (madd16) and the shifts add, shift and clamp,
  // the bias and the last shift's 2^(s-1) one add (p_round, p_bias).
  int tail = 0;
  RequantOp a, c, add, table;  // c with the clip's range merged in
  RequantOp self, p_shift, p_mul, p_add, p_out;  // tails 2 and 3
  int32_t p_round = 0, p_bias = 0;  // tail 3: the add before each shift (0 and no shift: a clip)
  int p_bits = 0;                   // tail 3: the first shift's bits (0: a clip)
  RequantOp a_in;     // head 1: the input's bounds (lo, hi), 2^(s-1) (value) and s (shift)
  RequantOp c_round;  // fast_c: the add of 2^(s-1) of the second shift's s
  // No table, a second shift of s in [17, 30] bits and its clamp within i8's range: into i8,
  // four registers at a time in 16-bit lanes (layer_quad_i8).
  bool i8_pack = false;
  // The bytes of the narrowest integer holding every result (the last clamp's range), 4 where
  // that is not known (a table): saturating packs of results that narrow are their casts, so
  // 2 or 4 registers go to memory as one (layer_rows).
  int fits_bytes = 4;
};
inline bool in_i16(int64_t v) { return v >= -32768 && v <= 32767; }
// Whether tail 2 of l runs as tail 3, its result unchanged: the value x entering it within
// i16 (c's clamp) and x + c within i32, the clip t within [0, 32767] (so x · t is one i16
// product, at most 2^30 in magnitude), the first shift of at most 30 bits (its add of
// 2^(s-1) fits) clamping within i16, the multiplier within i16 (a second i16 product), and
// the product plus the bias plus the last shift's 2^(s-1) within i32.
inline bool hard_swish_in_i16(LayerChain& l) {
  using K = RequantOp::Kind;
  const int64_t x = std::max(std::abs(int64_t(l.c.lo)), std::abs(int64_t(l.c.hi)));
  if (!in_i16(l.c.lo) || !in_i16(l.c.hi) || l.c.lo > l.c.hi || std::abs(int64_t(l.self.value)) + x > INT32_MAX ||
      l.self.lo < 0 || l.self.hi > 32767 || !in_i16(l.p_shift.lo) || !in_i16(l.p_shift.hi) ||
      (l.p_shift.kind == K::rshift && l.p_shift.shift + 1 > 30) || !in_i16(l.p_mul.value) || l.p_out.shift + 1 > 31)
    return false;
  const int64_t p1 = std::max(std::abs(int64_t(l.p_shift.lo)), std::abs(int64_t(l.p_shift.hi)));
  const int64_t round = int64_t(1) << l.p_out.shift, bias = int64_t(l.p_add.value) + round;
  if (p1 * std::abs(int64_t(l.p_mul.value)) + std::abs(bias) > INT32_MAX) return false;
  l.p_bits = l.p_shift.kind == K::rshift ? l.p_shift.shift + 1 : 0;
  l.p_round = l.p_bits ? int32_t(1) << l.p_shift.shift : 0;
  l.p_bias = int32_t(bias);
  return true;
}
inline std::optional<LayerChain> layer_chain_of(const RequantOp* ops, int nops) {
  using K = RequantOp::Kind;
  if (nops < 3 || nops > 8 || (ops[0].kind != K::rshift && ops[0].kind != K::clip) || ops[1].kind != K::mul ||
      ops[2].kind != K::rshift || !in_i16(ops[0].lo) || !in_i16(ops[0].hi))
    return std::nullopt;
  LayerChain l;
  l.head = ops[0].kind == K::clip ? 2 : 0;
  if (l.head == 0) {
    const int s = ops[0].shift + 1;
    const int64_t half = int64_t(1) << (s - 1);
    const int64_t lo = int64_t(ops[0].lo) * (int64_t(1) << s) - half;
    const int64_t hi = int64_t(ops[0].hi) * (int64_t(1) << s) + half - 1;
    if (ops[0].lo <= ops[0].hi && lo >= INT32_MIN && hi + half <= INT32_MAX) {
      l.head = 1;
      l.a_in.lo = int32_t(lo);
      l.a_in.hi = int32_t(hi);
      l.a_in.shift = s;
      l.a_in.value = int32_t(half);
    }
  }
  l.fast_c = ops[2].shift + 1 <= 30;
  l.c_round.kind = K::add;
  l.c_round.value = int32_t(1) << ops[2].shift;
  l.a = ops[0];
  l.c = ops[2];
  if (nops == 4) {
    if (ops[3].kind != K::clip || std::max(l.c.lo, ops[3].lo) > std::min(l.c.hi, ops[3].hi)) return std::nullopt;
    l.c.lo = std::max(l.c.lo, ops[3].lo);
    l.c.hi = std::min(l.c.hi, ops[3].hi);
  } else if (nops == 5 && ops[3].kind == K::add && ops[4].kind == K::lut && ops[4].count >= 1) {
    l.tail = 1;
    l.add = ops[3];
    l.table = ops[4];
  } else if (nops >= 7 && ops[3].kind == K::self_mul && (ops[4].kind == K::rshift || ops[4].kind == K::clip) &&
             ops[5].kind == K::mul && (nops == 7 || ops[6].kind == K::add) && ops[nops - 1].kind == K::rshift) {
    l.tail = 2;
    l.self = ops[3];
    l.p_shift = ops[4];
    l.p_mul = ops[5];
    l.p_add.kind = K::add;
    if (nops == 8) l.p_add = ops[6];
    l.p_out = ops[nops - 1];
    if (hard_swish_in_i16(l)) l.tail = 3;
  } else if (nops != 3) {
    return std::nullopt;
  }
  if (l.tail != 1) {
    const RequantOp& last = l.tail == 0 ? l.c : l.p_out;
    l.fits_bytes = last.lo >= -128 && last.hi <= 127 ? 1 : in_i16(last.lo) && in_i16(last.hi) ? 2 : 4;
  }
  l.i8_pack = l.tail == 0 && ops[2].shift + 1 >= 17 && ops[2].shift + 1 <= 30 && l.c.lo >= -128 && l.c.hi <= 127;
  return l;
}
inline IV multiplier_halves(int32_t m) { return splat(int32_t(uint32_t(m) & 0xFFFFu)); }
// The chain's head on one register (LayerChain::head), in 32-bit lanes.
template <int kHead>
inline IV layer_head(const LayerChain& l, IV v) {
  using K = RequantOp::Kind;
  if constexpr (kHead == 2) return vector_step<K::clip>(l.a, v);
  else if constexpr (kHead == 1)
    return sra_by(vector_step<K::add>(l.a_in, vector_step<K::clip>(l.a_in, v)), l.a_in.shift);
  else return rshift_round(l.a, v);
}
// One register through the chain, m from multiplier_halves.
template <int kHead, bool kFastC, int kTail>
inline IV layer_register(const LayerChain& l, IV m, IV v) {
  using K = RequantOp::Kind;
  v = madd16(layer_head<kHead>(l, v), m);
  if constexpr (kFastC) {
    v = vector_step<K::clip>(l.c, sra_by(vector_step<K::add>(l.c_round, v), l.c.shift + 1));
  } else {
    v = rshift_round(l.c, v);
  }
  if constexpr (kTail == 1) v = vector_step<K::lut>(l.table, vector_step<K::add>(l.add, v));
  if constexpr (kTail == 2) {
    v = vector_step<K::self_mul>(l.self, v);
    v = l.p_shift.kind == K::rshift ? rshift_round(l.p_shift, v) : vector_step<K::clip>(l.p_shift, v);
    v = rshift_round(l.p_out, vector_step<K::add>(l.p_add, vector_step<K::mul>(l.p_mul, v)));
  }
  if constexpr (kTail == 3) {
    v = madd16(v, vector_step<K::clip>(l.self, add(v, splat(l.self.value))));
    v = vector_step<K::clip>(l.p_shift, sra_by(add(v, splat(l.p_round)), l.p_bits));
    v = madd16(v, multiplier_halves(l.p_mul.value));
    v = vector_step<K::clip>(l.p_out, sra_by(add(v, splat(l.p_bias)), l.p_out.shift + 1));
  }
  return v;
}
// Four registers of values a, b, c, d (in that order) through l where l.i8_pack, into one
// register of their i8 results in order; m16 the multiplier in every 16-bit lane (or lane k's
// in lanes 2k and 2k + 1 of each 128-bit block, as packs32 pairs them). The head in 32-bit
// lanes, as layer_register's; then packs32 to i16 (the head's result is within it, so exact)
// and the second shift of the product P = t·m in 16-bit lanes: for s >= 17 bits,
//   floor((P + 2^(s-1)) / 2^s) = (hi + 2^(s-17)) >> (s - 16),   hi = floor(P / 2^16) (mulhi16),
// since P + 2^(s-1) = 2^16·(hi + 2^(s-17)) + (P mod 2^16) and that remainder is below one step
// of 2^(s-16) in hi's units. |P| <= 2^30, so |hi| <= 2^14 and hi + 2^(s-17) fits in i16 for
// s <= 30. The clamp's range lies in i8's, so packs16's saturation changes nothing.
template <int kHead>
inline IV layer_quad_i8(const LayerChain& l, IV m16, IV a, IV b, IV c, IV d) {
  auto head = [&](IV v) { return layer_head<kHead>(l, v); };
  const int s = l.c.shift + 1;
  const IV round = splat16(int32_t(1) << (s - 17)), lo = splat16(l.c.lo), hi = splat16(l.c.hi);
  auto second = [&](IV t16) { return clamp16(sra16(add16(mulhi16(t16, m16), round), s - 16), lo, hi); };
  const IV ab = second(packs32(head(a), head(b))), cd = second(packs32(head(c), head(d)));
  return order_quads(packs16(ab, cd));
}

// f.template operator()<kHead, kFastC, kTail>() for l.
template <class F>
auto with_layer_chain(const LayerChain& l, F&& f) {
  auto pick_lut = [&]<int H, bool W>() {
    if (l.tail == 1) return f.template operator()<H, W, 1>();
    if (l.tail == 2) return f.template operator()<H, W, 2>();
    return l.tail == 3 ? f.template operator()<H, W, 3>() : f.template operator()<H, W, 0>();
  };
  auto pick_fast = [&]<int H>() {
    return l.fast_c ? pick_lut.template operator()<H, true>() : pick_lut.template operator()<H, false>();
  };
  if (l.head == 0) return pick_fast.template operator()<0>();
  if (l.head == 1) return pick_fast.template operator()<1>();
  return pick_fast.template operator()<2>();
}

// The whole registers of n values through l with multiplier mul (in i16's range); returns
// how many values it did.
inline int64_t layer_run(const LayerChain& l, int32_t mul, const int32_t* src, void* dst, int64_t n, int out_bytes) {
  return with_layer_chain(l, [&]<int H, bool W, int L>() {
    const LayerChain c = l;  // a copy: the stores to dst cannot change it, so splats leave the loop
    const IV m = multiplier_halves(mul);
    int64_t k = 0;
    if (out_bytes == 1 && c.i8_pack) {
      const IV m16 = splat16(mul);
      for (; k + 4 * kLanes <= n; k += 4 * kLanes)
        store_bytes(dst, k,
                    layer_quad_i8<H>(c, m16, load(src + k), load(src + k + kLanes), load(src + k + 2 * kLanes),
                                     load(src + k + 3 * kLanes)));
    }
    for (; k + kLanes <= n; k += kLanes) store(dst, k, layer_register<H, W, L>(c, m, load(src + k)), out_bytes);
    return k;
  });
}
// Rows of at least a register each, row r's multiplier mul_values[r] (each in i16's range),
// into dst's elements r·dst_stride.., each row's tail its last whole register read before the
// row's first store (as requant_run's).
inline void layer_rows(const LayerChain& l, const int32_t* mul_values, const int32_t* src, void* dst, int64_t n,
                       int64_t rows, int out_bytes, int64_t dst_stride) {
  with_layer_chain(l, [&]<int H, bool W, int L>() {
    const LayerChain c = l;
    for (int64_t r = 0; r < rows; ++r) {
      const int32_t* s = src + r * n;
      const IV m = multiplier_halves(mul_values[r]), last = load(s + n - kLanes);
      int64_t k = 0;
      if (out_bytes == 1 && c.i8_pack) {
        const IV m16 = splat16(mul_values[r]);
        for (; k + 4 * kLanes <= n; k += 4 * kLanes)
          store_bytes(dst, r * dst_stride + k,
                      layer_quad_i8<H>(c, m16, load(s + k), load(s + k + kLanes), load(s + k + 2 * kLanes),
                                       load(s + k + 3 * kLanes)));
      }
      auto reg = [&](int64_t j) { return layer_register<H, W, L>(c, m, load(s + j)); };
      const int64_t d0 = r * dst_stride;
      // Several registers a store where the results narrow exactly (LayerChain::fits_bytes).
      if constexpr (kPackStores) {
        if (out_bytes == 1 && c.fits_bytes == 1)
          for (; k + 4 * kLanes <= n; k += 4 * kLanes)
            store_bytes(dst, d0 + k,
                        order_quads(packs16(packs32(reg(k), reg(k + kLanes)),
                                            packs32(reg(k + 2 * kLanes), reg(k + 3 * kLanes)))));
        if (out_bytes == 2 && c.fits_bytes <= 2)
          for (; k + 2 * kLanes <= n; k += 2 * kLanes)
            store_bytes(dst, 2 * (d0 + k), order_pairs(packs32(reg(k), reg(k + kLanes))));
      }
      for (; k + kLanes <= n; k += kLanes) store(dst, d0 + k, reg(k), out_bytes);
      if (k < n) store(dst, d0 + n - kLanes, layer_register<H, W, L>(c, m, last), out_bytes);
    }
  });
}

}  // namespace requant_detail

#endif

}  // namespace
}  // namespace mlvm::simd::MLVM_SIMD_NS
