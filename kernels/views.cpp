// Views and constants (ops.md §3 "Views and constants"). The shape rules live in
// tensor/views.hpp and serve both sides: infer_* calls them on type-level dims (with `?`),
// run_* on concrete shapes, where a dim-dependent failure can only come from a `?` dim and is
// therefore a trap. Views keep their input's precision; constants compute theirs from the value.
#include "kernels/views.hpp"

#include "ir/precision.hpp"
#include "tensor/copy.hpp"
#include "tensor/views.hpp"

namespace mlvm {

namespace {

constexpr ErrorKind kStatic = ErrorKind::invalid;
constexpr ErrorKind kRunTime = ErrorKind::trap;

// The input's type with new dims (dtype and precision carried).
void set_view_type(InferContext& ctx, const Dims& dims) {
  TensorType t = ctx.in[0];
  t.dims = dims;
  t.present = true;
  ctx.out.assign(1, t);
}

void set_constant_type(InferContext& ctx, const char* op, const Scalar& value) {
  const DType dtype = ctx.attrs.dtype(1);
  TensorType t;
  t.dtype = dtype;
  t.dims = constant_shape(op, ctx.attrs.ints(0));
  if (!scalar_fits(value, dtype))
    fail_invalid(std::string(op) + ": value " + value.to_string() + " is not representable in " +
                 std::string(dtype_name(dtype)));
  t.precision = is_signed_int(dtype)
                    ? precision_of_value(value.is_float ? int64_t(value.f) : value.i)
                    : kUnknownPrecision;
  ctx.out.assign(1, t);
}

}  // namespace

void infer_transpose(InferContext& ctx) {
  set_view_type(ctx, transpose_shape(ctx.in[0].dims, ctx.attrs.ints(0)));
}
void run_transpose(KernelContext& ctx) {
  ctx.out[0] = transpose(ctx.in[0], ctx.attrs.ints(0));
}

void infer_broadcast_to(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  set_view_type(ctx, broadcast_to_shape(x.dtype, x.dims, ctx.attrs.ints(0), kStatic));
}
void run_broadcast_to(KernelContext& ctx) {
  ctx.out[0] = broadcast_to(ctx.in[0], ctx.attrs.ints(0), kRunTime);
}

void infer_expand_dims(InferContext& ctx) {
  set_view_type(ctx, expand_dims_shape(ctx.in[0].dims, ctx.attrs.i(0), ctx.attrs.i(1)));
}
void run_expand_dims(KernelContext& ctx) {
  ctx.out[0] = expand_dims(ctx.in[0], ctx.attrs.i(0), ctx.attrs.i(1));
}

void infer_squeeze(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  set_view_type(ctx, squeeze_shape(x.dtype, x.dims, ctx.attrs.ints(0), kStatic));
}
void run_squeeze(KernelContext& ctx) {
  ctx.out[0] = squeeze(ctx.in[0], ctx.attrs.ints(0), kRunTime);
}

namespace {
// A view when the strides allow it, else a fresh contiguous copy from the run's budget.
void reshape_or_copy(KernelContext& ctx, const Dims& shape) {
  const Tensor& x = ctx.in[0];
  if (auto v = reshape_view(x, shape)) {
    ctx.out[0] = *v;
    return;
  }
  Tensor y = ctx.output(x.dtype(), shape);
  copy_into(x, y.with_layout(x.shape(), contiguous_strides(x.shape()), 0));
  ctx.out[0] = y;
}
}  // namespace

void infer_reshape(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  set_view_type(ctx, reshape_shape(x.dtype, x.dims, ctx.attrs.ints(0), kStatic));
}
void run_reshape(KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  reshape_or_copy(ctx, reshape_shape(x.dtype(), x.shape(), ctx.attrs.ints(0), kRunTime));
}

void infer_flatten(InferContext& ctx) {
  set_view_type(ctx, flatten_shape(ctx.in[0].dims));
}
void run_flatten(KernelContext& ctx) {
  reshape_or_copy(ctx, flatten_shape(ctx.in[0].shape()));
}

void infer_strided_slice(InferContext& ctx) {
  const Attrs& a = ctx.attrs;
  set_view_type(ctx,
                strided_slice_shape(ctx.in[0].dims, a.ints(0), a.ints(1), a.ints(2), a.ints(3)));
}
void run_strided_slice(KernelContext& ctx) {
  const Attrs& a = ctx.attrs;
  ctx.out[0] = strided_slice(ctx.in[0], a.ints(0), a.ints(1), a.ints(2), a.ints(3));
}

void infer_slice_like(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  set_view_type(ctx, slice_like_shape(x.dtype, x.dims, ctx.in[1].dims, ctx.attrs.ints(0), kStatic));
}
void run_slice_like(KernelContext& ctx) {
  ctx.out[0] = slice_like(ctx.in[0], ctx.in[1].shape(), ctx.attrs.ints(0), kRunTime);
}

void infer_flip(InferContext& ctx) {
  flip_axis(ctx.in[0].dims, ctx.attrs.i(0));
  set_view_type(ctx, ctx.in[0].dims);
}
void run_flip(KernelContext& ctx) {
  ctx.out[0] = flip(ctx.in[0], ctx.attrs.i(0));
}

void infer_rot90(InferContext& ctx) {
  set_view_type(ctx, rot90_shape(ctx.in[0].dims, ctx.attrs.i(0), ctx.attrs.ints(1)));
}
void run_rot90(KernelContext& ctx) {
  ctx.out[0] = rot90(ctx.in[0], ctx.attrs.i(0), ctx.attrs.ints(1));
}

void infer_zeros(InferContext& ctx) {
  set_constant_type(ctx, "zeros", Scalar::from_int(0));
}
void run_zeros(KernelContext& ctx) {
  ctx.out[0] = zeros(ctx.attrs.dtype(1), constant_shape("zeros", ctx.attrs.ints(0)));
}

void infer_ones(InferContext& ctx) {
  set_constant_type(ctx, "ones", Scalar::from_int(1));
}
void run_ones(KernelContext& ctx) {
  ctx.out[0] = ones(ctx.attrs.dtype(1), constant_shape("ones", ctx.attrs.ints(0)));
}

void infer_full(InferContext& ctx) {
  set_constant_type(ctx, "full", ctx.attrs.scalar(2));
}
void run_full(KernelContext& ctx) {
  ctx.out[0] =
      full(ctx.attrs.dtype(1), constant_shape("full", ctx.attrs.ints(0)), ctx.attrs.scalar(2));
}

void infer_copy(InferContext& ctx) {
  set_view_type(ctx, ctx.in[0].dims);
}
void run_copy(KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  Tensor y = ctx.output(x.dtype(), x.shape());
  if (y.numel() > 0) copy_into(x, y);
  ctx.out[0] = y;
}

}  // namespace mlvm
