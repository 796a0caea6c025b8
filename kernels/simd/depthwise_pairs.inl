// The 8- and 16-bit integer depthwise plane of AVX2 and AVX-512 (interface: depthwise_plane
// in kernels/simd/conv_depthwise.hpp), by vpmaddwd: two window rows at once. Not a header:
// part of depthwise_impl.inl's body, after depthwise_plain.inl (its fallback), inside the
// level's anonymous namespace.
//
// The input plane is first copied as i16 with its column padding (zeros) and, at column stride
// 2, split into even and odd columns, so that every tap of a register of output columns is one
// unaligned load. Window rows i and i + 1 are then interleaved in registers (unpack lo/hi:
// pairs of the two rows' values per column) and multiplied by the pair (w[i][j], w[i + 1][j])
// with vpmaddwd, 32 products per AVX-512 instruction where the plain loop's widened 32-bit
// multiplies made the i16 depthwise convolutions of quantized PP-OCRv4 a quarter of its time.
// An odd last row is paired with a row of zeros and a zero weight.
//
// Bits: the plain loop sums in uint32 (wrapping). vpmaddwd's pair sum is exact except when all
// four operands are -32768, where it gives 0x80000000, which is 2^31 modulo 2^32: the same
// bits; vpaddd wraps. Integer sums modulo 2^32 do not depend on their order.
#if MLVM_SIMD_BYTES == 64 || MLVM_SIMD_BYTES == 32

// The register forms: 16 output columns per pair of accumulators in 256-bit registers (both
// levels: AVX-512 takes them for planes at most 16 wide, where 32 columns would be mostly
// waste), 32 in 512-bit ones.
struct Pairs256 {
  using R = __m256i;
  static constexpr int64_t kCols = 16;
  static R load(const int16_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static R lo(R a, R b) { return _mm256_unpacklo_epi16(a, b); }
  static R hi(R a, R b) { return _mm256_unpackhi_epi16(a, b); }
  static R madd(R a, R w, R acc) { return _mm256_add_epi32(acc, _mm256_madd_epi16(a, w)); }
  static R set1(int32_t v) { return _mm256_set1_epi32(v); }
  static R zero() { return _mm256_setzero_si256(); }
  // lo holds columns {0-3, 8-11}, hi {4-7, 12-15}.
  static void store(int32_t* y, R lo, R hi, R bias, int64_t n) {
    const R first = _mm256_add_epi32(_mm256_permute2x128_si256(lo, hi, 0x20), bias);
    const R second = _mm256_add_epi32(_mm256_permute2x128_si256(lo, hi, 0x31), bias);
    if (n >= 16) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(y), first);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + 8), second);
      return;
    }
    alignas(32) int32_t t[16];
    _mm256_store_si256(reinterpret_cast<__m256i*>(t), first);
    _mm256_store_si256(reinterpret_cast<__m256i*>(t + 8), second);
    std::copy(t, t + n, y);
  }
};

#if MLVM_SIMD_BYTES == 64
struct Pairs512 {
  using R = __m512i;
  static constexpr int64_t kCols = 32;
  static R load(const int16_t* p) { return _mm512_loadu_si512(p); }
  static R lo(R a, R b) { return _mm512_unpacklo_epi16(a, b); }
  static R hi(R a, R b) { return _mm512_unpackhi_epi16(a, b); }
  static R madd(R a, R w, R acc) { return _mm512_add_epi32(acc, _mm512_madd_epi16(a, w)); }
  static R set1(int32_t v) { return _mm512_set1_epi32(v); }
  static R zero() { return _mm512_setzero_si512(); }
  // lo holds columns {0-3, 8-11, 16-19, 24-27}, hi {4-7, 12-15, 20-23, 28-31} (unpack works
  // within 128-bit lanes): back to column order, 16 columns per register.
  static void store(int32_t* y, R lo, R hi, R bias, int64_t n) {
    const R first = _mm512_add_epi32(_mm512_permutex2var_epi64(lo, _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0), hi), bias);
    const R second = _mm512_add_epi32(_mm512_permutex2var_epi64(lo, _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4), hi), bias);
    if (n >= 32) {
      _mm512_storeu_si512(y, first);
      _mm512_storeu_si512(y + 16, second);
      return;
    }
    _mm512_mask_storeu_epi32(y, __mmask16((1u << std::min<int64_t>(n, 16)) - 1), first);
    if (n > 16) _mm512_mask_storeu_epi32(y + 16, __mmask16((1u << (n - 16)) - 1), second);
  }
};
#endif

// dst[q] = src[2q] for q in [q0, q1) a register at a time while whole registers fit and read
// no further than src[avail - 1]; returns where it stopped. The 32-bit lanes' low halves are the even columns: sign-extended in place
// (shift left, arithmetic shift right) they pack back to i16 unchanged.
inline int64_t pair_even_columns(const int16_t* src, int16_t* dst, int64_t q0, int64_t q1, int64_t avail) {
  constexpr int64_t L = MLVM_SIMD_BYTES / 2;  // i16 lanes
  int64_t q = q0;
  for (; q + L <= q1 && 2 * (q + L) <= avail; q += L) {
#if MLVM_SIMD_BYTES == 64
    const __m512i a = _mm512_loadu_si512(src + 2 * q), b = _mm512_loadu_si512(src + 2 * q + L);
    const __m512i ea = _mm512_srai_epi32(_mm512_slli_epi32(a, 16), 16), eb = _mm512_srai_epi32(_mm512_slli_epi32(b, 16), 16);
    const __m512i packed = _mm512_packs_epi32(ea, eb);  // per 128-bit lane: 4 of a, 4 of b
    _mm512_storeu_si512(dst + q, _mm512_permutexvar_epi64(_mm512_set_epi64(7, 5, 3, 1, 6, 4, 2, 0), packed));
#else
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 2 * q));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 2 * q + L));
    const __m256i ea = _mm256_srai_epi32(_mm256_slli_epi32(a, 16), 16), eb = _mm256_srai_epi32(_mm256_slli_epi32(b, 16), 16);
    const __m256i packed = _mm256_packs_epi32(ea, eb);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + q), _mm256_permute4x64_epi64(packed, 0xD8));
#endif
  }
  return q;
}

// Whether the pair kernel takes this geometry: column stride 1 or 2, no column dilation.
inline bool pairs_fit(const DepthwiseGeometry& g) {
  return (g.sw == 1 || g.sw == 2) && g.dw == 1 && g.kw <= 16 && g.kh <= 16;
}

template <class P, class T>
void pairs_plane_with(const T* x, const T* w, const int32_t* bias, const DepthwiseGeometry& g, int32_t* y) {
  using PairReg = typename P::R;
  constexpr int64_t kPairCols = P::kCols;
  // Padded column q·sw + phase of a phase row is input column q·sw + phase - left; each phase
  // row holds what the last register of outputs reads, and one register more.
  const int64_t reach = (g.kw - 1) / g.sw;  // phase columns a window spans past its first
  const int64_t chunks = (g.ow + kPairCols - 1) / kPairCols;
  const int64_t wq = chunks * kPairCols + reach + kPairCols;
  const int64_t row_len = g.sw * wq;
  thread_local std::vector<int16_t> buf;
  if (buf.size() < std::size_t((g.h + 1) * row_len)) buf.resize(std::size_t((g.h + 1) * row_len));
  int16_t* planes = buf.data();
  int16_t* zero_row = planes + g.h * row_len;  // rows outside the input
  std::fill(zero_row, zero_row + row_len, int16_t(0));
  for (int64_t r = 0; r < g.h; ++r) {
    const T* src = x + r * g.w;
    for (int64_t ph = 0; ph < g.sw; ++ph) {
      int16_t* dst = planes + r * row_len + ph * wq;
      // Phase column q reads input column q·sw + ph - left, inside [0, w) for q in [q0, q1);
      // the others are padding.
      const int64_t first = ph - g.left;
      const int64_t q0 = std::min(wq, first >= 0 ? 0 : (-first + g.sw - 1) / g.sw);
      const int64_t q1 = std::clamp<int64_t>(g.w - first <= 0 ? 0 : (g.w - first + g.sw - 1) / g.sw, q0, wq);
      std::fill(dst, dst + q0, int16_t(0));
      std::fill(dst + q1, dst + wq, int16_t(0));
      if (g.sw == 1) {
        if constexpr (std::is_same_v<T, int16_t>) std::copy(src + q0 + first, src + q1 + first, dst + q0);
        else for (int64_t q = q0; q < q1; ++q) dst[q] = int16_t(src[q + first]);
      } else {
        int64_t q = q0;
        if constexpr (std::is_same_v<T, int16_t>) q = pair_even_columns(src + first, dst, q0, q1, g.w - first);
        for (; q < q1; ++q) dst[q] = int16_t(src[q * 2 + first]);
      }
    }
  }
  // The weight pairs (w[i][j], w[i + 1][j]) per row pair and column, as vpmaddwd reads them.
  const int64_t pairs = (g.kh + 1) / 2;
  PairReg wp[8 * 16];
  for (int64_t p = 0; p < pairs; ++p)
    for (int64_t j = 0; j < g.kw; ++j) {
      const int64_t i = 2 * p;
      const uint32_t a = uint16_t(int16_t(w[i * g.kw + j]));
      const uint32_t b = i + 1 < g.kh ? uint16_t(int16_t(w[(i + 1) * g.kw + j])) : 0u;
      wp[p * 16 + j] = P::set1(int32_t(a | (b << 16)));
    }
  const PairReg vbias = P::set1(bias ? *bias : 0);
  // Where tap column j starts in a phase row, computed once: a division per tap in the inner
  // loop (the stride is known only at run time) cost more than the tap's arithmetic.
  std::array<int64_t, 16> tap_at;
  for (int64_t j = 0; j < g.kw; ++j) tap_at[std::size_t(j)] = (j % g.sw) * wq + j / g.sw;
  std::array<const int16_t*, 16> rows;
  for (int64_t oh = 0; oh < g.oh; ++oh) {
    for (int64_t i = 0; i < 2 * pairs; ++i) {
      const int64_t ih = oh * g.sh - g.top + i * g.dh;
      rows[std::size_t(i)] = i < g.kh && ih >= 0 && ih < g.h ? planes + ih * row_len : zero_row;
    }
    for (int64_t c = 0; c < chunks; ++c) {
      PairReg lo = P::zero(), hi = P::zero();
      for (int64_t p = 0; p < pairs; ++p) {
        const int16_t* ra = rows[std::size_t(2 * p)] + c * kPairCols;
        const int16_t* rb = rows[std::size_t(2 * p + 1)] + c * kPairCols;
        for (int64_t j = 0; j < g.kw; ++j) {
          const int64_t at = tap_at[std::size_t(j)];
          const PairReg a = P::load(ra + at), b = P::load(rb + at);
          const PairReg wv = wp[p * 16 + j];
          lo = P::madd(P::lo(a, b), wv, lo);
          hi = P::madd(P::hi(a, b), wv, hi);
        }
      }
      P::store(y + oh * g.ow + c * kPairCols, lo, hi, vbias, g.ow - c * kPairCols);
    }
  }
}

template <class T>
void pairs_depthwise_plane(const T* x, const T* w, const int32_t* bias, const DepthwiseGeometry& g, int32_t* y) {
  if (!pairs_fit(g)) return plain_depthwise_plane(x, w, bias, g, y);
#if MLVM_SIMD_BYTES == 64
  if (g.ow > Pairs256::kCols) return pairs_plane_with<Pairs512>(x, w, bias, g, y);
#endif
  pairs_plane_with<Pairs256>(x, w, bias, g, y);
}

#else

template <class T>
void pairs_depthwise_plane(const T* x, const T* w, const int32_t* bias, const DepthwiseGeometry& g, int32_t* y) {
  plain_depthwise_plane(x, w, bias, g, y);
}

#endif
