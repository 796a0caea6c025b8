// Static rule of conv2d (NCHW); its kernel is in kernels/conv.cpp.
#include <string>

#include "ir/infer.hpp"
#include "ir/nn_rules.hpp"

namespace mlvm {

void infer_conv2d(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  const TensorType& w = ctx.in[1];
  const TensorType* b = ctx.in.size() > 2 && ctx.in[2].present ? &ctx.in[2] : nullptr;
  check_gemm_dtypes("conv2d", x, w);
  if (x.dims.size() != 4)
    fail_invalid("conv2d: x must have rank 4 (N, C, H, W), got " + x.to_string());
  if (w.dims.size() != 4)
    fail_invalid("conv2d: w must have rank 4 (OC, C/groups, KH, KW), got " + w.to_string());
  const ConvParams p = conv_params(ctx.attrs.get<conv2d_attrs>());
  const int64_t c = x.dims[1], oc = w.dims[0], icg = w.dims[1];
  const std::string g = std::to_string(p.groups);
  if (c != kDynamic && c % p.groups != 0)
    fail_invalid("conv2d: groups = " + g + " does not divide the " + std::to_string(c) +
                 " input channels of x " + x.to_string());
  if (oc != kDynamic && oc % p.groups != 0)
    fail_invalid("conv2d: groups = " + g + " does not divide the " + std::to_string(oc) +
                 " output channels of w " + w.to_string());
  if (c != kDynamic && icg != kDynamic && icg * p.groups != c)
    fail_invalid("conv2d: channel mismatch: x " + x.to_string() + " has " + std::to_string(c) +
                 " channels, w " + w.to_string() + " expects C/groups = " + std::to_string(icg) +
                 " with groups = " + g);
  const int64_t out_c = b ? check_gemm_bias("conv2d", *b, x, w, oc, "OC of w") : oc;
  TensorType out;
  out.dtype = gemm_result_dtype(x.dtype);
  out.dims = Dims{x.dims[0], out_c,
                  conv_out_dim(x.dims[2], p.top, p.bottom, w.dims[2], p.dh, p.sh, "height", x, w),
                  conv_out_dim(x.dims[3], p.left, p.right, w.dims[3], p.dw, p.sw, "width", x, w)};
  int64_t k = kDynamic;
  if (icg != kDynamic && w.dims[2] != kDynamic && w.dims[3] != kDynamic)
    k = icg * w.dims[2] * w.dims[3];
  out.precision = gemm_result_precision(x, w, b, k);
  ctx.out.assign(1, out);
}

}  // namespace mlvm
