// A whole requantization chain in one pass (simd::RequantRun): part of ew_impl.inl's body,
// after ew_int_runs.inl, inside its namespace, so it includes nothing itself.
//
// A conv2d's chain (shift, per-channel multiplier, shift, clip, cast to i8) ran as one run
// per step over the block in cache, then a scalar loop truncating it: five passes over the
// block and a quarter of a quantized MobileNet-V2's time. Here the steps run over a chunk in
// L1 (or, for the chains a layer has, all in registers) and the result is stored narrowed.
// The steps' arithmetic is the runs' own (cvm_right_shift_run's 32-bit lanes, clip_run, the
// wrapping mul and add, lut32_run), so the results are the bits of the step-by-step path.

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
// cvm_right_shift's rounding, (q >> 1) + (q & 1) of q = v >> shift, clamped. With
// kPlusOne (shift >= 1, so q + 1 cannot overflow) the same value as (q + 1) >> 1, one
// instruction fewer: q = 2k gives k, q = 2k + 1 gives k + 1 either way.
template <bool kPlusOne>
inline IV rshift_round(const RequantOp& o, IV v) {
  const IV q = _mm512_srav_epi32(v, splat(o.shift));  // one uop; vpsrad by an xmm count is two
  IV t;
  if constexpr (kPlusOne) t = _mm512_srai_epi32(_mm512_add_epi32(q, splat(1)), 1);
  else t = _mm512_add_epi32(_mm512_srai_epi32(q, 1), _mm512_and_si512(q, splat(1)));
  return _mm512_min_epi32(_mm512_max_epi32(t, splat(o.lo)), splat(o.hi));
}
template <RequantOp::Kind K>
inline IV vector_step(const RequantOp& o, IV v) {
  switch (K) {
    case RequantOp::Kind::rshift:
      return rshift_round<false>(o, v);
    case RequantOp::Kind::clip:
      return _mm512_min_epi32(_mm512_max_epi32(v, splat(o.lo)), splat(o.hi));
    case RequantOp::Kind::mul:
      return _mm512_mullo_epi32(v, splat(o.value));
    case RequantOp::Kind::add:
      return _mm512_add_epi32(v, splat(o.value));
    case RequantOp::Kind::lut: {
      const int32_t top = int32_t(std::min<int64_t>(o.count - 1, INT32_MAX));
      const IV i = _mm512_min_epi32(_mm512_max_epi32(v, _mm512_setzero_si512()), splat(top));
      return _mm512_i32gather_epi32(i, o.table, 4);
    }
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
// cvm_right_shift's rounding, (q >> 1) + (q & 1) of q = v >> shift, clamped. With
// kPlusOne (shift >= 1, so q + 1 cannot overflow) the same value as (q + 1) >> 1, one
// instruction fewer: q = 2k gives k, q = 2k + 1 gives k + 1 either way.
template <bool kPlusOne>
inline IV rshift_round(const RequantOp& o, IV v) {
  const IV q = _mm256_srav_epi32(v, splat(o.shift));  // one uop; vpsrad by an xmm count is two
  IV t;
  if constexpr (kPlusOne) t = _mm256_srai_epi32(_mm256_add_epi32(q, splat(1)), 1);
  else t = _mm256_add_epi32(_mm256_srai_epi32(q, 1), _mm256_and_si256(q, splat(1)));
  return _mm256_min_epi32(_mm256_max_epi32(t, splat(o.lo)), splat(o.hi));
}
template <RequantOp::Kind K>
inline IV vector_step(const RequantOp& o, IV v) {
  switch (K) {
    case RequantOp::Kind::rshift:
      return rshift_round<false>(o, v);
    case RequantOp::Kind::clip:
      return _mm256_min_epi32(_mm256_max_epi32(v, splat(o.lo)), splat(o.hi));
    case RequantOp::Kind::mul:
      return _mm256_mullo_epi32(v, splat(o.value));
    case RequantOp::Kind::add:
      return _mm256_add_epi32(v, splat(o.value));
    case RequantOp::Kind::lut: {
      const int32_t top = int32_t(std::min<int64_t>(o.count - 1, INT32_MAX));
      const IV i = _mm256_min_epi32(_mm256_max_epi32(v, _mm256_setzero_si256()), splat(top));
      return _mm256_i32gather_epi32(reinterpret_cast<const int*>(o.table), i, 4);
    }
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
  }
}

// The chains mlvm-quantize writes for a layer — shift, per-channel multiplier, shift, and a
// clip when a ReLU6 follows — with every step in registers: no store and load between steps.
// kWideA, kWideC: the first or second shift is at least 1 (rshift_round<true>).
//
// The clip after the second shift's clamp is one clamp when their ranges meet:
// clamp(clamp(x, lo, hi), lo', hi') = clamp(x, max(lo, lo'), min(hi, hi')).
inline bool clip_meets_shift(const RequantOp* ops) {
  return std::max(ops[2].lo, ops[3].lo) <= std::min(ops[2].hi, ops[3].hi);
}
// The second shift with the clip's range merged in (where clip_meets_shift).
template <bool kClip>
RequantOp second_shift(const RequantOp* ops) {
  RequantOp c = ops[2];
  if constexpr (kClip) {
    c.lo = std::max(c.lo, ops[3].lo);
    c.hi = std::min(c.hi, ops[3].hi);
  }
  return c;
}
// The product after the first shift in i16 products (madd16): that shift's clamp keeps every
// value in i16's range (mlvm-quantize's chains clamp to 16 bits: quantize/scales.hpp) and the
// multiplier is in it.
inline bool in_i16(int64_t v) { return v >= -32768 && v <= 32767; }
inline bool i16_products(const RequantOp& first, int32_t multiplier) {
  return in_i16(first.lo) && in_i16(first.hi) && in_i16(multiplier);
}
inline IV multiplier_halves(int32_t m) { return splat(int32_t(uint32_t(m) & 0xFFFFu)); }
// One register through the layer chain, m from multiplier_halves.
template <bool kWideA, bool kWideC>
inline IV layer_chain(const RequantOp& a, IV m, const RequantOp& c, IV v) {
  return rshift_round<kWideC>(c, madd16(rshift_round<kWideA>(a, v), m));
}
template <bool kClip, bool kWideA, bool kWideC>
int64_t shift_mul_shift(const RequantOp* ops, const int32_t* src, void* dst, int64_t n, int out_bytes) {
  if (kClip && !clip_meets_shift(ops)) return 0;  // disjoint: step by step
  if (!i16_products(ops[0], ops[1].value)) return 0;
  // Copies: the stores to dst cannot change them, so their splats stay out of the loop.
  const RequantOp a = ops[0], c = second_shift<kClip>(ops);
  const IV m = multiplier_halves(ops[1].value);
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes) store(dst, k, layer_chain<kWideA, kWideC>(a, m, c, load(src + k)), out_bytes);
  return k;
}
// Any step, the kind chosen at run time: for the one register of a tail.
inline IV any_step(const RequantOp& o, IV v) {
  switch (o.kind) {
    case RequantOp::Kind::rshift: return vector_step<RequantOp::Kind::rshift>(o, v);
    case RequantOp::Kind::clip: return vector_step<RequantOp::Kind::clip>(o, v);
    case RequantOp::Kind::mul: return vector_step<RequantOp::Kind::mul>(o, v);
    case RequantOp::Kind::add: return vector_step<RequantOp::Kind::add>(o, v);
    case RequantOp::Kind::lut: return vector_step<RequantOp::Kind::lut>(o, v);
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

// f.template operator()<kClip, kWideA, kWideC>() for the chain's clip and whether each of
// its two shifts is at least 1 (the rounding rshift_round<true> may use).
template <class F>
auto with_chain_flags(bool clip, const RequantOp* ops, F&& f) {
  const bool wa = ops[0].shift >= 1, wc = ops[2].shift >= 1;
  auto pick = [&]<bool kClip>() {
    if (wa && wc) return f.template operator()<kClip, true, true>();
    if (wa) return f.template operator()<kClip, true, false>();
    if (wc) return f.template operator()<kClip, false, true>();
    return f.template operator()<kClip, false, false>();
  };
  return clip ? pick.template operator()<true>() : pick.template operator()<false>();
}

template <bool kClip>
int64_t shift_mul_shift_any(const RequantOp* ops, const int32_t* src, void* dst, int64_t n, int out_bytes) {
  return with_chain_flags(kClip, ops, [&]<bool kC, bool kA, bool kW>() {
    return shift_mul_shift<kC, kA, kW>(ops, src, dst, n, out_bytes);
  });
}

// shift_mul_shift over rows of at least a register each, row r's multiplier mul_values[r],
// each row's tail its last whole register read before the row's first store (as
// requant_run's); where clip_meets_shift and i16_products with every row's multiplier (the
// caller checked).
template <bool kClip, bool kWideA, bool kWideC>
void shift_mul_shift_rows(const RequantOp* ops, const int32_t* mul_values, const int32_t* src, void* dst,
                          int64_t n, int64_t rows, int out_bytes) {
  const RequantOp a = ops[0], c = second_shift<kClip>(ops);
  for (int64_t r = 0; r < rows; ++r) {
    const int32_t* s = src + r * n;
    const IV m = multiplier_halves(mul_values[r]), last = load(s + n - kLanes);
    int64_t k = 0;
    for (; k + kLanes <= n; k += kLanes) store(dst, r * n + k, layer_chain<kWideA, kWideC>(a, m, c, load(s + k)), out_bytes);
    if (k < n) store(dst, r * n + n - kLanes, layer_chain<kWideA, kWideC>(a, m, c, last), out_bytes);
  }
}

inline bool is_chain(const RequantOp* ops, int nops, std::initializer_list<RequantOp::Kind> kinds) {
  if (nops != int(kinds.size())) return false;
  int s = 0;
  for (RequantOp::Kind kind : kinds)
    if (ops[s++].kind != kind) return false;
  return true;
}

}  // namespace requant_detail

// A chunk of values at a time, each step one tight loop over it in L1 (a dispatch per step per
// register made the steps' indirect jumps the run's cost).
// A tail shorter than a register is done as the last whole register, n - kLanes .. n, from
// the values read before anything was stored (so in place too), stored over the values the
// main loop wrote there with the same results: masked loads of the few values past a block's
// last stores stalled, and scalar tails cost a quarter of a 1x1 conv's requantization over
// 14 x 14 planes.
void requant_run(const RequantOp* ops, int nops, const int32_t* src, void* dst, int64_t n, int out_bytes) {
  namespace r = requant_detail;
  using K = RequantOp::Kind;
  if (n < r::kLanes) return r::tail(ops, nops, src, dst, 0, n, out_bytes);
  const r::IV last = r::load(src + n - r::kLanes);
  int64_t k = 0;
  if (r::is_chain(ops, nops, {K::rshift, K::mul, K::rshift}))
    k = r::shift_mul_shift_any<false>(ops, src, dst, n, out_bytes);
  else if (r::is_chain(ops, nops, {K::rshift, K::mul, K::rshift, K::clip}))
    k = r::shift_mul_shift_any<true>(ops, src, dst, n, out_bytes);
  constexpr int64_t kChunk = 256;
  alignas(64) int32_t buf[kChunk];
  for (; k + r::kLanes <= n;) {
    const int64_t m = std::min(kChunk, (n - k) / r::kLanes * r::kLanes);
    const int32_t* in = src + k;
    for (int s = 0; s < nops; ++s) {
      r::apply_step(ops[s], in, buf, m);
      in = buf;
    }
    for (int64_t j = 0; j < m; j += r::kLanes) r::store(dst, k + j, r::load(in + j), out_bytes);
    k += m;
  }
  if (k < n) {
    r::IV v = last;
    for (int s = 0; s < nops; ++s) v = r::any_step(ops[s], v);
    r::store(dst, n - r::kLanes, v, out_bytes);
  }
}

// Rows of one chain (RequantRowsRun): a layer's shift, multiplier, shift [, clip] with the
// multiplier per row in registers, row after row; any other chain, or rows shorter than a
// register, as requant_run per row with its ops patched. In place too: row r's stores land at
// or below its own values and below every later row's.
void requant_rows(const RequantOp* ops, int nops, int mul_op, const int32_t* mul_values, const int32_t* src,
                  void* dst, int64_t n, int64_t rows, int out_bytes) {
  namespace r = requant_detail;
  using K = RequantOp::Kind;
  if (n <= 0 || rows <= 0) return;
  const bool clip = r::is_chain(ops, nops, {K::rshift, K::mul, K::rshift, K::clip});
  if (mul_op == 1 && n >= r::kLanes && (clip || r::is_chain(ops, nops, {K::rshift, K::mul, K::rshift})) &&
      (!clip || r::clip_meets_shift(ops)) &&
      std::all_of(mul_values, mul_values + rows, [&](int32_t m) { return r::i16_products(ops[0], m); })) {
    return r::with_chain_flags(clip, ops, [&]<bool kC, bool kA, bool kW>() {
      r::shift_mul_shift_rows<kC, kA, kW>(ops, mul_values, src, dst, n, rows, out_bytes);
    });
  }
  std::array<RequantOp, kMaxRequantOps> local{};
  std::copy_n(ops, std::min(nops, kMaxRequantOps), local.begin());
  for (int64_t row = 0; row < rows; ++row) {
    if (mul_op >= 0) local[std::size_t(mul_op)].value = mul_values[row];
    requant_run(local.data(), nops, src + row * n, static_cast<std::byte*>(dst) + row * n * out_bytes, n, out_bytes);
  }
}

#endif
