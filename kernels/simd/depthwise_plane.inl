// The f32 depthwise plane of one SIMD level with masked loads (AVX-512, AVX2), pixels in
// lanes (interface: DepthwisePlane in kernels/simd/conv_depthwise.hpp): a part of
// depthwise_impl.inl's body (see there and kernels/simd/ew_vec.inl for the inclusion rules).
//
// Output registers are summed a column of registers at a time, RB rows at once, straight from
// the input plane: each input register loaded serves every output row whose window covers its
// row, so an output register costs about KW·(1 + (KH - SH)/RB) loads, not KH·KW (a row at a
// time, from a padded copy, was bound by its loads and the copy: 0.156 ms on 144 x 56², against
// 0.087 now). Padding is masked-off lanes and skipped rows, so nothing is copied; at column
// stride 2 each pair of window columns is one load of 2L columns split into its even and odd
// lanes. The lanes of a partial last register are summed from zeros and not stored.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/simd/conv_depthwise.hpp"
#include "kernels/simd/ew_vec.inl"

#if MLVM_SIMD_BYTES != 16
namespace mlvm::simd::MLVM_SIMD_NS {
namespace {

// A block of RB output rows of one column register: rows rb .. rb + RB - 1, lanes
// y[r][q·L + l] for l < n. Load u of an input row (u < loads) starts at column
// first + u·SW... : at column stride 1 it is tap column j = u; at stride 2 load u is 2L columns
// whose even and odd lanes are tap columns 2u and 2u + 1. m[u][k]: the lanes of its register k
// that lie inside the input row (set for an edge block only).
template <int KW, int SW>
struct Block {
  static constexpr int kLoads = SW == 1 ? KW : (KW + 1) / 2;
  static constexpr int kRegs = SW;  // registers per load
  static constexpr int64_t kSpan = SW * (kLoads - 1) + SW * kLanes<float>;  // columns the loads cover
  int64_t ih0;                      // input row of the block's first window row (may be < 0)
  const float* at;                  // input row 0's column `first`
  LaneMask m[kLoads][kRegs];
  float* out;                       // y's row rb, column q·L
  int64_t n;
};

// The sums of NB blocks. column_sums runs one: two at once spilled sums to the stack and were
// slower. The NB loop stays because GCC 12 schedules this body best inside it: written for one
// block (by pointer or by reference), the same sums ran at 0.104 against 0.087 ms on 56 x 56.
// Edge: a block whose window reaches past the input (rows read as zeros, lanes masked off). One
// that does not loads whole registers with no row test: at AVX2 the masked loads and the
// per-row selects were as many instructions as the multiply-adds.
template <int KH, int KW, int SH, int SW, int RB, int NB, bool Edge>
void block_sums(const DepthwisePlane& a, const Block<KW, SW>* b, const V<float>* w) {
  constexpr int64_t L = kLanes<float>;
  constexpr int kRows = (RB - 1) * SH + KH;  // input rows a block reads
  using VF = V<float>;
  const VF zero(0.f);
  VF acc[NB][RB];
  for (int k = 0; k < NB; ++k)
    for (int rr = 0; rr < RB; ++rr) acc[k][rr] = zero;
#pragma GCC unroll 64
  for (int y = 0; y < kRows; ++y) {
#pragma GCC unroll 4
    for (int k = 0; k < NB; ++k) {
      const int64_t ih = b[k].ih0 + y;
      const bool inside = !Edge || (ih >= 0 && ih < a.h);
      const float* row = b[k].at + (inside ? ih : 0) * a.w;
      auto get = [&](int u, int r, const float* p) {
        return !Edge ? load(p) : inside ? masked_load(b[k].m[u][r], p) : zero;
      };
      VF x[KW];
#pragma GCC unroll 16
      for (int u = 0; u < Block<KW, SW>::kLoads; ++u) {
        if constexpr (SW == 1) {
          x[u] = get(u, 0, row + u);
        } else {
          VF odd;
          deinterleave_any_order(get(u, 0, row + 2 * u), get(u, 1, row + 2 * u + L), x[2 * u], odd);
          if (2 * u + 1 < KW) x[2 * u + 1] = odd;
        }
      }
      // Input row y is window row i = y - rr·SH of output row rr: its taps, in order.
#pragma GCC unroll 16
      for (int rr = 0; rr < RB; ++rr) {
        const int i = y - rr * SH;
        if (i < 0 || i >= KH) continue;
#pragma GCC unroll 16
        for (int j = 0; j < KW; ++j) acc[k][rr] = fused_mul_add(w[i * KW + j], x[j], acc[k][rr]);
      }
    }
  }
  const VF vb(a.bias), vlo(a.lo), vhi(a.hi);
  for (int k = 0; k < NB; ++k) {
    const LaneMask out_mask = lanes_between(0, b[k].n);
    for (int rr = 0; rr < RB; ++rr) {
      const VF v = (SW == 1 ? acc[k][rr] : deinterleaved_in_order(acc[k][rr])) + vb;
      const VF out = clip_lanes(v, vlo, vhi);
      float* dst = b[k].out + rr * a.ow;
      if (b[k].n == L) store(dst, out);
      else masked_store(out_mask, dst, out);
    }
  }
}

// Every output: blocks of RB rows (the last one moved back to end at the plane's end: its
// first rows are computed twice, to the same bits), in row order and each across the row, so
// that the input is read as a few streams along its rows (a column of registers down the
// whole plane read a plane fresh from the layer before in short strided runs). Needs oh >= RB.
template <int KH, int KW, int SH, int SW, int RB>
void column_sums(const DepthwisePlane& a) {
  constexpr int64_t L = kLanes<float>;
  constexpr int kRows = (RB - 1) * SH + KH;
  using VF = V<float>;
  VF w[KH * KW];
  for (int t = 0; t < KH * KW; ++t) w[t] = VF(a.w_taps[t]);
  const int64_t per_row = (a.ow + L - 1) / L, row_blocks = (a.oh + RB - 1) / RB;
  for (int64_t rbi = 0; rbi < row_blocks; ++rbi) {
    const int64_t rb = std::min(rbi * RB, a.oh - RB);
    const int64_t ih0 = rb * SH - a.top;
    const bool rows_inside = ih0 >= 0 && ih0 + kRows <= a.h;
    for (int64_t q = 0; q < per_row; ++q) {
      Block<KW, SW> b;
      const int64_t first = q * L * SW - a.left;  // input column of the first load's lane 0
      b.ih0 = ih0;
      b.at = a.x + first;
      b.out = a.y + rb * a.ow + q * L;
      b.n = std::min(L, a.ow - q * L);
      if (rows_inside && first >= 0 && first + Block<KW, SW>::kSpan <= a.w) {
        block_sums<KH, KW, SH, SW, RB, 1, false>(a, &b, w);
        continue;
      }
      for (int u = 0; u < Block<KW, SW>::kLoads; ++u)
        for (int k = 0; k < SW; ++k) {
          const int64_t c = first + SW * u + k * L;  // column of the register's lane 0
          b.m[u][k] = lanes_between(-c, a.w - c);  // the lanes inside the input row
        }
      block_sums<KH, KW, SH, SW, RB, 1, true>(a, &b, w);
    }
  }
}

void depthwise_plane(const DepthwisePlane& a) {
  constexpr int RB = kDepthwisePlaneRows;
  if (a.sh == 1 && a.sw == 1) return column_sums<3, 3, 1, 1, RB>(a);
  if (a.sh == 1 && a.sw == 2) return column_sums<3, 3, 1, 2, RB>(a);
  if (a.sh == 2 && a.sw == 1) return column_sums<3, 3, 2, 1, RB>(a);
  column_sums<3, 3, 2, 2, RB>(a);
}

}  // namespace
}  // namespace mlvm::simd::MLVM_SIMD_NS
#endif
