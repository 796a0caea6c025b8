// Shape rules of the plane warps shear, affine and project (docs/ops.md, "Plane warps": the
// Task IR's SHEAR, AFFINE and PROJECT, seed 001), shared by their static rules
// (ir/infer_warp.cpp, on type-level dims where kDynamic is `?`) and their kernels
// (kernels/warp.cpp, on concrete dims), so that a run-time shape is computed the way the
// verifier computed the static one.
//
// Each op works on one plane of x: the two dims `axes` names, (rows, columns), default (0, 1)
// as the seed's [y][x][f] layout has it. Every other dim (batch, channels) is carried along:
// each plane is warped the same way. The seed's coordinates are (u, v) = (row, column) of the
// input and (x, y) of the result.
#pragma once

#include <cstdint>
#include <span>

#include "ir/types.hpp"
#include "tensor/dims.hpp"
#include "tensor/error.hpp"

namespace mlvm {

// The normalized (rows, columns) dims of the plane: exactly two different dims of a rank >= 2
// x. Error(invalid) naming `op` otherwise.
struct WarpPlane {
  int rows = 0;
  int cols = 1;
};
WarpPlane warp_plane(const char* op, int rank, std::span<const int64_t> axes);

// SHEAR with integer factors: x = u + a·v, y = b·u + v. Over an m x n plane the result is
// (m + |a|·n) x (n + |b|·m), exactly the seed's (m + a·n, n + b·m) for a, b >= 0 (the last |a|
// rows and |b| columns only ever hold zeros). A negative factor shears the other way; the
// result is then shifted so that its first row (column) is the first one a cell lands on:
// shear(-a) = fliplr(shear(a)(fliplr(x))).
// Input cell (u, v) lands on result cell (u + a·v + row0, b·u + v + col0).
struct ShearMap {
  int64_t a = 0, b = 0;
  int64_t row0 = 0, col0 = 0;  // -a·(n-1) when a < 0, -b·(m-1) when b < 0, else 0
};
// Error(invalid) when 1 - a·b == 0 (a = b = 1 or a = b = -1): two input cells would land on
// one result cell.
void check_shear_factors(int64_t a, int64_t b);
ShearMap shear_map(int64_t a, int64_t b, int64_t m, int64_t n);
// x's dims with the plane's (m + |a|·n, n + |b|·m); `?` where a `?` takes part. A result too
// large for int64 is an Error of `overflow` (invalid for static dims, trap at run time).
Dims shear_dims(const Dims& x, int64_t a, int64_t b, std::span<const int64_t> axes,
                ErrorKind overflow);

// affine / project: x's dims with the plane replaced by `size` ((rows, columns) >= 0), or x's
// own when `size` is ().
Dims warp_dims(const char* op, const Dims& x, std::span<const int64_t> size,
               std::span<const int64_t> axes);
// The matrix input: an integer or float tensor of dims (rows, 3); a `?` dim is checked at run
// time (`mismatch` = trap there).
void check_warp_matrix(const char* op, DType dtype, const Dims& matrix, int64_t rows,
                       ErrorKind mismatch);

}  // namespace mlvm
