// conv2d over a batch of small planes as one GEMM per group of images (kernels/conv.cpp
// otherwise runs one GEMM per image). The images' zero-padded planes are stacked, image under
// image, into one tall plane per input channel and tap column (column-shifted, as wide as the
// output: a tap column's plane holds input column q + j·DW - left at q), so that every column
// of the im2col matrix is still a unit-stride run: output pixel (n, r, q) is column
// (n·HQ + r)·OW + q, and the HQ - OH rows between images are computed and dropped.
//
// Small planes are where one GEMM per image starves: openWakeWord's embedding CNN ends in
// 96-channel layers over 12-56 pixels per image, its batch of 242 images, where a GEMM of
// 20 columns filled two thirds of one 32-column panel, and its 1x3 windows padded each side
// made every row 2 columns wider than its output (4 for 2). Floats, one group, stride 1.
//
// Per element the same sum as conv.cpp's GEMM (the k blocking depends on K and the level only,
// never on N), the same bias, clamp and fused activation.
#pragma once

#include <cstdint>

#include "ir/nn_rules.hpp"

namespace mlvm {

class ExecEnv;
struct FusedActivation;
struct PackedOperand;

struct StackedConv {
  int64_t n, c, h, w;      // input, contiguous NCHW
  int64_t oc, kh, kw;      // weights (oc x c x kh x kw, contiguous)
  int64_t oh, ow;          // output plane
  const float* x;
  const float* w_data;
  const PackedOperand* a_packed;  // w packed as the GEMM's A operand (gemm_prepack_a), or null
  const float* bias;              // bias[o·bias_stride], or null
  int64_t bias_stride;
  const FusedActivation* act;     // or null
  float* y;                       // n x oc x oh x ow, contiguous
};

// Whether conv2d of this shape takes conv_stacked: f32, one group, stride 1, more than one
// image, a window larger than 1x1, and an output plane of at most kStackedMaxPixels. Measured
// on the embedding CNN's layers (batch 242): its 56-pixel 72 -> 96 1x3 layer took 8.3 ms
// stacked against 11.6 per image at AVX2 (6.2 against 7.9 at AVX-512), its 20-pixel ones
// 6.1 against 10.0; at 240-576 pixels the two were within noise of each other, one way at
// AVX2 and the other at AVX-512, and the 2368-pixel layers lost (their planes no longer
// stay in L2, and the column-shifted planes are three times the input).
inline constexpr int64_t kStackedMaxPixels = 64;
bool takes_stacked(int64_t n, int64_t groups, int64_t kh, int64_t kw, const ConvParams& p, int64_t oh, int64_t ow);

void conv_stacked(const StackedConv& s, const ConvParams& p, ExecEnv& env);

}  // namespace mlvm
