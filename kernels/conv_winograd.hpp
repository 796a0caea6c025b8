// conv2d by Winograd F(4x4, 3x3) or F(2x2, 3x3) (kernels/simd/winograd.hpp has the
// transforms and their matrices): for a 3x3 stride-1 float convolution each 4 x 4 block of
// outputs costs 36 multiply-adds per input channel instead of 144 (each 2 x 2 block 16
// instead of 36), as 36 (16) GEMMs, one per transformed position, with M = output channels,
// N = tiles and K = input channels, between input and output transforms. ResNet's and
// SqueezeNet's 3x3 convolutions take it: F(2x2) where a plane has too few 4 x 4 tiles to fill
// the GEMM's column panels (ResNet's 14 x 14 and 7 x 7 planes). With very few tiles (16) the
// GEMMs run transposed, tiles as rows (conv_winograd.cpp, swaps_operands).
//
// Results differ from the direct convolution's by rounding only: the transforms add and
// scale by small integers and by G's sixths, so each output's error is a few times the
// direct sum's (tests/kernels/conv_winograd_test.cpp bounds it). Nothing depends on the thread count.
#pragma once

#include <cstdint>
#include <memory>

#include "ir/nn_rules.hpp"
#include "kernels/gemm.hpp"

namespace mlvm {

class ExecEnv;
struct FusedActivation;
struct PackedWeights;

// The Winograd tile a conv2d takes, 4 or 2, or 0 for none: f32, a 3x3 window, stride 1,
// dilation 1, one group, at least 16 input and 16 output channels, and at least 16 tiles per
// image (fewer would leave the GEMMs' panels mostly empty): 4 x 4 tiles if there are 32 of
// them, else 2 x 2 ones. On 14 x 14 (16 tiles of 4 x 4, 49 of 2 x 2) F(2x2) took 0.69 ms
// where F(4x4) took 0.87-1.27: F(4x4)'s 36 filter matrices (9.4 MB for 256 channels) were
// read for 16 columns each, F(2x2)'s 16 (4.2 MB) for 49.
int winograd_tile(int64_t c, int64_t oc, int64_t kh, int64_t kw, const ConvParams& p, int64_t oh, int64_t ow);

// The filters w (oc x c x 3 x 3, contiguous) transformed for tile m and packed for the GEMMs
// of an oh x ow output at the current SIMD level (as the A operand, or as B when those GEMMs
// run transposed: PackedWeights::b_side), for the planner to keep (kernels/prepare.hpp); null
// if out of memory.
std::shared_ptr<PackedWeights> winograd_prepare(const float* w, int64_t oc, int64_t c, int m, int64_t oh,
                                               int64_t ow);

// The transformed positions of F(m x m, 3x3): one GEMM each.
inline int winograd_positions(int m) { return (m + 2) * (m + 2); }

// Position xi's GEMM over output channels [o0, o1) of the filters U[xi] (oc x c, or null
// when they come packed): U V (channels x tiles), or with `swap` Vᵀ Uᵀ (tiles x channels).
// The caller sets the tiles' side. The float path's and the exact i8 path's (i16 filters).
template <class T>
GemmArgs<T> winograd_position_gemm(int64_t oc, int64_t c, const T* u, int xi, bool swap, int64_t o0, int64_t o1) {
  GemmArgs<T> g;
  g.k = c;
  const T* ux = u ? u + (xi * oc + o0) * c : nullptr;
  if (swap) {  // B element (i, o) = U[xi][o][i]
    g.n = o1 - o0;
    g.b = ux;
    g.rsb = 1;
    g.csb = c;
    g.b_packed_col0 = o0;
  } else {
    g.m = o1 - o0;
    g.a = ux;
    g.rsa = c;
    g.csa = 1;
    g.a_packed_row0 = o0;
  }
  return g;
}

struct WinogradConv {
  int m;  // winograd_tile(...)
  int64_t n, c, h, w, oc, oh, ow, top, left;
  const float* x;     // n x c x h x w, contiguous
  const float* filt;  // oc x c x 3 x 3, contiguous
  const float* bias;  // bias[o·bias_stride], or null
  int64_t bias_stride;
  const PackedWeights* prepared;  // winograd_prepare(filt, ..., m), or null
  const FusedActivation* act;     // or null
  float* y;                       // n x oc x oh x ow
};

void conv_winograd(const WinogradConv& a, ExecEnv& env);

}  // namespace mlvm
