// The Winograd F(4x4, 3x3) and F(2x2, 3x3) transforms of one SIMD level: the body of winograd_avx512.cpp,
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

// The 1-D transforms of F(M x M, 3x3), patch N = M + 2. Input t = Bᵀ d over a column of N,
// output y = Aᵀ m over a column of N giving M.
template <int M>
inline void input_1d(const VF (&d)[M + 2], VF (&t)[M + 2]) {
  if constexpr (M == 4) {
    const VF four(4.f), five(5.f), two(2.f);
    t[0] = fused_mul_add(four, d[0], d[4]) - five * d[2];
    const VF a = d[4] - four * d[2], b = d[3] - four * d[1];
    t[1] = a + b;
    t[2] = a - b;
    const VF c = d[4] - d[2], e = two * (d[3] - d[1]);
    t[3] = c + e;
    t[4] = c - e;
    t[5] = fused_mul_add(four, d[1], d[5]) - five * d[3];
  } else {
    t[0] = d[0] - d[2];
    t[1] = d[1] + d[2];
    t[2] = d[2] - d[1];
    t[3] = d[1] - d[3];
  }
}

template <int M>
inline void output_1d(const VF (&m)[M + 2], VF (&y)[M]) {
  if constexpr (M == 4) {
    const VF two(2.f), four(4.f), eight(8.f);
    const VF s12 = m[1] + m[2], d12 = m[1] - m[2], s34 = m[3] + m[4], d34 = m[3] - m[4];
    y[0] = m[0] + s12 + s34;
    y[1] = fused_mul_add(two, d34, d12);
    y[2] = fused_mul_add(four, s34, s12);
    y[3] = fused_mul_add(eight, d34, d12) + m[5];
  } else {
    y[0] = m[0] + m[1] + m[2];
    y[1] = m[1] - m[2] - m[3];
  }
}

// out[M·l + s] = y[s] lane l, for l < W: the M x W transpose of one output row of W tiles.
#if MLVM_SIMD_BYTES == 64
// Lanes 0-7 (lo) or 8-15 (hi) of a and b interleaved: a0 b0 a1 b1 ... (across the whole
// register, unlike unpacklo/hi's 128-bit blocks).
inline __m512 zip_lo(__m512 a, __m512 b) {
  return _mm512_permutex2var_ps(a, _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23), b);
}
inline __m512 zip_hi(__m512 a, __m512 b) {
  return _mm512_permutex2var_ps(a, _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31), b);
}
#endif

template <int M>
inline void store_interleaved(const VF (&y)[M], float* out) {
#if MLVM_SIMD_BYTES == 64
  // (Through memory these were 16·M scalar moves a register: the transforms' plain loops at
  // AVX-512 spent more on them than on the arithmetic.)
  if constexpr (M == 4) {
    const __m512 e0 = zip_lo(y[0].data, y[2].data), e1 = zip_hi(y[0].data, y[2].data);  // y0 y2 pairs
    const __m512 o0 = zip_lo(y[1].data, y[3].data), o1 = zip_hi(y[1].data, y[3].data);  // y1 y3 pairs
    _mm512_storeu_ps(out, zip_lo(e0, o0));
    _mm512_storeu_ps(out + 16, zip_hi(e0, o0));
    _mm512_storeu_ps(out + 32, zip_lo(e1, o1));
    _mm512_storeu_ps(out + 48, zip_hi(e1, o1));
  } else {
    _mm512_storeu_ps(out, zip_lo(y[0].data, y[1].data));
    _mm512_storeu_ps(out + 16, zip_hi(y[0].data, y[1].data));
  }
  return;
#elif MLVM_SIMD_BYTES == 32
  if constexpr (M == 4) {
    const __m256 t0 = _mm256_unpacklo_ps(y[0].data, y[1].data), t1 = _mm256_unpackhi_ps(y[0].data, y[1].data);
    const __m256 t2 = _mm256_unpacklo_ps(y[2].data, y[3].data), t3 = _mm256_unpackhi_ps(y[2].data, y[3].data);
    const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);  // tiles 0|4, 1|5
    const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);  // tiles 2|6, 3|7
    _mm256_storeu_ps(out, _mm256_permute2f128_ps(u0, u1, 0x20));
    _mm256_storeu_ps(out + 8, _mm256_permute2f128_ps(u2, u3, 0x20));
    _mm256_storeu_ps(out + 16, _mm256_permute2f128_ps(u0, u1, 0x31));
    _mm256_storeu_ps(out + 24, _mm256_permute2f128_ps(u2, u3, 0x31));
    return;
  } else {
    const __m256 lo = _mm256_unpacklo_ps(y[0].data, y[1].data), hi = _mm256_unpackhi_ps(y[0].data, y[1].data);
    _mm256_storeu_ps(out, _mm256_permute2f128_ps(lo, hi, 0x20));  // tiles 0 1 2 3
    _mm256_storeu_ps(out + 8, _mm256_permute2f128_ps(lo, hi, 0x31));
    return;
  }
#elif MLVM_SIMD_BYTES == 16
  if constexpr (M == 4) {
    __m128 r0 = y[0].data, r1 = y[1].data, r2 = y[2].data, r3 = y[3].data;
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    _mm_storeu_ps(out, r0);
    _mm_storeu_ps(out + 4, r1);
    _mm_storeu_ps(out + 8, r2);
    _mm_storeu_ps(out + 12, r3);
    return;
  } else {
    _mm_storeu_ps(out, _mm_unpacklo_ps(y[0].data, y[1].data));
    _mm_storeu_ps(out + 4, _mm_unpackhi_ps(y[0].data, y[1].data));
    return;
  }
#endif
  constexpr int64_t W = kLanes<float>;
  alignas(64) float lanes[M][W];
  for (int s = 0; s < M; ++s) y[s].store_aligned(lanes[s]);
  for (int64_t l = 0; l < W; ++l)
    for (int s = 0; s < M; ++s) out[M * l + s] = lanes[s][l];
}

// p[u][l] = in[M·l + u] for u < M, l < W (p[u] at p + u·stride), where in[q·W + i] is lane i
// of ld(q), q < M: the inverse of store_interleaved.
template <int M, class Load>
inline void load_deinterleaved(const Load& ld, float* p, int64_t stride) {
  if constexpr (M == 2) {
    VF e, o;
    deinterleave(ld(0), ld(1), e, o);
    store(p, e);
    store(p + stride, o);
    return;
  }
#if MLVM_SIMD_BYTES == 64
  VF e01, o01, e23, o23, q[4];
  deinterleave(ld(0), ld(1), e01, o01);
  deinterleave(ld(2), ld(3), e23, o23);
  deinterleave(e01, e23, q[0], q[2]);  // in[4l], in[4l + 2]
  deinterleave(o01, o23, q[1], q[3]);  // in[4l + 1], in[4l + 3]
  for (int u = 0; u < 4; ++u) store(p + u * stride, q[u]);
#elif MLVM_SIMD_BYTES == 32
  const __m256 r0 = ld(0).data, r1 = ld(1).data, r2 = ld(2).data, r3 = ld(3).data;
  const __m256 a = _mm256_permute2f128_ps(r0, r2, 0x20), c = _mm256_permute2f128_ps(r0, r2, 0x31);  // tiles 0|4, 1|5
  const __m256 b = _mm256_permute2f128_ps(r1, r3, 0x20), d = _mm256_permute2f128_ps(r1, r3, 0x31);  // tiles 2|6, 3|7
  const __m256 t0 = _mm256_unpacklo_ps(a, c), t1 = _mm256_unpackhi_ps(a, c);
  const __m256 t2 = _mm256_unpacklo_ps(b, d), t3 = _mm256_unpackhi_ps(b, d);
  _mm256_storeu_ps(p, _mm256_shuffle_ps(t0, t2, 0x44));
  _mm256_storeu_ps(p + stride, _mm256_shuffle_ps(t0, t2, 0xEE));
  _mm256_storeu_ps(p + 2 * stride, _mm256_shuffle_ps(t1, t3, 0x44));
  _mm256_storeu_ps(p + 3 * stride, _mm256_shuffle_ps(t1, t3, 0xEE));
#else
  __m128 r0 = ld(0).data, r1 = ld(1).data, r2 = ld(2).data, r3 = ld(3).data;
  _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
  _mm_storeu_ps(p, r0);
  _mm_storeu_ps(p + stride, r1);
  _mm_storeu_ps(p + 2 * stride, r2);
  _mm_storeu_ps(p + 3 * stride, r3);
#endif
}

// The padded input rows of one channel split by column phase: split row R, phase u,
// position j is padded input column M·j + u of padded row R ([rows][M][sc] at `split`).
template <int M>
void split_rows(const WinogradInput& a, float* split, int64_t rows, int64_t cols, int64_t sc) {
  constexpr int64_t W = kLanes<float>;
  for (int64_t r = 0; r < rows; ++r) {
    float* q = split + r * M * sc;
    const int64_t ih = r - a.top;
    if (ih < 0 || ih >= a.h) {
      std::fill(q, q + M * sc, 0.f);
      continue;
    }
    const float* xr = a.x + ih * a.w;
    // Positions 0 .. cols: the tiles, and one more for the last one's columns M and M + 1.
#if MLVM_SIMD_BYTES != 16
    // Masked loads straight from the row, the columns outside it read as zeros. Through a
    // zero-padded copy of the row, the loads waited for the copy's stores (a stall on every
    // register) and the input transform took a fifth of ResNet's 28 x 28 convolutions.
    for (int64_t j = 0; j <= cols; j += W) {
      const int64_t c0 = M * j - a.left;
      load_deinterleaved<M>(
          [&](int k) {
            const int64_t c = c0 + k * W;
            return VF(masked_load(lanes_between(-c, a.w - c), xr + c));
          },
          q + j, sc);
    }
#else
    float* prow = split + rows * M * sc;  // one padded input row
    const int64_t plen = M * sc;
    const int64_t c0 = std::min(a.left, plen), c1 = std::min(a.left + a.w, plen);
    std::fill(prow, prow + c0, 0.f);
    std::copy(xr, xr + (c1 - c0), prow + c0);
    std::fill(prow + c1, prow + plen, 0.f);
    for (int64_t j = 0; j <= cols; j += W)
      load_deinterleaved<M>([&](int k) { return load(prow + M * j + k * W); }, q + j, sc);
#endif
  }
}

// V of a register of tiles, Bᵀ d B, stored at out + ξ·stride: d[r][s] (row r, column s of
// each lane's patch) is ld(r, s).
template <int M, class Load>
inline void transform_tiles(const Load& ld, float* out, int64_t stride) {
  constexpr int N = M + 2;
  VF t[N][N];  // t[r][s]: (Bᵀ d)[r] at column s
  for (int s = 0; s < N; ++s) {
    VF d[N], col[N];
    for (int r = 0; r < N; ++r) d[r] = ld(r, s);
    input_1d<M>(d, col);
    for (int r = 0; r < N; ++r) t[r][s] = col[r];
  }
  for (int r = 0; r < N; ++r) {
    VF o[N];
    input_1d<M>(t[r], o);
    for (int s = 0; s < N; ++s) store(out + (N * r + s) * stride, o[s]);
  }
}

template <int M>
void winograd_input(const WinogradInput& a) {
  constexpr int64_t W = kLanes<float>;
  const int64_t cols = winograd_tile_cols(a.tw), rows = M * a.th + 2;
  const int64_t sc = cols + kWinogradSlack;  // one phase of a split row
  const int64_t srow = M * sc;               // one split row
  float* split = a.work;
  split_rows<M>(a, split, rows, cols, sc);
  for (int64_t ti = 0; ti < a.th; ++ti) {
    const float* base = split + M * ti * srow;  // split rows of input rows M·ti .. M·ti + M + 1
    for (int64_t j = 0; j < a.tw; j += W)
      // Columns M and M + 1 of tile j are columns 0 and 1 of tile j + 1.
      transform_tiles<M>([&](int r, int s) { return load(base + r * srow + (s % M) * sc + j + s / M); },
                         a.v + ti * a.tw + j, a.v_stride);
  }
}

// The M x M outputs of a register of tiles, Aᵀ m A + bias clamped to [lo, hi]: y[r][s] is
// output row r, column s of each lane's tile, whose M value for position ξ is at
// m + ξ·m_stride.
template <int M>
inline void tile_outputs(const float* m, int64_t m_stride, const VF& vb, const VF& vlo, const VF& vhi,
                         VF (&y)[M][M]) {
  constexpr int N = M + 2;
  VF t[M][N];  // t[r][s]: (Aᵀ m)[r] at column s
  for (int s = 0; s < N; ++s) {
    VF col_in[N], col[M];
    for (int r = 0; r < N; ++r) col_in[r] = load(m + (N * r + s) * m_stride);
    output_1d<M>(col_in, col);
    for (int r = 0; r < M; ++r) t[r][s] = col[r];
  }
  for (int r = 0; r < M; ++r) {
    output_1d<M>(t[r], y[r]);
    for (int s = 0; s < M; ++s) {
      const VF v = y[r][s] + vb;
      y[r][s] = clip_lanes(v, vlo, vhi);
    }
  }
}

template <int M>
void winograd_output(const WinogradOutput& a) {
  constexpr int64_t W = kLanes<float>;
  const int64_t cols = winograd_tile_cols(a.tw);
  float* stage = a.work;                // [M][M·cols]: the M output rows of a tile row
  float* tmp = a.work + M * M * cols;   // [M·M][W]: one register of each output position
  const VF vb(a.bias), vlo(a.lo), vhi(a.hi);
  for (int64_t ti = 0; ti < a.th; ++ti) {
    const float* mt = a.m + ti * a.tw;
    for (int64_t j = 0; j < a.tw; j += W) {
      VF ys[M][M];
      tile_outputs<M>(mt + j, a.m_stride, vb, vlo, vhi, ys);
      // All W tiles wholly inside the plane's columns: each output row's M·W values are the
      // M column registers interleaved, stored straight to y (rows past oh are skipped).
      const bool whole = M * (j + W) <= a.ow;
      for (int r = 0; r < M; ++r) {
        const VF (&y)[M] = ys[r];
        if (whole) {
          if (M * ti + r < a.oh) store_interleaved<M>(y, a.y + (M * ti + r) * a.ow + M * j);
          continue;
        }
        for (int s = 0; s < M; ++s) store(tmp + (M * r + s) * W, y[s]);
      }
      if (whole) continue;
      for (int r = 0; r < M; ++r) {
        float* st = stage + r * M * cols + M * j;
        const float* tr = tmp + M * r * W;
        for (int64_t l = 0; l < W; ++l)
          for (int s = 0; s < M; ++s) st[M * l + s] = tr[s * W + l];
      }
    }
    // The columns of the tiles that were staged (those from the first not wholly inside).
    const int64_t first = std::min(a.tw, a.ow / (M * W) * W);
    for (int64_t r = 0; r < M && M * ti + r < a.oh && M * first < a.ow; ++r)
      std::copy(stage + r * M * cols + M * first, stage + r * M * cols + a.ow, a.y + (M * ti + r) * a.ow + M * first);
  }
}

// A plane whose tile rows fill at most half a register (28 x 28 by F(4x4), 13 x 13 and
// 14 x 14 by F(2x2): 7 tiles a row, 7 x 7: 4, at AVX-512's 16 lanes): the tiles in plane
// order, a register of them at a time across tile rows, each lane's outputs then stored at
// its tile's place. By rows, most lanes were empty and every row went through the staging
// copies; with 14 tiles a row (56 x 56) rows stay faster. The same arithmetic per tile, the
// same bits.
template <int M>
void winograd_output_flat(const WinogradOutput& a) {
  constexpr int64_t W = kLanes<float>;
  float* tmp = a.work;  // [M·M][W]: one register of each output position
  const VF vb(a.bias), vlo(a.lo), vhi(a.hi);
  const int64_t tiles = a.th * a.tw;
  for (int64_t t0 = 0; t0 < tiles; t0 += W) {
    VF y[M][M];
    // Lanes past the last tile read the zeroed slack after it (kWinogradSlack).
    tile_outputs<M>(a.m + t0, a.m_stride, vb, vlo, vhi, y);
    for (int r = 0; r < M; ++r)
      for (int s = 0; s < M; ++s) store(tmp + (M * r + s) * W, y[r][s]);
    for (int64_t l = 0; l < std::min(W, tiles - t0); ++l) {
      const int64_t ti = (t0 + l) / a.tw, tj = (t0 + l) % a.tw;
      const int64_t rows = std::min<int64_t>(M, a.oh - M * ti), cols = std::min<int64_t>(M, a.ow - M * tj);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t s = 0; s < cols; ++s) a.y[(M * ti + r) * a.ow + M * tj + s] = tmp[(M * r + s) * W + l];
    }
  }
}

void input_any(const WinogradInput& a) {
  if (a.m == 2) winograd_input<2>(a);
  else winograd_input<4>(a);
}
void output_any(const WinogradOutput& a) {
  const bool flat = 2 * a.tw <= kLanes<float>;  // at most half the lanes used by rows
  if (a.tile == 2) flat ? winograd_output_flat<2>(a) : winograd_output<2>(a);
  else flat ? winograd_output_flat<4>(a) : winograd_output<4>(a);
}

}  // namespace

const WinogradTable& winograd_table() {
  static_assert(kLanes<float> <= kWinogradSlack, "the slack must cover one register");
  static const WinogradTable table{input_any, output_any};
  return table;
}

}  // namespace mlvm::simd::MLVM_SIMD_NS
