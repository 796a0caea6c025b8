// Static rules of the normalization ops: batch_norm, instance_norm, layer_norm, lrn and
// mean_variance_normalization (floats only); their kernels are in kernels/norm.cpp, the
// attribute rules they share in ir/norm_rules.hpp.
#include <string>

#include "ir/infer.hpp"
#include "ir/nn_rules.hpp"
#include "ir/norm_rules.hpp"

namespace mlvm {

namespace {

// x is f32 or f64 of rank >= min_rank (`layout` names the dims in the message).
void check_x(const char* op, const TensorType& x, int min_rank, const char* layout) {
  if (!is_float(x.dtype))
    fail_invalid(std::string(op) + ": x must be f32 or f64, got " + x.to_string());
  if (x.dims.size() < min_rank)
    fail_invalid(std::string(op) + ": x must have rank >= " + std::to_string(min_rank) +
                 (*layout ? std::string(" ") + layout : std::string()) + ", got " + x.to_string());
}

// A per-channel input: x's dtype, shape (C) with C = x's dim 1.
void check_channels(const char* op, const char* name, const TensorType& t, const TensorType& x) {
  if (t.dtype != x.dtype || t.dims.size() != 1 || dims_conflict(t.dims[0], x.dims[1]))
    fail_invalid(std::string(op) + ": " + name + " must be " + std::string(dtype_name(x.dtype)) +
                 "[" + dim_text(x.dims[1]) + "] (the channels of x " + x.to_string() + "), got " +
                 t.to_string());
}

TensorType float_result(const TensorType& x) {
  TensorType out = x;
  out.precision = kUnknownPrecision;
  return out;
}

}  // namespace

void infer_batch_norm(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  check_x("batch_norm", x, 2, "(N, C, ...)");
  const char* names[] = {"scale", "bias", "mean", "var"};
  for (int k = 0; k < 4; ++k) check_channels("batch_norm", names[k], ctx.in[k + 1], x);
  ctx.out.assign(1, float_result(x));
}

void infer_instance_norm(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  check_x("instance_norm", x, 2, "(N, C, ...)");
  check_channels("instance_norm", "scale", ctx.in[1], x);
  check_channels("instance_norm", "bias", ctx.in[2], x);
  ctx.out.assign(1, float_result(x));
}

void infer_layer_norm(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  check_x("layer_norm", x, 1, "");
  const int rank = x.dims.size();
  const int axis = layer_norm_axis(ctx.attrs.get<layer_norm_attrs>(), rank);
  // scale and bias broadcast (one way) to the normalized dims x.dims[axis:].
  Dims normalized;
  for (int d = axis; d < rank; ++d) normalized.push_back(x.dims[d]);
  for (int k = 1; k < 3; ++k) {
    if (k >= int(ctx.in.size()) || !ctx.in[k].present) continue;
    const TensorType& t = ctx.in[k];
    const char* name = k == 1 ? "scale" : "bias";
    bool ok = t.dtype == x.dtype && t.dims.size() <= normalized.size();
    for (int i = 0; ok && i < t.dims.size(); ++i) {
      const int64_t want = normalized[normalized.size() - t.dims.size() + i];
      ok = t.dims[i] == 1 || !dims_conflict(t.dims[i], want);
    }
    if (!ok)
      fail_invalid(std::string("layer_norm: ") + name + " must be " +
                   std::string(dtype_name(x.dtype)) + " and broadcast to the normalized dims " +
                   dims_to_string(normalized) + " of x " + x.to_string() + " (axis " +
                   std::to_string(axis) + "), got " + t.to_string());
  }
  TensorType stats;
  stats.dtype = DType::f32;
  stats.dims = x.dims;
  for (int d = axis; d < rank; ++d) stats.dims[d] = 1;
  ctx.out.assign(3, stats);
  ctx.out[0] = float_result(x);
}

void infer_lrn(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  check_x("lrn", x, 2, "(N, C, ...)");
  ctx.out.assign(1, float_result(x));
}

void infer_mean_variance_normalization(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  check_x("mean_variance_normalization", x, 1, "");
  mvn_reduced_dims(ctx.attrs.get<mvn_attrs>(), x.dims.size());
  ctx.out.assign(1, float_result(x));
}

}  // namespace mlvm
