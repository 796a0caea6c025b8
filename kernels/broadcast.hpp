// Broadcasting (seed 004, ops.md §1): shape inference with `?` dims for the verifier, the
// same rule on concrete shapes at run time, and stride-0 read views.
#pragma once

#include "kernels/op_api.hpp"

namespace mlvm {

// Static rule over type-level shapes. Ranks are equalized by prefixing 1s; per dim: equal,
// or one side 1 (1 against 0 gives 0); `?` against 1 is `?`, `?` against another static size
// is that size. Two incompatible static sizes: Error(invalid)
// "shape mismatch: f32[3, 4] and f32[5] cannot broadcast (dim 1: 4 vs 5)".
Dims broadcast_types(const TensorType& a, const TensorType& b);

// The same rule on concrete shapes at run time; a mismatch (possible only through `?` dims)
// is Error(trap).
Dims broadcast_shapes(const Dims& a, const Dims& b);

// `t` read as `shape` through stride-0 dims (no copy). `t` must broadcast to `shape`
// (checked: Error(trap) otherwise). The result is read-only where a stride is 0.
Tensor broadcast_view(const Tensor& t, const Dims& shape);

}  // namespace mlvm
