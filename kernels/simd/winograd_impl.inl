// The Winograd F(4x4, 3x3) transforms of one SIMD level: the body of winograd_avx512.cpp,
// winograd_avx2.cpp and winograd_sse2.cpp (interface and matrices: kernels/simd/winograd.hpp;
// inclusion rules: kernels/simd/ew_vec.inl).
//
// Lanes are consecutive tiles of a tile row. The input transform first splits each padded
// input row by column phase (column 4·j + u of the row goes to split row u, position j), so
// that entry (r, u) of the patches of tiles j .. j + lanes - 1 is one unit-stride load; the
// output transform interleaves its four columns back the same way.
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

void winograd_input(const WinogradInput& a) {
  constexpr int64_t W = kLanes<float>;
  const int64_t cols = winograd_tile_cols(a.tw), rows = 4 * a.th + 2;
  float* split = a.work;                    // [rows][6][cols]
  float* prow = a.work + rows * 6 * cols;   // one padded input row
  const int64_t plen = 4 * cols + 8;
  for (int64_t r = 0; r < rows; ++r) {
    float* q = split + r * 6 * cols;
    const int64_t ih = r - a.top;
    if (ih < 0 || ih >= a.h) {
      std::fill(q, q + 6 * cols, 0.f);
      continue;
    }
    const float* xr = a.x + ih * a.w;
    const int64_t c0 = std::min(a.left, plen), c1 = std::min(a.left + a.w, plen);
    std::fill(prow, prow + c0, 0.f);
    std::copy(xr, xr + (c1 - c0), prow + c0);
    std::fill(prow + c1, prow + plen, 0.f);
    for (int64_t j = 0; j < cols; ++j) {
      q[j] = prow[4 * j];
      q[cols + j] = prow[4 * j + 1];
      q[2 * cols + j] = prow[4 * j + 2];
      q[3 * cols + j] = prow[4 * j + 3];
      q[4 * cols + j] = prow[4 * j + 4];
      q[5 * cols + j] = prow[4 * j + 5];
    }
  }
  for (int64_t ti = 0; ti < a.th; ++ti) {
    const float* base = split + 4 * ti * 6 * cols;  // split rows of input rows 4·ti .. 4·ti + 5
    float* vt = a.v + ti * a.tw;
    for (int64_t j = 0; j < a.tw; j += W) {
      VF t[6][6];  // t[r][s]: (Bᵀ d)[r] at column s
      for (int s = 0; s < 6; ++s) {
        VF d[6], col[6];
        for (int r = 0; r < 6; ++r) d[r] = load(base + (r * 6 + s) * cols + j);
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
      for (int r = 0; r < 4; ++r) {
        VF y[4];
        output_1d(t[r], y);
        for (int s = 0; s < 4; ++s) {
          const VF v = y[s] + vb;
          store(tmp + (4 * r + s) * W, xsimd::select(v < vlo, vlo, xsimd::select(v > vhi, vhi, v)));
        }
      }
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
    for (int64_t r = 0; r < 4 && 4 * ti + r < a.oh; ++r)
      std::copy(stage + r * 4 * cols, stage + r * 4 * cols + a.ow, a.y + (4 * ti + r) * a.ow);
  }
}

}  // namespace

const WinogradTable& winograd_table() {
  static_assert(kLanes<float> <= kWinogradSlack, "the slack must cover one register");
  static const WinogradTable table{winograd_input, winograd_output};
  return table;
}

}  // namespace mlvm::simd::MLVM_SIMD_NS
