#include "onnx/graph_check.hpp"

#include <onnx/onnx_pb.h>

#include <set>
#include <string>

#include "onnx/graph_walk.hpp"
#include "tensor/error.hpp"

namespace mlvm {

namespace {

[[noreturn]] void bad(const std::string& where, const std::string& why) {
  throw Error(ErrorKind::malformed, where + ": " + why);
}

void check_value_info(const onnx::ValueInfoProto& v, const std::string& where) {
  if (v.name().empty()) bad(where, "a value without a name");
  if (!v.has_type()) return;
  if (v.type().has_tensor_type() && v.type().tensor_type().has_shape())
    for (const auto& d : v.type().tensor_type().shape().dim())
      if (d.has_dim_value() && d.dim_value() < 0)
        bad(where, "'" + v.name() + "' has the negative dim " + std::to_string(d.dim_value()));
}

// `visible` holds the names defined in enclosing scopes; returns nothing, throws on the first
// problem.
void check_graph(const onnx::GraphProto& g, std::set<std::string> visible, int depth,
                 const std::string& where) {
  if (depth > kMaxSubgraphDepth)
    bad(where, "subgraphs nested deeper than " + std::to_string(kMaxSubgraphDepth));
  auto define = [&](const std::string& name, const std::string& what) {
    if (name.empty()) return;
    if (!visible.insert(name).second && depth == 0)
      bad(where, what + " '" + name + "' is defined twice");
  };
  for (const auto& init : g.initializer()) define(init.name(), "initializer");
  for (const auto& in : g.input()) {
    check_value_info(in, where);
    visible.insert(in.name());
  }
  // The importer sorted the nodes (onnx/node_order.hpp): a value read before it is defined is
  // on a cycle, or defined nowhere.
  std::set<std::string> produced;
  for (const auto& n : g.node()) produced.insert(n.output().begin(), n.output().end());
  for (int k = 0; k < g.node_size(); ++k) {
    const auto& n = g.node(k);
    const std::string node_where =
        where + ": node " + std::to_string(k) + " (" + n.op_type() + (n.name().empty() ? "" : " '" + n.name() + "'") + ")";
    for (const std::string& in : n.input())
      if (!in.empty() && !visible.count(in))
        bad(node_where, produced.count(in) ? "input '" + in + "' is produced by a node that depends on this one (a cycle)"
                                           : "input '" + in + "' is not defined: no node, graph input or "
                                             "initializer of this graph or an enclosing one produces it");
    for (const auto& a : n.attribute()) {
      if (a.has_g()) check_graph(a.g(), visible, depth + 1, node_where + " attribute " + a.name());
      for (const auto& sub : a.graphs())
        check_graph(sub, visible, depth + 1, node_where + " attribute " + a.name());
    }
    for (const std::string& out : n.output()) define(out, "value");
  }
  for (const auto& out : g.output()) {
    check_value_info(out, where);
    if (!visible.count(out.name()))
      bad(where, "graph output '" + out.name() + "' is not produced by any node or input");
  }
  for (const auto& vi : g.value_info()) check_value_info(vi, where);
}

}  // namespace

void check_graph_structure(const onnx::ModelProto& model) {
  if (!model.has_graph()) throw Error(ErrorKind::malformed, "the model has no graph");
  check_graph(model.graph(), {}, 0, "graph");
}

}  // namespace mlvm
