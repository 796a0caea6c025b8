// Which values of the float program the quantizer turns into integers, and how. Starting from
// the one float input it quantizes (the "activation input"), every float value computed from
// it is an activation. An instruction reading activations runs on integers when the quantizer
// has a lowering for it, else in float (mixed precision): its integer inputs are dequantized,
// and its f32 result is quantized again only where an integer layer reads it. Everything that
// reads no activation (labels, accuracy arithmetic) is copied as it is.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "quantize/graph.hpp"

namespace mlvm::quant {

enum class NodeRole : uint8_t {
  copy,     // reads no activation: copied unchanged
  layer,    // conv2d, dense, matmul, avg_pool2d, mean, add, sub, mul, div, concatenate, tables
  same,     // relu, clip, max_pool2d, nearest resizes, views: the integers' scale carries through
  reader,   // argmax, argmin, shape_of: read the integers, make a non-activation value
  fused,    // a relu or clip folded into the layer before it
  float_op, // reads an activation but runs in f32 (no integer lowering, or kept by option)
};

// A pointwise chain's table reads its input at up to this many bits (2^12 entries): the
// values before a hard-swish span +-40 in PP-OCRv4, where 8 bits leave steps of 0.5 across
// the bend at -3..3 that matters.
inline constexpr int kTableInputBits = 12;

// The ops computed as a 256-entry lookup table on their i8 input (pointwise unary functions).
bool is_table_op(Opcode op);

struct PlanOptions {
  // Instructions to keep in float: shell-style patterns (fnmatch) matched against the op's
  // name, its result registers, its origin (an ONNX node: "Conv '/layer1/conv'") and the
  // node name inside the origin's quotes.
  std::vector<std::string> keep_float;
  bool pointwise_tables = true;  // find_pointwise_chains (QuantizeOptions::pointwise_tables)
  int layer_input_bits = 16;     // the widest a conv2d or dense input is held (QuantizeOptions)
  int weight_bits = 8;           // QuantizeOptions::weight_bits: 7 or 8
};

struct QuantPlan {
  int32_t input = kNoValue;       // the activation input's value
  std::vector<bool> activation;   // per value: computed from the input (integers or floats)
  // Per activation value: held in f32 (the result of a float_op); an integer layer reading it
  // quantizes it with the exponent its calibrated range gives.
  std::vector<bool> floating;
  // Per activation value: the bits it is held in. 16 (in i32) when no layer reads it (directly
  // or through `same` nodes), only outputs, readers and float ops; 8 (i8) when a layer reads
  // it, except the input of a conv2d or dense whose accumulator has room: 31 - 9 - ceil(log2 K)
  // bits, at most 16 (input_bits).
  std::vector<int> bits;
  // Per node: the most bits a conv2d or dense by constant weights takes its input in (8..16;
  // PlanOptions::layer_input_bits, lowered to 8 per layer by narrow_layer_inputs).
  std::vector<int> input_cap;
  int weight_bits = 8;  // of every layer's weights (PlanOptions::weight_bits)
  std::vector<NodeRole> role;     // per node
  // Per node of role `layer`: the relu or clip node folded into it, or -1.
  std::vector<int32_t> fused_relu;
  // Per conv2d node of role `layer`: the `mul`/`add` nodes by a per-output-channel f32
  // constant that follow it (an unfolded batch norm: paddle2onnx's PP-OCR), in order; they
  // are folded into its float weights and bias before those are quantized, and are `fused`.
  // Per matmul by constant weights: the `add` of a constant over its columns that follows it
  // (its bias), likewise fused.
  std::vector<std::vector<int32_t>> fused_affine;
  // Per node of role `layer` that ends a pointwise chain: the chain's nodes in order (this one
  // last; the others are `fused`). The chain reads one i8 activation (`chain_root`) and scalar
  // constants only, so its result is a function of the input's 256 integers: one lookup
  // table instead of a rounding per op (a hard-swish exported as Add, Clip, Mul, Div).
  std::vector<std::vector<int32_t>> chain;
  std::vector<int32_t> chain_root;
  // Per node of role float_op: why it stays float ("no integer lowering", "kept float by
  // option --keep-float 'PATTERN'", "its input is float", ...).
  std::vector<std::string> float_reason;
  // Per node: needed to compute the activations (the calibration run keeps only these).
  std::vector<bool> in_slice;
};

// The ops each role accepts (docs/quantize.md lists them).
bool is_layer_op(Opcode op);
bool is_same_scale_op(Opcode op);
bool is_reader_op(Opcode op);

// The number of elements a reduction (`mean`) over dims with these attributes takes in, when
// every reduced dim is known; -1 otherwise.
int64_t reduced_count(const Dims& dims, const reduce_attrs& a);

// Picks the activation input: `name` is an input or an f32 constant of the module; "" means
// the module's only f32 input. Error(invalid) naming what was expected.
int32_t find_activation_input(const Graph& g, const std::string& name);

// The number of values an f32 constant holds when it broadcasts per channel against a conv2d
// result [N, channels, H, W] (a scalar: 1; [channels, 1, 1] or [1, channels, 1, 1]:
// channels); -1 when it is not a constant of that kind.
int64_t channel_constant(const Graph& g, int32_t v, int64_t channels);
// Whether v is an f32 constant of `columns` values along the last axis ([N], [1, N], ...): a
// bias a matmul by constant weights takes as dense's.
bool column_constant(const Graph& g, int32_t v, int64_t columns);

// The bits node n takes value v in: 8, except as the input of a conv2d or dense by constant
// weights over K products, which takes min(16, 31 - 8 - 1 - ceil(log2 K)) (as i16, its i8
// weights widened) so that the accumulator stays proven. An 8-bit input's rounding, times
// large weights (a folded batch norm's), was most of the error of PP-OCRv4's recognizer (its
// first depthwise conv: 2.7 of 21 with 8 bits, 0.32 with 16).
int input_bits(const Graph& g, const GraphNode& n, int32_t v, int most = 16);

// Sets p.bits from the roles, the chains and p.input_cap (plan_quantization calls it, and
// narrow_layer_inputs again after changing caps).
void assign_bits(const Graph& g, QuantPlan& p);

// Sets p.chain and p.chain_root (the pointwise chains made one table); called by
// plan_quantization once every node has its role.
void find_pointwise_chains(const Graph& g, QuantPlan& p);

// Classifies every node; nodes without an integer lowering become float_op with the reason.
QuantPlan plan_quantization(const Graph& g, int32_t input, const PlanOptions& options = {});

}  // namespace mlvm::quant
