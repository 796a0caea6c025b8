// Rules of the normalization ops (batch_norm, instance_norm, layer_norm, lrn,
// mean_variance_normalization) that both their static rules (ir/infer_norm.cpp) and their
// kernels (kernels/norm.cpp) apply, so that a kernel reads the attributes the way the verifier
// checked them.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/attrs.hpp"

namespace mlvm {

// layer_norm's axis normalized to [0, rank); Error(invalid) "layer_norm: axis ..." when out of
// range.
int layer_norm_axis(const layer_norm_attrs& a, int rank);

// mean_variance_normalization's axes as one flag per dim (true: reduced). An empty list reduces
// every dim. Error(invalid) for an axis out of [-rank, rank) or given twice.
std::vector<bool> mvn_reduced_dims(const mvn_attrs& a, int rank);

}  // namespace mlvm
