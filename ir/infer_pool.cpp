// Static rules of max_pool2d, avg_pool2d and upsampling (NCHW), whose kernels are in
// kernels/pool.cpp, and of lp_pool2d and max_pool2d_indices (kernels/lp_pool.cpp).
#include <algorithm>
#include <limits>
#include <string>

#include "ir/infer.hpp"
#include "ir/nn_rules.hpp"

namespace mlvm {

namespace {

// A is the op's attribute struct (max_pool2d_attrs or avg_pool2d_attrs).
template <class A>
void infer_pool(InferContext& ctx, const char* op, bool floats_only) {
  const TensorType& x = ctx.in[0];
  if (x.dims.size() != 4)
    fail_invalid(std::string(op) + ": x must have rank 4 (N, C, H, W), got " + x.to_string());
  if (floats_only && !is_float(x.dtype))
    fail_invalid(std::string(op) + ": x must be f32 or f64, got " + x.to_string());
  if (x.dtype == DType::boolean)
    fail_invalid(std::string(op) + ": bool input is not supported, got " + x.to_string());
  const PoolParams p = pool_params(ctx.attrs.get<A>());
  TensorType out = x;  // dtype and precision (docs/ops.md, "Integer precision": pools keep it)
  out.dims[2] =
      pool_out_dim(op, x.dims[2], p.top, p.bottom, p.kh, p.dh, p.sh, p.ceil_mode, "height", x);
  out.dims[3] =
      pool_out_dim(op, x.dims[3], p.left, p.right, p.kw, p.dw, p.sw, p.ceil_mode, "width", x);
  if (floats_only) out.precision = kUnknownPrecision;
  ctx.out.assign(1, out);
}

}  // namespace

void infer_max_pool2d(InferContext& ctx) {
  infer_pool<max_pool2d_attrs>(ctx, "max_pool2d", false);
}
void infer_avg_pool2d(InferContext& ctx) {
  infer_pool<avg_pool2d_attrs>(ctx, "avg_pool2d", true);
}
void infer_lp_pool2d(InferContext& ctx) {
  infer_pool<lp_pool2d_attrs>(ctx, "lp_pool2d", true);
}
// max_pool2d's result and the i64 flat index into x of each maximum (kernels/lp_pool.cpp).
void infer_max_pool2d_indices(InferContext& ctx) {
  infer_pool<max_pool2d_attrs>(ctx, "max_pool2d_indices", false);
  TensorType indices = ctx.out[0];
  indices.dtype = DType::i64;
  indices.precision = kUnknownPrecision;
  ctx.out.push_back(indices);
}

void infer_upsampling(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  if (x.dims.size() != 4)
    fail_invalid("upsampling: x must have rank 4 (N, C, H, W), got " + x.to_string());
  const auto s = upsampling_scale(ctx.attrs.get<upsampling_attrs>());
  TensorType out = x;
  for (int d = 2; d < 4; ++d) {
    const int64_t n = x.dims[d], f = s[d - 2];
    if (n == kDynamic) continue;
    if (n > std::numeric_limits<int64_t>::max() / f)
      fail_invalid("upsampling: " + std::to_string(n) + " x " + std::to_string(f) +
                   " overflows (x " + x.to_string() + ")");
    out.dims[d] = n * f;
  }
  checked_numel(Dims{std::max<int64_t>(out.dims[0], 0), std::max<int64_t>(out.dims[1], 0),
                     std::max<int64_t>(out.dims[2], 0), std::max<int64_t>(out.dims[3], 0)});
  ctx.out.assign(1, out);
}

}  // namespace mlvm
