// A conv2d's float weights and bias with the per-channel muls and adds that follow it folded
// in (QuantPlan::fused_affine: a batch norm as paddle2onnx writes it), as the lowering
// quantizes them and as narrow_layer_inputs weighs them.
#pragma once

#include <vector>

#include "quantize/graph.hpp"
#include "quantize/plan.hpp"

namespace mlvm::quant {

struct Folded {
  std::vector<float> w, b;     // the conv's weights and bias with the fused muls/adds applied
  std::vector<double> range;   // a bound of |folded output| per channel
  Dims dims;                   // the weights' shape
};

Folded fold_affine(const Graph& g, const QuantPlan& p, const GraphNode& n, std::vector<double> range);

}  // namespace mlvm::quant
