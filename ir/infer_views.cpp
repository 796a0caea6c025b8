// Static rules of the views and constants (docs/ops.md, "Views and constants"). The shape
// rules live in tensor/views.hpp and serve both sides: these rules call them on type-level dims
// (with `?`), the kernels (kernels/views.cpp) on concrete shapes, where a dim-dependent failure
// can only come from a `?` dim and is therefore a trap. Views keep their input's precision;
// constants compute theirs from the value.
#include <algorithm>
#include <optional>
#include <string>

#include "ir/infer.hpp"
#include "ir/precision.hpp"
#include "tensor/views.hpp"

namespace mlvm {

namespace {

// The input's type with new dims (dtype and precision carried).
void set_view_type(InferContext& ctx, const Dims& dims) {
  TensorType t = ctx.in[0];
  t.dims = dims;
  t.present = true;
  ctx.out.assign(1, t);
}

void set_constant_type(InferContext& ctx, const char* op, const std::vector<int64_t>& shape,
                       DType dtype, const Scalar& value) {
  TensorType t;
  t.dtype = dtype;
  t.dims = constant_shape(op, shape);
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
  set_view_type(ctx, transpose_shape(ctx.in[0].dims, ctx.attrs.get<axes_attrs>().axes));
}

void infer_broadcast_to(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  set_view_type(ctx, broadcast_to_shape(x.dtype, x.dims, ctx.attrs.get<shape_attrs>().shape,
                                        ErrorKind::invalid));
}

void infer_expand_dims(InferContext& ctx) {
  const auto& a = ctx.attrs.get<expand_dims_attrs>();
  set_view_type(ctx, expand_dims_shape(ctx.in[0].dims, a.axis, a.num_newaxis));
}

void infer_squeeze(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  set_view_type(ctx,
                squeeze_shape(x.dtype, x.dims, ctx.attrs.get<axes_attrs>().axes, ErrorKind::invalid));
}

void infer_reshape(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  set_view_type(ctx,
                reshape_shape(x.dtype, x.dims, ctx.attrs.get<shape_attrs>().shape, ErrorKind::invalid));
}

void infer_flatten(InferContext& ctx) {
  set_view_type(ctx, flatten_shape(ctx.in[0].dims));
}

void infer_strided_slice(InferContext& ctx) {
  const auto& a = ctx.attrs.get<strided_slice_attrs>();
  set_view_type(ctx, strided_slice_shape(ctx.in[0].dims, a.begin, a.end, a.strides, a.axes));
}

void infer_slice_like(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  set_view_type(ctx, slice_like_shape(x.dtype, x.dims, ctx.in[1].dims,
                                      ctx.attrs.get<axes_attrs>().axes, ErrorKind::invalid));
}

void infer_flip(InferContext& ctx) {
  flip_axis(ctx.in[0].dims, ctx.attrs.get<axis_attrs>().axis);
  set_view_type(ctx, ctx.in[0].dims);
}

void infer_rot90(InferContext& ctx) {
  const auto& a = ctx.attrs.get<rot90_attrs>();
  set_view_type(ctx, rot90_shape(ctx.in[0].dims, a.k, a.axes));
}

void infer_zeros(InferContext& ctx) {
  const auto& a = ctx.attrs.get<constant_attrs>();
  set_constant_type(ctx, "zeros", a.shape, a.dtype, Scalar::from_int(0));
}

void infer_ones(InferContext& ctx) {
  const auto& a = ctx.attrs.get<constant_attrs>();
  set_constant_type(ctx, "ones", a.shape, a.dtype, Scalar::from_int(1));
}

void infer_full(InferContext& ctx) {
  const auto& a = ctx.attrs.get<full_attrs>();
  set_constant_type(ctx, "full", a.shape, a.dtype, a.value);
}

namespace {

// zeros_like / ones_like / full_like: x's dims (with its `?`s), dtype= or x's, and the
// precision of the value, as for full. x's values are never read.
void set_like_type(InferContext& ctx, const char* op, const std::optional<DType>& dtype,
                   const Scalar& value) {
  const DType dt = dtype.value_or(ctx.in[0].dtype);
  set_constant_type(ctx, op, {1}, dt, value);
  ctx.out[0].dims = ctx.in[0].dims;
}

}  // namespace

void infer_zeros_like(InferContext& ctx) {
  set_like_type(ctx, "zeros_like", ctx.attrs.get<like_attrs>().dtype, Scalar::from_int(0));
}

void infer_ones_like(InferContext& ctx) {
  set_like_type(ctx, "ones_like", ctx.attrs.get<like_attrs>().dtype, Scalar::from_int(1));
}

void infer_full_like(InferContext& ctx) {
  const auto& a = ctx.attrs.get<full_like_attrs>();
  set_like_type(ctx, "full_like", a.dtype, a.value);
}

// One i64 per dim of x. Its precision is that of the largest dim when every dim is known; a
// `?` dim is known only at run time, so then it is unknown.
void infer_shape_of(InferContext& ctx) {
  const Dims& d = ctx.in[0].dims;
  TensorType t;
  t.dtype = DType::i64;
  t.dims = Dims{int64_t(d.size())};
  int64_t largest = 0;
  bool known = true;
  for (int k = 0; k < d.size(); ++k) {
    if (d[k] == kDynamic) known = false;
    else largest = std::max(largest, d[k]);
  }
  t.precision = known ? precision_of_value(largest) : kUnknownPrecision;
  ctx.out.assign(1, t);
}

void infer_copy(InferContext& ctx) {
  set_view_type(ctx, ctx.in[0].dims);
}

}  // namespace mlvm
