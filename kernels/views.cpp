// Kernels of the views and constants (docs/ops.md, "Views and constants"): each builds a new
// shape / strides / offset over the input's storage with tensor/views.hpp, whose shape rules
// the static rules (ir/infer_views.cpp) run on type-level dims. Here the dims are concrete, so
// a dim-dependent failure can only come from a `?` dim and is a trap. reshape and flatten copy
// when the strides forbid a view; copy always does.
#include "kernels/run_table.hpp"
#include "tensor/copy.hpp"
#include "tensor/views.hpp"

namespace mlvm {

namespace {

constexpr ErrorKind kRunTime = ErrorKind::trap;

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

void run_transpose(KernelContext& ctx) {
  ctx.out[0] = transpose(ctx.in[0], ctx.attrs.get<axes_attrs>().axes);
}

void run_broadcast_to(KernelContext& ctx) {
  ctx.out[0] = broadcast_to(ctx.in[0], ctx.attrs.get<shape_attrs>().shape, kRunTime);
}

void run_expand_dims(KernelContext& ctx) {
  const auto& a = ctx.attrs.get<expand_dims_attrs>();
  ctx.out[0] = expand_dims(ctx.in[0], a.axis, a.num_newaxis);
}

void run_squeeze(KernelContext& ctx) {
  ctx.out[0] = squeeze(ctx.in[0], ctx.attrs.get<axes_attrs>().axes, kRunTime);
}

void run_reshape(KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  reshape_or_copy(ctx, reshape_shape(x.dtype(), x.shape(), ctx.attrs.get<shape_attrs>().shape, kRunTime));
}

void run_flatten(KernelContext& ctx) {
  reshape_or_copy(ctx, flatten_shape(ctx.in[0].shape()));
}

void run_strided_slice(KernelContext& ctx) {
  const auto& a = ctx.attrs.get<strided_slice_attrs>();
  ctx.out[0] = strided_slice(ctx.in[0], a.begin, a.end, a.strides, a.axes);
}

void run_slice_like(KernelContext& ctx) {
  ctx.out[0] = slice_like(ctx.in[0], ctx.in[1].shape(), ctx.attrs.get<axes_attrs>().axes, kRunTime);
}

void run_flip(KernelContext& ctx) {
  ctx.out[0] = flip(ctx.in[0], ctx.attrs.get<axis_attrs>().axis);
}

void run_rot90(KernelContext& ctx) {
  const auto& a = ctx.attrs.get<rot90_attrs>();
  ctx.out[0] = rot90(ctx.in[0], a.k, a.axes);
}

void run_zeros(KernelContext& ctx) {
  const auto& a = ctx.attrs.get<constant_attrs>();
  ctx.out[0] = zeros(a.dtype, constant_shape("zeros", a.shape));
}

void run_ones(KernelContext& ctx) {
  const auto& a = ctx.attrs.get<constant_attrs>();
  ctx.out[0] = ones(a.dtype, constant_shape("ones", a.shape));
}

void run_full(KernelContext& ctx) {
  const auto& a = ctx.attrs.get<full_attrs>();
  ctx.out[0] = full(a.dtype, constant_shape("full", a.shape), a.value);
}

// The *_like results are constant views (one element, every stride 0): x's shape, never its data.
void run_zeros_like(KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  ctx.out[0] = zeros(ctx.attrs.get<like_attrs>().dtype.value_or(x.dtype()), x.shape());
}

void run_ones_like(KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  ctx.out[0] = ones(ctx.attrs.get<like_attrs>().dtype.value_or(x.dtype()), x.shape());
}

void run_full_like(KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const auto& a = ctx.attrs.get<full_like_attrs>();
  ctx.out[0] = full(a.dtype.value_or(x.dtype()), x.shape(), a.value);
}

void run_shape_of(KernelContext& ctx) {
  const Dims& d = ctx.in[0].shape();
  Tensor y = ctx.output(DType::i64, Dims{int64_t(d.size())});
  int64_t* p = y.data<int64_t>();
  for (int k = 0; k < d.size(); ++k) p[k] = d[k];
  ctx.out[0] = y;
}

void run_copy(KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  Tensor y = ctx.output(x.dtype(), x.shape());
  if (y.numel() > 0) copy_into(x, y);
  ctx.out[0] = y;
}

}  // namespace mlvm
