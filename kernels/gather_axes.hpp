// The copying engine of the transforms repeat, tile, pad, roll and take (docs/ops.md,
// "Transforms"). Each of them is an "axis-separable gather": every output element is
// Y[k_0, ..., k_{R-1}] = X[m_0(k_0), ..., m_{R-1}(k_{R-1})] for one index map per axis (or a
// fill value where some m_d(k_d) is -1, pad's constant border). So gather_axes does the copying
// and each op only builds its per-axis maps:
//   repeat  m(k) = floor(k / repeats) on the axis
//   tile    m(k) = k mod n
//   roll    m(k) = (k - shift) mod n
//   pad     edge: clamp; reflect: NumPy's mirror without repeating the edge; constant: -1 border
//   take    the (normalized) indices on the axis, the indices' dims flattened into one axis
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/op_api.hpp"

namespace mlvm {

// Output position -> input position along one axis; -1: the fill value.
using IndexMap = std::vector<int64_t>;

IndexMap identity_map(int64_t n);
// One identity map per dim of `shape`.
std::vector<IndexMap> identity_maps(const Dims& shape);

// Y[k...] = X[maps[0][k_0], ..., maps[R-1][k_{R-1}]]; `y` is a fresh contiguous tensor of the
// same rank as `x` whose dim d has maps[d].size() entries; `fill` is used where a map says -1.
// The output is walked row by row; the innermost map is cut into runs (step +1, 0, -1 or fill),
// each copied by a tight loop, so identity stretches become memcpy. Checks for cancellation
// every 1024 rows.
void gather_axes(const ExecEnv& env, const Tensor& x, const Tensor& y, std::vector<IndexMap> maps,
                 const Scalar& fill);

}  // namespace mlvm
