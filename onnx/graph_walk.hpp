// Walking an ONNX graph with the graphs nested in its nodes' attributes (If branches, Loop and
// Scan bodies), which see the values of the graphs around them. Shared by the passes that read
// a model before it is lowered: the structure check, the node sort, BatchNorm folding.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

namespace mlvm {

// The domain of ONNX's own ops: "" or "ai.onnx".
inline bool default_domain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }
inline bool default_domain(const onnx::NodeProto& n) { return default_domain(n.domain()); }

// Subgraphs nested deeper than this are refused (onnx/graph_check.cpp) and not walked.
inline constexpr int kMaxSubgraphDepth = 16;

// Calls f(graph) for every graph in node n's attributes.
template <class F>
void for_each_subgraph(const onnx::NodeProto& n, F&& f) {
  for (const auto& a : n.attribute()) {
    if (a.has_g()) f(a.g());
    for (const auto& g : a.graphs()) f(g);
  }
}
template <class F>
void for_each_subgraph_mutable(onnx::NodeProto& n, F&& f) {
  for (auto& a : *n.mutable_attribute()) {
    if (a.has_g()) f(*a.mutable_g());
    for (auto& g : *a.mutable_graphs()) f(g);
  }
}

// Calls read(name, node, k) for input k of every node of g and of the graphs nested in it, and
// read(name, nullptr, -1) for every output of g and of the nested graphs (a graph's outputs are
// read by the node holding it, or by the host). `depth` is g's own nesting depth.
template <class F>
void for_each_read(const onnx::GraphProto& g, F&& read, int depth = 0) {
  if (depth > kMaxSubgraphDepth) return;
  for (const auto& n : g.node()) {
    for (int k = 0; k < n.input_size(); ++k) read(n.input(k), &n, k);
    for_each_subgraph(n, [&](const onnx::GraphProto& sub) { for_each_read(sub, read, depth + 1); });
  }
  for (const auto& o : g.output()) read(o.name(), static_cast<const onnx::NodeProto*>(nullptr), -1);
}

}  // namespace mlvm
