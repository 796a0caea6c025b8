// Moving integers between scales and widths with the CVM ops: cvm_right_shift (rounding,
// clipping), cvm_left_shift (saturating), cvm_clip, cast; and back to f32 at the outputs.
#include <algorithm>
#include <cmath>

#include "quantize/lower.hpp"
#include "tensor/error.hpp"

namespace mlvm::quant {

QValue Lowerer::convert(const QValue& v, int exp, int precision, DType dtype, const std::string& want) {
  std::string reg = v.reg;
  bool own = false;  // whether reg is this step's register yet (v's own is never overwritten)
  auto apply = [&]<class Op>(Op op, const typename Op::attrs& attrs) {
    if (own) {
      e_.emit_over(reg, op, {reg}, attrs);
    } else {
      reg = e_.emit(op, {reg}, attrs, want);
      own = true;
    }
  };
  // Widen first (a cast keeps the precision); narrow last, once the value fits.
  const DType from = e_.type(reg).dtype;
  if (dtype_size(from) < dtype_size(dtype)) apply(op::cast, {.dtype = dtype});
  const int d = v.exp - exp;
  // Shifts past 32 bits are the same as by 32: everything has left (right) or saturated (left).
  const write::cvm_shift shift{.precision = precision, .shift_bit = std::min(std::abs(d), 32)};
  if (d > 0 && d <= kDitherShifts) dither(reg, own, want);
  if (d > 0) apply(op::cvm_right_shift, shift);
  else if (d < 0) apply(op::cvm_left_shift, shift);
  else if (v.precision > precision) apply(op::cvm_clip, {.precision = precision});
  if (dtype_size(e_.type(reg).dtype) > dtype_size(dtype)) apply(op::cast, {.dtype = dtype});
  return QValue{reg, exp, e_.type(reg).precision};
}

// cvm_right_shift rounds half up: a tie (low bits exactly 10...0) always goes up, which on a
// short shift is frequent (every odd value of a shift by 1) and biases the result up by
// 2^-(d+1) of a step on average; through a network of residual adds and ReLUs that adds up.
// Subtracting 0, 1, 0, 1, ... along the last axis first sends the ties of every other element
// down instead (a non-tie rounds the same either way), so the bias cancels over the axis.
void Lowerer::dither(std::string& reg, bool& own, const std::string& want) {
  const TensorType& t = e_.type(reg);
  const bool narrow = t.dtype == DType::i16;  // an i16 sum of two i8 values (Lowerer::add)
  if ((t.dtype != DType::i32 && !narrow) || t.dims.empty() || t.precision == kUnknownPrecision ||
      t.precision >= (narrow ? 15 : 31))
    return;
  const int64_t n = t.dims.back();
  if (n < 2 || n == kDynamic) return;
  auto alternating = [n]<class T>() {  // 0, 1, 0, 1, ... in the register's dtype
    std::vector<T> pattern(static_cast<std::size_t>(n));
    for (std::size_t k = 0; k < pattern.size(); ++k) pattern[k] = T(k % 2);
    return make_tensor<T>(Dims{n}, std::span<const T>(pattern));
  };
  const std::string c = e_.constant(
      want + ".dither", narrow ? alternating.template operator()<int16_t>() : alternating.template operator()<int32_t>());
  if (own) {
    e_.emit_over(reg, op::sub, {reg, c});
  } else {
    reg = e_.emit(op::sub, {reg, c}, {}, want);
    own = true;
  }
}

std::string Lowerer::requantize(const std::string& acc, const Requant& r, int channel_axis, int rank,
                                int precision, const std::string& want) {
  std::string t;
  if (r.pre_shift > 0)
    t = e_.emit(op::cvm_right_shift, {acc}, {.precision = kShiftedBits, .shift_bit = r.pre_shift}, want);
  else
    t = e_.emit(op::cvm_clip, {acc}, {.precision = kShiftedBits}, want);
  // One multiplier per channel, shaped to broadcast along the channel axis ([C, 1, 1] for
  // NCHW, [C] for dense); a single one when they are all equal.
  const bool uniform = std::all_of(r.multiplier.begin(), r.multiplier.end(), [&](int32_t m) { return m == r.multiplier[0]; });
  Dims shape{uniform ? 1 : int64_t(r.multiplier.size())};
  for (int k = channel_axis + 1; k < rank && !uniform; ++k) shape.push_back(1);
  const std::vector<int32_t> values = uniform ? std::vector<int32_t>{r.multiplier[0]} : r.multiplier;
  const std::string m = e_.constant(want + ".mult", make_tensor<int32_t>(shape, std::span<const int32_t>(values)));
  e_.emit_over(t, op::mul, {t, m});
  e_.emit_over(t, op::cvm_right_shift, {t}, {.precision = precision, .shift_bit = r.shift});
  if (precision <= 8) e_.emit_over(t, op::cast, {t}, {.dtype = DType::i8});
  return t;
}

std::string Lowerer::dequantize(const QValue& v, const std::string& name, bool exact) {
  const std::string y = e_.emit(op::cast, {v.reg}, {.dtype = DType::f32}, name, exact);
  e_.emit_over(y, op::mul, {y, scalar_f32(name + ".scale", std::ldexp(1.0, -v.exp))});
  return y;
}

std::string Lowerer::scalar_f32(const std::string& want, double value) {
  const float v = float(value);
  return e_.constant(want, make_tensor<float>(Dims{1}, std::span<const float>(&v, 1)));
}

}  // namespace mlvm::quant
