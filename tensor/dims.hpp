// Dims (the public mlvm/dims.hpp) and the axis helper the layers above share.
#pragma once

#include "mlvm/dims.hpp"

namespace mlvm {

// Normalizes a possibly negative axis against `rank`; Error(invalid) naming `what` if out of range.
int normalize_axis(int64_t axis, int rank, const char* what = "axis");

}  // namespace mlvm
