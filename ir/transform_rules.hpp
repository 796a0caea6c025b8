// Shape rules of the copying transforms (docs/ops.md, "Transforms"), shared by their static
// rules (ir/infer_transform.cpp, on type-level dims where kDynamic is `?`) and their kernels
// (kernels/repeat_tile.cpp, concatenate.cpp, take.cpp, pad.cpp, roll.cpp, on concrete dims), so
// that a run-time shape is computed the way the verifier computed the static one. Attribute
// problems are Error(invalid); ranges declared in ir/attrs.def were checked with the attributes.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "ir/attrs.hpp"
#include "ir/types.hpp"
#include "tensor/dims.hpp"
#include "tensor/dtype.hpp"
#include "tensor/error.hpp"
#include "tensor/scalar.hpp"

namespace mlvm {

// repeat: dim `axis` times `repeats` (>= 1).
Dims repeat_dims(const Dims& x, int64_t repeats, int64_t axis);

// tile: x and reps aligned on the right (the shorter one prefixed with 1s), multiplied.
Dims tile_dims(const Dims& x, std::span<const int64_t> reps);

// concatenate: equal dtypes and ranks, dims equal except on `axis`, which adds up. `mismatch`
// is the error kind for a disagreement between dims: invalid for static dims, trap at run time
// (only `?` dims can get that far).
Dims concatenate_dims(std::span<const TensorType> in, int64_t axis, ErrorKind mismatch);

// take's axis: none takes from the flattened input.
struct TakeAxis {
  bool flat = true;  // axis none
  int axis = 0;      // normalized, when not flat
};
TakeAxis take_axis(const take_attrs& attrs, int rank);
// Error(invalid) unless `t` is an integer dtype: "take: indices must have an integer dtype ...".
void check_index_dtype(const char* op, const char* what, DType t, const Dims& d);
// x's dims with the axis replaced by the indices' dims (flat: the indices' dims).
Dims take_dims(const Dims& x, const Dims& indices, const TakeAxis& a);

// pad: one (before, after) pair of non-negative widths per dim; `value` representable in the
// dtype. Modes edge and reflect cannot extend an empty dim (Error of `empty_kind`: invalid for
// static dims, trap at run time).
using PadMode = pad_attrs::mode_choice;
Dims pad_dims(DType dtype, const Dims& x, std::span<const std::array<int64_t, 2>> pad_width,
              const Scalar& value, PadMode mode, ErrorKind empty_kind);

// roll: the normalized axes (in range, not repeated, as many as shifts).
std::vector<int> roll_axes(int rank, std::span<const int64_t> shift, std::span<const int64_t> axis);

}  // namespace mlvm
