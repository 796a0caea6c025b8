// Static rules of the ops along one axis: cumsum, log_softmax, hardmax, topk (docs/ops.md,
// "Scans and selections along an axis"); their kernels are in kernels/scan.cpp, which re-apply
// these rules to the concrete types.
//
// Accepted dtypes:
//   cumsum                 f32 f64 i8 u8 i16 i32 i64 (integers wrap in x's dtype)
//   log_softmax hardmax    f32 f64
//   topk                   f32 f64 i8 u8 i16 i32 i64; indices i64
#include <string>

#include "ir/elementwise_rules.hpp"
#include "ir/infer.hpp"
#include "ir/precision.hpp"
#include "ir/rules.hpp"

namespace mlvm {

namespace {

using namespace ew;

std::string axis_what(const char* op) {
  return std::string(op) + ": axis";
}

// x's type with unknown precision, after the dtype and axis checks.
void infer_along_axis_floats(InferContext& ctx, const char* op) {
  require_inputs(op, ctx.in.size(), 1);
  const TensorType& x = ctx.in[0];
  require_dtype(op, "x", x.dtype, kFloats, kFloatOnly);
  normalize_axis(ctx.attrs.get<softmax_attrs>().axis, x.dims.size(), axis_what(op).c_str());
  set_result(ctx, result_type(x.dtype, x.dims, kUnknownPrecision));
}

}  // namespace

// Precision: p + ceil(log2 n) for n elements along the axis (unknown if n is `?`), as sum.
void infer_cumsum(InferContext& ctx) {
  if (ctx.in.size() != 1) require_inputs("cumsum", ctx.in.size(), 2);  // the axis input optional
  const TensorType& x = ctx.in[0];
  require_dtype("cumsum", "x", x.dtype, kNumeric, kNoBool);
  if (attr_input("cumsum", ctx.in, 1, "axis")) {  // the axis is known at run time only
    if (x.dims.empty()) fail_invalid("cumsum: x must have rank >= 1");
    set_result(ctx, result_type(x.dtype, x.dims, kUnknownPrecision));
    return;
  }
  const auto& a = ctx.attrs.get<cumsum_attrs>();
  const int axis = normalize_axis(a.axis, x.dims.size(), "cumsum: axis");
  const int64_t n = x.dims[axis];
  int precision = kUnknownPrecision;
  if (x.precision != kUnknownPrecision && n != kDynamic) precision = x.precision + ceil_log2(n);
  set_result(ctx, result_type(x.dtype, x.dims, precision));
}

void infer_log_softmax(InferContext& ctx) {
  infer_along_axis_floats(ctx, "log_softmax");
}

void infer_hardmax(InferContext& ctx) {
  infer_along_axis_floats(ctx, "hardmax");
}

// values: x's dtype and precision; indices: i64. Both x's shape with dim `axis` = k.
void infer_topk(InferContext& ctx) {
  if (ctx.in.size() != 1) require_inputs("topk", ctx.in.size(), 2);  // the k input optional
  const TensorType& x = ctx.in[0];
  require_dtype("topk", "x", x.dtype, kNumeric, kNoBool);
  const auto& a = ctx.attrs.get<topk_attrs>();
  const int axis = normalize_axis(a.axis, x.dims.size(), "topk: axis");
  const int64_t n = x.dims[axis];
  if (attr_input("topk", ctx.in, 1, "k")) {  // k is known at run time only
    Dims d = x.dims;
    d[axis] = kDynamic;
    ctx.out = {result_type(x.dtype, d, x.precision), result_type(DType::i64, d, kUnknownPrecision)};
    return;
  }
  if (n != kDynamic && a.k > n)
    fail_invalid("topk: k " + std::to_string(a.k) + " is larger than dim " + std::to_string(axis) +
                 " of " + x.to_string() + " (" + std::to_string(n) + " elements)");
  Dims d = x.dims;
  d[axis] = a.k;
  ctx.out = {result_type(x.dtype, d, x.precision), result_type(DType::i64, d, kUnknownPrecision)};
}

}  // namespace mlvm
