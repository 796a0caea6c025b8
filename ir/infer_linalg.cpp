// Static rule of det (docs/ops.md, "Linear algebra"); its kernel is kernels/linalg.cpp.
#include <string>

#include "ir/infer.hpp"
#include "ir/rules.hpp"

namespace mlvm {

using namespace ew;

// x [..., M, M] (floats) -> [...]; a single matrix gives [1], since mlvm has no rank 0 (the
// ONNX importer marks that result a scalar). A `?` M is checked again by the kernel.
void infer_det(InferContext& ctx) {
  require_inputs("det", ctx.in.size(), 1);
  const TensorType& x = ctx.in[0];
  require_dtype("det", "x", x.dtype, kFloats, "floats only; cast first");
  const int r = x.dims.size();
  if (r < 2) fail_invalid("det: x must have rank >= 2 ([..., M, M]), got " + x.to_string());
  const int64_t rows = x.dims[r - 2], cols = x.dims[r - 1];
  if (rows != kDynamic && cols != kDynamic && rows != cols)
    fail_invalid("det: the last two dims of x must be equal (square matrices), got " +
                 x.to_string());
  Dims out = x.dims;
  out.resize(r - 2);
  if (out.empty()) out = Dims{1};
  set_result(ctx, result_type(x.dtype, out, kUnknownPrecision));
}

}  // namespace mlvm
