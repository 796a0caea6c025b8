// The integer depthwise convolution of one SIMD level over i8 or i16 planes, channels in lanes
// and taps in i16 pairs, with its bias and requantization in registers (interface:
// DepthwisePairsBlocked in kernels/simd/conv_depthwise.hpp): a part of depthwise_impl.inl's
// body, after depthwise_blocked_i8.inl, whose requantization and stores it shares.
//
// Planes wider than the f32 kernels take exactly (PP-OCRv4's 5x5 windows over 12 x 145, its
// 16-bit layers anywhere) went to the integer row kernels (depthwise_pairs.inl), which pair
// neighbouring columns of one plane: about the f32 convolution's time, and then a pass of
// their own for the requantization. Here each pixel of the pixel-major strip holds a register
// of channels, each lane the pair (x[col], x[col + dw]) of one channel, so that one vpmaddwd
// with the weight pairs (w[i][2p], w[i][2p + 1]) gives two taps of every channel: a 5x5 window
// is 15 multiply-adds a register of outputs, where f32 needs 25. The products and their pair
// sums are exact modulo 2^32 (vpmaddwd's one sum past i32, 2^31, wraps as a plain sum does),
// so any i16 weights and inputs give the integer kernels' bits.
#if MLVM_SIMD_BYTES == 64 || MLVM_SIMD_BYTES == 32

namespace pairs_detail {

constexpr int64_t L = kLanes<float>;  // channels a call, one i32 lane each
using r_IV = requant_detail::IV;

// Lane c of pixel col is the i16 value of channel c's column col - left of input row `src`:
// row[col·L + c] for col < cols, zero in padding columns and in lanes past `channels`.
// Eight channels by eight columns at a time through a transpose of their words.
template <class T>
void pixel_major_row16(int16_t* row, const T* src, int64_t plane, int64_t channels, int64_t cols, int64_t c_lo,
                       int64_t c_hi) {
  std::fill(row, row + c_lo * L, int16_t(0));
  std::fill(row + c_hi * L, row + cols * L, int16_t(0));
  int64_t col = c_lo;
  if (channels == L) {
    // A row's last block of eight ends at its last column, overlapping the one before (the
    // same values stored again): the column-by-column tail took as long as the rest on the
    // 14-wide planes of MobileNet-V2.
    for (int64_t next = c_lo; next < c_hi && c_hi - c_lo >= 8; next += 8) {
      col = std::min(next, c_hi - 8);
      for (int64_t c0 = 0; c0 < L; c0 += 8) {
        __m128i v[8];
        for (int c = 0; c < 8; ++c) {
          const T* p = src + (c0 + c) * plane + col;
          if constexpr (sizeof(T) == 1) v[c] = _mm_cvtepi8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
          else v[c] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        }
        __m128i a[8], b[8];
        for (int k = 0; k < 4; ++k) {
          a[2 * k] = _mm_unpacklo_epi16(v[2 * k], v[2 * k + 1]);
          a[2 * k + 1] = _mm_unpackhi_epi16(v[2 * k], v[2 * k + 1]);
        }
        for (int k = 0; k < 2; ++k)
          for (int h = 0; h < 2; ++h) {
            b[4 * k + 2 * h] = _mm_unpacklo_epi32(a[4 * k + h], a[4 * k + 2 + h]);
            b[4 * k + 2 * h + 1] = _mm_unpackhi_epi32(a[4 * k + h], a[4 * k + 2 + h]);
          }
        // b[0..3]: columns 0-1, 2-3, 4-5, 6-7 of channels 0-3; b[4..7] the same of 4-7.
        for (int k = 0; k < 4; ++k) {
          _mm_storeu_si128(reinterpret_cast<__m128i*>(row + (col + 2 * k) * L + c0),
                           _mm_unpacklo_epi64(b[k], b[4 + k]));
          _mm_storeu_si128(reinterpret_cast<__m128i*>(row + (col + 2 * k + 1) * L + c0),
                           _mm_unpackhi_epi64(b[k], b[4 + k]));
        }
      }
      col += 8;
    }
  }
  for (; col < c_hi; ++col)
    for (int64_t c = 0; c < L; ++c) row[col * L + c] = c < channels ? int16_t(src[c * plane + col]) : int16_t(0);
}

// pairs[col·L + c] = (row16[col][c], row16[col + dw][c]) as two i16 in one i32 lane, col < cols.
inline void pair_row(int32_t* pairs, const int16_t* row16, int64_t cols, int64_t dw) {
  for (int64_t col = 0; col < cols; ++col) {
    const int16_t* a = row16 + col * L;
    const int16_t* b = a + dw * L;
#if MLVM_SIMD_BYTES == 64
    const __m512i lo = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a)));
    const __m512i hi = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b)));
    _mm512_storeu_si512(pairs + col * L, _mm512_or_si512(lo, _mm512_slli_epi32(hi, 16)));
#else
    const __m256i lo = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a)));
    const __m256i hi = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(pairs + col * L), _mm256_or_si256(lo, _mm256_slli_epi32(hi, 16)));
#endif
  }
}

inline r_IV madd(r_IV a, r_IV b) { return requant_detail::madd16(a, b); }
// s + madd(x, w) kept in that order: integer sums GCC otherwise regroups into trees of all of
// a group's products at once, more of them than there are registers.
inline r_IV madd_to(r_IV s, r_IV x, r_IV w) {
  r_IV v = requant_detail::add(s, madd(x, w));
#if MLVM_SIMD_BYTES == 64
  asm("" : "+v"(v));
#else
  asm("" : "+x"(v));
#endif
  return v;
}
inline r_IV at(const int32_t* p) { return requant_detail::load(p); }

// The sums of one strip: out[(r·ow + q)·L ..] = Σ over (i, p) of madd(pairs row r·sh + i·dh,
// column q·sw + 2p·dw; weight pair (i, p)), four outputs at a time along a row (a last group
// moved back to end at the row's end). KH, KWP, SW, DW: the window's rows and pairs, the
// column stride and dilation, each 0 for any (the usual ones fixed, so that every offset but
// the rows' is a constant: with all of them variable GCC kept sixty offsets on the stack).
template <int KH, int KWP, int SW, int DW>
void pair_sums(const int32_t* in, const int32_t* wp, int64_t kh, int64_t kwp, int64_t oh, int64_t ow, int64_t ld,
               int64_t sh, int64_t sw_, int64_t dh, int64_t dw_, int32_t* out) {
  const int64_t rows = KH ? KH : kh, pairs = KWP ? KWP : kwp, sw = SW ? SW : sw_, dw = DW ? DW : dw_;
  const int64_t row_step = dh * ld * L;
  const r_IV zero = requant_detail::splat(0);
  auto one_group = [&]<int NQ>(const int32_t* b, int32_t* o) {
    r_IV s[NQ];
    for (int k = 0; k < NQ; ++k) s[k] = zero;
    const int32_t* w = wp;
#pragma GCC unroll 8
    for (int64_t i = 0; i < rows; ++i, b += row_step)
#pragma GCC unroll 8
      for (int64_t p = 0; p < pairs; ++p, w += L) {
        const r_IV wv = at(w);
        const int32_t* q = b + 2 * p * dw * L;
#pragma GCC unroll 4
        for (int k = 0; k < NQ; ++k) s[k] = madd_to(s[k], at(q + k * sw * L), wv);
      }
    for (int k = 0; k < NQ; ++k) requant_detail::store(o + k * L, 0, s[k], 4);
  };
  for (int64_t r = 0; r < oh; ++r) {
    const int32_t* base = in + r * sh * ld * L;
    int32_t* orow = out + r * ow * L;
    if (ow >= 4) {
      for (int64_t q0 = 0; q0 < ow; q0 += 4) {
        const int64_t q = std::min(q0, ow - 4);
        one_group.template operator()<4>(base + q * sw * L, orow + q * L);
      }
    } else {
      for (int64_t q = 0; q < ow; ++q) one_group.template operator()<1>(base + q * sw * L, orow + q * L);
    }
  }
}

}  // namespace pairs_detail

void depthwise_blocked_pairs(const DepthwisePairsBlocked& a) {
  namespace d = pairs_detail;
  constexpr int64_t L = d::L;
  const DepthwiseBlocked& f = a.q.f;
  const int64_t kwp = (f.kw + 1) / 2;
  const int64_t strip = depthwise_strip_rows(L, f.kh, f.kw, f.oh, f.ow, f.sh, f.sw, f.dh, f.dw, kDepthwisePairsKiB);
  const int64_t strip_in = (strip - 1) * f.sh + (f.kh - 1) * f.dh + 1;
  const int64_t cols = (f.ow - 1) * f.sw + (f.kw - 1) * f.dw + 1;
  // work: [strip_in][cols][L] pairs, [strip·ow][L] sums, [kh][kwp][L] weight pairs, and one
  // pixel-major i16 row of cols + dw columns (the last tap's pair reads dw columns on).
  auto* in = reinterpret_cast<int32_t*>(f.work);
  int32_t* out = in + strip_in * cols * L;
  int32_t* wp = out + strip * f.ow * L;
  auto* row16 = reinterpret_cast<int16_t*>(wp + f.kh * kwp * L);
  const int64_t taps = f.kh * f.kw;
  for (int64_t i = 0; i < f.kh; ++i)
    for (int64_t p = 0; p < kwp; ++p)
      for (int64_t c = 0; c < L; ++c) {
        const int16_t* wc = a.w + c * taps + i * f.kw;
        const uint32_t w0 = c < f.channels ? uint16_t(wc[2 * p]) : 0u;
        const uint32_t w1 = c < f.channels && 2 * p + 1 < f.kw ? uint16_t(wc[2 * p + 1]) : 0u;
        wp[(i * kwp + p) * L + c] = int32_t(w0 | w1 << 16);
      }
  const int64_t rcols = cols + f.dw, plane = f.h * f.w;
  const int64_t c_lo = std::min(rcols, f.left), c_hi = std::max(c_lo, std::min(rcols, f.left + f.w));
  auto fill = [&](int64_t ih) {
    if (a.q.x) d::pixel_major_row16(row16, a.q.x + ih * f.w - f.left, plane, f.channels, rcols, c_lo, c_hi);
    else d::pixel_major_row16(row16, a.x16 + ih * f.w - f.left, plane, f.channels, rcols, c_lo, c_hi);
  };
  with_requant(a.q, [&](requant_detail::IV vb, auto finish) {
    with_out_bytes(a.q, [&]<int kBytes>() {
      for (int64_t r0 = 0; r0 < f.oh; r0 += strip) {
        const int64_t orows = std::min(strip, f.oh - r0);
        const int64_t irows = (orows - 1) * f.sh + (f.kh - 1) * f.dh + 1;
        for (int64_t r = 0; r < irows; ++r) {
          int32_t* prow = in + r * cols * L;
          const int64_t ih = r0 * f.sh + r - f.top;
          if (ih < 0 || ih >= f.h) {
            std::fill(prow, prow + cols * L, 0);
            continue;
          }
          fill(ih);
          d::pair_row(prow, row16, cols, f.dw);
        }
        const auto run = [&]<int KH, int KWP, int SW, int DW>() {
          d::pair_sums<KH, KWP, SW, DW>(in, wp, f.kh, kwp, orows, f.ow, cols, f.sh, f.sw, f.dh, f.dw, out);
        };
        const bool unit = f.dw == 1 && (f.sw == 1 || f.sw == 2);
        if (unit && f.kh == 3 && kwp == 2 && f.sw == 1) run.template operator()<3, 2, 1, 1>();
        else if (unit && f.kh == 3 && kwp == 2) run.template operator()<3, 2, 2, 1>();
        else if (unit && f.kh == 5 && kwp == 3 && f.sw == 1) run.template operator()<5, 3, 1, 1>();
        else if (unit && f.kh == 5 && kwp == 3) run.template operator()<5, 3, 2, 1>();
        else run.template operator()<0, 0, 0, 0>();
        emit_strip<kBytes, true>(a.q, reinterpret_cast<float*>(out), orows * f.ow, r0 * f.ow, vb, finish);
      }
    });
  });
}
#else
constexpr void (*depthwise_blocked_pairs)(const DepthwisePairsBlocked&) = nullptr;
#endif
