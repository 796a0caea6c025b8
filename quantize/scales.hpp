// The quantizer's arithmetic, free of modules: how scales, weights, biases and requantization
// constants are chosen (docs/quantize.md, "Scales"). A value x is represented by the integer
// q with x ~ q * 2^-e; `e` is its exponent.
#pragma once

#include <cstdint>
#include <vector>

#include "tensor/tensor.hpp"

namespace mlvm::quant {

// The intermediate precision of a requantization: the i32 accumulator is first shifted down
// to this many bits, so that multiplying by a multiplier of at most kMultiplierBits bits stays
// within 32 (kShiftedBits + kMultiplierBits = 32: the verifier proves the product fits i32).
inline constexpr int kShiftedBits = 16;
inline constexpr int kMultiplierBits = 16;

// The largest magnitude of precision p: 2^(p-1) - 1 (127 for 8, 32767 for 16).
int64_t magnitude(int precision);

// The largest exponent e with max_abs * 2^e <= magnitude(precision): the finest power-of-two
// scale that holds the calibrated range. 0 when max_abs is 0; clamped to [-100, 100].
int pow2_exponent(double max_abs, int precision);

// Symmetric per-output-channel weights (axis 0: conv2d's OC, dense's units) of `bits` (7 or 8):
// with m = 2^(bits-1) - 1 (127 or 63), scale[o] = max|w[o]| / m and q = round(w / scale[o])
// (half away from zero), i8 with |q| <= m. A
// channel that is all zeros, or whose largest weight is below 2^-6 of the layer's largest,
// gets that floor as its scale: one requantization (one pre-shift) serves every channel, and
// a channel whose scale is 2^12 times finer makes its accumulator range set a pre-shift that
// leaves the other channels a few bits (PP-OCRv4's recognizer: >>14, multipliers from 4; the
// mean error at its backbone's end 27 % -> 23 % of the mean |value| with 2^-6). A tiny scale
// would also push its bias past i32.
struct ChannelWeights {
  Tensor q;                   // i8, w's shape
  std::vector<double> scale;  // per output channel
};
ChannelWeights quantize_weights(const Tensor& w, int bits = 8);

// The bias at each channel's accumulator scale: round(b[o] / (act_scale * w_scale[o])), i32.
// Error(invalid) naming the channel when it does not fit 31 bits.
Tensor quantize_bias(const Tensor& b, double act_scale, const std::vector<double>& w_scale);

// A constant operand (of add) at exponent exp: round(c * 2^exp) as i32. Error(invalid) when an
// element does not fit max_bits bits.
Tensor quantize_constant(const Tensor& c, int exp, int max_bits);

// y = acc * factor[o] for an i32 accumulator, done as
//   t = cvm_right_shift(acc, precision 16, pre_shift)   (cvm_clip to 16 bits when pre_shift is 0)
//   y = cvm_right_shift(t * multiplier[o], precision P, shift)
// so that multiplier[o] * 2^-(pre_shift + shift) ~ factor[o]. pre_shift is the smallest that
// keeps the calibrated accumulator range (acc_max, in integer units) within half of 16 bits;
// shift is the largest that keeps every multiplier within 16 bits (at most 32767).
struct Requant {
  int pre_shift = 0;
  int shift = 1;
  std::vector<int32_t> multiplier;  // per channel
};
// Error(invalid) when no shift in [1, 32] fits (a factor above 16383 after the pre-shift).
Requant choose_requant(const std::vector<double>& factor, double acc_max);

// The integer pipeline of choose_requant's result on one accumulator, in exact integers: what
// the emitted cvm_right_shift / mul / cvm_right_shift compute (docs/ops.md's formulas).
int64_t cvm_right_shift_value(int64_t x, int precision, int shift);
int64_t requant_value(int64_t acc, const Requant& r, std::size_t channel, int out_precision);

}  // namespace mlvm::quant
