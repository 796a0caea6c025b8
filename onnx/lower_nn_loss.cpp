// The losses: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (log_softmax over the
// classes, then the same), opset 12+, as ONNX's definition computes them:
//   loss[n, d...] = -input[n, target[n, d...], d...] · weight[target[n, d...]]
// with 0 where target == ignore_index (whose weight is 0 too), and reduction "none" (that
// tensor), "sum", or "mean" (the sum divided by the sum of the gathered weights; a plain mean
// with neither weights nor ignore_index). The class is picked with gather_elements along dim 1
// after ignored targets are replaced by 0, so an ignore_index outside [0, C) is never read.
#include <onnx/onnx_pb.h>

#include "onnx/lower_nn_util.hpp"

namespace mlvm::nn {

namespace {

std::vector<Val> nll(NodeContext& c, Val x, Val target, Val weight) {
  const int r = c.e.rank(x);
  if (r < 2) c.fail("the input must have rank >= 2 (N, C, d...), got rank " + std::to_string(r));
  if (c.e.rank(target) != r - 1)
    c.fail("the target must have rank " + std::to_string(r - 1) + " (N, d...), got rank " +
           std::to_string(c.e.rank(target)));
  const DType tdt = c.e.dtype(target);
  if (tdt != DType::i32 && tdt != DType::i64)
    c.fail("the target must be int32 or int64, got " + std::string(dtype_name(tdt)));
  const std::string reduction = c.attr_string("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    c.fail("reduction=" + reduction + " is not supported (none, sum or mean)");
  const DType dt = c.e.dtype(x);
  target = c.e.with_scalar(target, false);
  Val mask;  // target != ignore_index
  Val t = target;
  if (c.has_attr("ignore_index")) {
    mask = c.e.emit("not_equal", {target, c.e.scalar_const(tdt, double(c.attr_int("ignore_index", 0)))});
    t = c.e.emit("where", {mask, target, c.e.scalar_const(tdt, 0)});
  }
  Val picked = c.e.emit("gather_elements", {x, c.e.emit("expand_dims", {t}, {attr_i("axis", 1)})},
                        {attr_i("axis", 1)});
  Val loss = c.e.emit("negative", {c.e.emit("squeeze", {picked}, {attr_ints("axes", {1})})});
  Val w;  // the gathered weights, 0 where ignored
  if (weight.present()) {
    if (c.e.rank(weight) != 1) c.fail("the weight must be 1-D (C)");
    w = c.e.emit("take", {c.e.with_scalar(weight, false), t}, {attr_i("axis", 0)});
    if (mask.present()) w = c.e.emit("where", {mask, w, num(c, w, 0.0)});
    loss = c.e.emit("mul", {loss, w});
  } else if (mask.present()) {
    w = c.e.emit("cast", {mask}, {attr_dt("dtype", dt)});
  }
  if (mask.present()) loss = c.e.emit("where", {mask, loss, num(c, loss, 0.0)});
  if (reduction == "none") return {loss};
  Val y;
  if (reduction == "sum" || w.present()) {
    y = c.e.emit("sum", {loss});
    if (reduction == "mean") y = c.e.emit("div", {y, c.e.emit("sum", {w})});
  } else {
    y = c.e.emit("mean", {loss});
  }
  c.e.set_scalar(y, true);
  return {y};
}

std::vector<Val> lower_nll_loss(NodeContext& c) {
  require_float(c, c.input(0));
  return nll(c, c.input(0), c.input(1), c.input(2));
}

std::vector<Val> lower_softmax_cross_entropy(NodeContext& c) {
  Val x = c.input(0);
  require_float(c, x);
  if (c.e.rank(x) < 2) c.fail("the scores must have rank >= 2 (N, C, d...), got rank " + std::to_string(c.e.rank(x)));
  Val log_prob = c.e.emit("log_softmax", {x}, {attr_i("axis", 1)});
  std::vector<Val> out = nll(c, log_prob, c.input(1), c.input(2));
  out.push_back(log_prob);
  return out;
}

constexpr LoweringEntry kTable[] = {
    {"NegativeLogLikelihoodLoss", 12, lower_nll_loss},
    {"SoftmaxCrossEntropyLoss", 12, lower_softmax_cross_entropy},
};

}  // namespace

std::span<const LoweringEntry> loss_table() { return kTable; }

}  // namespace mlvm::nn
