// Reductions: ReduceSum/Mean/Max/Min/Prod/SumSquare/L1/L2/LogSum/LogSumExp and ArgMax/ArgMin.
// ONNX keeps dims by default (keepdims=1); reducing every dim without keepdims gives an ONNX
// scalar, which mlvm holds as [1].
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <optional>

#include "onnx/lowering.hpp"
#include "tensor/error.hpp"

namespace mlvm {

namespace {

struct ReduceArgs {
  std::vector<int64_t> axes;  // normalized, sorted; empty: every dim
  bool keepdims = true;
  bool noop = false;  // noop_with_empty_axes (ReduceSum-13, the others 18) with no axes: identity
};

// ReduceSum takes its axes as an input (and noop_with_empty_axes) from opset 13, the others
// from 18.
bool axes_input(NodeContext& c) {
  return c.opset >= (c.node.op_type() == "ReduceSum" ? 13 : 18);
}

ReduceArgs reduce_args(NodeContext& c) {
  ReduceArgs r;
  r.keepdims = c.attr_int("keepdims", 1) != 0;
  std::vector<int64_t> axes;
  if (axes_input(c)) {
    if (c.input(1).present()) axes = c.e.ints(c.input(1), c.node.op_type() + "'s axes");
    if (axes.empty() && c.attr_int("noop_with_empty_axes", 0) != 0) r.noop = true;
  } else {
    axes = c.attr_ints("axes");
  }
  int rank = c.e.rank(c.input(0));
  for (int64_t& a : axes) a = c.axis(a, rank);
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) c.fail("an axis is repeated");
  r.axes = axes;
  return r;
}

// op over the axes; the result's ONNX rank follows keepdims.
Val reduce(NodeContext& c, Opcode op, Val x, const ReduceArgs& r) {
  int rank = c.e.rank(x);
  Val y = c.e.emit(op, {x}, write::reduce{.axes = r.axes, .keepdims = r.keepdims});
  bool all = r.axes.empty() || int(r.axes.size()) == rank;
  return c.e.with_scalar(y, (!r.keepdims && all) || rank == 0);
}

std::vector<Val> lower_reduce(NodeContext& c) {
  const std::string& t = c.node.op_type();
  Val x = c.input(0);
  // Axes given at run time (ReduceSum-13, the others from 18): reduce_dyn.
  if (axes_input(c) && c.input(1).present() && !c.e.is_const(c.input(1))) {
    const bool keepdims = c.attr_int("keepdims", 1) != 0;
    const bool noop = c.attr_int("noop_with_empty_axes", 0) != 0;
    Val axes = c.e.emit(op::cast, {c.input(1)}, {.dtype = DType::i64});
    using Choice = reduce_dyn_attrs::op_choice;
    const Choice which = t == "ReduceSum"         ? Choice::sum
                         : t == "ReduceMean"      ? Choice::mean
                         : t == "ReduceMax"       ? Choice::max
                         : t == "ReduceMin"       ? Choice::min
                         : t == "ReduceProd"      ? Choice::prod
                         : t == "ReduceSumSquare" ? Choice::sum_square
                         : t == "ReduceL1"        ? Choice::l1
                         : t == "ReduceL2"        ? Choice::l2
                         : t == "ReduceLogSum"    ? Choice::log_sum
                                                  : Choice::logsumexp;
    if (!is_float(c.e.dtype(x)) &&
        (which == Choice::l2 || which == Choice::log_sum || which == Choice::logsumexp))
      c.fail(t + " of an integer input with axes given at run time is not supported");
    Val y = c.e.emit(op::reduce_dyn, {x, axes},
                     {.op = which, .keepdims = keepdims, .noop_with_empty_axes = noop});
    // Every dim reduced without keepdims is an ONNX scalar: known when the axes' count is.
    const int64_t n = c.e.dims(c.input(1))[0];
    bool all = !keepdims && ((n == c.e.rank(x)) || (n == 0 && !noop));
    return one(c.e.with_scalar(y, all));
  }
  ReduceArgs r = reduce_args(c);
  if (r.noop) return {x};
  if (t == "ReduceSum") return one(reduce(c, Opcode::sum, x, r));
  if (t == "ReduceMean") return one(reduce(c, Opcode::mean, x, r));
  if (t == "ReduceMax") return one(reduce(c, Opcode::max, x, r));
  if (t == "ReduceMin") return one(reduce(c, Opcode::min, x, r));
  if (t == "ReduceProd") return one(reduce(c, Opcode::prod, x, r));
  if (t == "ReduceSumSquare") return one(reduce(c, Opcode::sum_square, x, r));
  if (t == "ReduceL1") return one(reduce(c, Opcode::l1, x, r));
  // l2, log_sum and logsumexp are float ops; ONNX allows integer inputs (computed in the
  // dtype: round the float result back).
  const std::optional<Opcode> code = t == "ReduceL2"          ? std::optional(Opcode::l2)
                                     : t == "ReduceLogSum"    ? std::optional(Opcode::log_sum)
                                     : t == "ReduceLogSumExp" ? std::optional(Opcode::logsumexp)
                                                              : std::nullopt;
  if (code) {
    DType dt = c.e.dtype(x);
    if (is_float(dt)) return one(reduce(c, *code, x, r));
    Val xf = c.e.emit(op::cast, {x}, {.dtype = DType::f64});
    Val y = reduce(c, *code, xf, r);
    return one(c.e.with_scalar(c.e.emit(op::cast, {y}, {.dtype = dt}), c.e.scalar(y)));
  }
  c.fail(t + " is not supported yet");
}

std::vector<Val> lower_arg(NodeContext& c) {
  Val x = c.input(0);
  int rank = c.e.rank(x);
  int64_t axis = c.axis(c.attr_int("axis", 0), rank);
  bool keepdims = c.attr_int("keepdims", 1) != 0;
  bool last = c.attr_int("select_last_index", 0) != 0;
  const Opcode code = c.node.op_type() == "ArgMax" ? Opcode::argmax : Opcode::argmin;
  Val y = c.e.emit(
      code, {x}, write::arg_reduce{.axis = axis, .keepdims = keepdims, .select_last_index = last});
  return one(c.e.with_scalar(y, !keepdims && rank == 1));
}

constexpr LoweringEntry kTable[] = {
    {"ReduceSum", 1, lower_reduce},       {"ReduceMean", 1, lower_reduce},
    {"ReduceProd", 1, lower_reduce},
    {"ReduceMax", 1, lower_reduce},       {"ReduceMin", 1, lower_reduce},
    {"ReduceSumSquare", 1, lower_reduce}, {"ReduceL1", 1, lower_reduce},
    {"ReduceL2", 1, lower_reduce},        {"ReduceLogSum", 1, lower_reduce},
    {"ReduceLogSumExp", 1, lower_reduce}, {"ArgMax", 1, lower_arg},
    {"ArgMin", 1, lower_arg},
};

}  // namespace

std::span<const LoweringEntry> reduce_lowerings() { return kTable; }

}  // namespace mlvm
