// conv2d by 1-D Winograd F(2, 3) for a 3x1 or 1x3 window: along the window's axis each pair of
// outputs costs 4 multiply-adds per input channel instead of 6, as 4 GEMMs (one per
// transformed position) with M = output channels, N = tile positions and K = input channels,
// between an input and an output transform (the 2-D tiles are kernels/conv_winograd.hpp's).
//
// At AVX2 the GEMM micro-kernel runs at its FMA peak, half of AVX-512's, so only fewer
// multiply-adds make such a convolution faster: openWakeWord's embedding CNN is 20 of these
// windows (1x3 padded by 1 left and right, 3x1 unpadded) over 24-96 channels; those with
// enough channels take this (takes_winograd_1d).
//
// F(2, 3) (Lavin & Gray): u = Bᵀd, v = Gg, y = Aᵀ(u ⊙ v) with
//   Bᵀ = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1], G = [1 0 0; ½ ½ ½; ½ -½ ½; 0 0 1],
//   Aᵀ = [1 1 1 0; 0 1 -1 -1].
// Results differ from the direct convolution's by rounding only: the transforms add and
// halve (exactly), so each output's error is a few times the direct sum's
// (tests/kernels/conv_winograd_1d_test.cpp bounds it). Nothing depends on the thread count:
// each image's GEMMs are the same whichever thread runs them.
#pragma once

#include <cstdint>

#include "ir/nn_rules.hpp"

namespace mlvm {

class ExecEnv;
struct FusedActivation;

// Whether conv2d of this shape takes conv_winograd_1d: f32 (the caller's to check), one group,
// stride 1, dilation 1, at least 16 input and 16 output channels, and a 1x3 window with no
// padding at the top or bottom, an even output width and C·OC >= kWinograd1dMinRowChannels,
// or a 3x1 one with none left or right, an even output height and C·OC >=
// kWinograd1dMinColumnChannels. Measured on the embedding CNN's layers (batch 242, 1 thread;
// ms direct -> 1-D Winograd, AVX2 | AVX-512):
//   1x3, 74 x 32 and smaller: 24 -> 24 25.5 -> 26.9 | 17.4 -> 21.6 (K = 24 leaves the GEMM's
//   tiles mostly set-up and stores); 24 -> 48 16.1 -> 12.0 | 8.8 -> 9.8; 48 -> 48 24.4 -> 19.3 |
//   14.1 -> 15.2; 48 -> 72 18.0 -> 13.6 | 12.4 -> 10.5; 72 -> 72 25.1 -> 18.4 | 17.1 -> 14.1.
//   3x1, unpadded (the direct path reads the input in place, with no planes to build):
//   24 -> 24 17.2 -> 26.6 | 14.3 -> 21.5; 48 -> 48 17.8 -> 21.3 | 10.2 -> 16.8; 72 -> 72
//   17.5 -> 16.2 | 12.5 -> 11.5; 96 -> 96 on 12 x 4 (batched small planes, which conv_stacked
//   computed with 2 dropped rows per image) 8.3 -> 5.5 | 6.4 -> 3.9.
inline constexpr int64_t kWinograd1dMinRowChannels = 24 * 48;
inline constexpr int64_t kWinograd1dMinColumnChannels = 72 * 72;
bool takes_winograd_1d(int64_t c, int64_t oc, int64_t kh, int64_t kw, const ConvParams& p, int64_t oh, int64_t ow);

struct Winograd1dConv {
  bool along_h;                 // a 3x1 window (taps down the rows), else 1x3 (along a row)
  int64_t n, c, h, w, oc, oh, ow;
  int64_t pad0;                 // padding before the input along the window's axis (top or left)
  const float* x;               // n x c x h x w, contiguous
  const float* filt;            // oc x c x 3 (x 1), contiguous
  const float* bias;            // bias[o·bias_stride], or null
  int64_t bias_stride;
  const FusedActivation* act;   // or null
  float* y;                     // n x oc x oh x ow, contiguous
};

void conv_winograd_1d(const Winograd1dConv& a, ExecEnv& env);

}  // namespace mlvm
