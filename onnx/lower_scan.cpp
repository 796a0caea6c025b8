// Ops along one axis: CumSum and TopK (ir/infer_scan.cpp, kernels/scan.cpp). CumSum's axis and
// TopK's K, inputs in ONNX, are attributes when known at import, else run-time inputs.
#include <onnx/onnx_pb.h>

#include "onnx/lowering.hpp"
#include "tensor/error.hpp"

namespace mlvm {

namespace {

std::vector<Val> lower_cumsum(NodeContext& c) {
  Val x = c.input(0);
  write::cumsum attrs{.axis = 0,  // replaced by the input
                      .exclusive = c.attr_int("exclusive", 0) != 0,
                      .reverse = c.attr_int("reverse", 0) != 0};
  if (!known_input(c, 1)) return one(c.e.emit(op::cumsum, {x, runtime_param(c, 1)}, attrs));
  attrs.axis = c.axis(const_int_input(c, 1, "CumSum's axis"), c.e.rank(x));
  return one(c.e.emit(op::cumsum, {x}, attrs));
}

std::vector<Val> lower_topk(NodeContext& c) {
  Val x = c.input(0);
  int64_t axis = c.axis(c.attr_int("axis", -1), c.e.rank(x));
  write::topk attrs{.k = 0,  // replaced by the input
                    .axis = axis,
                    .largest = c.attr_int("largest", 1) != 0,
                    .sorted = c.attr_int("sorted", 1) != 0};
  if (c.opset >= 10 && !known_input(c, 1)) return c.e.emit_n(op::topk, {x, runtime_param(c, 1)}, attrs);
  int64_t k = c.opset < 10 ? c.attr_int("k", -1) : const_int_input(c, 1, "TopK's K");
  if (k < 0) c.fail("K " + std::to_string(k) + " is negative");
  attrs.k = k;
  return c.e.emit_n(op::topk, {x}, attrs);
}

constexpr LoweringEntry kTable[] = {
    {"CumSum", 11, lower_cumsum},
    {"TopK", 1, lower_topk},
};

}  // namespace

std::span<const LoweringEntry> scan_lowerings() { return kTable; }

}  // namespace mlvm
