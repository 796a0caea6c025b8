// The 8- and 16-bit integer depthwise plane of AVX2 and AVX-512 (interface: depthwise_plane
// in kernels/simd/conv_depthwise.hpp), by vpmaddwd: two window rows at once. Not a header:
// part of depthwise_impl.inl's body, after depthwise_plain.inl (its fallback), inside the
// level's anonymous namespace.
//
// The input plane is first copied as i16 with its column padding (zeros) and, at column stride
// 2, split into even and odd columns, so that every tap of a register of output columns is one
// unaligned load. Window rows i and i + 1 are then paired: a pair row holds in each 32-bit lane
// one column's values of two input rows (the first in the low half), so that a load of it
// times the pair (w[i][j], w[i + 1][j]) by vpmaddwd gives a register of outputs their two
// taps, in column order. Each pair row is built once per plane and read by every output row
// and tap column it serves; interleaving the two rows in registers per tap instead (unpack
// lo/hi, then permutes back to column order) spent as many shuffles as multiply-adds. An odd
// last window row is paired with whatever row follows it and a zero weight.
//
// Bits: the plain loop sums in uint32 (wrapping). vpmaddwd's pair sum is exact except when all
// four operands are -32768, where it gives 0x80000000, which is 2^31 modulo 2^32: the same
// bits; vpaddd wraps. Integer sums modulo 2^32 do not depend on their order.
#if MLVM_SIMD_BYTES == 64 || MLVM_SIMD_BYTES == 32

// The register forms: i32 lanes of output columns, K registers per chunk of columns.
struct Pairs256 {
  using R = __m256i;
  static constexpr int64_t kLanes = 8;
  static R load(const int32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static R madd(R a, R w, R acc) { return _mm256_add_epi32(acc, _mm256_madd_epi16(a, w)); }
  // AVX-VNNI's fused form (the avx2 level on a CPU with it), as asm for the reason given at
  // gemm_avx2.cpp's VexDpPairs.
  static R dp(R a, R w, R acc) {
    __asm__("%{vex%} vpdpwssd %2, %1, %0" : "+x"(acc) : "x"(a), "x"(w));
    return acc;
  }
  static R set1(int32_t v) { return _mm256_set1_epi32(v); }
  static void store(int32_t* y, R v, int64_t n) {
    if (n >= kLanes) return _mm256_storeu_si256(reinterpret_cast<__m256i*>(y), v);
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    _mm256_maskstore_epi32(y, _mm256_cmpgt_epi32(_mm256_set1_epi32(int32_t(n)), lanes), v);
  }
};

#if MLVM_SIMD_BYTES == 64
struct Pairs512 {
  using R = __m512i;
  static constexpr int64_t kLanes = 16;
  static R load(const int32_t* p) { return _mm512_loadu_si512(p); }
  static R madd(R a, R w, R acc) { return _mm512_add_epi32(acc, _mm512_madd_epi16(a, w)); }
  static R dp(R a, R w, R acc) {  // AVX-512 VNNI
    __asm__("vpdpwssd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(w));
    return acc;
  }
  static R set1(int32_t v) { return _mm512_set1_epi32(v); }
  static void store(int32_t* y, R v, int64_t n) {
    if (n >= kLanes) return _mm512_storeu_si512(y, v);
    _mm512_mask_storeu_epi32(y, __mmask16((1u << n) - 1), v);
  }
};
#endif

// dst[q] = src[2q] for q in [q0, q1) a register at a time while whole registers fit and read
// no further than src[avail - 1]; returns where it stopped. The 32-bit lanes' low halves are
// the even columns: sign-extended in place (shift left, arithmetic shift right) they pack back
// to i16 unchanged.
inline int64_t pair_even_columns(const int16_t* src, int16_t* dst, int64_t q0, int64_t q1, int64_t avail) {
  constexpr int64_t L = MLVM_SIMD_BYTES / 2;  // i16 lanes
  int64_t q = q0;
  for (; q + L <= q1 && 2 * (q + L) <= avail; q += L) {
#if MLVM_SIMD_BYTES == 64
    const __m512i a = _mm512_loadu_si512(src + 2 * q), b = _mm512_loadu_si512(src + 2 * q + L);
    const __m512i ea = _mm512_srai_epi32(_mm512_slli_epi32(a, 16), 16);
    const __m512i eb = _mm512_srai_epi32(_mm512_slli_epi32(b, 16), 16);
    const __m512i packed = _mm512_packs_epi32(ea, eb);  // per 128-bit lane: 4 of a, 4 of b
    _mm512_storeu_si512(dst + q, _mm512_permutexvar_epi64(_mm512_set_epi64(7, 5, 3, 1, 6, 4, 2, 0), packed));
#else
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 2 * q));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 2 * q + L));
    const __m256i ea = _mm256_srai_epi32(_mm256_slli_epi32(a, 16), 16);
    const __m256i eb = _mm256_srai_epi32(_mm256_slli_epi32(b, 16), 16);
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

// The sums of NR output rows (1 or 2), K registers of columns at a time: pr[r·8 + p] the pair
// row of row r's window rows 2p and 2p + 1, wp[p·16 + j] the weight pair of their tap column j.
// With VNNI each multiply-add is one vpdpwssd, whose latency the NR·K independent sums hide.
template <class P, int K, int NR, bool kVnni>
void pair_row_sums(const int32_t* const* pr, const typename P::R* wp, const std::array<int64_t, 16>& tap_at,
                   int64_t pairs, int64_t kw, int32_t bias, int64_t ow, int32_t* y, int64_t y_stride) {
  using R = typename P::R;
  constexpr int64_t kCols = K * P::kLanes;
  const R vbias = P::set1(bias);
  for (int64_t q = 0; q < ow; q += kCols) {
    R acc[NR][K];
    for (int r = 0; r < NR; ++r)
      for (int k = 0; k < K; ++k) acc[r][k] = vbias;
    for (int64_t p = 0; p < pairs; ++p) {
      for (int64_t j = 0; j < kw; ++j) {
        const R wv = wp[p * 16 + j];
        const int64_t at = q + tap_at[std::size_t(j)];
#pragma GCC unroll 2
        for (int r = 0; r < NR; ++r)
#pragma GCC unroll 4
          for (int k = 0; k < K; ++k) {
            const R a = P::load(pr[r * 8 + p] + at + k * P::kLanes);
            acc[r][k] = kVnni ? P::dp(a, wv, acc[r][k]) : P::madd(a, wv, acc[r][k]);
          }
      }
    }
    for (int r = 0; r < NR; ++r)
      for (int k = 0; k < K; ++k)
        if (q + k * P::kLanes < ow) P::store(y + r * y_stride + q + k * P::kLanes, acc[r][k], ow - q - k * P::kLanes);
  }
}

template <class P, int K, bool kVnni, class T>
void pairs_plane_with(const T* x, const T* w, const int32_t* bias, const DepthwiseGeometry& g, int32_t* y) {
  using PairReg = typename P::R;
  constexpr int64_t kCols = K * P::kLanes;
  // Padded column q·sw + phase of a phase row is input column q·sw + phase - left; each phase
  // row holds what the last register of outputs reads, and one register more.
  const int64_t reach = (g.kw - 1) / g.sw;  // phase columns a window spans past its first
  const int64_t chunks = (g.ow + kCols - 1) / kCols;
  const int64_t wq = chunks * kCols + reach + P::kLanes;
  const int64_t row_len = g.sw * wq;
  // Pair row r (input rows r and r + dh) for r in [r0, r1]: the window rows of every output.
  const int64_t pairs = (g.kh + 1) / 2;
  const int64_t r0 = -g.top, r1 = (g.oh - 1) * g.sh - g.top + 2 * (pairs - 1) * g.dh;
  thread_local std::vector<int16_t> buf;
  thread_local std::vector<int32_t> pair_buf;
  if (buf.size() < std::size_t((g.h + 1) * row_len)) buf.resize(std::size_t((g.h + 1) * row_len));
  if (pair_buf.size() < std::size_t((r1 - r0 + 1) * row_len)) pair_buf.resize(std::size_t((r1 - r0 + 1) * row_len));
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
  auto input_row = [&](int64_t r) { return r >= 0 && r < g.h ? planes + r * row_len : zero_row; };
  // Only the pair rows some output reads (at row stride 2, every other one).
  auto pair_row = [&](int64_t r) { return pair_buf.data() + (r - r0) * row_len; };
  for (int64_t r = r0; r <= r1; r += std::gcd(g.sh, 2 * g.dh)) {
    const int16_t* a = input_row(r);
    const int16_t* b = input_row(r + g.dh);
    int32_t* d = pair_row(r);
    for (int64_t k = 0; k < row_len; ++k) d[k] = int32_t(uint32_t(uint16_t(a[k])) | uint32_t(uint16_t(b[k])) << 16);
  }
  // The weight pairs (w[i][j], w[i + 1][j]) per row pair and column, as vpmaddwd reads them.
  PairReg wp[8 * 16];
  for (int64_t p = 0; p < pairs; ++p)
    for (int64_t j = 0; j < g.kw; ++j) {
      const int64_t i = 2 * p;
      const uint32_t a = uint16_t(int16_t(w[i * g.kw + j]));
      const uint32_t b = i + 1 < g.kh ? uint16_t(int16_t(w[(i + 1) * g.kw + j])) : 0u;
      wp[p * 16 + j] = P::set1(int32_t(a | (b << 16)));
    }
  // Where tap column j starts in a phase row, computed once: a division per tap in the inner
  // loop (the stride is known only at run time) cost more than the tap's arithmetic.
  std::array<int64_t, 16> tap_at;
  for (int64_t j = 0; j < g.kw; ++j) tap_at[std::size_t(j)] = (j % g.sw) * wq + j / g.sw;
  // Two output rows at once: each weight pair loaded once for both.
  std::array<const int32_t*, 16> pr;
  const int32_t b0 = bias ? *bias : 0;
  for (int64_t oh = 0; oh < g.oh; oh += 2) {
    for (int64_t r = 0; r < 2 && oh + r < g.oh; ++r)
      for (int64_t p = 0; p < pairs; ++p) pr[std::size_t(r * 8 + p)] = pair_row((oh + r) * g.sh - g.top + 2 * p * g.dh);
    if (oh + 1 < g.oh) pair_row_sums<P, K, 2, kVnni>(pr.data(), wp, tap_at, pairs, g.kw, b0, g.ow, y + oh * g.ow, g.ow);
    else pair_row_sums<P, K, 1, kVnni>(pr.data(), wp, tap_at, pairs, g.kw, b0, g.ow, y + oh * g.ow, g.ow);
  }
}

template <class T>
void pairs_depthwise_plane(const T* x, const T* w, const int32_t* bias, const DepthwiseGeometry& g, int32_t* y) {
  if (!pairs_fit(g)) return plain_depthwise_plane(x, w, bias, g, y);
  auto run = [&]<bool kVnni>() {
#if MLVM_SIMD_BYTES == 64
    if (g.ow > 16) return pairs_plane_with<Pairs512, 2, kVnni>(x, w, bias, g, y);
#endif
    if (g.ow > 16) return pairs_plane_with<Pairs256, 4, kVnni>(x, w, bias, g, y);
    pairs_plane_with<Pairs256, 2, kVnni>(x, w, bias, g, y);
  };
#if MLVM_SIMD_BYTES == 64
  static const bool vnni = cpu_has_avx512_vnni();
#else
  const bool vnni = avx2_uses_vnni();
#endif
  if (vnni) return run.template operator()<true>();
  run.template operator()<false>();
}

#else

template <class T>
void pairs_depthwise_plane(const T* x, const T* w, const int32_t* bias, const DepthwiseGeometry& g, int32_t* y) {
  plain_depthwise_plane(x, w, bias, g, y);
}

#endif
