#include "onnx/graph_index.hpp"

#include <algorithm>

#include "onnx/graph_walk.hpp"

namespace mlvm {

GraphIndex::GraphIndex(const onnx::GraphProto& g) : g_(g) {
  // emplace keeps the first: initializers before Constant nodes, the first Constant node of a name.
  for (const auto& t : g.initializer())
    if (!t.name().empty()) constants_.emplace(t.name(), &t);
  for (int k = 0; k < g.node_size(); ++k) {
    const onnx::NodeProto& n = g.node(k);
    position_.emplace(&n, k);
    for (const auto& o : n.output())
      if (!o.empty()) writers_[o].push_back(k);
    if (n.op_type() != "Constant" || !default_domain(n) || n.output_size() != 1 || n.output(0).empty()) continue;
    const onnx::TensorProto* value = nullptr;
    for (const auto& a : n.attribute())
      if (a.name() == "value" && a.type() == onnx::AttributeProto::TENSOR) {
        value = &a.t();
        break;
      }
    constants_.emplace(n.output(0), value);
  }
  for_each_read(g, [&](const std::string& read, const onnx::NodeProto* node, int) {
    Reads& r = reads_[read];
    ++r.count;
    r.last = node;
  });
}

const onnx::TensorProto* GraphIndex::constant(const std::string& name) const {
  const auto it = constants_.find(name);
  return it == constants_.end() ? nullptr : it->second;
}

const onnx::NodeProto* GraphIndex::writer_before(const std::string& name, const onnx::NodeProto& before) const {
  const auto at = position_.find(&before);
  const auto it = writers_.find(name);
  if (at == position_.end() || it == writers_.end()) return nullptr;
  const auto w = std::lower_bound(it->second.begin(), it->second.end(), at->second);  // first at or after
  return w == it->second.begin() ? nullptr : &g_.node(*std::prev(w));
}

const onnx::NodeProto* GraphIndex::only_reader(const std::string& name) const {
  const auto it = reads_.find(name);
  if (it == reads_.end() || it->second.count != 1 || !it->second.last) return nullptr;
  return position_.count(it->second.last) ? it->second.last : nullptr;
}

}  // namespace mlvm
