// Static rules of dense (y = x·wᵀ + b) and matmul (NumPy semantics); their kernels are in
// kernels/dense.cpp.
#include <string>

#include "ir/infer.hpp"
#include "ir/nn_rules.hpp"
#include "ir/rules.hpp"

namespace mlvm {

namespace {

const TensorType* optional_input(const InferContext& ctx, int k) {
  return int(ctx.in.size()) > k && ctx.in[k].present ? &ctx.in[k] : nullptr;
}

// A static size wins over `?` (the run-time check happens when the kernel re-infers).
int64_t merge_dim(int64_t a, int64_t b) {
  return a == kDynamic ? b : a;
}

}  // namespace

void infer_dense(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  const TensorType& w = ctx.in[1];
  const TensorType* b = optional_input(ctx, 2);
  check_gemm_dtypes("dense", x, w);
  if (x.dims.size() != 2) fail_invalid("dense: x must have rank 2 (M, K), got " + x.to_string());
  if (w.dims.size() != 2) fail_invalid("dense: w must have rank 2 (N, K), got " + w.to_string());
  if (dims_conflict(x.dims[1], w.dims[1]))
    fail_invalid("dense: inner dims differ: x " + x.to_string() + " has K = " +
                 dim_text(x.dims[1]) + ", w " + w.to_string() + " has K = " + dim_text(w.dims[1]));
  const int64_t n = b ? check_gemm_bias("dense", *b, x, w, w.dims[0], "N of w") : w.dims[0];
  TensorType out;
  out.dtype = gemm_result_dtype(x.dtype);
  out.dims = Dims{x.dims[0], n};
  out.precision = gemm_result_precision(x, w, b, merge_dim(x.dims[1], w.dims[1]));
  ctx.out.assign(1, out);
}

void infer_matmul(InferContext& ctx) {
  const TensorType& a = ctx.in[0];
  const TensorType& b = ctx.in[1];
  check_gemm_dtypes("matmul", a, b);
  const int ra = a.dims.size(), rb = b.dims.size();
  if (ra < 1 || rb < 1)
    fail_invalid("matmul: operands must have rank >= 1, got " + a.to_string() + " and " +
                 b.to_string());
  const int64_t ka = a.dims[ra - 1];
  const int64_t kb = rb == 1 ? b.dims[0] : b.dims[rb - 2];
  if (dims_conflict(ka, kb))
    fail_invalid("matmul: inner dims differ: " + a.to_string() + " has K = " + dim_text(ka) + ", " +
                 b.to_string() + " has K = " + dim_text(kb));
  TensorType ba{a.dtype, {}}, bb{b.dtype, {}};
  for (int i = 0; i + 2 < ra; ++i) ba.dims.push_back(a.dims[i]);
  for (int i = 0; i + 2 < rb; ++i) bb.dims.push_back(b.dims[i]);
  Dims dims;
  try {
    dims = broadcast_types(ba, bb);
  } catch (const Error& e) {
    fail_invalid("matmul: batch dims of " + a.to_string() + " and " + b.to_string() +
                 " cannot broadcast (" + e.message() + ")");
  }
  if (ra >= 2) dims.push_back(a.dims[ra - 2]);
  if (rb >= 2) dims.push_back(b.dims[rb - 1]);
  if (dims.empty()) dims.push_back(1);  // vector · vector: mlvm has no rank 0, so shape [1]
  TensorType out;
  out.dtype = gemm_result_dtype(a.dtype);
  out.dims = dims;
  out.precision = gemm_result_precision(a, b, nullptr, merge_dim(ka, kb));
  ctx.out.assign(1, out);
}

}  // namespace mlvm
