// Integer precision helpers (docs/ops.md, "Integer precision").
#pragma once

#include <cstdint>

#include "ir/types.hpp"
#include "tensor/tensor.hpp"

namespace mlvm {

// Smallest p >= 1 with |v| <= 2^(p-1) - 1 (1 for v == 0). INT64_MIN needs 65.
int precision_of_value(int64_t v);
// ceil(log2(n)) for n >= 1 (0 for n <= 1).
int ceil_log2(int64_t n);
// Exact precision of a signed-integer tensor's data (any strides); 0 for other dtypes.
int precision_of_tensor(const Tensor& t);
// The largest magnitude precision p allows: 2^(p-1) - 1 (p in 1..64).
int64_t precision_bound(int p);

}  // namespace mlvm
