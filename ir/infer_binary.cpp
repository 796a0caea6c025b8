// Static rules of the elementwise binary ops, comparisons, logical ops and where (docs/ops.md,
// "Elementwise binary, comparison, logical, where"; broadcasting: docs/ops.md, "Broadcasting").
//
// Both operands must have the same dtype (cast converts). Accepted dtypes:
//   add sub mul div, elemwise_add/sub/mul    f32 f64 i8 u8 i16 i32 i64 (not bool)
//   maximum minimum                          any (on bool: or / and)
//   less ... not_equal                       any; result bool
//   logical_and logical_or                   any; non-zero is true; result bool
//   where                                    cond any; a, b any (equal); result a's dtype
#include <algorithm>
#include <string>

#include "ir/elementwise_rules.hpp"
#include "ir/infer.hpp"
#include "ir/rules.hpp"

namespace mlvm {

namespace {

using namespace ew;

// The result's precision (docs/ops.md, "Integer precision"), when both operands are proven.
int binary_precision(PrecisionRule rule, const TensorType& a, const TensorType& b) {
  if (!is_signed_int(a.dtype) || a.precision == kUnknownPrecision ||
      b.precision == kUnknownPrecision)
    return kUnknownPrecision;
  switch (rule) {
    case PrecisionRule::none:
      return kUnknownPrecision;
    case PrecisionRule::add:
      return std::max(a.precision, b.precision) + 1;
    case PrecisionRule::mul:
      return a.precision + b.precision;
    case PrecisionRule::first:
      return a.precision;
    case PrecisionRule::max:
      return std::max(a.precision, b.precision);
  }
  return kUnknownPrecision;
}

// elemwise_*: equal ranks, and per dim equal or `?` on either side.
Dims equal_shape_types(const char* op, const TensorType& a, const TensorType& b) {
  auto mismatch = [&](const std::string& detail) {
    fail_invalid(std::string(op) + " needs equal shapes: " + a.to_string() + " and " +
                 b.to_string() + " (" + detail + "); use add/sub/mul to broadcast");
  };
  if (a.dims.size() != b.dims.size())
    mismatch("rank " + std::to_string(a.dims.size()) + " vs " + std::to_string(b.dims.size()));
  Dims out = a.dims;
  for (int i = 0; i < a.dims.size(); ++i) {
    int64_t p = a.dims[i], q = b.dims[i];
    if (p == q) continue;
    if (p == kDynamic)
      out[i] = q;
    else if (q != kDynamic)
      mismatch("dim " + std::to_string(i) + ": " + std::to_string(p) + " vs " + std::to_string(q));
  }
  return out;
}

}  // namespace

void ew::infer_binary(InferContext& ctx, const BinarySpec& s) {
  require_inputs(s.op, ctx.in.size(), 2);
  const TensorType &a = ctx.in[0], &b = ctx.in[1];
  require_dtype(s.op, "a", a.dtype, s.allowed, s.why);
  require_dtype(s.op, "b", b.dtype, s.allowed, s.why);
  require_same_dtype(s.op, a.dtype, b.dtype);
  Dims dims = s.equal_shapes ? equal_shape_types(s.op, a, b)
                             : with_op_name(s.op, [&] { return broadcast_types(a, b); });
  if (s.result_bool)
    set_result(ctx, result_type(DType::boolean, dims, 0));
  else
    set_result(ctx, result_type(a.dtype, dims, binary_precision(s.precision, a, b)));
}

void infer_add(InferContext& ctx) {
  infer_binary(ctx, kAdd);
}
void infer_sub(InferContext& ctx) {
  infer_binary(ctx, kSub);
}
void infer_mul(InferContext& ctx) {
  infer_binary(ctx, kMul);
}
void infer_div(InferContext& ctx) {
  infer_binary(ctx, kDiv);
}
void infer_maximum(InferContext& ctx) {
  infer_binary(ctx, kMaximum);
}
void infer_minimum(InferContext& ctx) {
  infer_binary(ctx, kMinimum);
}
void infer_elemwise_add(InferContext& ctx) {
  infer_binary(ctx, kElemAdd);
}
void infer_elemwise_sub(InferContext& ctx) {
  infer_binary(ctx, kElemSub);
}
void infer_elemwise_mul(InferContext& ctx) {
  infer_binary(ctx, kElemMul);
}
void infer_less(InferContext& ctx) {
  infer_binary(ctx, kLess);
}
void infer_less_equal(InferContext& ctx) {
  infer_binary(ctx, kLessEqual);
}
void infer_greater(InferContext& ctx) {
  infer_binary(ctx, kGreater);
}
void infer_greater_equal(InferContext& ctx) {
  infer_binary(ctx, kGreaterEqual);
}
void infer_equal(InferContext& ctx) {
  infer_binary(ctx, kEqual);
}
void infer_not_equal(InferContext& ctx) {
  infer_binary(ctx, kNotEqual);
}
void infer_logical_and(InferContext& ctx) {
  infer_binary(ctx, kLogicalAnd);
}
void infer_logical_or(InferContext& ctx) {
  infer_binary(ctx, kLogicalOr);
}

// where: three-way broadcasting; the result's precision is max(pa, pb) (cond's value range
// does not reach the result).
void infer_where(InferContext& ctx) {
  require_inputs("where", ctx.in.size(), 3);
  const TensorType &c = ctx.in[0], &a = ctx.in[1], &b = ctx.in[2];
  require_same_dtype("where", a.dtype, b.dtype);
  Dims dims = with_op_name("where", [&] {
    TensorType ca = c;
    ca.dtype = a.dtype;
    ca.dims = broadcast_types(c, a);
    return broadcast_types(ca, b);
  });
  set_result(ctx, result_type(a.dtype, dims, binary_precision(PrecisionRule::max, a, b)));
}

}  // namespace mlvm
