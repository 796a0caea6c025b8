// conv2d's im2col matrix seen as a window over the unpadded input: the B operand a stride-1
// convolution hands the GEMM (kernels/gemm.hpp, GemmArgs::b_window), which packs its panels
// straight from the input instead of from zero-padded planes, writing the output rows
// directly (no wide rows to copy out, no padding columns computed). Plain data: included by
// the per-level translation units (see the ODR note in kernels/simd/cpu_features.hpp).
#pragma once

#include <cstdint>

namespace mlvm::simd {

// B element (k, j), k = (c, i, jj) over channels x kh x kw and j = (oh, ow) over the output
// plane (ow_n columns a row), is x[c·h·w + (oh + i·dh - top)·w + (ow + jj·dw - left)], and 0
// where that row or column falls outside the h x w plane (the padding).
struct ConvWindow {
  int64_t h = 0, w = 0;    // input plane
  int64_t kh = 0, kw = 0;  // taps
  int64_t dh = 1, dw = 1;  // dilations
  int64_t top = 0, left = 0;
  int64_t ow_n = 0;        // output columns a row (> 0)
};

}  // namespace mlvm::simd
