// Lowering the float program to the integer one (docs/quantize.md, "What each op becomes").
// The activation input is quantized in the program (x * 2^e, rounded, cast to i8, cvm_clip);
// every layer computes in i32 and is requantized to i8 (or to 16 bits in i32 when only outputs,
// argmax and float ops read it); relu, max_pool2d and views run on the integers unchanged;
// outputs that are activations are dequantized back to f32, so the program keeps the float
// one's inputs and outputs. Ops without an integer lowering run in f32 on dequantized inputs,
// and their results are quantized where a layer reads them. Everything that reads no
// activation is copied.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "quantize/emitter.hpp"
#include "quantize/fold.hpp"
#include "quantize/plan.hpp"
#include "quantize/probe.hpp"
#include "quantize/report.hpp"
#include "quantize/scales.hpp"

namespace mlvm::quant {

struct Lowered {
  Module module;
  std::vector<LayerReport> layers;  // in program order, the input first
  Probe probe;                      // probe mode: the activations' integers as outputs
  // Per instruction of `module`: where the float layer it implements is ("instruction 3
  // (line 17)"); "" for the input's quantization.
  std::vector<std::string> locations;
};

// probe = false: the whole program, with the float program's inputs and outputs.
// probe = true: only what the activations need, the activation input as the one input, every
// quantized activation an output (for measuring the error layer by layer).
Lowered lower_to_integers(const Graph& g, const QuantPlan& p, const std::vector<ValueStats>& stats,
                          bool probe);

// An activation as integers: the value is ~ reg * 2^-exp, every element within precision bits.
struct QValue {
  std::string reg;
  int exp = 0;
  int precision = 8;
};

class Lowerer {
 public:
  Lowerer(const Graph& g, const QuantPlan& p, const std::vector<ValueStats>& stats, bool probe);
  Lowered run();

 private:
  // lower.cpp: declarations, copies, ops that keep the scale, outputs.
  void declare_inputs();
  void quantize_input();
  std::string reg_of(int32_t value, const GraphNode* at);
  std::vector<std::string> result_names(const GraphNode& n, std::vector<bool>& exact) const;
  void copy_node(const GraphNode& n);
  void same_scale_node(const GraphNode& n);
  void reader_node(const GraphNode& n);
  void finish_outputs();
  void finish_probe(Lowered& out);
  LayerReport& report(const GraphNode& n, int32_t value, const std::string& op);
  void lower_node(const GraphNode& n);
  std::string origin_of(const Module& m, const GraphNode& n) const;

  // lower_layers.cpp: the ops computed in i32.
  void weighted_layer(const GraphNode& n);  // conv2d, dense
  void matmul(const GraphNode& n);
  void avg_pool(const GraphNode& n);
  void mean(const GraphNode& n);
  void add(const GraphNode& n);  // and sub
  void concatenate(const GraphNode& n);

  // lower_pointwise.cpp: multiplication, clip and the lookup tables.
  void mul(const GraphNode& n);  // and div by a constant
  void table(const GraphNode& n);
  void chain_table(const GraphNode& n);  // a pointwise chain (QuantPlan::chain) as one table
  // A chain x · clip(x + a, lo, hi) · k + b (hard-swish) in integers, without a table; false
  // (nothing emitted) for any other chain, or where the integers would be far from the table.
  bool product_chain(const GraphNode& n);
  // The table of ys (the function at (k - 128) * 2^-x.exp, k = 0..255) for node n's result.
  void emit_table(const GraphNode& n, const QValue& x, const std::vector<float>& ys, const std::string& op);
  // x's integers clipped to clip's bounds at exponent exp (rounded, within x's precision).
  std::string clip_ints(const QValue& x, const clip_attrs& a, const std::string& want);
  // A fused clip applied to the layer's requantized result; y unchanged otherwise.
  QValue maybe_clip(const GraphNode& n, const QValue& y);

  // lower_mixed.cpp: the boundary between integers and floats.
  // The value as integers: an integer activation's own, or a float one quantized (once).
  const QValue& qv(int32_t value);
  // The value as f32: a float activation's register, or an integer one dequantized (once).
  std::string fv(int32_t value);
  // f32 reg * 2^exp, rounded (ties to even), cast to i8 and clipped to 8 bits.
  QValue quantize_f32(const std::string& reg, int exp, const std::string& want);
  void float_node(const GraphNode& n);
  // The value a layer's requantized result stands for: the fused relu's result, or its own.
  int32_t layer_result(const GraphNode& n) const;
  std::string maybe_relu(const GraphNode& n, const std::string& acc);
  // Whether the fused relu or clip leaves only values >= 0 (the scale is chosen for those).
  bool fused_nonnegative(const GraphNode& n) const;
  // Adds to a conv2d's float bias (one per output channel) what rounding its weights `w` (OIHW)
  // to q takes away on average: sum over c, kh, kw of (w - q * scale[o]) * the calibrated mean
  // of input channel c. false (bias unchanged) when the input's channel means are not known.
  bool correct_bias(const GraphNode& n, const std::vector<float>& w, const ChannelWeights& q,
                    std::vector<float>& bias) const;
  std::string fused_name(const GraphNode& n) const;  // "conv2d+relu", "add+clip", "dense"

  // rescale.cpp: moving integers between scales and widths.
  // v at exponent `exp`, within `precision` bits, as dtype (i8 or i32).
  QValue convert(const QValue& v, int exp, int precision, DType dtype, const std::string& want);
  // Before a right shift by at most kDitherShifts of an i32 register: ties alternate along the
  // last axis (rescale.cpp says why).
  static constexpr int kDitherShifts = 3;
  void dither(std::string& reg, bool& own, const std::string& want);
  // acc (i32) * factor[channel] by choose_requant's pipeline, to `precision` bits; the
  // multiplier constant broadcasts along `channel_axis` of a rank-`rank` result.
  std::string requantize(const std::string& acc, const Requant& r, int channel_axis, int rank,
                         int precision, const std::string& want);
  std::string dequantize(const QValue& v, const std::string& name, bool exact);
  std::string scalar_f32(const std::string& want, double value);
  int bits_of(int32_t value) const { return p_.bits[std::size_t(value)]; }
  std::string hint(int32_t value, const std::string& suffix) const;

  const Graph& g_;
  const QuantPlan& p_;
  const std::vector<ValueStats>& stats_;
  const bool probe_;
  Emitter e_;
  std::vector<std::string> regs_;   // per value: its register (non-activations, the input)
  std::vector<QValue> q_;           // per value: its integers (activations)
  std::vector<std::string> f_;      // per value: its f32 register (float activations, dequantized ones)
  std::vector<std::string> exact_;  // per value: the output name it must carry, or ""
  std::vector<LayerReport> layers_;
};

}  // namespace mlvm::quant
