// How one ONNX node becomes mlvm instructions. A lowering reads the node's inputs (Vals), its
// attributes and the opset, and returns one Val per node output, emitting through the Emitter
// (which folds what is known at import time). It throws Error(invalid) with the reason when
// the node cannot be imported; the importer collects every such node before failing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnx/emitter.hpp"
#include "onnx/graph_index.hpp"

namespace onnx {
class NodeProto;
class AttributeProto;
class GraphProto;
class TensorProto;
}  // namespace onnx

namespace mlvm {

struct LoweringEntry;

// Lowers a subgraph (an If branch, a Loop or Scan body) in place, in a scope that sees the
// enclosing graph's values: its inputs bound to `inputs`; returns its outputs' values.
class SubgraphLowerer {
 public:
  virtual std::vector<Val> lower_subgraph(const onnx::GraphProto& g, const std::vector<Val>& inputs) = 0;
  // A choice the import made, or could not make, depends on input dims left open (`?`): an If
  // whose branches differ in rank. Such a model is imported again per run's input shapes.
  virtual void note_shape_dependent() = 0;
  // How many nodes so far were refused as unsupported (an op or domain mlvm does not have).
  virtual int unsupported_nodes() const = 0;

 protected:
  ~SubgraphLowerer() = default;
};

class NodeContext {
 public:
  NodeContext(const onnx::NodeProto& node, int opset, Emitter& e, std::vector<Val> inputs,
              const std::string& model_dir, SubgraphLowerer* subgraphs = nullptr);

  const onnx::NodeProto& node;
  const int opset;
  Emitter& e;
  std::vector<Val> in;  // one per node input; absent (id -1) for "" names
  // The model's own opset before an upgrade to 7 (what a converted node meant; 0: unknown).
  int original_opset = 0;
  // The graph `node` belongs to (the model's, or the subgraph being lowered), indexed, for
  // lowerings that look at the node's neighbours (BatchNormalization folded into the Conv or
  // Gemm before it); null when the importer does not give it, and then nothing is looked at.
  const GraphIndex* graph = nullptr;

  int num_inputs() const { return int(in.size()); }
  Val input(int k) const { return k < int(in.size()) ? in[std::size_t(k)] : Val{}; }
  int num_outputs() const;
  bool output_wanted(int k) const;  // the node names output k

  bool has_attr(std::string_view name) const;
  int64_t attr_int(std::string_view name, int64_t dflt) const;
  double attr_float(std::string_view name, double dflt) const;
  std::string attr_string(std::string_view name, const std::string& dflt) const;
  std::vector<int64_t> attr_ints(std::string_view name, std::vector<int64_t> dflt = {}) const;
  std::vector<double> attr_floats(std::string_view name, std::vector<double> dflt = {}) const;
  // A TENSOR attribute as a constant (Constant's value, ConstantOfShape's value).
  Val attr_tensor(std::string_view name) const;
  const onnx::GraphProto* attr_graph(std::string_view name) const;
  void note_shape_dependent() const;
  int unsupported_nodes() const;
  // Where external data may be read from (the model's folder; "" = nowhere).
  const std::string& model_dir() const { return model_dir_; }
  // Lowers the graph attribute `name` with its inputs bound to `inputs`.
  std::vector<Val> lower_subgraph(std::string_view name, const std::vector<Val>& inputs) const;

  // Error(invalid) "why".
  [[noreturn]] void fail(const std::string& why) const;
  // An axis in [-r, r) -> [0, r), else fail naming `what`.
  int64_t axis(int64_t a, int rank, const std::string& what = "axis") const;

 private:
  const onnx::AttributeProto* attr(std::string_view name) const;
  std::string model_dir_;
  SubgraphLowerer* subgraphs_;
};

using LowerFn = std::vector<Val> (*)(NodeContext&);

struct LoweringEntry {
  const char* op_type;
  int since;  // the lowest opset it handles (after upgrades to 7, usually 1)
  LowerFn fn;
};

// The tables of the op families (onnx/lower_<family>.cpp).
std::span<const LoweringEntry> elementwise_lowerings();
std::span<const LoweringEntry> shape_lowerings();
std::span<const LoweringEntry> reduce_lowerings();
std::span<const LoweringEntry> control_lowerings();
std::span<const LoweringEntry> rnn_lowerings();
std::span<const LoweringEntry> index_lowerings();
std::span<const LoweringEntry> scan_lowerings();
std::span<const LoweringEntry> quant_lowerings();
std::span<const LoweringEntry> loss_lowerings();
std::span<const LoweringEntry> signal_lowerings();
std::span<const LoweringEntry> einsum_lowerings();
std::span<const LoweringEntry> sequence_lowerings();
std::span<const LoweringEntry> text_lowerings();
// Neural-network ops: Conv, pools, Gemm, MatMul, Softmax family, normalizations, activations,
// DepthToSpace/SpaceToDepth, Upsample/Resize (lower_nn.cpp gathers the lower_nn_*.cpp tables).
std::span<const LoweringEntry> nn_lowerings();

// Helpers shared by lowerings.
inline std::vector<Val> one(Val v) { return {v}; }
// The ONNX dims of v ([] for an ONNX scalar); kDynamic where unknown.
std::vector<int64_t> onnx_dims(NodeContext& c, Val v);
// Input `input`, known at import, as its one integer; `what` names it in the error otherwise.
int64_t const_int_input(NodeContext& c, int input, const std::string& what);
// A parameter ONNX passes as a tensor is an attribute when known at import (known_input), else
// the op's optional run-time input, cast to i64 (runtime_param).
bool known_input(NodeContext& c, int input);
Val runtime_param(NodeContext& c, int input);
// An elementwise op; the result is an ONNX scalar when every input is.
Val ew_values(NodeContext& c, Opcode op, const std::vector<Val>& args, std::vector<AttrValue> attrs);
template <class Op>
Val ew(NodeContext& c, Op, const std::vector<Val>& args, const typename Op::attrs& a = {}) {
  return ew_values(c, Op::code, args, a.values());
}
template <class A = write::none>
Val ew(NodeContext& c, Opcode op, const std::vector<Val>& args, const A& a = {}) {
  return ew_values(c, op, args, values_for(op, a));
}

}  // namespace mlvm
