// The integer convolutions and matrix products: ConvInteger and MatMulInteger (an i32 result
// of the inputs minus their zero points), QLinearConv and QLinearMatMul (that i32 accumulator
// requantized as ONNX Runtime does: round half to even of acc · (x_scale · w_scale / y_scale)
// in f32, plus y_zero_point, saturated to u8 or i8). The u8/i8 operands minus their zero points
// are i16, which mlvm's conv2d and matmul multiply into an i32 accumulator. Zero points and
// scales may be run-time values; a weight's may be per output channel (a 1-D input), a
// MatMul's per row of A and per column of B.
#include <onnx/onnx_pb.h>

#include "onnx/lower_nn_util.hpp"

namespace mlvm::nn {

namespace {

void require_8bit(NodeContext& c, Val v, const char* what) {
  DType dt = c.e.dtype(v);
  if (dt != DType::u8 && dt != DType::i8)
    c.fail(std::string(what) + " must be uint8 or int8, got " + std::string(dtype_name(dt)));
}

// A per-tensor (one element) or per-`axis` (1-D) parameter, shaped to broadcast against a
// value of `rank` dims along `axis` (axis -1: the last dim).
Val along(NodeContext& c, Val p, int axis, int rank, const char* what) {
  p = c.e.with_scalar(p, false);
  const Dims& d = c.e.dims(p);
  if (d.size() != 1) c.fail(std::string(what) + " must be a scalar or 1-D");
  if (d[0] == 1 || axis == rank - 1 || axis == -1) return p;
  std::vector<int64_t> shape(std::size_t(rank - axis), 1);
  shape[0] = d[0];
  return reshape(c, p, shape);
}

Val as(NodeContext& c, Val v, DType dt) {
  return c.e.dtype(v) == dt ? v : c.e.emit("cast", {v}, {attr_dt("dtype", dt)});
}

// v - zero_point as i16 (zp shaped by `along` already, or absent).
Val centered(NodeContext& c, Val v, Val zp) {
  Val v16 = as(c, c.e.with_scalar(v, false), DType::i16);
  if (!zp.present()) return v16;
  return c.e.emit("sub", {v16, as(c, zp, DType::i16)});
}

// round(acc · multiplier) + zero_point, saturated to the 8-bit dtype `out`.
Val requantize(NodeContext& c, Val acc, Val multiplier, Val zp, DType out) {
  Val y = c.e.emit("round", {c.e.emit("mul", {as(c, acc, DType::f32), multiplier})});
  if (zp.present()) y = c.e.emit("add", {y, as(c, zp, DType::f32)});
  const bool u8 = out == DType::u8;
  y = c.e.emit("clip", {y}, {attr_f("a_min", u8 ? 0 : -128), attr_f("a_max", u8 ? 255 : 127)});
  return as(c, y, out);
}

Val f32_param(NodeContext& c, Val v) { return as(c, c.e.with_scalar(v, false), DType::f32); }

std::vector<Val> lower_conv_integer(NodeContext& c) {
  Val x = c.input(0), w = c.input(1);
  require_8bit(c, x, "x");
  require_8bit(c, w, "w");
  const int wr = c.e.rank(w);
  Val xc = centered(c, x, c.input(2).present() ? along(c, c.input(2), 0, 1, "x_zero_point") : Val{});
  Val wc = centered(c, w, c.input(3).present() ? along(c, c.input(3), 0, wr, "w_zero_point") : Val{});
  return one(conv(c, xc, wc, Val{}));
}

std::vector<Val> lower_qlinear_conv(NodeContext& c) {
  Val x = c.input(0), w = c.input(3), b = c.input(8);
  require_8bit(c, x, "x");
  require_8bit(c, w, "w");
  const int wr = c.e.rank(w);
  Val xc = centered(c, x, c.input(2).present() ? along(c, c.input(2), 0, 1, "x_zero_point") : Val{});
  Val wc = centered(c, w, c.input(5).present() ? along(c, c.input(5), 0, wr, "w_zero_point") : Val{});
  if (b.present() && c.e.dtype(b) != DType::i32) c.fail("B must be int32");
  Val acc = conv(c, xc, wc, b);  // (N, M, spatial...) i32
  // x_scale · w_scale (per output channel: (M, 1, ...)) / y_scale.
  Val m = c.e.emit("div", {c.e.emit("mul", {f32_param(c, c.input(1)), along(c, f32_param(c, c.input(4)), 0, wr - 1, "w_scale")}),
                           f32_param(c, c.input(6))});
  Val yzp = c.input(7);
  const DType out = yzp.present() ? c.e.dtype(yzp) : c.e.dtype(x);
  return one(requantize(c, acc, m, yzp.present() ? c.e.with_scalar(yzp, false) : Val{}, out));
}

// A's zero point or scale per row (M) is (M, 1); B's per column (N) broadcasts as it is.
Val row_param(NodeContext& c, Val p, Val a, const char* what) {
  p = c.e.with_scalar(p, false);
  if (c.e.dims(p).size() != 1) c.fail(std::string(what) + " must be a scalar or 1-D");
  if (c.e.dims(p)[0] == 1 || c.e.rank(a) < 2) return p;
  return reshape(c, p, {c.e.dims(p)[0], 1});
}

std::vector<Val> lower_matmul_integer(NodeContext& c) {
  Val a = c.input(0), b = c.input(1);
  require_8bit(c, a, "A");
  require_8bit(c, b, "B");
  Val ac = centered(c, a, c.input(2).present() ? row_param(c, c.input(2), a, "a_zero_point") : Val{});
  Val bc = centered(c, b, c.input(3).present() ? c.e.with_scalar(c.input(3), false) : Val{});
  Val y = c.e.emit("matmul", {ac, bc});
  c.e.set_scalar(y, c.e.rank(a) == 1 && c.e.rank(b) == 1);
  return one(y);
}

std::vector<Val> lower_qlinear_matmul(NodeContext& c) {
  Val a = c.input(0), b = c.input(3);
  require_8bit(c, a, "a");
  require_8bit(c, b, "b");
  Val ac = centered(c, a, c.input(2).present() ? row_param(c, c.input(2), a, "a_zero_point") : Val{});
  Val bc = centered(c, b, c.input(5).present() ? c.e.with_scalar(c.input(5), false) : Val{});
  Val acc = c.e.emit("matmul", {ac, bc});
  Val m = c.e.emit("div", {c.e.emit("mul", {as(c, row_param(c, c.input(1), a, "a_scale"), DType::f32),
                                            f32_param(c, c.input(4))}),
                           f32_param(c, c.input(6))});
  Val yzp = c.input(7);
  const DType out = yzp.present() ? c.e.dtype(yzp) : c.e.dtype(a);
  return one(requantize(c, acc, m, yzp.present() ? c.e.with_scalar(yzp, false) : Val{}, out));
}

constexpr LoweringEntry kTable[] = {
    {"ConvInteger", 10, lower_conv_integer},
    {"MatMulInteger", 10, lower_matmul_integer},
    {"QLinearConv", 10, lower_qlinear_conv},
    {"QLinearMatMul", 10, lower_qlinear_matmul},
};

}  // namespace

std::span<const LoweringEntry> quant_table() { return kTable; }

}  // namespace mlvm::nn
