// Broadcast read views (stride 0). The broadcasting shape rules are in ir/rules.hpp.
#pragma once

#include "ir/rules.hpp"
#include "kernels/op_api.hpp"

namespace mlvm {

// `t` read as `shape` through stride-0 dims (no copy). `t` must broadcast to `shape`
// (checked: Error(trap) otherwise). The result is read-only where a stride is 0.
Tensor broadcast_view(const Tensor& t, const Dims& shape);

}  // namespace mlvm
