// ConvInteger and QLinearConv on their 8-bit operands. Centring x and W in i16 (lower_quant.cpp)
// is exact but runs the i16-pair GEMM; the i8 GEMM (u8·s8 vpdpbusd with AVX-512 VNNI) does twice
// the multiply-adds per instruction. Both operands become i8 by a shift of their type
// (x' = x - ox, w' = w - ow, ox and ow 128 for u8, 0 for i8: the top bit flipped), and
//   y = sum (x - zx)(w - zw) = sum x'w' - zw' sum x' - zx' sum (w - zw)
// with zx' = zx - ox and zw' = zw - ow: the convolution of the i8 operands, the window sums of
// x' (one more output channel of that convolution, of ones) times zw' (zero for a weight zero
// point of 128 on u8 or 0 on i8), and a per output channel bias from W's constant sums. ONNX pads x with its zero point (the centred operand with 0), so
// x' is padded with zx' explicitly and the convolutions take no padding of their own. Every
// step wraps modulo 2^32 and the true sum fits in i32, so y is bit for bit the centred
// convolution's.
#include <onnx/onnx_pb.h>

#include <algorithm>

#include "onnx/lower_nn_util.hpp"

namespace mlvm {

namespace {

// v - 128 as i8 for u8 (its top bit flipped: cast wraps, xor moves the range), v for i8.
Val to_s8(NodeContext& c, Val v) {
  if (c.e.dtype(v) == DType::i8) return v;
  const bool scalar = c.e.scalar(v);
  Val s = c.e.emit(op::cast, {v}, {.dtype = DType::i8});
  return c.e.with_scalar(c.e.emit(op::bitwise_xor, {s, c.e.scalar_const(DType::i8, -128.0)}), scalar);
}

// The 8-bit constant t's values as integers.
std::vector<int32_t> int_values(const Tensor& t) {
  std::vector<int32_t> v(std::size_t(t.numel()));
  if (t.dtype() == DType::u8)
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = t.data<uint8_t>()[i];
  else
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = t.data<int8_t>()[i];
  return v;
}

Val const_i32(NodeContext& c, const std::vector<int32_t>& v, const std::vector<int64_t>& dims) {
  Tensor t = Tensor::empty(DType::i32, Dims(std::span<const int64_t>(dims)));
  std::copy(v.begin(), v.end(), t.data<int32_t>());
  return c.e.constant(std::move(t));
}

bool is_8bit(DType dt) { return dt == DType::u8 || dt == DType::i8; }

}  // namespace

// Nothing when the node is not of the shape this handles (then the centred lowering runs): a
// 2-D convolution of one group, x u8 or i8, W and its zero point constants (the zero point per
// tensor or per output channel), x's zero point a one-element value of x's type or absent, at
// most one dim of x dynamic.
std::optional<Val> conv_integer_8bit(NodeContext& c, Val x, Val x_zp, Val w, Val w_zp, Val bias) {
  if (!is_8bit(c.e.dtype(x)) || !is_8bit(c.e.dtype(w)) || !c.e.is_const(w) || c.attr_int("group", 1) != 1)
    return std::nullopt;
  if (w_zp.present() && (!c.e.is_const(w_zp) || c.e.dtype(w_zp) != c.e.dtype(w))) return std::nullopt;
  if (x_zp.present() && (c.e.dtype(x_zp) != c.e.dtype(x) || !c.e.static_shape(x_zp) || checked_numel(c.e.dims(x_zp)) != 1)) return std::nullopt;
  const Tensor& wt = c.e.value(w);
  if (!wt.is_contiguous() || (w_zp.present() && !c.e.value(w_zp).is_contiguous())) return std::nullopt;
  const std::optional<nn::Conv2dWindow> win = nn::conv2d_window(c, x, w);
  if (!win || c.e.dims(x)[1] != wt.dim(1) || c.e.dims(x)[1] == kDynamic) return std::nullopt;
  // The padded x' gets its dims back by a reshape, which can leave one of them open.
  if (std::count(c.e.dims(x).begin(), c.e.dims(x).end(), kDynamic) > 1) return std::nullopt;
  const int64_t oc = wt.dim(0), k = wt.numel() / std::max<int64_t>(1, oc);
  const std::vector<int32_t> wv = int_values(wt);
  std::vector<int32_t> zw = w_zp.present() ? int_values(c.e.value(w_zp)) : std::vector<int32_t>{0};
  if (zw.size() != 1 && int64_t(zw.size()) != oc) return std::nullopt;
  const int32_t ox = c.e.dtype(x) == DType::u8 ? 128 : 0, ow = c.e.dtype(w) == DType::u8 ? 128 : 0;

  // Per output channel the sum of w - zw (at most 9 bits times K: no overflow), and whether
  // some zw' is not 0, so that the window sums of x' are needed.
  std::vector<int32_t> wsum(std::size_t(oc), 0);
  bool zw_used = false;
  for (int64_t o = 0; o < oc; ++o) {
    const int32_t z = zw[zw.size() == 1 ? 0 : std::size_t(o)];
    zw_used |= z != ow;
    for (int64_t i = o * k; i < (o + 1) * k; ++i) wsum[std::size_t(o)] += wv[std::size_t(i)] - z;
  }
  // W' (i8), with one more output channel of ones when the window sums are needed: the same
  // convolution then computes them (that channel is sum x' over each window), which the GEMM
  // gets for at most its row tile's padding, where a convolution of its own would pack all of
  // x' again.
  std::vector<int64_t> wdims(wt.shape().begin(), wt.shape().end());
  wdims[0] = oc + (zw_used ? 1 : 0);
  Tensor w8 = Tensor::empty(DType::i8, Dims(std::span<const int64_t>(wdims)));
  for (int64_t i = 0; i < oc * k; ++i) w8.data<int8_t>()[i] = int8_t(wv[std::size_t(i)] - ow);
  if (zw_used) std::fill(w8.data<int8_t>() + oc * k, w8.data<int8_t>() + (oc + 1) * k, int8_t(1));
  Val wq = c.e.constant(std::move(w8));

  // x' padded with zx' (what ONNX pads x with, shifted alike), back to static dims.
  Val zx = x_zp.present() ? c.e.with_scalar(x_zp, true) : c.e.scalar_const(c.e.dtype(x), 0.0);
  Val xq = to_s8(c, x);
  const std::vector<int64_t>& pad = win->padding;  // top, left, bottom, right
  if (pad[0] || pad[1] || pad[2] || pad[3]) {
    Dims d = c.e.dims(x);
    Val pads = c.e.int_vector({0, 0, pad[0], pad[1], 0, 0, pad[2], pad[3]});
    Val padded = c.e.emit(op::pad_dyn, {xq, pads, c.e.with_scalar(to_s8(c, zx), false)});
    if (d[2] != kDynamic) d[2] += pad[0] + pad[2];
    if (d[3] != kDynamic) d[3] += pad[1] + pad[3];
    xq = nn::reshape(c, padded, std::vector<int64_t>(d.begin(), d.end()));
  }
  const write::conv2d attrs{.padding = {0, 0, 0, 0}, .strides = win->strides, .dilation = win->dilation, .groups = 1};

  // bias - zx' · sum (w - zw), per output channel.
  Val zxi = c.e.emit(op::cast, {c.e.with_scalar(zx, false)}, {.dtype = DType::i32});
  if (ox) zxi = c.e.emit(op::sub, {zxi, c.e.scalar_const(DType::i32, double(ox))});
  // (0 for the channel of ones.)
  std::vector<int32_t> neg(std::size_t(wdims[0]), 0);
  for (std::size_t o = 0; o < wsum.size(); ++o) neg[o] = int32_t(-int64_t(wsum[o]));
  Val b = c.e.emit(op::mul, {zxi, const_i32(c, neg, {wdims[0]})});
  if (bias.present()) {
    Val given = c.e.with_scalar(bias, false);
    if (zw_used) given = c.e.emit(op::pad, {given}, {.pad_width = {{0, 1}}});
    b = c.e.emit(op::add, {given, b});
  }
  Val y = c.e.emit(op::conv2d, {xq, wq, b}, attrs);
  if (!zw_used) return y;

  // y - zw' · (the sum of x' over each window).
  Val sx = c.e.emit(op::strided_slice, {y}, {.begin = {oc}, .end = {oc + 1}, .axes = {1}});
  y = c.e.emit(op::strided_slice, {y}, {.begin = {0}, .end = {oc}, .axes = {1}});
  std::vector<int32_t> zwq(zw.size());
  for (std::size_t o = 0; o < zw.size(); ++o) zwq[o] = zw[o] - ow;
  Val z = zw.size() == 1 ? const_i32(c, zwq, {1}) : const_i32(c, zwq, {1, oc, 1, 1});
  return c.e.emit(op::sub, {y, c.e.emit(op::mul, {sx, z})});
}

}  // namespace mlvm
