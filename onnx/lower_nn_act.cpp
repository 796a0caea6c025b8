// Elementwise math and activations onto mlvm's native ops (docs/ops.md §8b, §9b): the trig
// and hyperbolic functions, Ceil, Round, Reciprocal, Erf, IsNaN, IsInf, the activations with
// their ONNX attributes, Pow, Mod, PRelu, the bitwise ops and BitShift.
#include <onnx/onnx_pb.h>

#include "onnx/lower_nn_util.hpp"

namespace mlvm::nn {

namespace {

// Ops whose only difference from ONNX is the name.
struct Simple {
  const char* onnx;
  Opcode mlvm;
};
constexpr Simple kSimple[] = {
    {"Ceil", Opcode::ceil},
    {"Round", Opcode::round},
    {"Reciprocal", Opcode::reciprocal},
    {"Erf", Opcode::erf},
    {"Sin", Opcode::sin},
    {"Cos", Opcode::cos},
    {"Tan", Opcode::tan},
    {"Asin", Opcode::asin},
    {"Acos", Opcode::acos},
    {"Atan", Opcode::atan},
    {"Sinh", Opcode::sinh},
    {"Cosh", Opcode::cosh},
    {"Asinh", Opcode::asinh},
    {"Acosh", Opcode::acosh},
    {"Atanh", Opcode::atanh},
    {"Softplus", Opcode::softplus},
    {"Softsign", Opcode::softsign},
    {"IsNaN", Opcode::isnan},
    {"HardSwish", Opcode::hard_swish},
    {"BitwiseNot", Opcode::bitwise_not},
    {"BitwiseAnd", Opcode::bitwise_and},
    {"BitwiseOr", Opcode::bitwise_or},
    {"BitwiseXor", Opcode::bitwise_xor},
    {"Pow", Opcode::pow},
};

std::vector<Val> lower_simple(NodeContext& c) {
  for (const Simple& s : kSimple)
    if (c.node.op_type() == s.onnx) {
      std::vector<Val> args;
      for (Val v : c.in)
        if (v.present()) args.push_back(v);
      Val y = ew(c, s.mlvm, args);
      // Pow's result has the base's rank (a scalar exponent does not make it a scalar).
      if (c.node.op_type() == "Pow") c.e.set_scalar(y, c.e.scalar(args[0]) && c.e.scalar(args[1]));
      return one(y);
    }
  c.fail("internal: no mapping");
}

// An activation with float attributes (ONNX name -> mlvm attribute, default).
std::vector<Val> lower_activation(NodeContext& c) {
  const std::string& t = c.node.op_type();
  Val x = c.input(0);
  // The ONNX attribute `name` (its default `dflt`), a float.
  auto f = [&](const char* name, double dflt) { return c.attr_float(name, dflt); };
  if (t == "LeakyRelu") return one(ew(c, op::leaky_relu, {x}, {.alpha = f("alpha", 0.01)}));
  if (t == "Elu") return one(ew(c, op::elu, {x}, {.alpha = f("alpha", 1.0)}));
  if (t == "Selu")
    return one(ew(c, op::selu, {x},
                  {.alpha = f("alpha", 1.67326319217681884765625), .gamma = f("gamma", 1.05070102214813232421875)}));
  if (t == "Celu") return one(ew(c, op::celu, {x}, {.alpha = f("alpha", 1.0)}));
  if (t == "HardSigmoid")
    return one(ew(c, op::hard_sigmoid, {x}, {.alpha = f("alpha", 0.2), .beta = f("beta", 0.5)}));
  if (t == "ThresholdedRelu") return one(ew(c, op::thresholded_relu, {x}, {.alpha = f("alpha", 1.0)}));
  if (t == "Shrink") return one(ew(c, op::shrink, {x}, {.bias = f("bias", 0.0), .lambd = f("lambd", 0.5)}));
  if (t == "IsInf")
    return one(ew(c, op::isinf, {x},
                  {.detect_positive = c.attr_int("detect_positive", 1) != 0,
                   .detect_negative = c.attr_int("detect_negative", 1) != 0}));
  c.fail("internal: no mapping");
}

// The slope broadcasts to x (opset 7+); before opset 7 a 1-D slope of C entries was per
// channel of an (N, C, ...) input.
std::vector<Val> lower_prelu(NodeContext& c) {
  Val x = c.input(0), slope = c.input(1);
  std::vector<int64_t> xd = onnx_dims(c, x), sd = onnx_dims(c, slope);
  if (c.original_opset > 0 && c.original_opset < 7 && sd.size() == 1 && xd.size() > 2 &&
      sd[0] != 1 && sd[0] == xd[1])
    slope = per_channel(c, slope, int(xd.size()));
  Val y = ew(c, op::prelu, {x, slope});
  c.e.set_scalar(y, c.e.scalar(x));
  return one(y);
}

std::vector<Val> lower_mod(NodeContext& c) {
  return one(ew(c, op::mod, {c.input(0), c.input(1)}, {.fmod = c.attr_int("fmod", 0) != 0}));
}

std::vector<Val> lower_bit_shift(NodeContext& c) {
  const std::string dir = c.attr_string("direction", "");
  if (dir != "LEFT" && dir != "RIGHT") c.fail("direction '" + dir + "' (expected LEFT or RIGHT)");
  return one(ew(c, dir == "LEFT" ? Opcode::shift_left : Opcode::shift_right, {c.input(0), c.input(1)}));
}

constexpr LoweringEntry kTable[] = {
    {"Ceil", 1, lower_simple},        {"Round", 11, lower_simple},     {"Reciprocal", 1, lower_simple},
    {"Erf", 9, lower_simple},         {"Sin", 7, lower_simple},        {"Cos", 7, lower_simple},
    {"Tan", 7, lower_simple},         {"Asin", 7, lower_simple},       {"Acos", 7, lower_simple},
    {"Atan", 7, lower_simple},        {"Sinh", 9, lower_simple},       {"Cosh", 9, lower_simple},
    {"Asinh", 9, lower_simple},       {"Acosh", 9, lower_simple},      {"Atanh", 9, lower_simple},
    {"Softplus", 1, lower_simple},    {"Softsign", 1, lower_simple},   {"IsNaN", 9, lower_simple},
    {"HardSwish", 14, lower_simple},  {"BitwiseNot", 18, lower_simple}, {"BitwiseAnd", 18, lower_simple},
    {"BitwiseOr", 18, lower_simple},  {"BitwiseXor", 18, lower_simple}, {"Pow", 7, lower_simple},
    {"LeakyRelu", 1, lower_activation}, {"Elu", 1, lower_activation},  {"Selu", 1, lower_activation},
    {"Celu", 12, lower_activation},   {"HardSigmoid", 1, lower_activation},
    {"ThresholdedRelu", 10, lower_activation}, {"Shrink", 9, lower_activation},
    {"IsInf", 10, lower_activation},  {"PRelu", 1, lower_prelu},       {"Mod", 10, lower_mod},
    {"BitShift", 11, lower_bit_shift},
};

}  // namespace

std::span<const LoweringEntry> activation_table() { return kTable; }

}  // namespace mlvm::nn
