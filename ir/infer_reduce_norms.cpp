// Static rules of prod, sum_square, l1, l2, log_sum and logsumexp (docs/ops.md, "Reductions");
// their kernels are in kernels/reduce_norms.cpp. They share sum's attributes and shape rule
// (ir/reduce_rules.hpp: axes, keepdims, exclude).
//
// Accepted dtypes:
//   prod sum_square l1         f32 f64 i8 u8 i16 i32 i64 (integers wrap in x's dtype)
//   l2 log_sum logsumexp       f32 f64
// Reducing an empty set gives the identity: prod 1, sum_square/l1/l2 0, log_sum and
// logsumexp -inf.
#include <string>

#include "ir/infer.hpp"
#include "ir/precision.hpp"
#include "ir/reduce_norm_rules.hpp"
#include "ir/reduce_rules.hpp"

namespace mlvm {

namespace {

using namespace ew;
using u128 = unsigned __int128;

// The precision of a value bounded by `b` in magnitude (beyond int64: more than 64 bits).
int precision_of_bound(u128 b) {
  if (b <= u128(INT64_MAX)) return precision_of_value(int64_t(b));
  int bits = 0;
  for (u128 v = b; v; v >>= 1) ++bits;
  return bits + 1;
}
// a * b, saturated at 2^100 (beyond every dtype).
constexpr u128 kCap = u128(1) << 100;
u128 sat_mul(u128 a, u128 b) {
  if (a == 0 || b == 0) return 0;
  return a > kCap / b ? kCap : a * b;
}

// Precision of the result for r elements reduced per result, each at most M = 2^(p-1) - 1 in
// magnitude: prod M^r (1 when r = 0), sum_square r·M², l1 r·M.
int result_precision(ReduceNormKind kind, int p, int64_t r) {
  const u128 m = u128(precision_bound(p));
  switch (kind) {
    case ReduceNormKind::prod: {
      if (r == 0) return 2;   // the empty product, 1
      if (m <= 1) return p;   // products of 0s (p = 1) or of -1, 0, 1 (p = 2)
      u128 b = 1;
      for (int64_t k = 0; k < r && b < kCap; ++k) b = sat_mul(b, m);
      return precision_of_bound(b);
    }
    case ReduceNormKind::sum_square:
      return precision_of_bound(sat_mul(sat_mul(m, m), u128(r)));
    case ReduceNormKind::l1:
      return precision_of_bound(sat_mul(m, u128(r)));
    default:
      return kUnknownPrecision;
  }
}

void infer_reduce_norms(InferContext& ctx, ReduceNormKind kind) {
  const char* op = reduce_norm_name(kind);
  require_inputs(op, ctx.in.size(), 1);
  const TensorType& x = ctx.in[0];
  require_dtype(op, "x", x.dtype, reduce_norm_dtypes(kind), reduce_norm_why(kind));
  const auto& a = ctx.attrs.get<reduce_attrs>();
  ReducePlan P = make_reduce_plan(op, x.dims, a.axes, a.keepdims, a.exclude);
  bool any_dynamic = false;
  int64_t count = 1;  // reduced elements per result, saturated at 2^62
  for (int k = 0; k < P.rank; ++k) {
    if (!P.reduced[k]) continue;
    const int64_t d = x.dims[k];
    if (d == kDynamic) {
      any_dynamic = true;
      continue;
    }
    count = (d != 0 && count > (int64_t(1) << 62) / d) ? (int64_t(1) << 62) : count * d;
  }
  int precision = kUnknownPrecision;
  if (x.precision != kUnknownPrecision && !any_dynamic)
    precision = result_precision(kind, x.precision, count);
  set_result(ctx, result_type(x.dtype, P.out_shape, precision));
}

}  // namespace

void infer_prod(InferContext& ctx) {
  infer_reduce_norms(ctx, ReduceNormKind::prod);
}
void infer_sum_square(InferContext& ctx) {
  infer_reduce_norms(ctx, ReduceNormKind::sum_square);
}
void infer_l1(InferContext& ctx) {
  infer_reduce_norms(ctx, ReduceNormKind::l1);
}
void infer_l2(InferContext& ctx) {
  infer_reduce_norms(ctx, ReduceNormKind::l2);
}
void infer_log_sum(InferContext& ctx) {
  infer_reduce_norms(ctx, ReduceNormKind::log_sum);
}
void infer_logsumexp(InferContext& ctx) {
  infer_reduce_norms(ctx, ReduceNormKind::logsumexp);
}

}  // namespace mlvm
