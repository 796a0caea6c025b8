// Quantized ONNX ops on mlvm's integer path: QuantizeLinear, DequantizeLinear,
// DynamicQuantizeLinear, MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv. Products
// accumulate exactly in i32 (u8/i8 operands minus their zero points, in i16); requantization scales
// the i32 accumulator in f32 and rounds half to even (std::nearbyint, as ONNX Runtime does),
// then adds the zero point and saturates to the output type.
#include <onnx/onnx_pb.h>

#include "onnx/lower_nn_util.hpp"
#include "onnx/tensor_proto.hpp"

namespace mlvm {

std::span<const LoweringEntry> nn_lowerings();
std::optional<Val> conv_integer_8bit(NodeContext& c, Val x, Val x_zp, Val w, Val w_zp, Val bias);  // lower_quant_conv.cpp

namespace {


Val cast(NodeContext& c, Val v, DType dt) {
  if (c.e.dtype(v) == dt) return v;
  return c.e.with_scalar(c.e.emit(op::cast, {v}, {.dtype = dt}), c.e.scalar(v));
}

// A per-tensor (one element) or per-axis (1-D, along `axis` of a rank-`rank` tensor) parameter,
// shaped to broadcast against that tensor.
Val along(NodeContext& c, Val p, int axis, int rank) {
  if (c.e.type(p).dims.size() == 1 && c.e.dims(p)[0] == 1) return p;
  if (c.e.rank(p) != 1) c.fail("a scale or zero point must be a scalar or 1-D");
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) c.fail("axis out of range for rank " + std::to_string(rank));
  std::vector<int64_t> shape(std::size_t(rank), 1);
  shape[std::size_t(axis)] = c.e.dims(p)[0];
  return c.e.emit(op::reshape, {p}, {.shape = shape});
}

// A scale or zero point of QuantizeLinear/DequantizeLinear shaped against x: per tensor, per
// axis, or (opset 21's block_size) one per block of block_size elements along `axis`, each
// repeated over its block.
Val quant_param(NodeContext& c, Val p, Val x, int axis) {
  const int r = c.e.rank(x);
  const int64_t block = c.opset >= 21 ? c.attr_int("block_size", 0) : 0;
  if (block < 0) c.fail("block_size=" + std::to_string(block) + " is not supported");
  if (block == 0 || !p.present()) return p.present() ? along(c, p, axis, r) : p;
  if (c.e.rank(p) != r) c.fail("block-wise scale and zero point must have x's rank");
  const int64_t a = c.axis(axis, r);
  const int64_t n = nn::static_dim(c, x, int(a), "block-wise quantization");
  const int64_t blocks = c.e.dims(p)[std::size_t(a)];
  if (blocks != (n + block - 1) / block)
    c.fail("block-wise scale and zero point have " + std::to_string(blocks) +
           " blocks along axis " + std::to_string(a) + ", not ceil(" + std::to_string(n) + " / " +
           std::to_string(block) + ")");
  for (int k = 0; k < r; ++k)
    if (k != a && c.e.dims(p)[std::size_t(k)] != c.e.dims(x)[std::size_t(k)] &&
        c.e.dims(x)[std::size_t(k)] != kDynamic)
      c.fail("block-wise scale and zero point must have x's dims but along the axis");
  Val rep = c.e.emit(op::repeat, {c.e.with_scalar(p, false)}, {.repeats = block, .axis = a});
  return c.e.emit(op::strided_slice, {rep}, {.begin = {0}, .end = {n}, .axes = {a}});
}

// saturate(round(v) + zp) in `dt` (u8, i8 or i16); v is f32. The cast saturates to dt's range
// itself (docs/ops.md, cast; NaN -> 0, as a clip passing NaN and then the cast gave), so no
// clip pass goes before it.
Val requantize(NodeContext& c, Val v, Val zp, DType dt) {
  Val r = c.e.emit(op::round, {v});
  if (zp.present()) r = c.e.emit(op::add, {r, cast(c, zp, DType::f32)});
  return c.e.emit(op::cast, {r}, {.dtype = dt});
}

DType quant_type(NodeContext& c, Val zp) {
  DType dt = zp.present() ? c.e.dtype(zp) : DType::u8;
  // Opset 21's output_dtype, when no zero point gives the type.
  if (!zp.present() && c.opset >= 21 && c.attr_int("output_dtype", 0) != 0) {
    const int32_t code = int32_t(c.attr_int("output_dtype", 0));
    auto given = dtype_from_onnx(code);
    if (!given)
      c.fail("output_dtype " + onnx_dtype_name(code) + " is not supported (u8, i8 or i16)");
    dt = *given;
  }
  // i16 from opset 21 (u16, int4 and float8 are not mlvm dtypes).
  if (dt != DType::u8 && dt != DType::i8 && (dt != DType::i16 || c.opset < 21))
    c.fail("zero point of dtype " + std::string(dtype_name(dt)) +
           " (u8 or i8 expected; i16 from opset 21)");
  return dt;
}

std::vector<Val> lower_quantize(NodeContext& c) {
  Val x = c.input(0), zp = c.input(2);
  int axis = int(c.attr_int("axis", 1));
  Val xs = cast(c, x, DType::f32);
  Val scaled = c.e.emit(op::div, {xs, quant_param(c, c.input(1), x, axis)});
  Val y = requantize(c, scaled, quant_param(c, zp, x, axis), quant_type(c, zp));
  return one(c.e.with_scalar(y, c.e.scalar(x)));
}

std::vector<Val> lower_dequantize(NodeContext& c) {
  Val x = c.input(0), zp = c.input(2);
  int axis = int(c.attr_int("axis", 1));
  Val xf = cast(c, x, DType::f32);
  if (zp.present()) xf = c.e.emit(op::sub, {xf, cast(c, quant_param(c, zp, x, axis), DType::f32)});
  Val y = c.e.emit(op::mul, {xf, quant_param(c, c.input(1), x, axis)});
  return one(c.e.with_scalar(y, c.e.scalar(x)));
}

// ONNX's DynamicQuantizeLinear: u8 with scale = (max(x, 0) - min(x, 0)) / 255 and zero point
// saturate(round(-min / scale)). An all-zero x (max = min = 0) gets scale 1, as in ONNX Runtime,
// where 0 / 0 would make every output NaN cast to u8.
std::vector<Val> lower_dynamic_quantize(NodeContext& c) {
  Val x = cast(c, c.input(0), DType::f32);
  Val zero = c.e.scalar_const(DType::f32, 0.0);
  Val mx = c.e.emit(op::maximum, {c.e.emit(op::max, {x}), zero});
  Val mn = c.e.emit(op::minimum, {c.e.emit(op::min, {x}), zero});
  Val range = c.e.emit(op::div, {c.e.emit(op::sub, {mx, mn}), c.e.scalar_const(DType::f32, 255.0)});
  Val scale = c.e.emit(op::where, {c.e.emit(op::equal, {mx, mn}), c.e.scalar_const(DType::f32, 1.0), range});
  Val zp_f = c.e.emit(
      op::clip, {c.e.emit(op::round, {c.e.emit(op::div, {c.e.emit(op::negative, {mn}), scale})})},
      {.a_min = 0.0, .a_max = 255.0});
  Val zp = c.e.emit(op::cast, {zp_f}, {.dtype = DType::u8});
  Val y = requantize(c, c.e.emit(op::div, {x, scale}), zp, DType::u8);
  return {y, c.e.with_scalar(scale, true), c.e.with_scalar(zp, true)};
}

// x - zp in i16 (zp per tensor, or per row of a's rows / b's columns as ONNX allows): u8 or
// i8 less a zero point of its type lies in [-255, 255], and the GEMM on i16 runs the level's
// i16-pair kernel (vpmaddwd, vpdpwssd), exact, at twice the multiply-adds per instruction of
// the i32 one and half its bytes.
Val centered(NodeContext& c, Val x, Val zp, int zp_axis) {
  Val xi = cast(c, x, DType::i16);
  if (!zp.present()) return xi;
  Val z = cast(c, zp, DType::i16);
  if (c.e.rank(zp) == 1 && c.e.dims(zp)[0] != 1 && zp_axis >= 0)
    z = along(c, z, zp_axis, c.e.rank(x));
  return c.e.emit(op::sub, {xi, z});
}

Val integer_matmul(NodeContext& c, Val a, Val a_zp, Val b, Val b_zp) {
  int ra = c.e.rank(a), rb = c.e.rank(b);
  return c.e.emit(op::matmul, {centered(c, a, a_zp, ra - 2), centered(c, b, b_zp, rb - 1)});
}

// The Conv lowering (auto_pad, pads, strides, dilations, group) on i16 operands.
// (Or, where it applies, on the 8-bit operands themselves: lower_quant_conv.cpp.)
Val integer_conv(NodeContext& c, Val x, Val x_zp, Val w, Val w_zp, Val bias) {
  if (std::optional<Val> y = conv_integer_8bit(c, x, x_zp, w, w_zp, bias)) return *y;
  std::vector<Val> in{centered(c, x, x_zp, -1), centered(c, w, w_zp, 0)};
  if (bias.present()) in.push_back(bias);
  NodeContext conv(c.node, c.opset, c.e, in, "", nullptr);
  for (const LoweringEntry& e : nn_lowerings())
    if (std::string(e.op_type) == "Conv") return e.fn(conv)[0];
  c.fail("internal: no Conv lowering");
}

std::vector<Val> lower_matmul_integer(NodeContext& c) {
  return one(integer_matmul(c, c.input(0), c.input(2), c.input(1), c.input(3)));
}

std::vector<Val> lower_conv_integer(NodeContext& c) {
  return one(integer_conv(c, c.input(0), c.input(2), c.input(1), c.input(3), Val{}));
}

std::vector<Val> lower_qlinear_matmul(NodeContext& c) {
  Val acc = integer_matmul(c, c.input(0), c.input(2), c.input(3), c.input(5));
  Val scale = c.e.emit(op::div, {c.e.emit(op::mul, {c.input(1), c.input(4)}), c.input(6)});
  if (c.e.rank(scale) == 1 && c.e.dims(scale)[0] != 1) scale = along(c, scale, c.e.rank(acc) - 1, c.e.rank(acc));
  Val v = c.e.emit(op::mul, {cast(c, acc, DType::f32), scale});
  return one(requantize(c, v, c.input(7), quant_type(c, c.input(7))));
}

std::vector<Val> lower_qlinear_conv(NodeContext& c) {
  Val acc = integer_conv(c, c.input(0), c.input(2), c.input(3), c.input(5), c.input(8));
  Val ws = c.input(4);
  Val scale = c.e.emit(op::div, {c.e.emit(op::mul, {c.input(1), ws}), c.input(6)});
  if (c.e.rank(scale) == 1 && c.e.dims(scale)[0] != 1) scale = along(c, scale, 1, c.e.rank(acc));
  Val v = c.e.emit(op::mul, {cast(c, acc, DType::f32), scale});
  return one(requantize(c, v, c.input(7), quant_type(c, c.input(7))));
}

constexpr LoweringEntry kTable[] = {
    {"QuantizeLinear", 10, lower_quantize},
    {"DequantizeLinear", 10, lower_dequantize},
    {"DynamicQuantizeLinear", 11, lower_dynamic_quantize},
    {"MatMulInteger", 10, lower_matmul_integer},
    {"ConvInteger", 10, lower_conv_integer},
    {"QLinearMatMul", 10, lower_qlinear_matmul},
    {"QLinearConv", 10, lower_qlinear_conv},
};

}  // namespace

std::span<const LoweringEntry> quant_lowerings() { return kTable; }

}  // namespace mlvm
