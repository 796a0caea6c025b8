// Materializing strided views.
#pragma once

#include <memory>

#include "tensor/tensor.hpp"

namespace mlvm {

// Copies src into dst element by element (same shape and dtype; dst must be writable and must
// not overlap src). Any strides on either side.
void copy_into(const Tensor& src, const Tensor& dst);
// `src` itself when it is already contiguous, else a fresh contiguous copy.
Tensor contiguous(const Tensor& src, std::shared_ptr<MemoryBudget> budget = {});
// Always a fresh contiguous owned copy.
Tensor clone(const Tensor& src, std::shared_ptr<MemoryBudget> budget = {});

}  // namespace mlvm
