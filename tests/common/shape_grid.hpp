// The X.shape grid (1, j, l, r) of the CVM formalization's op tests, j, l, r in [1, 92],
// [1, 86], [1, 93]: every corner, then the interior points a suite picks.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "tensor/dims.hpp"

namespace mlvm::testing {

inline std::vector<Dims> cvm_shape_grid(std::initializer_list<Dims> interior) {
  std::vector<Dims> out;
  for (int64_t j : {1, 92})
    for (int64_t l : {1, 86})
      for (int64_t r : {1, 93}) out.push_back(Dims{1, j, l, r});
  out.insert(out.end(), interior.begin(), interior.end());
  return out;
}

}  // namespace mlvm::testing
