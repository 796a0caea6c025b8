// Tensor is public (mlvm/tensor.hpp); this adds Storage, which the layers see, and the
// tensors only they make.
#pragma once

#include "mlvm/tensor.hpp"
#include "tensor/dims.hpp"
#include "tensor/dtype.hpp"
#include "tensor/scalar.hpp"
#include "tensor/storage.hpp"

namespace mlvm {

// One stored element broadcast to `shape` (mode constant, read-only). `value` must fit.
Tensor constant_tensor(DType dtype, const Dims& shape, const Scalar& value);

// Rejects rank outside 1..8, negative dims and element counts beyond int64.
void check_shape(const Dims& shape);

}  // namespace mlvm
