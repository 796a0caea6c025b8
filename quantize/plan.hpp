// Which values of the float program the quantizer turns into integers, and how. Starting from
// the one float input it quantizes (the "activation input"), every float value computed from
// it is an activation; the instructions that read activations must be ones the quantizer
// knows. Everything else (labels, accuracy arithmetic) is copied as it is.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "quantize/graph.hpp"

namespace mlvm::quant {

enum class NodeRole : uint8_t {
  copy,     // reads no activation: copied unchanged
  layer,    // conv2d, dense, avg_pool2d, add, concatenate: computed in i32, requantized
  same,     // relu, max_pool2d and views: the same integers' scale carries through
  reader,   // argmax, argmin, shape_of: read the integers, make a non-activation value
  fused,    // a relu folded into the layer before it (applied to the i32 accumulator)
};

struct QuantPlan {
  int32_t input = kNoValue;       // the activation input's value
  std::vector<bool> activation;   // per value
  // Per activation value: true when no layer reads it (directly or through `same` nodes), only
  // outputs and readers: it keeps 16 bits (i32) instead of 8 (i8).
  std::vector<bool> terminal;
  std::vector<NodeRole> role;     // per node
  // Per node of role `layer`: the relu node folded into it, or -1.
  std::vector<int32_t> fused_relu;
  // Per node: needed to compute the activations (the calibration run keeps only these).
  std::vector<bool> in_slice;
};

// The ops each role accepts (docs/quantize.md lists them).
bool is_layer_op(Opcode op);
bool is_same_scale_op(Opcode op);
bool is_reader_op(Opcode op);

// Picks the activation input: `name` is an input or an f32 constant of the module; "" means
// the module's only f32 input. Error(invalid) naming what was expected.
int32_t find_activation_input(const Graph& g, const std::string& name);

// Classifies every node. Error(invalid) at the first node reading an activation that the
// quantizer cannot handle, naming the instruction and the supported ops.
QuantPlan plan_quantization(const Graph& g, int32_t input);

}  // namespace mlvm::quant
