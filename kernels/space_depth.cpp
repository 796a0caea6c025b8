// depth_to_space and space_to_depth as one strided copy each: the result, seen as a 6-D
// row-major array, is filled from a 6-D view of x built from x's own strides (so a strided or
// broadcast x is never copied first). The static rules are in ir/infer_space_depth.cpp.
#include <cstdint>

#include "kernels/run_table.hpp"
#include "kernels/run_time_type.hpp"
#include "tensor/copy.hpp"

namespace mlvm {

namespace {

// depth_to_space of a contiguous x row by row: output row h·b + i of channel c interleaves
// input row h of the b channels ch(c, i, j), j < b. The strided copy's innermost run was the
// b elements of one output pixel, plane-sized steps apart, the slow part of PP-OCRv4's
// detector head (a ConvTranspose 2x2 /2 imported as a 1x1 convolution and this).
template <class T>
void depth_to_space_rows(const T* x, T* y, int64_t n, int64_t c, int64_t h, int64_t w, int64_t b, bool dcr) {
  const int64_t plane = h * w;
  for (int64_t in = 0; in < n; ++in)
    for (int64_t ic = 0; ic < c; ++ic)
      for (int64_t r = 0; r < h; ++r)
        for (int64_t i = 0; i < b; ++i) {
          T* out = y + ((in * c + ic) * h * b + r * b + i) * w * b;
          auto src_of = [&](int64_t j) {
            const int64_t ch = dcr ? (i * b + j) * c + ic : ic * b * b + i * b + j;
            return x + (in * c * b * b + ch) * plane + r * w;
          };
          if (b == 2) {  // two rows interleaved in one loop, which vectorizes
            const T *s0 = src_of(0), *s1 = src_of(1);
            for (int64_t col = 0; col < w; ++col) {
              out[2 * col] = s0[col];
              out[2 * col + 1] = s1[col];
            }
            continue;
          }
          for (int64_t j = 0; j < b; ++j) {
            const T* src = src_of(j);
            for (int64_t col = 0; col < w; ++col) out[col * b + j] = src[col];
          }
        }
}

}  // namespace

void run_depth_to_space(KernelContext& ctx) {
  const TensorType ot = infer_at_run_time(ctx, infer_depth_to_space);
  const depth_to_space_attrs& a = ctx.attrs.get<depth_to_space_attrs>();
  const Tensor& x = ctx.in[0];
  Tensor y = ctx.output(ot.dtype, ot.dims);
  ctx.out[0] = y;
  if (y.numel() == 0) return;
  const int64_t b = a.blocksize, n = x.dim(0), c = ot.dims[1], h = x.dim(2), w = x.dim(3);
  const bool dcr = a.mode == depth_to_space_attrs::mode_choice::DCR;
  if (x.is_contiguous() && y.is_contiguous()) {
    auto rows = [&](auto tag) {
      using T = decltype(tag);
      depth_to_space_rows<T>(reinterpret_cast<const T*>(x.raw_data()), reinterpret_cast<T*>(y.raw_data()), n, c, h, w, b,
                             dcr);
    };
    switch (dtype_size(x.dtype())) {
      case 1: return rows(uint8_t{});
      case 2: return rows(uint16_t{});
      case 4: return rows(uint32_t{});
      case 8: return rows(uint64_t{});
      default: break;  // wider elements: the strided copy
    }
  }
  const Dims& s = x.strides();
  // y[n, c, h·b + i, w·b + j] = x[n, ch, h, w] with ch = (i·b + j)·C' + c (DCR) or
  // c·b² + i·b + j (CRD); the view's dims are (n, c, h, i, w, j).
  const Dims shape{n, c, h, b, w, b};
  const Dims src_strides = dcr ? Dims{s[0], s[1], s[2], b * c * s[1], s[3], c * s[1]}
                               : Dims{s[0], b * b * s[1], s[2], b * s[1], s[3], s[1]};
  copy_into(x.with_layout(shape, src_strides, x.offset()),
            y.with_layout(shape, contiguous_strides(shape), y.offset()));
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
