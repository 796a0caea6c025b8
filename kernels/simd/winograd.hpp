// The data transforms of the Winograd F(m x m, 3x3) convolutions, m = 4 or 2
// (kernels/conv_winograd.cpp), one per SIMD level, vectorized across tiles: lane l of a
// register is tile j + l of a tile row. Compiled once per level
// (kernels/simd/winograd_impl.inl in winograd_{avx512,avx2,sse2}.cpp).
//
// The output plane is cut into m x m tiles, tile (ti, tj) covering output rows m·ti ..
// m·ti + m - 1 and the same columns; it reads the n x n patch (n = m + 2) of the zero-padded
// input at the same origin. Tiles are numbered t = ti·tw + tj. With d the patch, g the 3 x 3
// filter and ξ = n·r + s the n² transformed positions:
//   V = Bᵀ d B (input),  U = G g Gᵀ (filter, kernels/conv_winograd.cpp),
//   Y = Aᵀ M A (output) where M[ξ] = Σ over input channels of U[ξ] · V[ξ] (n² GEMMs),
// with the matrices of Lavin and Gray, "Fast Algorithms for Convolutional Neural Networks"
// (2016): Y is the m x m correlation of d with g. F(4x4) does 36 multiply-adds per 16
// outputs, F(2x2) 16 per 4; the direct sum 9 per output.
//
// This header is included by the per-level translation units: declarations and plain data
// only (the ODR note in kernels/simd/cpu_features.hpp).
#pragma once

#include <cstdint>

namespace mlvm::simd {

// One input channel: x is its contiguous h x w plane; the padded input has `top` zero rows
// and `left` zero columns before it (and zeros past it). Writes V[ξ] of tile t at
// v[ξ·v_stride + t] for the th x tw tiles, and may write up to (lanes - 1) elements past the
// last tile of each ξ (v_stride leaves kWinogradSlack for them). `work` is scratch of
// winograd_input_work(m, th, tw) floats.
struct WinogradInput {
  int m;  // the tile: 4 or 2
  const float* x;
  int64_t h, w, top, left;
  int64_t th, tw;
  float* v;
  int64_t v_stride;
  float* work;
};

// One output channel: M[ξ] of tile t at m[ξ·m_stride + t] (readable up to kWinogradSlack
// elements past the last tile); writes the oh x ow plane y, each value
// clamp(Y + bias, lo, hi) with clamp as in kernels/simd/conv_depthwise.hpp (lo = -inf,
// hi = +inf: none). `work` is scratch of winograd_output_work(m, tw) floats.
struct WinogradOutput {
  int tile;  // m: 4 or 2
  const float* m;
  int64_t m_stride;
  int64_t th, tw, oh, ow;
  float bias, lo, hi;
  float* y;
  float* work;
};

struct WinogradTable {
  void (*input)(const WinogradInput&) = nullptr;
  void (*output)(const WinogradOutput&) = nullptr;
};

// Elements past the last tile that the transforms may read or write (the widest level's lanes).
inline constexpr int64_t kWinogradSlack = 16;

// Scratch sizes in floats.
inline int64_t winograd_tile_cols(int64_t tw) { return (tw + kWinogradSlack - 1) / kWinogradSlack * kWinogradSlack; }
inline int64_t winograd_input_work(int64_t m, int64_t th, int64_t tw) {
  const int64_t phase = winograd_tile_cols(tw) + kWinogradSlack;
  return (m * th + 2) * m * phase + m * phase;  // the split rows, and one padded input row
}
inline int64_t winograd_output_work(int64_t m, int64_t tw) {
  return m * m * winograd_tile_cols(tw) + m * m * kWinogradSlack;
}

// The current level's table.
const WinogradTable& winograd_kernels();

namespace avx512 {
const WinogradTable& winograd_table();
}
namespace avx2 {
const WinogradTable& winograd_table();
}
namespace sse2 {
const WinogradTable& winograd_table();
}

}  // namespace mlvm::simd
