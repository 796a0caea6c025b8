// Static rule of conv_transpose2d (NCHW, floats); its kernel is in kernels/conv_transpose.cpp,
// the attribute and shape rules it shares with the kernel in ir/nn_rules.hpp.
#include <string>

#include "ir/infer.hpp"
#include "ir/nn_rules.hpp"

namespace mlvm {

void infer_conv_transpose2d(InferContext& ctx) {
  const char* op = "conv_transpose2d";
  const TensorType& x = ctx.in[0];
  const TensorType& w = ctx.in[1];
  const TensorType* b = ctx.in.size() > 2 && ctx.in[2].present ? &ctx.in[2] : nullptr;
  if (!is_float(x.dtype) || w.dtype != x.dtype)
    fail_invalid(std::string(op) + ": x and w must both be f32 or both f64, got " + x.to_string() +
                 " and " + w.to_string());
  if (x.dims.size() != 4)
    fail_invalid(std::string(op) + ": x must have rank 4 (N, C, H, W), got " + x.to_string());
  if (w.dims.size() != 4)
    fail_invalid(std::string(op) + ": w must have rank 4 (C, OC/groups, KH, KW), got " +
                 w.to_string());
  if (w.dims[2] == 0 || w.dims[3] == 0)
    fail_invalid(std::string(op) + ": w must have KH, KW >= 1, got " + w.to_string());
  const ConvTransposeParams p = conv_transpose_params(ctx.attrs.get<conv_transpose2d_attrs>());
  const int64_t c = x.dims[1];
  const std::string g = std::to_string(p.groups);
  if (c != kDynamic && c % p.groups != 0)
    fail_invalid(std::string(op) + ": groups = " + g + " does not divide the " + std::to_string(c) +
                 " input channels of x " + x.to_string());
  if (dims_conflict(c, w.dims[0]))
    fail_invalid(std::string(op) + ": channel mismatch: x " + x.to_string() + " has " +
                 std::to_string(c) + " channels, w " + w.to_string() + " expects C = " +
                 std::to_string(w.dims[0]));
  int64_t oc = w.dims[1] == kDynamic ? kDynamic : w.dims[1] * p.groups;
  if (b) {
    if (b->dtype != x.dtype || b->dims.size() != 1 || dims_conflict(b->dims[0], oc))
      fail_invalid(std::string(op) + ": bias must be " + std::string(dtype_name(x.dtype)) + "[" +
                   dim_text(oc) + "] (OC = groups * w's dim 1, w " + w.to_string() + "), got " +
                   b->to_string());
    if (oc == kDynamic) oc = b->dims[0];
  }
  TensorType out;
  out.dtype = x.dtype;
  out.dims = Dims{x.dims[0], oc,
                  conv_transpose_out_dim(x.dims[2], p.top, p.bottom, w.dims[2], p.dh, p.sh, p.oph,
                                         "height", x, w),
                  conv_transpose_out_dim(x.dims[3], p.left, p.right, w.dims[3], p.dw, p.sw, p.opw,
                                         "width", x, w)};
  bool known = true;
  for (int64_t d : out.dims) known = known && d != kDynamic;
  if (known) checked_numel(out.dims);  // an output too large to count is an error
  ctx.out.assign(1, out);
}

}  // namespace mlvm
