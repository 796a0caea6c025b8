// Static rules of the copying transforms (docs/ops.md, "Transforms"): repeat, tile,
// concatenate, take, cvm_lut, pad, roll. The shapes come from ir/transform_rules.hpp, which the
// kernels use too. Each result has x's dtype and, for signed integers, x's precision
// (concatenate: the largest of its inputs'; pad: with the fill value's).
#include <algorithm>

#include "ir/infer.hpp"
#include "ir/precision.hpp"
#include "ir/transform_rules.hpp"

namespace mlvm {

namespace {

// Precision carried through a copying op: only signed integer tensors track it.
int carried_precision(const TensorType& t) {
  return is_signed_int(t.dtype) ? t.precision : kUnknownPrecision;
}

}  // namespace

void infer_repeat(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  const auto& a = ctx.attrs.get<repeat_attrs>();
  ctx.out = {TensorType{x.dtype, repeat_dims(x.dims, a.repeats, a.axis), carried_precision(x)}};
}

void infer_tile(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  ctx.out = {TensorType{x.dtype, tile_dims(x.dims, ctx.attrs.get<tile_attrs>().reps),
                        carried_precision(x)}};
}

void infer_concatenate(InferContext& ctx) {
  Dims y = concatenate_dims(ctx.in, ctx.attrs.get<concatenate_attrs>().axis, ErrorKind::invalid);
  int p = carried_precision(ctx.in[0]);
  for (const TensorType& t : ctx.in) {
    int q = carried_precision(t);
    p = (p == kUnknownPrecision || q == kUnknownPrecision) ? kUnknownPrecision : std::max(p, q);
  }
  ctx.out = {TensorType{ctx.in[0].dtype, y, p}};
}

void infer_take(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  const TensorType& ind = ctx.in[1];
  check_index_dtype("take", "indices", ind.dtype, ind.dims);
  TakeAxis a = take_axis(ctx.attrs.get<take_attrs>(), x.dims.size());
  ctx.out = {TensorType{x.dtype, take_dims(x.dims, ind.dims, a), carried_precision(x)}};
}

void infer_cvm_lut(InferContext& ctx) {
  const TensorType& ind = ctx.in[0];
  const TensorType& table = ctx.in[1];
  check_index_dtype("cvm_lut", "indices (input 0)", ind.dtype, ind.dims);
  ctx.out = {TensorType{table.dtype, ind.dims, carried_precision(table)}};
}

void infer_pad(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  const auto& a = ctx.attrs.get<pad_attrs>();
  Dims y = pad_dims(x.dtype, x.dims, a.pad_width, a.value, a.mode, ErrorKind::invalid);
  int p = carried_precision(x);
  if (p != kUnknownPrecision) {
    // pad_dims has checked that the value is an integer of x's dtype.
    int64_t v = a.value.is_float ? int64_t(a.value.f) : a.value.i;
    p = std::max(p, precision_of_value(v));
  }
  ctx.out = {TensorType{x.dtype, y, p}};
}

void infer_roll(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  const auto& a = ctx.attrs.get<roll_attrs>();
  roll_axes(x.dims.size(), a.shift, a.axis);
  ctx.out = {TensorType{x.dtype, x.dims, carried_precision(x)}};
}

}  // namespace mlvm
