// A direct conv2d kernel for one input channel per group (depthwise, any channel multiplier):
// a GEMM with K = KH·KW would spend its time packing, so each output plane is computed as
// KH·KW shifted, scaled rows added into a row accumulator (unit stride vectorizes).
#pragma once

#include <cstdint>

#include "kernels/gemm.hpp"

namespace mlvm::simd {

struct DepthwiseGeometry {
  int64_t h, w;          // input plane
  int64_t kh, kw;        // window
  int64_t oh, ow;        // output plane
  int64_t top, left;     // padding before the first row / column
  int64_t sh, sw, dh, dw;
};

// y (oh x ow) = sum over (i, j) of w[i·kw + j] · padded x (row oh·sh - top + i·dh, column
// ow·sw - left + j·dw), summed in (i, j) order from 0, plus `bias` (if non-null, *bias).
// Integers wrap like the GEMM (gemm.hpp). x is one contiguous input plane, w one contiguous
// KH x KW window, y one contiguous output plane.
template <class T>
void depthwise_plane(const T* x, const T* w, const gemm_out_t<T>* bias, const DepthwiseGeometry& geo,
                     gemm_out_t<T>* y);

}  // namespace mlvm::simd
