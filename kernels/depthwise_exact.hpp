// Integer depthwise convolutions a register of channels at a time: exactly by the f32 kernels,
// or in i16 pairs.
//
// The integer depthwise kernels (kernels/simd/depthwise_pairs.inl) run along an output row, so
// planes narrower than a register (MobileNet-V2's 14 x 14 and 7 x 7, with hundreds of
// channels) leave most lanes idle: 3-5 times the time of the f32 convolution, which puts
// channels in lanes (simd::DepthwiseBlocked). That kernel computes integer convolutions as well,
// bit for bit, wherever every sum it forms is an integer below 2^24 in magnitude: then each
// product and each partial sum is exact in f32 at every SIMD level, with or without FMA, in
// any order. An i8 input qualifies when taps · 128 · max|w| <= 2^24 (any i8 weights and up to
// 1024 taps); an i16 input x is split as 256 · hi + lo (hi in [-128, 127], lo in [0, 255]) and
// each half convolved on its own, which qualifies when taps · 256 · max|w| <= 2^24 (the
// quantizer's i8-range weights widened to i16: up to 512 taps). The exact sums are then
// combined and the bias added modulo 2^32, which is what the integer kernels compute. Past
// 16 columns, and for i16 inputs, the pixel-major i16 pairs of simd::DepthwisePairsBlocked
// are faster still, and exact for any weights.
#pragma once

#include <cstdint>

#include "kernels/simd/conv_depthwise.hpp"

namespace mlvm {

// How depthwise_exact computes a convolution with one output channel per input channel of
// these `count` weights, if it does: where the level has the i16-pair kernel, i8 planes of up
// to 16 columns in f32 a register of channels at a time (depthwise_block_i8, or
// depthwise_block_exact without the requantization), everything else in pairs
// (depthwise_block_pairs); without it, planes narrower than the integer row kernels'
// registers (16 columns, 32 for i8) in f32, and none for the rest (bench/results.md). none
// for types other than int8_t and int16_t.
enum class ExactDepthwise { none, blocked, pairs };
template <class T>
ExactDepthwise exact_depthwise(const T* w, int64_t count, const simd::DepthwiseGeometry& geo);

// Whether depthwise_block_exact computes a convolution of these `count` weights, `taps` per
// output channel, exactly (int8_t and int16_t inputs; false for any other type).
template <class T>
bool depthwise_exact_in_f32(const T* w, int64_t count, int64_t taps);

// Output planes [c0, c0 + channels) of a depthwise convolution with one output channel per
// input channel, channels <= simd::conv_row_kernels().lanes:
//   y[c][r·ow + q] = bias[c·bias_stride] + sum over (i, j) of w[c·kh·kw + i·kw + j] ·
//                    pad(x)[c][r·sh + i·dh][q·sw + j·dw]    (modulo 2^32)
// where x[c] (h x w of geo) is at x + c·h·w and y[c] at y + c·oh·ow, bias may be null. Only
// where depthwise_exact_in_f32 holds for the weights.
template <class T>
void depthwise_block_exact(const simd::DepthwiseGeometry& geo, const T* x, int64_t channels, const T* w,
                           const int32_t* bias, int64_t bias_stride, int32_t* y);

// depthwise_block_exact for i8 in one kernel with its requantization (simd::DepthwiseBlockedI8:
// y[c·oh·ow + p] the chain of channel c's sum plus bias, stored as out_bytes-byte elements; ops
// as RequantChain::Ops with values for channels c0 .., nops 0: the i32 sums). False, and
// nothing done, where the level has no such kernel.
bool depthwise_block_i8(const simd::DepthwiseGeometry& geo, const int8_t* x, int64_t channels, const int8_t* w,
                        const int32_t* bias, int64_t bias_stride, const simd::RequantOp* ops, int nops, int mul_op,
                        const int32_t* mul_values, void* y, int out_bytes);

// The convolution of depthwise_block_i8 over i8 or i16 x with any weights of x's type, summed
// exactly in i16 pairs (simd::DepthwisePairsBlocked): false, and nothing done, where the level
// has no such kernel.
template <class T>
bool depthwise_block_pairs(const simd::DepthwiseGeometry& geo, const T* x, int64_t channels, const T* w,
                           const int32_t* bias, int64_t bias_stride, const simd::RequantOp* ops, int nops, int mul_op,
                           const int32_t* mul_values, void* y, int out_bytes);

}  // namespace mlvm
