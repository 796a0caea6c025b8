// The Winograd F(4x4, 3x3) transforms of one SIMD level: the body of winograd_avx512.cpp,
// winograd_avx2.cpp and winograd_sse2.cpp (interface and matrices: kernels/simd/winograd.hpp;
// inclusion rules: kernels/simd/ew_vec.inl).
//
// Lanes are consecutive tiles of a tile row. The input transform first splits each padded
// input row by column phase (column 4·j + u, u < 4, goes to split row u at position j; the
// patch's columns 4 and 5 of tile j are columns 0 and 1 of tile j + 1), so that entry (r, s)
// of the patches of tiles j .. j + lanes - 1 is one unit-stride load; the output transform
// interleaves its four columns back the same way.
#pragma once

#include <algorithm>

#include "kernels/simd/ew_vec.inl"
#include "kernels/simd/winograd.hpp"

namespace mlvm::simd::MLVM_SIMD_NS {
namespace {

using VF = V<float>;

// t = Bᵀ d for one column of six.
inline void input_1d(const VF (&d)[6], VF (&t)[6]) {
  const VF four(4.f), five(5.f), two(2.f);
  t[0] = xsimd::fma(four, d[0], d[4]) - five * d[2];
  const VF a = d[4] - four * d[2], b = d[3] - four * d[1];
  t[1] = a + b;
  t[2] = a - b;
  const VF c = d[4] - d[2], e = two * (d[3] - d[1]);
  t[3] = c + e;
  t[4] = c - e;
  t[5] = xsimd::fma(four, d[1], d[5]) - five * d[3];
}

// y = Aᵀ m for one column of six.
inline void output_1d(const VF (&m)[6], VF (&y)[4]) {
  const VF two(2.f), four(4.f), eight(8.f);
  const VF s12 = m[1] + m[2], d12 = m[1] - m[2], s34 = m[3] + m[4], d34 = m[3] - m[4];
  y[0] = m[0] + s12 + s34;
  y[1] = xsimd::fma(two, d34, d12);
  y[2] = xsimd::fma(four, s34, s12);
  y[3] = xsimd::fma(eight, d34, d12) + m[5];
}

// out[4·l + s] = y[s] lane l, for l < W: the 4 x W transpose of one output row of W tiles.
inline void store_interleaved(const VF (&y)[4], float* out) {
#if MLVM_SIMD_BYTES == 32
  const __m256 t0 = _mm256_unpacklo_ps(y[0].data, y[1].data), t1 = _mm256_unpackhi_ps(y[0].data, y[1].data);
  const __m256 t2 = _mm256_unpacklo_ps(y[2].data, y[3].data), t3 = _mm256_unpackhi_ps(y[2].data, y[3].data);
  const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);  // tiles 0|4, 1|5
  const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);  // tiles 2|6, 3|7
  _mm256_storeu_ps(out, _mm256_permute2f128_ps(u0, u1, 0x20));
  _mm256_storeu_ps(out + 8, _mm256_permute2f128_ps(u2, u3, 0x20));
  _mm256_storeu_ps(out + 16, _mm256_permute2f128_ps(u0, u1, 0x31));
  _mm256_storeu_ps(out + 24, _mm256_permute2f128_ps(u2, u3, 0x31));
#elif MLVM_SIMD_BYTES == 16
  __m128 r0 = y[0].data, r1 = y[1].data, r2 = y[2].data, r3 = y[3].data;
  _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
  _mm_storeu_ps(out, r0);
  _mm_storeu_ps(out + 4, r1);
  _mm_storeu_ps(out + 8, r2);
  _mm_storeu_ps(out + 12, r3);
#else
  constexpr int64_t W = kLanes<float>;
  alignas(64) float lanes[4][W];
  for (int s = 0; s < 4; ++s) y[s].store_aligned(lanes[s]);
  for (int64_t l = 0; l < W; ++l)
    for (int s = 0; s < 4; ++s) out[4 * l + s] = lanes[s][l];
#endif
}

// p[u][l] = in[4·l + u] for u < 4, l < W: the inverse of store_interleaved.
inline void load_deinterleaved(const float* in, float* p0, float* p1, float* p2, float* p3) {
#if MLVM_SIMD_BYTES == 32
  const __m256 r0 = _mm256_loadu_ps(in), r1 = _mm256_loadu_ps(in + 8);
  const __m256 r2 = _mm256_loadu_ps(in + 16), r3 = _mm256_loadu_ps(in + 24);
  const __m256 a = _mm256_permute2f128_ps(r0, r2, 0x20), c = _mm256_permute2f128_ps(r0, r2, 0x31);  // tiles 0|4, 1|5
  const __m256 b = _mm256_permute2f128_ps(r1, r3, 0x20), d = _mm256_permute2f128_ps(r1, r3, 0x31);  // tiles 2|6, 3|7
  const __m256 t0 = _mm256_unpacklo_ps(a, c), t1 = _mm256_unpackhi_ps(a, c);
  const __m256 t2 = _mm256_unpacklo_ps(b, d), t3 = _mm256_unpackhi_ps(b, d);
  _mm256_storeu_ps(p0, _mm256_shuffle_ps(t0, t2, 0x44));
  _mm256_storeu_ps(p1, _mm256_shuffle_ps(t0, t2, 0xEE));
  _mm256_storeu_ps(p2, _mm256_shuffle_ps(t1, t3, 0x44));
  _mm256_storeu_ps(p3, _mm256_shuffle_ps(t1, t3, 0xEE));
#elif MLVM_SIMD_BYTES == 16
  __m128 r0 = _mm_loadu_ps(in), r1 = _mm_loadu_ps(in + 4), r2 = _mm_loadu_ps(in + 8), r3 = _mm_loadu_ps(in + 12);
  _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
  _mm_storeu_ps(p0, r0);
  _mm_storeu_ps(p1, r1);
  _mm_storeu_ps(p2, r2);
  _mm_storeu_ps(p3, r3);
#else
  for (int64_t l = 0; l < kLanes<float>; ++l) {
    p0[l] = in[4 * l];
    p1[l] = in[4 * l + 1];
    p2[l] = in[4 * l + 2];
    p3[l] = in[4 * l + 3];
  }
#endif
}

void winograd_input(const WinogradInput& a) {
  constexpr int64_t W = kLanes<float>;
  const int64_t cols = winograd_tile_cols(a.tw), rows = 4 * a.th + 2;
  const int64_t sc = cols + kWinogradSlack;  // one phase of a split row
  float* split = a.work;                     // [rows][4][sc]
  float* prow = a.work + rows * 4 * sc;      // one padded input row
  const int64_t plen = 4 * sc;
  for (int64_t r = 0; r < rows; ++r) {
    float* q = split + r * 4 * sc;
    const int64_t ih = r - a.top;
    if (ih < 0 || ih >= a.h) {
      std::fill(q, q + 4 * sc, 0.f);
      continue;
    }
    const float* xr = a.x + ih * a.w;
    const int64_t c0 = std::min(a.left, plen), c1 = std::min(a.left + a.w, plen);
    std::fill(prow, prow + c0, 0.f);
    std::copy(xr, xr + (c1 - c0), prow + c0);
    std::fill(prow + c1, prow + plen, 0.f);
    // Positions 0 .. cols: the tiles, and one more for columns 4 and 5 of the last (below).
    for (int64_t j = 0; j <= cols; j += W) load_deinterleaved(prow + 4 * j, q + j, q + sc + j, q + 2 * sc + j, q + 3 * sc + j);
  }
  for (int64_t ti = 0; ti < a.th; ++ti) {
    const float* base = split + 4 * ti * 4 * sc;  // split rows of input rows 4·ti .. 4·ti + 5
    float* vt = a.v + ti * a.tw;
    for (int64_t j = 0; j < a.tw; j += W) {
      VF t[6][6];  // t[r][s]: (Bᵀ d)[r] at column s
      for (int s = 0; s < 6; ++s) {
        // Columns 4 and 5 of tile j are columns 0 and 1 of tile j + 1.
        const float* col0 = base + (s & 3) * sc + j + (s >> 2);
        VF d[6], col[6];
        for (int r = 0; r < 6; ++r) d[r] = load(col0 + r * 4 * sc);
        input_1d(d, col);
        for (int r = 0; r < 6; ++r) t[r][s] = col[r];
      }
      for (int r = 0; r < 6; ++r) {
        VF out[6];
        input_1d(t[r], out);
        for (int s = 0; s < 6; ++s) store(vt + (6 * r + s) * a.v_stride + j, out[s]);
      }
    }
  }
}

void winograd_output(const WinogradOutput& a) {
  constexpr int64_t W = kLanes<float>;
  const int64_t cols = winograd_tile_cols(a.tw);
  float* stage = a.work;  // [4][4·cols]: four output rows of the tile row
  float* tmp = a.work + 16 * cols;  // [16][W]: one register of each output position
  const VF vb(a.bias), vlo(a.lo), vhi(a.hi);
  for (int64_t ti = 0; ti < a.th; ++ti) {
    const float* mt = a.m + ti * a.tw;
    for (int64_t j = 0; j < a.tw; j += W) {
      VF t[4][6];  // t[r][s]: (Aᵀ m)[r] at column s
      for (int s = 0; s < 6; ++s) {
        VF m[6], col[4];
        for (int r = 0; r < 6; ++r) m[r] = load(mt + (6 * r + s) * a.m_stride + j);
        output_1d(m, col);
        for (int r = 0; r < 4; ++r) t[r][s] = col[r];
      }
      // All W tiles wholly inside the plane's columns: each output row's 4·W values are the
      // four column registers interleaved, stored straight to y (rows past oh are skipped).
      const bool whole = 4 * (j + W) <= a.ow;
      for (int r = 0; r < 4; ++r) {
        VF y[4];
        output_1d(t[r], y);
        for (int s = 0; s < 4; ++s) {
          const VF v = y[s] + vb;
          y[s] = xsimd::select(v < vlo, vlo, xsimd::select(v > vhi, vhi, v));
        }
        if (whole) {
          if (4 * ti + r < a.oh) store_interleaved(y, a.y + (4 * ti + r) * a.ow + 4 * j);
          continue;
        }
        for (int s = 0; s < 4; ++s) store(tmp + (4 * r + s) * W, y[s]);
      }
      if (whole) continue;
      for (int r = 0; r < 4; ++r) {
        float* st = stage + r * 4 * cols + 4 * j;
        const float* tr = tmp + 4 * r * W;
        for (int64_t l = 0; l < W; ++l) {
          st[4 * l] = tr[l];
          st[4 * l + 1] = tr[W + l];
          st[4 * l + 2] = tr[2 * W + l];
          st[4 * l + 3] = tr[3 * W + l];
        }
      }
    }
    // The columns of the tiles that were staged (those from the first not wholly inside).
    const int64_t first = std::min(a.tw, a.ow / (4 * W) * W);
    for (int64_t r = 0; r < 4 && 4 * ti + r < a.oh && 4 * first < a.ow; ++r)
      std::copy(stage + r * 4 * cols + 4 * first, stage + r * 4 * cols + a.ow, a.y + (4 * ti + r) * a.ow + 4 * first);
  }
}

}  // namespace

const WinogradTable& winograd_table() {
  static_assert(kLanes<float> <= kWinogradSlack, "the slack must cover one register");
  static const WinogradTable table{winograd_input, winograd_output};
  return table;
}

}  // namespace mlvm::simd::MLVM_SIMD_NS
