// Static rules of the reductions (docs/ops.md, "Reductions").
//
// Accepted dtypes:
//   sum          f32 f64 i8 u8 i16 i32 i64 (integer sums wrap in the input's dtype)
//   max min      any (on bool: any / all)
//   mean         f32 f64
//   argmax argmin any; result i64
// Reducing an empty dim: sum gives 0 (mean 0/0 = NaN); max, min, argmax, argmin are an error
// here when the dim is known to be 0 (the kernel traps when it was `?`).
#include <string>

#include "ir/infer.hpp"
#include "ir/precision.hpp"
#include "ir/reduce_rules.hpp"
#include "ir/rules.hpp"

namespace mlvm {

namespace {

using namespace ew;

// Precision: max and min keep the input's; sum adds ceil(log2 r) for r elements reduced into
// each result (unknown when a reduced dim is `?`); mean's floats have none.
void infer_reduce(InferContext& ctx, ReduceKind kind) {
  const char* op = reduce_kind_name(kind);
  require_inputs(op, ctx.in.size(), 1);
  const TensorType& x = ctx.in[0];
  require_dtype(op, "x", x.dtype, reduce_kind_dtypes(kind), reduce_kind_why(kind));
  const auto& a = ctx.attrs.get<reduce_attrs>();
  ReducePlan P = make_reduce_plan(op, x.dims, a.axes, a.keepdims, a.exclude);
  bool any_dynamic = false;
  int64_t count = 1;  // reduced elements, saturated at 2^62
  for (int k = 0; k < P.rank; ++k) {
    if (!P.reduced[k]) continue;
    const int64_t d = x.dims[k];
    if (d == kDynamic) {
      any_dynamic = true;
      continue;
    }
    if (d == 0 && (kind == ReduceKind::max || kind == ReduceKind::min))
      fail_invalid(std::string(op) + ": cannot reduce dim " + std::to_string(k) + " of " +
                   x.to_string() + ": it is empty, and " + op + " of no elements is undefined");
    count = (d != 0 && count > (int64_t(1) << 62) / d) ? (int64_t(1) << 62) : count * d;
  }
  int precision = kUnknownPrecision;
  if (x.precision != kUnknownPrecision) {
    if (kind == ReduceKind::max || kind == ReduceKind::min)
      precision = x.precision;
    else if (kind == ReduceKind::sum && !any_dynamic)
      precision = x.precision + ceil_log2(count);
  }
  set_result(ctx, result_type(x.dtype, P.out_shape, precision));
}

// argmax / argmin: first index of the extreme along `axis`; the result is i64 of unknown
// precision.
void infer_arg(InferContext& ctx, const char* op) {
  require_inputs(op, ctx.in.size(), 1);
  const TensorType& x = ctx.in[0];
  const int rank = x.dims.size();
  const auto& attrs = ctx.attrs.get<arg_reduce_attrs>();
  const int64_t a = attrs.axis;
  if (a < -rank || a >= rank)
    fail_invalid(std::string(op) + ": axis " + std::to_string(a) + " is out of range for rank " +
                 std::to_string(rank) + " (expected -" + std::to_string(rank) + ".." +
                 std::to_string(rank - 1) + ")");
  const int axis = int(a < 0 ? a + rank : a);
  if (x.dims[axis] == 0)
    fail_invalid(std::string(op) + ": cannot reduce dim " + std::to_string(axis) + " of " +
                 x.to_string() + ": it is empty");
  set_result(
      ctx, result_type(DType::i64, arg_out_dims(x.dims, axis, attrs.keepdims), kUnknownPrecision));
}

}  // namespace

void infer_sum(InferContext& ctx) {
  infer_reduce(ctx, ReduceKind::sum);
}
void infer_max(InferContext& ctx) {
  infer_reduce(ctx, ReduceKind::max);
}
void infer_min(InferContext& ctx) {
  infer_reduce(ctx, ReduceKind::min);
}
void infer_mean(InferContext& ctx) {
  infer_reduce(ctx, ReduceKind::mean);
}
void infer_argmax(InferContext& ctx) {
  infer_arg(ctx, "argmax");
}
void infer_argmin(InferContext& ctx) {
  infer_arg(ctx, "argmin");
}

}  // namespace mlvm
