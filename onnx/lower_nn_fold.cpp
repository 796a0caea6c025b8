// BatchNormalization folded into the Conv or Gemm before it (../shared/spec/onnx.md,
// "inference-time simplifications"): when a Conv's (Gemm's) only output is read by nothing but
// one BatchNormalization in inference mode, and the weights, the bias and the four statistics
// are constants of the graph (initializers or Constant nodes), the Conv is emitted with
// weights scaled per output channel by k = scale / sqrt(var + epsilon) and bias
// b * k + (bias - mean * k), and the BatchNormalization becomes its input: no instruction is
// left for it.
//
// The Emitter does not record which instruction made a value or who reads it, so the decision
// is taken on the ONNX graph (NodeContext::graph): the Conv looks ahead at its readers, the
// BatchNormalization looks back at its input's producer, and both ask the same question of
// the same graph (plan()), so they always agree. Without a graph nothing is folded.
#include <onnx/onnx_pb.h>

#include <cmath>

#include "onnx/graph_walk.hpp"
#include "onnx/lower_nn_util.hpp"
#include "onnx/tensor_proto.hpp"

namespace mlvm::nn {

namespace {

bool default_domain(const onnx::NodeProto& n) {
  return n.domain().empty() || n.domain() == "ai.onnx";
}

// The TensorProto a name of g stands for when it is a constant of g: an initializer, or the
// `value` of a Constant node.
const onnx::TensorProto* constant_proto(const onnx::GraphProto& g, const std::string& name) {
  if (name.empty()) return nullptr;
  for (const auto& t : g.initializer())
    if (t.name() == name) return &t;
  for (const auto& n : g.node()) {
    if (n.op_type() != "Constant" || !default_domain(n) || n.output_size() != 1 || n.output(0) != name)
      continue;
    for (const auto& a : n.attribute())
      if (a.name() == "value" && a.type() == onnx::AttributeProto::TENSOR) return &a.t();
    return nullptr;
  }
  return nullptr;
}

bool float_proto(const onnx::TensorProto& t) {
  return t.data_type() == onnx::TensorProto::FLOAT || t.data_type() == onnx::TensorProto::DOUBLE;
}

// How often `name` is read by the nodes of g, counting the reads of nested subgraphs (which see
// g's values) and g's outputs; a subgraph that defines the name itself is counted too (never
// too few). `reader`: the last node reading it.
void count_reads(const onnx::GraphProto& g, const std::string& name, int& count,
                 const onnx::NodeProto*& reader) {
  for_each_read(g, [&](const std::string& read, const onnx::NodeProto* node, int) {
    if (read != name) return;
    ++count;
    if (node) reader = node;
  });
}

const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const char* name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

struct Plan {
  const onnx::NodeProto* bn = nullptr;
  BnFold fold;
};

// Whether producer p (a Conv or Gemm of c.graph) takes in the BatchNormalization reading its
// output, and with what per-channel factors.
std::optional<Plan> plan(NodeContext& c, const onnx::NodeProto& p) {
  if (!c.graph) return std::nullopt;
  const onnx::GraphProto& g = *c.graph;
  const bool conv = p.op_type() == "Conv";
  if (!default_domain(p) || (!conv && p.op_type() != "Gemm")) return std::nullopt;
  if (p.output_size() != 1 || p.output(0).empty() || p.input_size() < 2) return std::nullopt;
  const std::string& out = p.output(0);
  int reads = 0;
  const onnx::NodeProto* reader = nullptr;
  count_reads(g, out, reads, reader);
  if (reads != 1 || !reader) return std::nullopt;
  const onnx::NodeProto& bn = *reader;
  if (bn.op_type() != "BatchNormalization" || !default_domain(bn) || bn.input_size() < 5 ||
      bn.input(0) != out)
    return std::nullopt;
  for (int k = 1; k < bn.output_size(); ++k)
    if (!bn.output(k).empty()) return std::nullopt;  // training statistics
  if (const auto* a = find_attr(bn, "training_mode"); a && a->i() != 0) return std::nullopt;
  if (const auto* a = find_attr(bn, "spatial"); a && a->i() == 0) return std::nullopt;
  // The weights: W (Conv: (OC, C/group, k...); Gemm: B, (K, N) or (N, K) with transB).
  const onnx::TensorProto* w = constant_proto(g, p.input(1));
  if (!w || !float_proto(*w)) return std::nullopt;
  int64_t channels;
  if (conv) {
    if (w->dims_size() < 3) return std::nullopt;
    channels = w->dims(0);
    if (p.input_size() > 2 && !p.input(2).empty() && !constant_proto(g, p.input(2))) return std::nullopt;
  } else {
    if (w->dims_size() != 2) return std::nullopt;
    const auto* tb = find_attr(p, "transB");
    channels = tb && tb->i() != 0 ? w->dims(0) : w->dims(1);
    if (p.input_size() > 2 && !p.input(2).empty() && !constant_proto(g, p.input(2))) return std::nullopt;
  }
  std::vector<double> stats[4];  // scale, bias, mean, var
  for (int k = 0; k < 4; ++k) {
    const onnx::TensorProto* t = constant_proto(g, bn.input(k + 1));
    if (!t || !float_proto(*t) || t->dims_size() != 1 || t->dims(0) != channels) return std::nullopt;
    OnnxTensor v = tensor_from_proto(*t, "BatchNormalization input '" + bn.input(k + 1) + "'",
                                     {c.model_dir()});
    for (int64_t i = 0; i < channels; ++i) {
      int64_t idx[1] = {i};
      stats[k].push_back(v.value.get_double(idx));
    }
  }
  double eps = 1e-5;
  if (const auto* a = find_attr(bn, "epsilon"); a && a->type() == onnx::AttributeProto::FLOAT) eps = a->f();
  Plan out_plan;
  out_plan.bn = &bn;
  for (int64_t i = 0; i < channels; ++i) {
    const std::size_t j = std::size_t(i);
    double k = stats[0][j] / std::sqrt(stats[3][j] + eps);
    out_plan.fold.k.push_back(k);
    out_plan.fold.shift.push_back(stats[1][j] - stats[2][j] * k);
  }
  return out_plan;
}

}  // namespace

std::optional<BnFold> bn_fold_into(NodeContext& c) {
  std::optional<Plan> p = plan(c, c.node);
  if (!p) return std::nullopt;
  return p->fold;
}

bool bn_folded(NodeContext& c) {
  if (!c.graph || c.node.input_size() < 1 || c.node.input(0).empty()) return false;
  for (const auto& n : c.graph->node()) {
    if (&n == &c.node) return false;  // producers come first
    for (const auto& o : n.output())
      if (o == c.node.input(0)) {
        std::optional<Plan> p = plan(c, n);
        return p && p->bn == &c.node;
      }
  }
  return false;
}

Val const_values(NodeContext& c, DType dt, const std::vector<double>& v, const std::vector<int64_t>& dims) {
  // Callers pass the dtype of a model's input: one a lowering did not check (a bool or integer
  // x where the op computes in float) is refused here, not written as floats into its bytes.
  if (dt != DType::f32 && dt != DType::f64)
    c.fail("the input is " + std::string(dtype_name(dt)) + " where this op computes in f32 or f64");
  Tensor t = Tensor::empty(dt, Dims(std::span<const int64_t>(dims)));
  if (std::size_t(t.numel()) != v.size())
    c.fail("internal: " + std::to_string(v.size()) + " values for a constant of " +
           std::to_string(t.numel()) + " elements");
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (dt == DType::f64) t.data<double>()[i] = v[i];
    else t.data<float>()[i] = float(v[i]);
  }
  return c.e.constant(std::move(t));
}

}  // namespace mlvm::nn
