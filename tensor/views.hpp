// Zero-copy view algebra on Tensor (docs/ops.md, "Views and constants"): every view is a
// new shape / strides / offset over the same storage, built in O(rank) and bounds-checked by
// Tensor::with_layout. Views of a constant stay constant; any other view has mode `view`.
//
// The shape rules are written once as functions over Dims that accept kDynamic (`?`) dims, so
// the verifier's static rules (ir/infer_views.cpp) and the run-time views share them.
// Attribute problems (bad axes, a step of 0, ...) are always Error(invalid). Problems that
// depend on dim values (squeezing a dim that is not 1, element counts that differ, ...) are
// reported with the `mismatch` kind: invalid when the dims are static, trap when a kernel
// meets them at run time (only `?` dims can get that far).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <utility>

#include "tensor/dims.hpp"
#include "tensor/error.hpp"
#include "tensor/scalar.hpp"
#include "tensor/tensor.hpp"

namespace mlvm {

using IntList = std::span<const int64_t>;

// ---------------------------------------------------------------------------------------------
// Shape rules (dims may be kDynamic unless said otherwise).

// The permutation `axes` names (normalized; () reverses). Error(invalid) unless a permutation.
Dims transpose_perm(int rank, IntList axes);
Dims transpose_shape(const Dims& x, IntList axes);
// `target` is concrete (>= 0). Per dim (x prefixed with 1s): equal, or x is 1.
Dims broadcast_to_shape(DType dtype, const Dims& x, IntList target,
                        ErrorKind mismatch = ErrorKind::invalid);
// Inserts `num_newaxis` (0..8) size-1 dims at `axis` (negative: axis + N + 1).
Dims expand_dims_shape(const Dims& x, int64_t axis, int64_t num_newaxis);
// The dims `axes` names ((): every size-1 dim) as a bit mask. () with a `?` dim is an error
// (whether it would be dropped is unknown). Dropping every dim gives shape [1].
uint32_t squeeze_mask(DType dtype, const Dims& x, IntList axes,
                      ErrorKind mismatch = ErrorKind::invalid);
Dims squeeze_shape(DType dtype, const Dims& x, IntList axes,
                   ErrorKind mismatch = ErrorKind::invalid);
// `target` may hold one -1 (inferred). `?` in x makes a -1 come out as `?`.
Dims reshape_shape(DType dtype, const Dims& x, IntList target,
                   ErrorKind mismatch = ErrorKind::invalid);
Dims flatten_shape(const Dims& x);

// One dim of a strided slice after NumPy's clamping: element k of the result is element
// start + k * step of the input dim.
struct SliceDim {
  int64_t start = 0;
  int64_t step = 1;
  int64_t size = 0;  // kDynamic when the input dim is `?` and the slice depends on it
};
// Per-dim slices of `x` for begin/end/strides/axes. Slots are the leading dims when `axes` is
// empty, else the named axes; begin/end/strides may be shorter than the slots (a missing entry
// means the whole dim in the step's direction, step 1).
std::array<SliceDim, kMaxRank> strided_slice_plan(const Dims& x, IntList begin, IntList end,
                                                  IntList strides, IntList axes);
Dims strided_slice_shape(const Dims& x, IntList begin, IntList end, IntList strides, IntList axes);
// x's leading corner shaped like `like` on `axes` (() = the first rank(like) dims).
Dims slice_like_shape(DType dtype, const Dims& x, const Dims& like, IntList axes,
                      ErrorKind mismatch = ErrorKind::invalid);
// Validates the axis; the shape is unchanged.
int flip_axis(const Dims& x, int64_t axis);
// The two distinct normalized axes of rot90: exactly two entries, or () for (0, 1).
std::pair<int, int> rot90_axes(const Dims& x, IntList axes);
Dims rot90_shape(const Dims& x, int64_t k, IntList axes);
// A shape attribute of zeros/ones/full: rank 1..8, dims >= 0, element count in int64.
Dims constant_shape(const char* op, IntList shape);

// ---------------------------------------------------------------------------------------------
// Views on concrete tensors. All are O(rank) and never allocate element storage.

Tensor transpose(const Tensor& x, IntList axes = {});
Tensor broadcast_to(const Tensor& x, IntList shape, ErrorKind mismatch = ErrorKind::invalid);
Tensor expand_dims(const Tensor& x, int64_t axis, int64_t num_newaxis = 1);
Tensor squeeze(const Tensor& x, IntList axes = {}, ErrorKind mismatch = ErrorKind::invalid);
// The reshape as a view when x's strides allow it (NumPy's no-copy rule: each group of old
// dims that merges or splits into new dims must be uniformly strided), else nullopt.
// `shape` is concrete (no -1) with x's element count (Error(invalid) otherwise).
std::optional<Tensor> reshape_view(const Tensor& x, const Dims& shape);
// A view when possible, else a fresh contiguous copy counted against `budget`; `*copied`
// says which. `shape` may hold one -1.
Tensor reshape(const Tensor& x, IntList shape, bool* copied = nullptr,
               std::shared_ptr<MemoryBudget> budget = {}, ErrorKind mismatch = ErrorKind::invalid);
Tensor flatten(const Tensor& x, bool* copied = nullptr, std::shared_ptr<MemoryBudget> budget = {});
Tensor strided_slice(const Tensor& x, IntList begin, IntList end, IntList strides = {},
                     IntList axes = {});
Tensor slice_like(const Tensor& x, const Dims& like, IntList axes = {},
                  ErrorKind mismatch = ErrorKind::invalid);
Tensor flip(const Tensor& x, int64_t axis);
// Rotates by 90 degrees k times (any k, taken mod 4) from axes[0] towards axes[1] (NumPy).
Tensor rot90(const Tensor& x, int64_t k = 1, IntList axes = {});

// Whether two tensors of one shape address the very same elements: the same first element
// and the same stride along every dim of more than one element (a dim of one has no stride
// that matters). A kernel that finds its input already in its output skips the copy.
bool same_elements(const Tensor& a, const Tensor& b);

// Constants: one stored element, every stride 0 (mode constant, read-only).
Tensor zeros(DType dtype, const Dims& shape);
Tensor ones(DType dtype, const Dims& shape);
// `value` must be representable in `dtype` (Error(invalid) otherwise).
Tensor full(DType dtype, const Dims& shape, const Scalar& value);

}  // namespace mlvm
