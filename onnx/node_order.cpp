#include "onnx/node_order.hpp"

#include <onnx/onnx_pb.h>

#include <functional>
#include <queue>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "onnx/graph_walk.hpp"

namespace mlvm {

namespace {

void sort_graph(onnx::GraphProto& g, int depth) {
  if (depth > kMaxSubgraphDepth) return;
  for (auto& n : *g.mutable_node())
    for_each_subgraph_mutable(n, [&](onnx::GraphProto& sub) { sort_graph(sub, depth + 1); });
  const int n = g.node_size();
  std::unordered_map<std::string, int> producer;
  for (int k = 0; k < n; ++k)
    for (const std::string& out : g.node(k).output())
      if (!out.empty()) producer.emplace(out, k);  // the first producer; a second is refused later
  std::vector<std::vector<int>> waiting(static_cast<std::size_t>(n));  // per node, the nodes that read it
  std::vector<int> needs(std::size_t(n), 0);
  for (int k = 0; k < n; ++k) {
    // What the node reads: its inputs, and what its subgraphs read of the values around them.
    std::set<std::string> read(g.node(k).input().begin(), g.node(k).input().end());
    for_each_subgraph(g.node(k), [&](const onnx::GraphProto& sub) {
      for_each_read(sub, [&](const std::string& name, const onnx::NodeProto*, int) { read.insert(name); }, depth + 1);
    });
    std::set<int> from;
    for (const std::string& name : read)
      if (auto it = producer.find(name); it != producer.end() && it->second != k) from.insert(it->second);
    needs[std::size_t(k)] = int(from.size());
    for (int p : from) waiting[std::size_t(p)].push_back(k);
  }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int k = 0; k < n; ++k)
    if (needs[std::size_t(k)] == 0) ready.push(k);
  std::vector<int> order;
  order.reserve(std::size_t(n));
  std::vector<bool> placed(std::size_t(n), false);
  while (!ready.empty()) {
    const int k = ready.top();
    ready.pop();
    order.push_back(k);
    placed[std::size_t(k)] = true;
    for (int r : waiting[std::size_t(k)])
      if (--needs[std::size_t(r)] == 0) ready.push(r);
  }
  for (int k = 0; k < n; ++k)
    if (!placed[std::size_t(k)]) order.push_back(k);  // on a cycle
  bool sorted = true;
  for (int k = 0; k < n && sorted; ++k) sorted = order[std::size_t(k)] == k;
  if (sorted) return;
  std::vector<onnx::NodeProto> nodes(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) nodes[std::size_t(k)].Swap(g.mutable_node(k));
  for (int k = 0; k < n; ++k) g.mutable_node(k)->Swap(&nodes[std::size_t(order[std::size_t(k)])]);
}

}  // namespace

void sort_nodes(onnx::GraphProto& g) { sort_graph(g, 0); }

}  // namespace mlvm
