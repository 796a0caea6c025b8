// The shape ops of onnx/lower_shape.cpp and lower_shape_more.cpp when a shape argument is a
// value known only at run time (a graph input, or computed from `?` dims): they become the
// run-time shape-argument ops (docs/ops.md, "Run-time shape arguments": reshape_dyn, slice_dyn,
// broadcast_dyn, tile_dyn, pad_dyn, squeeze_dyn, expand_dims_dyn) and `range`. Arguments known at
// import time keep the folding path of the callers. The length of a shape argument must be
// static wherever it fixes the result's rank.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "onnx/lowering.hpp"

namespace mlvm {

// The length of a vector argument (an ONNX scalar counts as 1); -1 when it is `?`. Fails unless
// it has rank 0 or 1.
int64_t arg_length(NodeContext& c, Val v, const std::string& what);
// The same, required to be static (it fixes the result's rank).
int64_t static_arg_length(NodeContext& c, Val v, const std::string& what);

// ONNX Reshape with `shape` (any value: a run-time one, or a constant the static path cannot
// type, such as two copied `?` dims).
Val reshape_dynamic(NodeContext& c, Val x, Val shape, bool allowzero);
// ONNX Slice; `axes` and `steps` may be absent. Constant axes become a transpose that brings
// them to the front, so that the dims not sliced keep their static sizes.
Val slice_dynamic(NodeContext& c, Val x, Val starts, Val ends, Val axes, Val steps);
// ONNX Split along `axis` with run-time sizes (one per output): slice_dyn per output between
// the running sums of the sizes.
std::vector<Val> split_dynamic(NodeContext& c, Val x, int64_t axis, Val sizes, int outputs);
// ONNX Expand.
Val expand_dynamic(NodeContext& c, Val x, Val shape);
// ONNX ConstantOfShape: `value` (one element) broadcast to `shape`.
Val constant_of_shape_dynamic(NodeContext& c, Val value, Val shape);
// ONNX Tile.
Val tile_dynamic(NodeContext& c, Val x, Val repeats);
// ONNX Pad (opset 11+): pads [begins, ends], value may be absent; mode constant/edge/reflect.
Val pad_dynamic(NodeContext& c, Val x, Val pads, Val value, const std::string& mode);
// ONNX Squeeze / Unsqueeze (opset 13) with run-time axes.
Val squeeze_dynamic(NodeContext& c, Val x, Val axes);
Val unsqueeze_dynamic(NodeContext& c, Val x, Val axes);

}  // namespace mlvm
