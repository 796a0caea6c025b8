// The exact integer Winograd transforms of one SIMD level (interface, matrices and why they
// are exact: kernels/simd/winograd_int.hpp), included after winograd_impl.inl by
// winograd_{avx512,avx2,sse2}.cpp, whose float transforms these follow: lanes are consecutive
// tiles of a tile row, the input rows split by column phase first.
#pragma once

#include <algorithm>

#include "kernels/simd/ew_vec.inl"
#include "kernels/simd/winograd_int.hpp"

namespace mlvm::simd::MLVM_SIMD_NS {
namespace {

using VS = V<int16_t>;
using VI = V<int32_t>;
using VU = V<uint32_t>;

// Multiples by additions, which every level has for both widths.
template <class R>
inline R twice(const R& x) {
  return x + x;
}
template <class R>
inline R four_times(const R& x) {
  return twice(twice(x));
}

// Bᵀ d over a column of the patch, as input_1d (winograd_impl.inl). Every value is exact in
// i16: |d| <= 128 gives at most 10 · 128 after one pass and 100 · 128 after both (and a sum
// wrapping on the way still ends exact, all of it being arithmetic modulo 2^16).
template <int M>
inline void input_1d_int(const VS (&d)[M + 2], VS (&t)[M + 2]) {
  if constexpr (M == 4) {
    t[0] = four_times(d[0] - d[2]) - d[2] + d[4];
    const VS a = d[4] - four_times(d[2]), b = d[3] - four_times(d[1]);
    t[1] = a + b;
    t[2] = a - b;
    const VS c = d[4] - d[2], e = twice(d[3] - d[1]);
    t[3] = c + e;
    t[4] = c - e;
    t[5] = four_times(d[1] - d[3]) - d[3] + d[5];
  } else {
    t[0] = d[0] - d[2];
    t[1] = d[1] + d[2];
    t[2] = d[2] - d[1];
    t[3] = d[1] - d[3];
  }
}

// A'ᵀ m over a column of N giving M: A'ᵀ = Aᵀ diag(L / s), rows (6, 4, 4, 1, 1, 0),
// (0, 4, -4, 2, -2, 0), (0, 4, 4, 4, 4, 0), (0, 4, -4, 8, -8, 24) for F(4x4), (2, 1, 1, 0),
// (0, 1, -1, -2) for F(2x2).
template <int M>
inline void output_1d_int(const VI (&m)[M + 2], VI (&y)[M]) {
  if constexpr (M == 4) {
    const VI s12 = m[1] + m[2], d12 = m[1] - m[2], s34 = m[3] + m[4], d34 = m[3] - m[4];
    const VI d12x4 = four_times(d12);
    y[0] = four_times(m[0]) + twice(m[0]) + four_times(s12) + s34;
    y[1] = d12x4 + twice(d34);
    y[2] = four_times(s12 + s34);
    const VI m5x8 = four_times(twice(m[5]));
    y[3] = d12x4 + four_times(twice(d34)) + m5x8 + twice(m5x8);
  } else {
    y[0] = twice(m[0]) + m[1] + m[2];
    y[1] = m[1] - m[2] - twice(m[3]);
  }
}

// Y from L² Y modulo 2^32 (winograd_int.hpp): 576 = 2^6 · 9, and 0x38E38E39 · 9 = 1 modulo
// 2^32, so the product is 2^6 · Y; 4 = 2^2.
template <int M>
inline VI divided_out(const VI& x) {
  if constexpr (M == 4) {
    // The product in u32 lanes: wrapping by definition (SSE2's generic multiply is per lane in
    // C++, where a signed product past i32 is undefined); then an arithmetic shift.
    const VU scaled = xsimd::bitwise_cast<VU>(x) * VU(0x38E38E39u);  // 2^6 · Y modulo 2^32
    return xsimd::bitwise_cast<VI>(scaled) >> 6;
  } else {
    return x >> 2;
  }
}

#if MLVM_SIMD_BYTES >= 32
// Phases 0 .. M - 1 of 16 consecutive tiles from the padded i8 row at p (columns M·j + u of
// tiles j = 0 .. 15), widened to i16 at q + u·sc: byte shuffles group each load's phases, a
// transpose of their 4-byte (8-byte) groups gathers a phase's 16 bytes.
template <int M>
inline void split_16(const int8_t* p, int16_t* q, int64_t sc) {
  auto load16 = [&](int k) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k)); };
  auto store_phase = [&](int u, __m128i bytes) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + u * sc), _mm256_cvtepi8_epi16(bytes));
  };
  if constexpr (M == 4) {
    const __m128i by_phase = _mm_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    const __m128i r0 = _mm_shuffle_epi8(load16(0), by_phase), r1 = _mm_shuffle_epi8(load16(1), by_phase);
    const __m128i r2 = _mm_shuffle_epi8(load16(2), by_phase), r3 = _mm_shuffle_epi8(load16(3), by_phase);
    const __m128i t0 = _mm_unpacklo_epi32(r0, r1), t1 = _mm_unpackhi_epi32(r0, r1);
    const __m128i t2 = _mm_unpacklo_epi32(r2, r3), t3 = _mm_unpackhi_epi32(r2, r3);
    store_phase(0, _mm_unpacklo_epi64(t0, t2));
    store_phase(1, _mm_unpackhi_epi64(t0, t2));
    store_phase(2, _mm_unpacklo_epi64(t1, t3));
    store_phase(3, _mm_unpackhi_epi64(t1, t3));
  } else {
    const __m128i by_phase = _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
    const __m128i r0 = _mm_shuffle_epi8(load16(0), by_phase), r1 = _mm_shuffle_epi8(load16(1), by_phase);
    store_phase(0, _mm_unpacklo_epi64(r0, r1));
    store_phase(1, _mm_unpackhi_epi64(r0, r1));
  }
}
#endif

// The padded input rows of one channel split by column phase as i16 (split_rows in
// winograd_impl.inl): split row R, phase u, position j < sc is padded input column M·j + u
// (sc a multiple of 16).
template <int M>
void split_rows_int(const WinogradInputI8& a, int16_t* split, int64_t rows, int64_t sc) {
  int16_t* prow = split + rows * M * sc;  // one padded input row (as i8 where split_16 runs)
  const int64_t plen = M * sc;
  const int64_t c0 = std::min(a.left, plen), c1 = std::min(a.left + a.w, plen);
  for (int64_t r = 0; r < rows; ++r) {
    int16_t* q = split + r * M * sc;
    const int64_t ih = r - a.top;
    if (ih < 0 || ih >= a.h) {
      std::fill(q, q + M * sc, int16_t(0));
      continue;
    }
    const int8_t* xr = a.x + ih * a.w;  // padded column c is xr[c - left]
#if MLVM_SIMD_BYTES >= 32
    // Straight from the row where 16 tiles' columns lie inside it; through a zero-padded copy
    // at its ends (only there: loads of what was just stored in other widths wait for the
    // stores, which cost as much as the split itself).
    int8_t* p8 = reinterpret_cast<int8_t*>(prow);
    std::fill(p8, p8 + c0, int8_t(0));
    std::copy(xr, xr + (c1 - c0), p8 + c0);
    std::fill(p8 + c1, p8 + plen, int8_t(0));
    for (int64_t j = 0; j < sc; j += 16) {
      const int64_t first = M * j - a.left;  // the row's column at tile j's column 0
      split_16<M>(first >= 0 && first + 16 * M <= a.w ? xr + first : p8 + M * j, q + j, sc);
    }
#else
    std::fill(prow, prow + c0, int16_t(0));
    for (int64_t c = c0; c < c1; ++c) prow[c] = xr[c - a.left];
    std::fill(prow + c1, prow + plen, int16_t(0));
    if constexpr (M == 4) {
      int16_t *q0 = q, *q1 = q + sc, *q2 = q + 2 * sc, *q3 = q + 3 * sc;
      for (int64_t j = 0; j < sc; ++j) {
        q0[j] = prow[4 * j];
        q1[j] = prow[4 * j + 1];
        q2[j] = prow[4 * j + 2];
        q3[j] = prow[4 * j + 3];
      }
    } else {
      int16_t *q0 = q, *q1 = q + sc;
      for (int64_t j = 0; j < sc; ++j) {
        q0[j] = prow[2 * j];
        q1[j] = prow[2 * j + 1];
      }
    }
#endif
  }
}

template <int M>
void winograd_input_int(const WinogradInputI8& a) {
  constexpr int N = M + 2;
  constexpr int64_t W = kLanes<int16_t>;
  // A split row's phases hold the positions the registers of tiles read: up to one past
  // their last tile.
  const int64_t sc = ((a.tw + W - 1) / W * W + 1 + 15) / 16 * 16, srow = M * sc;
  split_rows_int<M>(a, a.work, M * a.th + 2, sc);
  for (int64_t ti = 0; ti < a.th; ++ti) {
    const int16_t* base = a.work + M * ti * srow;
    for (int64_t j = 0; j < a.tw; j += W) {
      VS t[N][N];  // t[r][s]: (Bᵀ d)[r] at column s
      for (int s = 0; s < N; ++s) {
        VS d[N], col[N];
        // Columns M and M + 1 of tile j are columns 0 and 1 of tile j + 1.
        for (int r = 0; r < N; ++r) d[r] = load(base + r * srow + (s % M) * sc + j + s / M);
        input_1d_int<M>(d, col);
        for (int r = 0; r < N; ++r) t[r][s] = col[r];
      }
      int16_t* out = a.v + ti * a.tw + j;
      for (int r = 0; r < N; ++r) {
        VS o[N];
        input_1d_int<M>(t[r], o);
        for (int s = 0; s < N; ++s) store(out + (N * r + s) * a.v_stride, o[s]);
      }
    }
  }
}

template <int M>
void winograd_output_int(const WinogradOutputI32& a) {
  constexpr int N = M + 2;
  constexpr int64_t W = kLanes<int32_t>;
  alignas(64) int32_t row[M * W];  // one output row of a register of tiles, when cut short
  const VI vb(a.bias);
  for (int64_t ti = 0; ti < a.th; ++ti) {
    const int32_t* mt = a.m + ti * a.tw;
    const int64_t rows = std::min<int64_t>(M, a.oh - M * ti);
    for (int64_t j = 0; j < a.tw; j += W) {
      VI t[M][N];  // t[r][s]: (A'ᵀ m)[r] at column s
      for (int s = 0; s < N; ++s) {
        VI in[N], col[M];
        for (int r = 0; r < N; ++r) in[r] = load(mt + j + (N * r + s) * a.m_stride);
        output_1d_int<M>(in, col);
        for (int r = 0; r < M; ++r) t[r][s] = col[r];
      }
      // Each output row's values are the M column registers interleaved (store_interleaved,
      // on the same bits as floats): straight into y when all W tiles lie inside the plane's
      // columns, else through `row`, of which the columns inside are copied.
      const int64_t inside = std::clamp<int64_t>(a.ow - M * j, 0, M * W);
      for (int r = 0; r < rows; ++r) {
        VI y[M];
        output_1d_int<M>(t[r], y);
        VF f[M];
        for (int s = 0; s < M; ++s) f[s] = xsimd::bitwise_cast<VF>(divided_out<M>(y[s]) + vb);
        int32_t* yr = a.y + (M * ti + r) * a.ow + M * j;
        if (inside == M * W) {
          store_interleaved<M>(f, reinterpret_cast<float*>(yr));
        } else if (inside > 0) {
          store_interleaved<M>(f, reinterpret_cast<float*>(row));
#if MLVM_SIMD_BYTES == 16
          std::copy(row, row + inside, yr);
#else
          // Register by register, the last masked: GCC made the copy a memcpy call (rep movs)
          // per row, which a 56-wide plane's every other register of tiles (6 of 8) took.
          auto* yf = reinterpret_cast<float*>(yr);
          const auto* rf = reinterpret_cast<const float*>(row);
          for (int64_t c = 0; c < inside; c += W) {
            if (inside - c >= W) store(yf + c, load(rf + c));
            else masked_store(lanes_between(0, inside - c), yf + c, load(rf + c));
          }
#endif
        }
      }
    }
  }
}

void int_input_any(const WinogradInputI8& a) {
  if (a.m == 2) winograd_input_int<2>(a);
  else winograd_input_int<4>(a);
}
void int_output_any(const WinogradOutputI32& a) {
  if (a.tile == 2) winograd_output_int<2>(a);
  else winograd_output_int<4>(a);
}

}  // namespace

const WinogradIntTable& winograd_int_table() {
  static_assert(kLanes<int16_t> <= kWinogradIntSlack, "the slack must cover one register");
  static const WinogradIntTable table{int_input_any, int_output_any};
  return table;
}

}  // namespace mlvm::simd::MLVM_SIMD_NS
