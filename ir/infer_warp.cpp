// Static rules of the plane warps shear, affine and project (docs/ops.md, "Plane warps"). The
// shapes come from ir/warp_rules.hpp, which the kernels use too. x may have any dtype; each
// result has x's dtype and, for signed integers, x's precision (the zero fill needs none more).
#include "ir/infer.hpp"
#include "ir/warp_rules.hpp"

namespace mlvm {

namespace {

void set_warp_type(InferContext& ctx, const Dims& dims) {
  const TensorType& x = ctx.in[0];
  ctx.out = {TensorType{x.dtype, dims, is_signed_int(x.dtype) ? x.precision : kUnknownPrecision}};
}

void infer_matrix_warp(InferContext& ctx, const char* op, int64_t matrix_rows) {
  const auto& a = ctx.attrs.get<warp_attrs>();
  check_warp_matrix(op, ctx.in[1].dtype, ctx.in[1].dims, matrix_rows, ErrorKind::invalid);
  set_warp_type(ctx, warp_dims(op, ctx.in[0].dims, a.size, a.axes));
}

}  // namespace

void infer_shear(InferContext& ctx) {
  const auto& a = ctx.attrs.get<shear_attrs>();
  set_warp_type(ctx, shear_dims(ctx.in[0].dims, a.a, a.b, a.axes, ErrorKind::invalid));
}

void infer_affine(InferContext& ctx) {
  infer_matrix_warp(ctx, "affine", 2);
}

void infer_project(InferContext& ctx) {
  infer_matrix_warp(ctx, "project", 3);
}

}  // namespace mlvm
