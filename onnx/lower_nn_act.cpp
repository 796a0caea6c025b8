// Activations and small unary maps, decomposed into existing elementwise ops until native
// ones exist: PRelu, LeakyRelu, Elu, Selu, Celu, HardSigmoid, HardSwish, Softplus, Softsign,
// ThresholdedRelu, Reciprocal, Ceil.
#include <onnx/onnx_pb.h>

#include "onnx/lower_nn_util.hpp"

namespace mlvm::nn {

namespace {

Val x_float(NodeContext& c) {
  Val x = c.input(0);
  require_float(c, x);
  return x;
}

Val where_negative(NodeContext& c, Val x, Val neg) {
  return ew(c, "where", {ew(c, "less", {x, num(c, x, 0.0)}), neg, x});
}

// slope * x where x < 0. The slope broadcasts to x (opset 7+); before opset 7 a 1-D slope of C
// entries was per channel of an (N, C, ...) input.
std::vector<Val> lower_prelu(NodeContext& c) {
  Val x = x_float(c), slope = c.input(1);
  std::vector<int64_t> xd = onnx_dims(c, x), sd = onnx_dims(c, slope);
  if (c.original_opset > 0 && c.original_opset < 7 && sd.size() == 1 && xd.size() > 2 &&
      sd[0] != 1 && sd[0] == xd[1])
    slope = per_channel(c, slope, int(xd.size()));
  if (c.e.dtype(slope) != c.e.dtype(x)) c.fail("slope's dtype differs from X's");
  Val y = where_negative(c, x, ew(c, "mul", {x, slope}));
  c.e.set_scalar(y, c.e.scalar(x));
  return one(y);
}

std::vector<Val> lower_leaky_relu(NodeContext& c) {
  Val x = x_float(c);
  return one(where_negative(c, x, ew(c, "mul", {x, num(c, x, c.attr_float("alpha", 0.01))})));
}

// alpha * (exp(x) - 1) where x < 0, else x.
std::vector<Val> lower_elu(NodeContext& c) {
  Val x = x_float(c);
  Val em1 = ew(c, "sub", {ew(c, "exp", {x}), num(c, x, 1.0)});
  return one(where_negative(c, x, ew(c, "mul", {em1, num(c, x, c.attr_float("alpha", 1.0))})));
}

// gamma * (x > 0 ? x : alpha * (exp(x) - 1)).
std::vector<Val> lower_selu(NodeContext& c) {
  Val x = x_float(c);
  const double alpha = c.attr_float("alpha", 1.67326319217681884765625);
  const double gamma = c.attr_float("gamma", 1.05070102214813232421875);
  Val em1 = ew(c, "sub", {ew(c, "exp", {x}), num(c, x, 1.0)});
  Val y = ew(c, "where", {ew(c, "greater", {x, num(c, x, 0.0)}), x, ew(c, "mul", {em1, num(c, x, alpha)})});
  return one(ew(c, "mul", {y, num(c, x, gamma)}));
}

// max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
std::vector<Val> lower_celu(NodeContext& c) {
  Val x = x_float(c);
  const double alpha = c.attr_float("alpha", 1.0);
  if (alpha == 0.0) c.fail("alpha=0 is not supported (division by zero)");
  Val em1 = ew(c, "sub", {ew(c, "exp", {ew(c, "div", {x, num(c, x, alpha)})}), num(c, x, 1.0)});
  Val neg = ew(c, "minimum", {ew(c, "mul", {em1, num(c, x, alpha)}), num(c, x, 0.0)});
  return one(ew(c, "add", {ew(c, "maximum", {x, num(c, x, 0.0)}), neg}));
}

Val clip01(NodeContext& c, Val v) {
  return ew(c, "clip", {v}, {{"a_min", AttrValue::floating(0.0)}, {"a_max", AttrValue::floating(1.0)}});
}

// max(0, min(1, alpha * x + beta)).
std::vector<Val> lower_hard_sigmoid(NodeContext& c) {
  Val x = x_float(c);
  Val lin = ew(c, "add", {ew(c, "mul", {x, num(c, x, c.attr_float("alpha", 0.2))}),
                          num(c, x, c.attr_float("beta", 0.5))});
  return one(clip01(c, lin));
}

// x * max(0, min(1, x / 6 + 1 / 2)).
std::vector<Val> lower_hard_swish(NodeContext& c) {
  Val x = x_float(c);
  Val lin = ew(c, "add", {ew(c, "mul", {x, num(c, x, 1.0 / 6.0)}), num(c, x, 0.5)});
  return one(ew(c, "mul", {x, clip01(c, lin)}));
}

// log(1 + exp(x)) as max(x, 0) + log(1 + exp(-|x|)), which does not overflow.
std::vector<Val> lower_softplus(NodeContext& c) {
  Val x = x_float(c);
  Val e = ew(c, "exp", {ew(c, "negative", {ew(c, "abs", {x})})});
  Val l = ew(c, "log", {ew(c, "add", {e, num(c, x, 1.0)})});
  return one(ew(c, "add", {ew(c, "maximum", {x, num(c, x, 0.0)}), l}));
}

// x / (1 + |x|).
std::vector<Val> lower_softsign(NodeContext& c) {
  Val x = x_float(c);
  return one(ew(c, "div", {x, ew(c, "add", {ew(c, "abs", {x}), num(c, x, 1.0)})}));
}

// x where x > alpha, else 0.
std::vector<Val> lower_thresholded_relu(NodeContext& c) {
  Val x = x_float(c);
  Val keep = ew(c, "greater", {x, num(c, x, c.attr_float("alpha", 1.0))});
  return one(ew(c, "where", {keep, x, num(c, x, 0.0)}));
}

std::vector<Val> lower_reciprocal(NodeContext& c) {
  Val x = x_float(c);
  return one(ew(c, "div", {num(c, x, 1.0), x}));
}

// -floor(-x).
std::vector<Val> lower_ceil(NodeContext& c) {
  Val x = x_float(c);
  return one(ew(c, "negative", {ew(c, "floor", {ew(c, "negative", {x})})}));
}

constexpr LoweringEntry kTable[] = {
    {"PRelu", 1, lower_prelu},
    {"LeakyRelu", 1, lower_leaky_relu},
    {"Elu", 1, lower_elu},
    {"Selu", 1, lower_selu},
    {"Celu", 12, lower_celu},
    {"HardSigmoid", 1, lower_hard_sigmoid},
    {"HardSwish", 14, lower_hard_swish},
    {"Softplus", 1, lower_softplus},
    {"Softsign", 1, lower_softsign},
    {"ThresholdedRelu", 10, lower_thresholded_relu},
    {"Reciprocal", 1, lower_reciprocal},
    {"Ceil", 1, lower_ceil},
};

}  // namespace

std::span<const LoweringEntry> activation_table() { return kTable; }

}  // namespace mlvm::nn
