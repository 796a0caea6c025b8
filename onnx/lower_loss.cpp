// Losses: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (= NLL of log_softmax over
// the class axis), with per-class weights, ignore_index and the reductions none/sum/mean, as
// ONNX defines them: loss[n, d...] = -input[n, target[n, d...], d...] · weight[target], 0
// where target == ignore_index; mean divides by the sum of the weights that were used.
#include <onnx/onnx_pb.h>

#include "onnx/lowering.hpp"
#include "tensor/error.hpp"

namespace mlvm {

namespace {

// Returns the reduced (or per-element) loss.
Val nll(NodeContext& c, Val input, Val target, Val weight) {
  const std::string reduction = c.attr_string("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    c.fail("reduction '" + reduction + "' is not supported");
  if (c.e.rank(input) < 2) c.fail("the input must have rank >= 2 (N, C, ...)");
  const DType dt = c.e.dtype(input);
  Val t = c.e.emit(op::cast, {target}, {.dtype = DType::i64});
  Val mask;  // bool: the target is not ignored
  if (c.has_attr("ignore_index")) {
    Val ii = c.e.scalar_const(DType::i64, double(c.attr_int("ignore_index", 0)));
    mask = c.e.emit(op::not_equal, {t, ii});
    t = c.e.emit(op::where, {mask, t, c.e.scalar_const(DType::i64, 0)});  // a safe index
  }
  Val picked = c.e.emit(op::gather_elements, {input, c.e.emit(op::expand_dims, {t}, {.axis = 1})},
                        {.axis = 1});
  Val loss = c.e.emit(op::negative, {c.e.emit(op::squeeze, {picked}, {.axes = {1}})});
  Val w;  // the weight of each element (absent: 1)
  if (weight.present())
    w = c.e.emit(op::take, {weight, t}, {.axis = 0, .mode = take_attrs::mode_choice::raise});
  if (mask.present()) {
    Val m = c.e.emit(op::cast, {mask}, {.dtype = dt});
    w = w.present() ? c.e.emit(op::mul, {w, m}) : m;
  }
  if (w.present()) loss = c.e.emit(op::mul, {loss, w});
  if (reduction == "none") return loss;
  Val total = c.e.emit(op::sum, {loss});
  if (reduction == "sum") return c.e.with_scalar(total, true);
  Val count;
  if (w.present()) {
    count = c.e.emit(op::sum, {w});
  } else {
    // Without weights the mean is over every element: numel = prod(dims).
    Val n = c.e.emit(op::prod, {c.e.emit(op::shape_of, {loss})});
    count = c.e.emit(op::cast, {n}, {.dtype = dt});
  }
  return c.e.with_scalar(c.e.emit(op::div, {total, count}), true);
}

std::vector<Val> lower_nll(NodeContext& c) {
  return one(nll(c, c.input(0), c.input(1), c.input(2)));
}

std::vector<Val> lower_sce(NodeContext& c) {
  Val log_prob = c.e.emit(op::log_softmax, {c.input(0)}, {.axis = 1});
  return {nll(c, log_prob, c.input(1), c.input(2)), log_prob};
}

constexpr LoweringEntry kTable[] = {
    {"NegativeLogLikelihoodLoss", 12, lower_nll},
    {"SoftmaxCrossEntropyLoss", 12, lower_sce},
};

}  // namespace

std::span<const LoweringEntry> loss_lowerings() { return kTable; }

}  // namespace mlvm
