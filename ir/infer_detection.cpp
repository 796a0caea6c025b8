// Static rules of get_valid_count and non_max_suppression (docs/ops.md, "Detection
// post-processing"); their kernels are in kernels/detection.cpp. nms_boxes (ONNX
// NonMaxSuppression) has its kernel in kernels/nms_boxes.cpp.
#include <algorithm>
#include <string>

#include "ir/infer.hpp"
#include "ir/nn_rules.hpp"
#include "ir/precision.hpp"
#include "ir/rules.hpp"

namespace mlvm {

namespace {

// The rows of -1 need precision 2.
int precision_at_least_2(const TensorType& x) {
  if (!is_signed_int(x.dtype) || x.precision == kUnknownPrecision) return kUnknownPrecision;
  return std::max(x.precision, 2);
}

// nms_boxes' threshold inputs: absent, or a float tensor of one element (ONNX passes scalars).
void check_threshold(const std::span<const TensorType> in, std::size_t k, const char* name) {
  if (in.size() <= k || !in[k].present) return;
  const TensorType& t = in[k];
  int64_t n = 1;
  for (int64_t d : t.dims) n = d == kDynamic || n == kDynamic ? kDynamic : n * d;
  if (!is_float(t.dtype) || (n != 1 && n != kDynamic))
    fail_invalid(std::string("nms_boxes: ") + name +
                 " must be a float tensor of one element, got " + t.to_string());
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

// boxes [B, N, 4] and scores [B, C, N] of one float dtype -> i64 [?, 3]: one row
// (batch, class, box) per selected box. The run-time arguments are checked for one element here
// and for their values (a threshold in range) by the kernel.
void infer_nms_boxes(InferContext& ctx) {
  if (ctx.in.size() < 2 || ctx.in.size() > 5)
    fail(ErrorKind::usage,
         "nms_boxes: expected 2 to 5 inputs, got " + std::to_string(ctx.in.size()));
  const TensorType &boxes = ctx.in[0], &scores = ctx.in[1];
  if (!is_float(boxes.dtype) || boxes.dims.size() != 3 ||
      (boxes.dims[2] != 4 && boxes.dims[2] != kDynamic))
    fail_invalid("nms_boxes: boxes must be a float tensor [B, N, 4], got " + boxes.to_string());
  if (scores.dtype != boxes.dtype || scores.dims.size() != 3)
    fail_invalid("nms_boxes: scores must be [B, C, N] of boxes' dtype, got " + scores.to_string() +
                 " beside boxes " + boxes.to_string());
  auto differ = [](int64_t a, int64_t b) { return a != kDynamic && b != kDynamic && a != b; };
  if (differ(boxes.dims[0], scores.dims[0]) || differ(boxes.dims[1], scores.dims[2]))
    fail_invalid("nms_boxes: scores " + scores.to_string() + " does not match boxes " +
                 boxes.to_string() + " (scores [B, C, N] for boxes [B, N, 4])");
  attr_input("nms_boxes", ctx.in, 2, "max_output");
  check_threshold(ctx.in, 3, "iou_threshold");
  check_threshold(ctx.in, 4, "score_threshold");
  ctx.out = {TensorType{DType::i64, Dims{kDynamic, 3}, kUnknownPrecision}};
}

}  // namespace mlvm
