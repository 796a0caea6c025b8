// Cache-blocked copy of a 2-D strided block: the inner loop of copy_into() when source and
// destination are dense along different dims (a transpose or a permutation). Walking either
// side in order would touch a new cache line per element on the other side; copying in tiles
// small enough for L1 touches each line of both sides once.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mlvm {

// Element (r, c) is at dst + r*dst_row_stride + c*dst_col_stride and likewise in src (byte
// strides, any sign; typically the source is dense along rows and the destination along cols).
struct TileCopy {
  int64_t rows = 0, cols = 0;
  int64_t dst_row_stride = 0, dst_col_stride = 0;
  int64_t src_row_stride = 0, src_col_stride = 0;
};

// dst and src must not overlap. itemsize is 1, 2, 4 or 8.
void copy_tiled(const TileCopy& t, std::byte* dst, const std::byte* src, int64_t itemsize);

}  // namespace mlvm
