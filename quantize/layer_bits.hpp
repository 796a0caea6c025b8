// Which conv2d and dense layers may read an 8-bit input (the i8 kernels, several times faster
// than i16 ones) without adding much error: decided per layer from the calibration, so that
// a model's insensitive layers run on i8 and only the few that need it keep 16 bits
// (QuantizeOptions::input_noise, `mlvm-quantize --layer-input-bits auto`).
#pragma once

#include <vector>

#include "quantize/graph.hpp"
#include "quantize/plan.hpp"
#include "quantize/probe.hpp"

namespace mlvm::quant {

// The noise rounding node n's input to 8 bits puts into its result, as a multiple of the
// result's own 8-bit rounding noise: input steps 2^-e_x times the weights, summed in quadrature
// over one output channel's products (independent roundings: variance step^2/12 each), against
// the result's step 2^-e_y, the largest over the output channels:
//   max_o sum_k w[o, k]^2 * 2^(2 (e_y - e_x)).
// A folded batch norm that multiplies a channel's weights by 50 (PP-OCRv4's recognizer) makes
// it large; a plain 3x3 conv over ReLU outputs keeps it near 1. -1 when n is not a conv2d or
// dense by constant weights.
double input_rounding_noise(const Graph& g, const QuantPlan& p, const std::vector<ValueStats>& stats,
                            const GraphNode& n);

// Lowers to 8 the input cap of every conv2d and dense whose input is held wider than 8 bits
// and whose input_rounding_noise is at most `max_noise`, then assigns the bits again. Returns
// the number of layers narrowed.
int narrow_layer_inputs(const Graph& g, QuantPlan& p, const std::vector<ValueStats>& stats, double max_noise);

}  // namespace mlvm::quant
