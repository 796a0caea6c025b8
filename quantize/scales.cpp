#include "quantize/scales.hpp"

#include <algorithm>
#include <cmath>

#include "tensor/error.hpp"

namespace mlvm::quant {

namespace {

// floor(log2(x)) as an int, for any positive x: an overflowing ratio (inf) or a vanishing one
// lands on the bound instead of an undefined conversion.
int floor_log2(double x) { return int(std::clamp(std::floor(std::log2(x)), -1000.0, 1000.0)); }

}  // namespace

int64_t magnitude(int precision) { return (int64_t(1) << (precision - 1)) - 1; }

int pow2_exponent(double max_abs, int precision) {
  if (!(max_abs > 0) || !std::isfinite(max_abs)) return 0;
  const double limit = double(magnitude(precision));
  int e = std::clamp(floor_log2(limit / max_abs), -101, 101);
  // log2 may be off by one ulp at exact powers of two: settle it by the definition.
  while (e > -101 && std::ldexp(max_abs, e) > limit) --e;
  while (e < 101 && std::ldexp(max_abs, e + 1) <= limit) ++e;
  return std::clamp(e, -100, 100);
}

ChannelWeights quantize_weights(const Tensor& w, int bits) {
  if (bits != 7 && bits != 8) fail_invalid("weight bits must be 7 or 8, got " + std::to_string(bits));
  const double m = double(magnitude(bits));
  if (w.rank() < 1 || w.dim(0) < 1) fail_invalid("weights " + w.type_string() + " have no output channels");
  const std::vector<float> v = to_vector<float>(w);
  const std::size_t channels = std::size_t(w.dim(0));
  const std::size_t per = v.size() / channels;
  std::vector<double> max_abs(channels, 0.0);
  for (std::size_t o = 0; o < channels; ++o)
    for (std::size_t k = 0; k < per; ++k) max_abs[o] = std::max(max_abs[o], double(std::fabs(v[o * per + k])));
  const double top = *std::max_element(max_abs.begin(), max_abs.end());
  if (!std::isfinite(top)) fail_invalid("weights " + w.type_string() + " hold a non-finite value");
  const double floor_scale = top > 0 ? top / m / 64.0 : 1.0;
  ChannelWeights out;
  out.scale.resize(channels);
  std::vector<int8_t> q(v.size());
  for (std::size_t o = 0; o < channels; ++o) {
    out.scale[o] = std::max(max_abs[o] / m, floor_scale);
    for (std::size_t k = 0; k < per; ++k) {
      const double r = std::round(double(v[o * per + k]) / out.scale[o]);
      q[o * per + k] = int8_t(std::clamp(r, -m, m));
    }
  }
  out.q = make_tensor<int8_t>(w.shape(), std::span<const int8_t>(q));
  return out;
}

Tensor quantize_bias(const Tensor& b, double act_scale, const std::vector<double>& w_scale) {
  const std::vector<float> v = to_vector<float>(b);
  if (v.size() != w_scale.size())
    fail_invalid("bias " + b.type_string() + " has " + std::to_string(v.size()) + " values for " +
                 std::to_string(w_scale.size()) + " output channels");
  std::vector<int32_t> q(v.size());
  for (std::size_t o = 0; o < v.size(); ++o) {
    const double r = std::round(double(v[o]) / (act_scale * w_scale[o]));
    if (!(std::fabs(r) <= double(magnitude(31))))
      fail_invalid("the bias of output channel " + std::to_string(o) + " (" + std::to_string(v[o]) +
                   ") is " + std::to_string(r) + " at the accumulator's scale; it must fit 31 bits");
    q[o] = int32_t(r);
  }
  return make_tensor<int32_t>(b.shape(), std::span<const int32_t>(q));
}

Tensor quantize_constant(const Tensor& c, int exp, int max_bits) {
  const std::vector<float> v = to_vector<float>(c);
  std::vector<int32_t> q(v.size());
  for (std::size_t k = 0; k < v.size(); ++k) {
    const double r = std::round(std::ldexp(double(v[k]), exp));
    if (!(std::fabs(r) <= double(magnitude(max_bits))))
      fail_invalid("constant element " + std::to_string(k) + " (" + std::to_string(v[k]) + ") is " +
                   std::to_string(r) + " at scale 2^" + std::to_string(-exp) + "; it must fit " +
                   std::to_string(max_bits) + " bits");
    q[k] = int32_t(r);
  }
  return make_tensor<int32_t>(c.shape(), std::span<const int32_t>(q));
}

Requant choose_requant(const std::vector<double>& factor, double acc_max) {
  Requant r;
  const double half = double(magnitude(kShiftedBits)) / 2;
  while (r.pre_shift < 32 && std::ldexp(acc_max, -r.pre_shift) > half) ++r.pre_shift;
  double top = 0;
  for (double f : factor) top = std::max(top, f);
  const double limit = double(magnitude(kMultiplierBits));
  if (!(top > 0) || !std::isfinite(top)) {
    r.multiplier.assign(factor.size(), 0);
    return r;
  }
  // The largest shift with round(top * 2^(pre + shift)) <= limit.
  int shift = std::clamp(floor_log2(limit / std::ldexp(top, r.pre_shift)), -64, 64);
  while (shift > -64 && std::round(std::ldexp(top, r.pre_shift + shift)) > limit) --shift;
  while (shift < 64 && std::round(std::ldexp(top, r.pre_shift + shift + 1)) <= limit) ++shift;
  if (shift < 1)
    fail_invalid("the requantization factor " + std::to_string(top) +
                 " is too large for a right shift (the output scale is much finer than the accumulator's)");
  r.shift = std::min(shift, 32);
  for (double f : factor) r.multiplier.push_back(int32_t(std::round(std::ldexp(f, r.pre_shift + r.shift))));
  return r;
}

int64_t cvm_right_shift_value(int64_t x, int precision, int shift) {
  // ops.md: clip(floor((floor(x / 2^(b-1)) + 1) / 2)); >> on a negative int64 floors.
  const int64_t y = ((x >> (shift - 1)) + 1) >> 1;
  const int64_t lim = magnitude(precision);
  return std::clamp(y, -lim, lim);
}

int64_t requant_value(int64_t acc, const Requant& r, std::size_t channel, int out_precision) {
  const int64_t lim = magnitude(kShiftedBits);
  const int64_t t = r.pre_shift > 0 ? cvm_right_shift_value(acc, kShiftedBits, r.pre_shift)
                                    : std::clamp(acc, -lim, lim);
  return cvm_right_shift_value(t * r.multiplier.at(channel), out_precision, r.shift);
}

}  // namespace mlvm::quant
