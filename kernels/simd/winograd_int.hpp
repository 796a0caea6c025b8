// The data transforms of the exact integer Winograd F(m x m, 3x3) convolution of i8 inputs
// (kernels/conv_winograd_int8.cpp), m = 4 or 2, one per SIMD level, vectorized across tiles
// as the float ones (kernels/simd/winograd.hpp, whose tiles, positions and matrices these
// share): V = Bᵀ d B in i16, the output Y = Aᵀ M A in i32.
//
// Everything is integer arithmetic modulo 2^32, so the result is exact where the true one is
// in range (kernels/conv_winograd_int8.hpp says which). G's fractions (1/2; 1/4, 1/6, 1/24)
// are taken out of the filter transform row by row, G' = diag(s) G with s = (1, 2, 2, 1) or
// (4, 6, 6, 24, 24, 1), which leaves G' integer. With L the largest of s, the output transform
// uses A'ᵀ = Aᵀ diag(L / s), integer too, and gives L² Y; L² = 2^k · odd (4 = 2^2, 576 = 2^6 · 9)
// is divided out exactly modulo 2^32: the odd number's inverse modulo 2^32 turns L² Y into
// 2^k · Y modulo 2^32, which is 2^k · Y itself when |Y| < 2^(31 - k), and an arithmetic shift
// by k gives Y.
//
// This header is included by the per-level translation units: declarations and plain data
// only (the ODR note in kernels/simd/cpu_features.hpp).
#pragma once

#include <cstdint>

namespace mlvm::simd {

// One input channel: x is its contiguous h x w plane of i8; the padded input has `top` zero
// rows and `left` zero columns before it (and zeros past it). Writes V[ξ] of tile t at
// v[ξ·v_stride + t] for the th x tw tiles as i16 (|V| <= 100 · 128 for m = 4), and may write
// up to kWinogradIntSlack elements past the last tile of each ξ. `work` is scratch of
// winograd_int_input_work(m, th, tw) elements.
struct WinogradInputI8 {
  int m;  // the tile: 4 or 2
  const int8_t* x;
  int64_t h, w, top, left;
  int64_t th, tw;
  int16_t* v;
  int64_t v_stride;
  int16_t* work;
};

// One output channel: M'[ξ] of tile t at m[ξ·m_stride + t] (L² Y's position products, i32
// modulo 2^32; readable up to kWinogradIntSlack elements past the last tile); writes the
// oh x ow plane y (rows ow apart), each value Y + bias (modulo 2^32).
struct WinogradOutputI32 {
  int tile;  // m: 4 or 2
  const int32_t* m;
  int64_t m_stride;
  int64_t th, tw, oh, ow;
  int32_t bias;
  int32_t* y;
};

struct WinogradIntTable {
  void (*input)(const WinogradInputI8&) = nullptr;
  void (*output)(const WinogradOutputI32&) = nullptr;
};

// Elements past the last tile that the transforms may read or write (the widest level's i16
// lanes).
inline constexpr int64_t kWinogradIntSlack = 32;

// Scratch of the input transform in i16 elements: the split rows and one padded input row.
inline int64_t winograd_int_input_work(int64_t m, int64_t th, int64_t tw) {
  const int64_t phase = (tw + kWinogradIntSlack - 1) / kWinogradIntSlack * kWinogradIntSlack + kWinogradIntSlack;
  return (m * th + 2) * m * phase + m * phase;
}

// The current level's table.
const WinogradIntTable& winograd_int_kernels();

namespace avx512 {
const WinogradIntTable& winograd_int_table();
}
namespace avx2 {
const WinogradIntTable& winograd_int_table();
}
namespace sse2 {
const WinogradIntTable& winograd_int_table();
}

}  // namespace mlvm::simd
