// Static rules of get_valid_count and non_max_suppression (docs/ops.md, "Detection
// post-processing"); their kernels are in kernels/detection.cpp.
#include <algorithm>

#include "ir/infer.hpp"
#include "ir/nn_rules.hpp"
#include "ir/precision.hpp"

namespace mlvm {

namespace {

// The rows of -1 need precision 2.
int precision_at_least_2(const TensorType& x) {
  if (!is_signed_int(x.dtype) || x.precision == kUnknownPrecision) return kUnknownPrecision;
  return std::max(x.precision, 2);
}

}  // namespace

void infer_get_valid_count(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  check_valid_count_input(x.dtype, x.dims, ErrorKind::invalid);
  TensorType count{DType::i32, Dims{x.dims[0]}, kUnknownPrecision};
  if (x.dims[1] != kDynamic) count.precision = precision_of_value(x.dims[1]);
  ctx.out = {count, TensorType{x.dtype, x.dims, precision_at_least_2(x)}};
}

void infer_non_max_suppression(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  check_nms_inputs(x, ctx.in[1], ctx.attrs.get<nms_attrs>().iou_threshold, ErrorKind::invalid);
  ctx.out = {TensorType{x.dtype, x.dims, precision_at_least_2(x)}};
}

}  // namespace mlvm
