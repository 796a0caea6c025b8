// Elementwise ONNX ops: unary maps, broadcasting binaries, comparisons and logic, Cast, Clip,
// Where, the variadic Max/Min/Sum/Mean, and the pass-throughs (Identity, inference Dropout).
#include <onnx/onnx_pb.h>

#include <limits>

#include "onnx/lower_nn_util.hpp"
#include "onnx/lowering.hpp"
#include "onnx/tensor_proto.hpp"
#include "tensor/error.hpp"

namespace mlvm {

namespace {

template <Opcode Op>
std::vector<Val> unary(NodeContext& c) {
  return one(ew(c, Op, {c.input(0)}));
}
template <Opcode Op>
std::vector<Val> binary(NodeContext& c) {
  if (c.num_inputs() != 2) c.fail("expects 2 inputs");
  return one(ew(c, Op, {c.input(0), c.input(1)}));
}
// Add, Sub and Mul by a constant that the Conv or Gemm before them took into its weights and
// bias (onnx/lower_nn_fold.cpp) pass its result through.
template <Opcode Op>
std::vector<Val> binary_or_folded(NodeContext& c) {
  if (std::optional<Val> v = nn::folded_into_producer(c)) return {*v};
  return binary<Op>(c);
}


std::vector<Val> lower_xor(NodeContext& c) {
  return one(ew(c, op::logical_xor, {c.input(0), c.input(1)}));
}

std::vector<Val> lower_where(NodeContext& c) {
  return one(ew(c, op::where, {c.input(0), c.input(1), c.input(2)}));
}

std::vector<Val> pass_through(NodeContext& c) {
  std::vector<Val> out{c.input(0)};
  // Dropout in training mode (opset 12: a training_mode input) drops at random unless its
  // ratio is 0: then it is the identity too, as in inference. A random one is refused rather
  // than run as the identity.
  // Fed as graph inputs, training_mode and ratio are read per run (docs/onnx.md, "Values a node
  // needs at import").
  if (c.node.op_type() == "Dropout" && c.opset >= 12 && c.input(2).present() &&
      c.e.ints(c.input(2), "Dropout's training_mode")[0] != 0) {
    const double ratio = c.input(1).present() ? c.e.doubles(c.input(1), "Dropout's ratio")[0] : 0.5;
    if (ratio != 0.0)
      c.fail("training mode Dropout with ratio " + std::to_string(ratio) +
             " drops at random: not supported (inference, or training mode at ratio 0)");
  }
  // Dropout's mask in inference mode (or at ratio 0): all true.
  if (c.node.op_type() == "Dropout" && c.output_wanted(1)) {
    Val mask = c.e.emit(op::ones_like, {c.input(0)}, {.dtype = DType::boolean});
    c.e.set_scalar(mask, c.e.scalar(c.input(0)));
    out.push_back(mask);
  }
  return out;
}

std::vector<Val> lower_cast(NodeContext& c) {
  int64_t to = c.attr_int("to", -1);
  auto dt = dtype_from_onnx(int32_t(to));
  if (!dt) c.fail("cast to " + onnx_dtype_name(int32_t(to)) + " is not supported by mlvm");
  if (c.e.dtype(c.input(0)) == *dt) return {c.input(0)};
  return one(ew(c, op::cast, {c.input(0)}, {.dtype = *dt}));
}

std::vector<Val> lower_cast_like(NodeContext& c) {
  DType dt = c.e.dtype(c.input(1));
  if (c.e.dtype(c.input(0)) == dt) return {c.input(0)};
  return one(ew(c, op::cast, {c.input(0)}, {.dtype = dt}));
}

// A bound as a number of x's kind.
Scalar bound_value(DType dt, double v) {
  return is_float(dt) ? Scalar::from_float(v) : Scalar::from_int(int64_t(v));
}

std::vector<Val> lower_clip(NodeContext& c) {
  Val x = c.input(0);
  DType dt = c.e.dtype(x);
  const double lo_default = is_float(dt) ? -std::numeric_limits<double>::infinity()
                                         : double(std::numeric_limits<int64_t>::lowest());
  const double hi_default = is_float(dt) ? std::numeric_limits<double>::infinity()
                                         : double(std::numeric_limits<int64_t>::max());
  if (c.opset < 11) {
    double lo = c.attr_float("min", -3.4028234663852886e38);
    double hi = c.attr_float("max", 3.4028234663852886e38);
    if (lo > hi) {
      Val m = ew(c, op::maximum, {x, c.e.scalar_const(dt, lo)});
      return one(ew(c, op::minimum, {m, c.e.scalar_const(dt, hi)}));
    }
    return one(ew(c, op::clip, {x}, {.a_min = bound_value(dt, lo), .a_max = bound_value(dt, hi)}));
  }
  Val lo = c.input(1), hi = c.input(2);
  bool lo_known = !lo.present() || c.e.is_const(lo);
  bool hi_known = !hi.present() || c.e.is_const(hi);
  if (lo_known && hi_known && is_float(dt)) {
    double l = lo.present() ? c.e.doubles(lo, "min")[0] : lo_default;
    double h = hi.present() ? c.e.doubles(hi, "max")[0] : hi_default;
    if (l <= h)
      return one(ew(c, op::clip, {x}, {.a_min = bound_value(dt, l), .a_max = bound_value(dt, h)}));
  }
  if (lo_known && hi_known && !is_float(dt) && (lo.present() || hi.present())) {
    std::vector<int64_t> l = lo.present() ? c.e.ints(lo, "min") : std::vector<int64_t>{};
    std::vector<int64_t> h = hi.present() ? c.e.ints(hi, "max") : std::vector<int64_t>{};
    if (lo.present() && hi.present() && l[0] <= h[0])
      return one(ew(c, op::clip, {x}, {.a_min = l[0], .a_max = h[0]}));
  }
  // min(max(x, lo), hi): also right when lo > hi (every value becomes hi, as ONNX says).
  Val r = x;
  if (lo.present()) r = ew(c, op::maximum, {r, lo});
  if (hi.present()) r = ew(c, op::minimum, {r, hi});
  c.e.set_scalar(r, c.e.scalar(x));
  return {r};
}

// Max, Min, Sum, Mean: a fold of the binary op over every input (opset 8+ broadcasts).
std::vector<Val> variadic(NodeContext& c) {
  const std::string& t = c.node.op_type();
  const Opcode op = t == "Max" ? Opcode::maximum : t == "Min" ? Opcode::minimum : Opcode::add;
  if (c.num_inputs() < 1) c.fail("expects at least one input");
  Val r = c.input(0);
  for (int k = 1; k < c.num_inputs(); ++k) r = ew(c, op, {r, c.input(k)});
  if (t == "Mean" && c.num_inputs() > 1) {
    if (!is_float(c.e.dtype(r))) c.fail("Mean of integers is not supported");
    r = ew(c, op::div, {r, c.e.scalar_const(c.e.dtype(r), double(c.num_inputs()))});
  }
  return {r};
}

constexpr LoweringEntry kTable[] = {
    {"Abs", 1, unary<Opcode::abs>},
    {"Neg", 1, unary<Opcode::negative>},
    {"Relu", 1, unary<Opcode::relu>},
    {"Sign", 9, unary<Opcode::sign>},
    {"Exp", 1, unary<Opcode::exp>},
    {"Log", 1, unary<Opcode::log>},
    {"Sqrt", 1, unary<Opcode::sqrt>},
    {"Tanh", 1, unary<Opcode::tanh>},
    {"Sigmoid", 1, unary<Opcode::sigmoid>},
    {"Floor", 1, unary<Opcode::floor>},
    {"Not", 1, unary<Opcode::logical_not>},
    {"Add", 7, binary_or_folded<Opcode::add>},
    {"Sub", 7, binary_or_folded<Opcode::sub>},
    {"Mul", 7, binary_or_folded<Opcode::mul>},
    {"Div", 7, binary<Opcode::div>},
    {"Equal", 7, binary<Opcode::equal>},
    {"Less", 7, binary<Opcode::less>},
    {"LessOrEqual", 12, binary<Opcode::less_equal>},
    {"Greater", 7, binary<Opcode::greater>},
    {"GreaterOrEqual", 12, binary<Opcode::greater_equal>},
    {"And", 7, binary<Opcode::logical_and>},
    {"Or", 7, binary<Opcode::logical_or>},
    {"Xor", 7, lower_xor},
    {"Where", 9, lower_where},
    {"Identity", 1, pass_through},
    {"Dropout", 1, pass_through},
    {"Cast", 6, lower_cast},
    {"CastLike", 15, lower_cast_like},
    {"Clip", 6, lower_clip},
    {"Max", 8, variadic},
    {"Min", 8, variadic},
    {"Sum", 8, variadic},
    {"Mean", 8, variadic},
};

}  // namespace

std::span<const LoweringEntry> elementwise_lowerings() { return kTable; }

}  // namespace mlvm
