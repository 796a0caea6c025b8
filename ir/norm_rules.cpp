#include "ir/norm_rules.hpp"

#include <string>

#include "tensor/dims.hpp"
#include "tensor/error.hpp"

namespace mlvm {

int layer_norm_axis(const layer_norm_attrs& a, int rank) {
  return normalize_axis(a.axis, rank, "layer_norm: axis");
}

std::vector<bool> mvn_reduced_dims(const mvn_attrs& a, int rank) {
  std::vector<bool> reduced(std::size_t(rank), a.axes.empty());
  for (int64_t ax : a.axes) {
    const int d = normalize_axis(ax, rank, "mean_variance_normalization: axis");
    if (reduced[std::size_t(d)])
      fail_invalid("mean_variance_normalization: axis " + std::to_string(ax) +
                   " is given twice (rank " + std::to_string(rank) + ")");
    reduced[std::size_t(d)] = true;
  }
  return reduced;
}

}  // namespace mlvm
