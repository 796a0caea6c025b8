// depth_to_space and space_to_depth as one strided copy each: the result, seen as a 6-D
// row-major array, is filled from a 6-D view of x built from x's own strides (so a strided or
// broadcast x is never copied first). The static rules are in ir/infer_space_depth.cpp.
#include "kernels/run_table.hpp"
#include "kernels/run_time_type.hpp"
#include "tensor/copy.hpp"

namespace mlvm {

void run_depth_to_space(KernelContext& ctx) {
  const TensorType ot = infer_at_run_time(ctx, infer_depth_to_space);
  const depth_to_space_attrs& a = ctx.attrs.get<depth_to_space_attrs>();
  const Tensor& x = ctx.in[0];
  Tensor y = ctx.output(ot.dtype, ot.dims);
  if (y.numel() > 0) {
    const int64_t b = a.blocksize, n = x.dim(0), c = ot.dims[1], h = x.dim(2), w = x.dim(3);
    const Dims& s = x.strides();
    // y[n, c, h·b + i, w·b + j] = x[n, ch, h, w] with ch = (i·b + j)·C' + c (DCR) or
    // c·b² + i·b + j (CRD); the view's dims are (n, c, h, i, w, j).
    const Dims shape{n, c, h, b, w, b};
    const bool dcr = a.mode == depth_to_space_attrs::mode_choice::DCR;
    const Dims src_strides = dcr ? Dims{s[0], s[1], s[2], b * c * s[1], s[3], c * s[1]}
                                 : Dims{s[0], b * b * s[1], s[2], b * s[1], s[3], s[1]};
    copy_into(x.with_layout(shape, src_strides, x.offset()),
              y.with_layout(shape, contiguous_strides(shape), y.offset()));
  }
  ctx.out[0] = y;
}

void run_space_to_depth(KernelContext& ctx) {
  const TensorType ot = infer_at_run_time(ctx, infer_space_to_depth);
  const int64_t b = ctx.attrs.get<space_to_depth_attrs>().blocksize;
  const Tensor& x = ctx.in[0];
  Tensor y = ctx.output(ot.dtype, ot.dims);
  if (y.numel() > 0) {
    const int64_t n = x.dim(0), c = x.dim(1), oh = ot.dims[2], ow = ot.dims[3];
    const Dims& s = x.strides();
    // y[n, (i·b + j)·C + c, h, w] = x[n, c, h·b + i, w·b + j]; the view's dims are
    // (n, i, j, c, h, w).
    const Dims shape{n, b, b, c, oh, ow};
    const Dims src_strides{s[0], s[2], s[3], s[1], b * s[2], b * s[3]};
    copy_into(x.with_layout(shape, src_strides, x.offset()),
              y.with_layout(shape, contiguous_strides(shape), y.offset()));
  }
  ctx.out[0] = y;
}

}  // namespace mlvm
