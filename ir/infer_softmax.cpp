// Static rule of softmax; its kernel is in kernels/softmax.cpp.
#include "ir/infer.hpp"
#include "ir/nn_rules.hpp"

namespace mlvm {

void infer_softmax(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  if (!is_float(x.dtype)) fail_invalid("softmax: x must be f32 or f64, got " + x.to_string());
  softmax_axis(ctx.attrs.get<softmax_attrs>(), x.dims.size());
  TensorType out = x;
  out.precision = kUnknownPrecision;
  ctx.out.assign(1, out);
}

}  // namespace mlvm
