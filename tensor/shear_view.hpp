// The sheared read as a view (the Task IR's SHEAR along one axis, seed 001; docs/ops.md,
// "Plane warps"): a closed formula over shape / strides / offset, like the views of
// tensor/views.hpp. A zero-filling shear needs zeros where no input cell lands, so the view is
// taken over a buffer that holds the input between zero borders along the sheared axis (the
// kernel builds it in one pass); no element moves to make the shear itself.
#pragma once

#include <cstdint>

#include "tensor/tensor.hpp"

namespace mlvm {

// The view of `padded` whose element [.., r, .., c, ..] (r on `axis`, c on `along`) is
// padded[.., start + r - factor·c, .., c, ..], with `size` elements on `axis` and padded's
// dims elsewhere. Stride on `along` becomes stride(along) - factor·stride(axis); offset moves
// by start·stride(axis). Error(invalid) (from with_layout) if the window leaves `padded`.
Tensor shear_window(const Tensor& padded, int axis, int along, int64_t factor, int64_t start,
                    int64_t size);

}  // namespace mlvm
