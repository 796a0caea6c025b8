// Normalizations, decomposed into existing ops until dedicated ones exist:
// BatchNormalization (inference: one per-channel scale and shift, folded at import when the
// statistics are constants), InstanceNormalization, LayerNormalization, MeanVarianceNormalization
// and LRN.
#include <onnx/onnx_pb.h>

#include "onnx/lower_nn_util.hpp"
#include "onnx/tensor_proto.hpp"

namespace mlvm::nn {

namespace {

Val as_dtype(NodeContext& c, Val v, DType dt) {
  if (c.e.dtype(v) == dt) return v;
  return ew(c, "cast", {v}, {attr_dt("dtype", dt)});
}

// Inference: y = (x - mean) / sqrt(var + eps) * scale + bias per channel; with constant
// statistics y = x * k + shift, k = scale / sqrt(var + eps), shift = bias - mean * k.
std::vector<Val> lower_batch_norm(NodeContext& c) {
  // Folded into the Conv or Gemm that made x (lower_nn_fold.cpp): x is the result already.
  if (bn_folded(c)) return {c.input(0)};
  Val x = c.input(0);
  require_float(c, x);
  const int r = c.e.rank(x);
  if (r < 2) c.fail("the input must have rank >= 2 (N, C, ...), got rank " + std::to_string(r));
  if (c.num_inputs() < 5) c.fail("expects 5 inputs (X, scale, B, mean, var)");
  if (c.opset >= 14 && c.attr_int("training_mode", 0) != 0)
    c.fail("training_mode=1 is not supported (inference only)");
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
    return one(c.e.emit("batch_norm", {x, scale, bias, mean, var}, {attr_f("epsilon", eps)}));
  // Constant statistics fold into one per-channel scale and shift: a multiply and an add.
  Val k = c.e.emit("div", {scale, c.e.emit("sqrt", {c.e.emit("add", {var, num(c, var, eps)})})});
  Val shift = c.e.emit("sub", {bias, c.e.emit("mul", {mean, k})});
  if (spatial || c.e.rank(k) == 1) {
    k = per_channel(c, k, r);
    shift = per_channel(c, shift, r);
  } else if (c.e.rank(k) != r - 1) {
    c.fail("spatial=0 needs statistics of rank " + std::to_string(r - 1));
  }
  return one(c.e.emit("add", {c.e.emit("mul", {x, k}), shift}));
}

// (x - mean) / sqrt(var + eps) over `axes` (keepdims), also returning mean and 1/sqrt(var+eps).
struct Normalized {
  Val y, mean, inv_std;
};
Normalized normalize(NodeContext& c, Val x, const std::vector<int64_t>& axes, double eps) {
  Val m = reduce(c, "mean", x, axes, true);
  Val d = c.e.emit("sub", {x, m});
  Val var = reduce(c, "mean", c.e.emit("mul", {d, d}), axes, true);
  Val inv = c.e.emit("div", {num(c, var, 1.0),
                             c.e.emit("sqrt", {c.e.emit("add", {var, num(c, var, eps)})})});
  return {c.e.emit("mul", {d, inv}), m, inv};
}

std::vector<Val> lower_instance_norm(NodeContext& c) {
  Val x = c.input(0);
  require_float(c, x);
  const int r = c.e.rank(x);
  if (r < 3) c.fail("the input must have rank >= 3 (N, C, D...), got rank " + std::to_string(r));
  const double eps = c.attr_float("epsilon", 1e-5);
  const std::vector<int64_t> axes = iota(2, r);
  Val m = reduce(c, "mean", x, axes, true);
  Val d = c.e.emit("sub", {x, m});
  Val var = reduce(c, "mean", c.e.emit("mul", {d, d}), axes, true);
  // scale / sqrt(var + eps) on the small (N, C, 1, ...) tensor, then one multiply-add.
  Val s = per_channel(c, as_dtype(c, c.input(1), c.e.dtype(x)), r);
  Val b = per_channel(c, as_dtype(c, c.input(2), c.e.dtype(x)), r);
  Val k = c.e.emit("div", {s, c.e.emit("sqrt", {c.e.emit("add", {var, num(c, var, eps)})})});
  return one(c.e.emit("add", {c.e.emit("mul", {d, k}), b}));
}

// Opset 17: normalizes over dims [axis, rank), computing in stash_type; optional outputs
// Mean and InvStdDev (keepdims shapes, stash_type).
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
  Normalized n = normalize(c, as_dtype(c, x, *stash_dt), iota(axis, r), eps);
  Val y = c.e.emit("mul", {as_dtype(c, n.y, dt), c.input(1)});
  if (c.input(2).present()) y = c.e.emit("add", {y, c.input(2)});
  return {y, n.mean, n.inv_std};
}

// (x - mean) / (sqrt(var) + 1e-9) over `axes` (default (0, 2, 3)).
std::vector<Val> lower_mvn(NodeContext& c) {
  Val x = c.input(0);
  require_float(c, x);
  const int r = c.e.rank(x);
  std::vector<int64_t> axes;
  for (int64_t a : c.attr_ints("axes", {0, 2, 3})) axes.push_back(c.axis(a, r, "axes entry"));
  if (axes.empty()) c.fail("axes=() is not supported");
  Val m = reduce(c, "mean", x, axes, true);
  Val d = c.e.emit("sub", {x, m});
  Val var = reduce(c, "mean", c.e.emit("mul", {d, d}), axes, true);
  Val sd = c.e.emit("add", {c.e.emit("sqrt", {var}), num(c, var, 1e-9)});
  return one(c.e.emit("div", {d, sd}));
}

// y = x / (bias + alpha / size * sum of x^2 over the `size` channels around c) ^ beta, the
// window [c - floor((size-1)/2), c + ceil((size-1)/2)] clipped to the channels.
std::vector<Val> lower_lrn(NodeContext& c) {
  Val x = c.input(0);
  require_float(c, x);
  const int r = c.e.rank(x);
  if (r < 3) c.fail("the input must have rank >= 3 (N, C, D...), got rank " + std::to_string(r));
  const int64_t size = c.attr_int("size", 0);
  if (size < 1) c.fail("size=" + std::to_string(size) + " is not supported");
  const double alpha = c.attr_float("alpha", 1e-4), beta = c.attr_float("beta", 0.75),
               bias = c.attr_float("bias", 1.0);
  const int64_t ch = static_dim(c, x, 1, "LRN");
  const int64_t lo = (size - 1) / 2, hi = size - 1 - lo;
  Val sq = c.e.emit("mul", {x, x});
  AttrValue width = AttrValue::tuple({});
  for (int k = 0; k < r; ++k) width.items.push_back(AttrValue::int_tuple({k == 1 ? lo : 0, k == 1 ? hi : 0}));
  Val padded = c.e.emit("pad", {sq}, {{"pad_width", width}});
  Val acc;
  for (int64_t k = 0; k < size; ++k) {
    Val s = c.e.emit("strided_slice", {padded}, {attr_ints("begin", {k}), attr_ints("end", {k + ch}),
                                                 attr_ints("axes", {1})});
    acc = acc.present() ? c.e.emit("add", {acc, s}) : s;
  }
  Val base = c.e.emit("add", {c.e.emit("mul", {acc, num(c, x, alpha / double(size))}), num(c, x, bias)});
  Val inv_pow = c.e.emit("exp", {c.e.emit("mul", {c.e.emit("log", {base}), num(c, x, -beta)})});
  return one(c.e.emit("mul", {x, inv_pow}));
}

constexpr LoweringEntry kTable[] = {
    {"BatchNormalization", 1, lower_batch_norm},
    {"InstanceNormalization", 1, lower_instance_norm},
    {"LayerNormalization", 17, lower_layer_norm},
    {"MeanVarianceNormalization", 9, lower_mvn},
    {"LRN", 1, lower_lrn},
};

}  // namespace

std::span<const LoweringEntry> norm_table() { return kTable; }

}  // namespace mlvm::nn
