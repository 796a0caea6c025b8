#include "onnx/lowering.hpp"

#include <onnx/onnx_pb.h>

#include "onnx/tensor_proto.hpp"
#include "tensor/error.hpp"

namespace mlvm {

NodeContext::NodeContext(const onnx::NodeProto& n, int opset_, Emitter& em, std::vector<Val> inputs,
                         const std::string& model_dir, SubgraphLowerer* subgraphs)
    : node(n), opset(opset_), e(em), in(std::move(inputs)), model_dir_(model_dir),
      subgraphs_(subgraphs) {}

std::vector<Val> NodeContext::lower_subgraph(std::string_view name, const std::vector<Val>& inputs) const {
  const onnx::GraphProto* g = attr_graph(name);
  if (!g) fail("attribute " + std::string(name) + " (a graph) is missing");
  if (!subgraphs_) fail("subgraphs cannot be lowered here");
  return subgraphs_->lower_subgraph(*g, inputs);
}

void NodeContext::note_shape_dependent() const {
  if (subgraphs_) subgraphs_->note_shape_dependent();
}

int NodeContext::unsupported_nodes() const { return subgraphs_ ? subgraphs_->unsupported_nodes() : 0; }

int NodeContext::num_outputs() const { return node.output_size(); }
bool NodeContext::output_wanted(int k) const {
  return k < node.output_size() && !node.output(k).empty();
}

const onnx::AttributeProto* NodeContext::attr(std::string_view name) const {
  for (const auto& a : node.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

bool NodeContext::has_attr(std::string_view name) const { return attr(name) != nullptr; }

void NodeContext::fail(const std::string& why) const { throw Error(ErrorKind::invalid, why); }

int64_t NodeContext::axis(int64_t a, int rank, const std::string& what) const {
  if (a < -rank || a >= rank)
    fail(what + " " + std::to_string(a) + " is out of range for rank " + std::to_string(rank));
  return a < 0 ? a + rank : a;
}

int64_t NodeContext::attr_int(std::string_view name, int64_t dflt) const {
  const auto* a = attr(name);
  if (!a) return dflt;
  if (a->type() != onnx::AttributeProto::INT)
    fail("attribute " + std::string(name) + " should be an int");
  return a->i();
}

double NodeContext::attr_float(std::string_view name, double dflt) const {
  const auto* a = attr(name);
  if (!a) return dflt;
  if (a->type() == onnx::AttributeProto::INT) return double(a->i());
  if (a->type() != onnx::AttributeProto::FLOAT)
    fail("attribute " + std::string(name) + " should be a float");
  return a->f();
}

std::string NodeContext::attr_string(std::string_view name, const std::string& dflt) const {
  const auto* a = attr(name);
  if (!a) return dflt;
  if (a->type() != onnx::AttributeProto::STRING)
    fail("attribute " + std::string(name) + " should be a string");
  return a->s();
}

std::vector<int64_t> NodeContext::attr_ints(std::string_view name, std::vector<int64_t> dflt) const {
  const auto* a = attr(name);
  if (!a) return dflt;
  if (a->type() == onnx::AttributeProto::INT) return {a->i()};
  if (a->type() != onnx::AttributeProto::INTS)
    fail("attribute " + std::string(name) + " should be a list of ints");
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::vector<double> NodeContext::attr_floats(std::string_view name, std::vector<double> dflt) const {
  const auto* a = attr(name);
  if (!a) return dflt;
  if (a->type() != onnx::AttributeProto::FLOATS)
    fail("attribute " + std::string(name) + " should be a list of floats");
  return std::vector<double>(a->floats().begin(), a->floats().end());
}

Val NodeContext::attr_tensor(std::string_view name) const {
  const auto* a = attr(name);
  if (!a) return Val{};
  if (a->type() != onnx::AttributeProto::TENSOR)
    fail("attribute " + std::string(name) + " should be a tensor");
  OnnxTensor t = tensor_from_proto(a->t(), "attribute " + std::string(name), {model_dir_});
  return e.constant(std::move(t.value), t.scalar);
}

const onnx::GraphProto* NodeContext::attr_graph(std::string_view name) const {
  const auto* a = attr(name);
  if (!a) return nullptr;
  if (a->type() != onnx::AttributeProto::GRAPH)
    fail("attribute " + std::string(name) + " should be a graph");
  return &a->g();
}

std::vector<int64_t> onnx_dims(NodeContext& c, Val v) {
  if (c.e.scalar(v)) return {};
  const Dims& d = c.e.dims(v);
  return std::vector<int64_t>(d.begin(), d.end());
}

Val ew_values(NodeContext& c, Opcode op, const std::vector<Val>& args, std::vector<AttrValue> attrs) {
  std::vector<Val> results = c.e.emit_values(op, args, std::move(attrs));
  if (results.size() != 1) c.fail("internal: an elementwise op with " + std::to_string(results.size()) + " results");
  Val r = results[0];
  bool all_scalar = true;
  for (Val a : args)
    if (a.present() && !c.e.scalar(a)) all_scalar = false;
  c.e.set_scalar(r, all_scalar);
  return r;
}

int64_t const_int_input(NodeContext& c, int input, const std::string& what) {
  std::vector<int64_t> v = c.e.ints(c.input(input), what);
  if (v.size() != 1) c.fail(what + " must have one element");
  return v[0];
}

bool known_input(NodeContext& c, int input) { return c.e.is_const(c.input(input)); }

Val runtime_param(NodeContext& c, int input) {
  return c.e.emit(op::cast, {c.input(input)}, {.dtype = DType::i64});
}

}  // namespace mlvm
