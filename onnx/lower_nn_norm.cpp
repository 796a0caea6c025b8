// Normalizations onto mlvm's native ops (docs/ops.md §11a): BatchNormalization (inference:
// folded into the Conv/Gemm before it when it can be (lower_nn_fold.cpp), else one per-channel
// scale and shift when the statistics are constants, else batch_norm), InstanceNormalization,
// LayerNormalization, MeanVarianceNormalization, LpNormalization and LRN.
#include <onnx/onnx_pb.h>

#include "onnx/lower_nn_util.hpp"
#include "onnx/tensor_proto.hpp"

namespace mlvm::nn {

namespace {

Val as_dtype(NodeContext& c, Val v, DType dt) {
  if (c.e.dtype(v) == dt) return v;
  return ew(c, op::cast, {v}, {.dtype = dt});
}

// training_mode=1 (opsets 14+): normalized with the batch's own statistics (the mean and
// biased variance over every dim but the channels); the other outputs are the running
// statistics input · momentum + batch statistic · (1 - momentum).
std::vector<Val> batch_norm_training(NodeContext& c) {
  Val x = c.input(0);
  const int r = c.e.rank(x);
  if (r < 2) c.fail("the input must have rank >= 2 (N, C, ...), got rank " + std::to_string(r));
  const DType dt = c.e.dtype(x);
  std::vector<int64_t> axes = {0};
  for (int k = 2; k < r; ++k) axes.push_back(k);
  Val m = reduce(c, Opcode::mean, x, axes, true);
  Val d = c.e.emit(op::sub, {x, m});
  Val var = reduce(c, Opcode::mean, c.e.emit(op::mul, {d, d}), axes, false);
  m = reduce(c, Opcode::mean, x, axes, false);
  Val scale = as_dtype(c, c.input(1), dt), bias = as_dtype(c, c.input(2), dt);
  Val y = c.e.emit(op::batch_norm, {x, scale, bias, m, var}, {.epsilon = c.attr_float("epsilon", 1e-5)});
  const double momentum = c.attr_float("momentum", 0.9);
  auto running = [&](Val old_stat, Val batch) {
    Val o = c.e.with_scalar(old_stat, false);
    return c.e.emit(
        op::add,
        {c.e.emit(op::mul, {o, num(c, o, momentum)}),
         c.e.emit(op::mul, {as_dtype(c, batch, c.e.dtype(o)), num(c, o, 1.0 - momentum)})});
  };
  return {y, running(c.input(3), m), running(c.input(4), var)};
}

// Inference: y = (x - mean) / sqrt(var + eps) * scale + bias per channel; with constant
// statistics y = x * k + shift, k = scale / sqrt(var + eps), shift = bias - mean * k.
std::vector<Val> lower_batch_norm(NodeContext& c) {
  // Folded into the Conv or Gemm that made x (lower_nn_fold.cpp): x is the result already.
  if (std::optional<Val> v = folded_into_producer(c)) return {*v};
  Val x = c.input(0);
  require_float(c, x);
  const int r = c.e.rank(x);
  if (r < 2) c.fail("the input must have rank >= 2 (N, C, ...), got rank " + std::to_string(r));
  if (c.num_inputs() < 5) c.fail("expects 5 inputs (X, scale, B, mean, var)");
  if (c.opset >= 14 && c.attr_int("training_mode", 0) != 0) return batch_norm_training(c);
  if (c.has_attr("is_test") && c.attr_int("is_test", 0) == 0 && c.num_outputs() > 1)
    c.fail("is_test=0 (training) is not supported (inference only)");
  for (int k = 1; k < c.num_outputs(); ++k)
    if (c.output_wanted(k))
      c.fail("output " + std::to_string(k) + " (training statistics) is not supported (inference only)");
  const DType dt = c.e.dtype(x);
  Val scale = as_dtype(c, c.input(1), dt), bias = as_dtype(c, c.input(2), dt);
  Val mean = as_dtype(c, c.input(3), dt), var = as_dtype(c, c.input(4), dt);
  const double eps = c.attr_float("epsilon", 1e-5);
  // spatial=0 (opsets 7-8): the statistics are per activation, shaped (C, D1, ...), and
  // broadcast against X as they are.
  const bool spatial = c.attr_int("spatial", 1) != 0;
  bool constant = true, per_channel_stats = true;
  for (Val v : {scale, bias, mean, var}) {
    if (!c.e.is_const(v)) constant = false;
    if (c.e.rank(v) != 1) per_channel_stats = false;
  }
  // Statistics known only at run time: the native op, one pass over x.
  if (!constant && per_channel_stats)
    return one(c.e.emit(op::batch_norm, {x, scale, bias, mean, var}, {.epsilon = eps}));
  // Constant statistics fold into one per-channel scale and shift: a multiply and an add.
  Val k = c.e.emit(op::div, {scale, c.e.emit(op::sqrt, {c.e.emit(op::add, {var, num(c, var, eps)})})});
  Val shift = c.e.emit(op::sub, {bias, c.e.emit(op::mul, {mean, k})});
  if (spatial || c.e.rank(k) == 1) {
    k = per_channel(c, k, r);
    shift = per_channel(c, shift, r);
  } else if (c.e.rank(k) != r - 1) {
    c.fail("spatial=0 needs statistics of rank " + std::to_string(r - 1));
  }
  return one(c.e.emit(op::add, {c.e.emit(op::mul, {x, k}), shift}));
}

// (x - mean) / sqrt(var + eps) over `axes` (keepdims), also returning mean and 1/sqrt(var+eps).
struct Normalized {
  Val y, mean, inv_std;
};
Normalized normalize(NodeContext& c, Val x, const std::vector<int64_t>& axes, double eps) {
  Val m = reduce(c, Opcode::mean, x, axes, true);
  Val d = c.e.emit(op::sub, {x, m});
  Val var = reduce(c, Opcode::mean, c.e.emit(op::mul, {d, d}), axes, true);
  Val inv = c.e.emit(op::div, {num(c, var, 1.0),
                             c.e.emit(op::sqrt, {c.e.emit(op::add, {var, num(c, var, eps)})})});
  return {c.e.emit(op::mul, {d, inv}), m, inv};
}

// The native instance_norm: mean and biased variance of each (n, c) plane over the spatial
// dims, y = (x - mean) / sqrt(var + epsilon) * scale[c] + bias[c].
std::vector<Val> lower_instance_norm(NodeContext& c) {
  Val x = c.input(0);
  require_float(c, x);
  const int r = c.e.rank(x);
  if (r < 2) c.fail("the input must have rank >= 2 (N, C, D...), got rank " + std::to_string(r));
  const DType dt = c.e.dtype(x);
  Val s = c.e.with_scalar(as_dtype(c, c.input(1), dt), false);
  Val b = c.e.with_scalar(as_dtype(c, c.input(2), dt), false);
  return one(c.e.emit(op::instance_norm, {x, s, b}, {.epsilon = c.attr_float("epsilon", 1e-5)}));
}

// Opset 17: normalizes over dims [axis, rank), computing in stash_type; optional outputs
// Mean and InvStdDev (keepdims shapes, stash_type). The native layer_norm takes its statistics
// in f64 and returns them as f32 (stash_type's default); a stash_type of double whose
// statistics are read is decomposed, in f64.
std::vector<Val> lower_layer_norm(NodeContext& c) {
  Val x = c.input(0);
  require_float(c, x);
  const int r = c.e.rank(x);
  if (r < 1) c.fail("a scalar input is not supported");
  const int64_t axis = c.axis(c.attr_int("axis", -1), r);
  const double eps = c.attr_float("epsilon", 1e-5);
  const int64_t stash = c.attr_int("stash_type", 1);
  auto stash_dt = dtype_from_onnx(int32_t(stash));
  if (!stash_dt || !is_float(*stash_dt))
    c.fail("stash_type=" + std::to_string(stash) + " is not supported (f32 or f64)");
  const DType dt = c.e.dtype(x);
  Val scale = c.e.with_scalar(as_dtype(c, c.input(1), dt), false);
  Val bias = c.input(2).present() ? c.e.with_scalar(as_dtype(c, c.input(2), dt), false) : Val{};
  if (*stash_dt == DType::f32 || (!c.output_wanted(1) && !c.output_wanted(2)))
    return c.e.emit_n(op::layer_norm, {x, scale, bias}, {.axis = axis, .epsilon = eps});
  Normalized n = normalize(c, as_dtype(c, x, *stash_dt), iota(axis, r), eps);
  Val y = c.e.emit(op::mul, {as_dtype(c, n.y, dt), scale});
  if (bias.present()) y = c.e.emit(op::add, {y, bias});
  return {y, n.mean, n.inv_std};
}

// The native mean_variance_normalization: (x - E[x]) / (sqrt(Var[x]) + 1e-9) over `axes`
// (default (0, 2, 3)), ONNX's function body (the epsilon is added to the standard deviation).
std::vector<Val> lower_mvn(NodeContext& c) {
  Val x = c.input(0);
  require_float(c, x);
  const int r = c.e.rank(x);
  std::vector<int64_t> axes;
  for (int64_t a : c.attr_ints("axes", {0, 2, 3})) axes.push_back(c.axis(a, r, "axes entry"));
  Val y = c.e.emit(op::mean_variance_normalization, {c.e.with_scalar(x, false)}, {.axes = axes});
  return {c.e.with_scalar(y, c.e.scalar(x))};
}

// The native lrn: y = x / (bias + alpha / size * sum of x^2 over the `size` channels around c)
// ^ beta, the window [c - floor((size-1)/2), c + ceil((size-1)/2)] clipped to the channels.
std::vector<Val> lower_lrn(NodeContext& c) {
  Val x = c.input(0);
  require_float(c, x);
  const int r = c.e.rank(x);
  if (r < 2) c.fail("the input must have rank >= 2 (N, C, D...), got rank " + std::to_string(r));
  const int64_t size = c.attr_int("size", 0);
  if (size < 1) c.fail("size=" + std::to_string(size) + " is not supported");
  return one(c.e.emit(op::lrn, {x},
                      {.size = size,
                       .alpha = c.attr_float("alpha", 1e-4),
                       .beta = c.attr_float("beta", 0.75),
                       .bias = c.attr_float("bias", 1.0)}));
}

// LpNormalization: x / (sum |x|^p along axis)^(1/p), p 1 or 2; a zero norm gives 0 (ONNX
// Runtime's rule, where the formula would give NaN).
std::vector<Val> lower_lp_norm(NodeContext& c) {
  Val x = c.input(0);
  require_float(c, x);
  const int r = c.e.rank(x);
  const int64_t axis = c.axis(c.attr_int("axis", -1), r);
  const int64_t p = c.attr_int("p", 2);
  if (p != 1 && p != 2) c.fail("p=" + std::to_string(p) + " is not supported (1 or 2)");
  Val norm = reduce(c, p == 1 ? Opcode::l1 : Opcode::l2, x, {axis}, true);
  Val zero = num(c, x, 0.0);
  Val y = c.e.emit(
      op::div, {x, c.e.emit(op::where, {c.e.emit(op::equal, {norm, zero}), num(c, x, 1.0), norm})});
  return one(c.e.with_scalar(c.e.emit(op::where, {c.e.emit(op::equal, {norm, zero}), zero, y}),
                             c.e.scalar(x)));
}

constexpr LoweringEntry kTable[] = {
    {"LpNormalization", 1, lower_lp_norm},
    {"BatchNormalization", 1, lower_batch_norm},
    {"InstanceNormalization", 1, lower_instance_norm},
    {"LayerNormalization", 17, lower_layer_norm},
    {"MeanVarianceNormalization", 9, lower_mvn},
    {"LRN", 1, lower_lrn},
};

}  // namespace

std::span<const LoweringEntry> norm_table() { return kTable; }

}  // namespace mlvm::nn
