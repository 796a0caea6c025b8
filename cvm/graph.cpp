#include "cvm/graph.hpp"

#include <set>

#include "cvm/lower.hpp"
#include "tensor/error.hpp"

namespace mlvm {

namespace {

// The runtime's limits (graph_runtime.cc): rank in (0, 6], dims in (0, 2^24], at most 2^30
// elements per tensor.
constexpr std::size_t kMaxCvmRank = 6;
constexpr int64_t kMaxCvmDim = int64_t(1) << 24;
constexpr int64_t kMaxCvmElements = int64_t(1) << 30;

[[noreturn]] void bad_node(const CvmSymbol& s, int64_t node, const std::string& message) {
  throw Error(ErrorKind::invalid, message, cvm_node_location(s, node));
}

[[noreturn]] void bad_graph(const std::string& message) { throw Error(ErrorKind::invalid, message, "symbol"); }

std::string list_text(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

void check_node_ops(const CvmSymbol& s, std::vector<int64_t>& outputs) {
  for (std::size_t i = 0; i < s.nodes.size(); ++i) {
    const CvmNode& n = s.nodes[i];
    const int64_t id = int64_t(i);
    if (n.variable) {
      if (!n.inputs.empty()) bad_node(s, id, "a variable (op null) has inputs");
      outputs.push_back(1);
      continue;
    }
    const CvmOpRule* rule = find_cvm_op(n.op);
    if (!rule) bad_node(s, id, "unknown op '" + n.op + "' (func_name '" + n.func_name + "')");
    const int64_t k = int64_t(n.inputs.size());
    if (k < rule->min_inputs || (rule->max_inputs >= 0 && k > rule->max_inputs))
      bad_node(s, id, n.op + " takes " + std::to_string(rule->min_inputs) +
                          (rule->max_inputs < 0 ? " or more" : rule->max_inputs == rule->min_inputs ? "" : "-" + std::to_string(rule->max_inputs)) +
                          " inputs; the node has " + std::to_string(k));
    if (n.num_inputs && *n.num_inputs != k)
      bad_node(s, id, "num_inputs is " + std::to_string(*n.num_inputs) + " but the node has " + std::to_string(k) + " inputs");
    if (n.num_outputs && *n.num_outputs != rule->num_outputs)
      bad_node(s, id, "num_outputs is " + std::to_string(*n.num_outputs) + "; " + n.op + " has " + std::to_string(rule->num_outputs));
    outputs.push_back(rule->num_outputs);
  }
}

void check_attr_lengths(const CvmSymbol& s, int64_t entries) {
  auto want = [&](std::size_t got, int64_t n, const char* what, const char* per) {
    if (int64_t(got) != n)
      bad_graph(std::string("attrs.") + what + " has " + std::to_string(got) + " entries; expected " +
                std::to_string(n) + " (one per " + per + ")");
  };
  want(s.shapes.size(), entries, "shape", "node output");
  want(s.precisions.size(), entries, "precision", "node output");
  want(s.storage_ids.size(), entries, "storage_id", "node output");
  want(s.op_attrs.size(), int64_t(s.nodes.size()), "op_attrs", "node");
  if (s.dltypes) {
    want(s.dltypes->size(), entries, "dltype", "node output");
    for (const std::string& d : *s.dltypes)
      if (d != "int32") bad_graph("attrs.dltype holds \"" + d + "\"; CVM tensors are int32");
  } else if (s.version == "cvm_1.0.0") {
    bad_graph("a cvm_1.0.0 graph needs attrs.dltype");
  }
}

void check_entry_values(const CvmGraph& g) {
  const CvmSymbol& s = g.symbol;
  for (std::size_t i = 0; i < s.nodes.size(); ++i)
    for (int64_t k = 0; k < g.num_outputs(int64_t(i)); ++k) {
      const std::size_t e = std::size_t(g.row_ptr[i] + k);
      const std::vector<int64_t>& shape = s.shapes[e];
      if (shape.empty() || shape.size() > kMaxCvmRank)
        bad_node(s, int64_t(i), "shape " + list_text(shape) + " has rank " + std::to_string(shape.size()) + "; CVM allows 1 to 6");
      int64_t numel = 1;
      for (int64_t d : shape) {
        if (d < 1 || d > kMaxCvmDim) bad_node(s, int64_t(i), "shape " + list_text(shape) + ": a dim must be in [1, 2^24]");
        numel *= d;  // <= 2^30 * 2^24 before the check: no overflow
        if (numel > kMaxCvmElements) bad_node(s, int64_t(i), "shape " + list_text(shape) + " has more than 2^30 elements");
      }
      const int64_t p = s.precisions[e];
      if (p != -1 && (p < 1 || p > 32))
        bad_node(s, int64_t(i), "precision " + std::to_string(p) + " is not -1 or in [1, 32]");
    }
}

void check_references(const CvmGraph& g) {
  const CvmSymbol& s = g.symbol;
  const int64_t n = int64_t(s.nodes.size());
  auto check = [&](const CvmEntry& e, int64_t at, const std::string& what) {
    if (e.node >= n)
      at >= 0 ? bad_node(s, at, what + " reads node " + std::to_string(e.node) + "; the graph has " + std::to_string(n) + " nodes")
              : bad_graph(what + " names node " + std::to_string(e.node) + "; the graph has " + std::to_string(n) + " nodes");
    if (e.index >= g.num_outputs(e.node)) {
      const std::string m = what + " reads output " + std::to_string(e.index) + " of node " + std::to_string(e.node) +
                            ", which has " + std::to_string(g.num_outputs(e.node));
      at >= 0 ? bad_node(s, at, m) : bad_graph(m);
    }
  };
  for (int64_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < s.nodes[std::size_t(i)].inputs.size(); ++k)
      check(s.nodes[std::size_t(i)].inputs[k], i, "input " + std::to_string(k));
  if (s.heads.empty()) bad_graph("heads is empty: the graph has no output");
  for (std::size_t k = 0; k < s.heads.size(); ++k) check(s.heads[k], -1, "heads[" + std::to_string(k) + "]");
}

void check_version_lists(const CvmGraph& g, const std::vector<int64_t>& arg_nodes) {
  const CvmSymbol& s = g.symbol;
  if (s.version != "cvm_1.0.0") return;  // cvm_1.1.0: the runtime recomputes both
  if (!s.node_row_ptr || *s.node_row_ptr != g.row_ptr)
    bad_graph("node_row_ptr is " + (s.node_row_ptr ? list_text(*s.node_row_ptr) : std::string("absent")) +
              "; the nodes' outputs give " + list_text(g.row_ptr));
  if (!s.arg_nodes || *s.arg_nodes != arg_nodes)
    bad_graph("arg_nodes is " + (s.arg_nodes ? list_text(*s.arg_nodes) : std::string("absent")) +
              "; the graph's variables are " + list_text(arg_nodes));
}

// Kahn's algorithm; the nodes left over all read one another, so walking from any of them
// along inputs that are also left over must come back: that walk is the cycle reported.
std::vector<int64_t> topological_order(const CvmSymbol& s) {
  const std::size_t n = s.nodes.size();
  std::vector<std::vector<int64_t>> readers(n);
  std::vector<int64_t> pending(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (const CvmEntry& e : s.nodes[i].inputs) {
      readers[std::size_t(e.node)].push_back(int64_t(i));
      ++pending[i];
    }
  std::vector<int64_t> order;
  for (std::size_t i = 0; i < n; ++i)
    if (pending[i] == 0) order.push_back(int64_t(i));
  for (std::size_t at = 0; at < order.size(); ++at)
    for (int64_t r : readers[std::size_t(order[at])])
      if (--pending[std::size_t(r)] == 0) order.push_back(r);
  if (order.size() == n) return order;
  int64_t start = 0;
  while (pending[std::size_t(start)] == 0) ++start;
  std::vector<int64_t> seen_at(n, -1), walk;
  int64_t v = start;
  while (seen_at[std::size_t(v)] < 0) {
    seen_at[std::size_t(v)] = int64_t(walk.size());
    walk.push_back(v);
    for (const CvmEntry& e : s.nodes[std::size_t(v)].inputs)
      if (pending[std::size_t(e.node)] > 0) {
        v = e.node;
        break;
      }
  }
  std::string cycle;
  for (std::size_t k = std::size_t(seen_at[std::size_t(v)]); k < walk.size(); ++k)
    cycle += std::to_string(walk[k]) + " '" + s.nodes[std::size_t(walk[k])].name + "' <- ";
  cycle += std::to_string(v) + " '" + s.nodes[std::size_t(v)].name + "'";
  bad_node(s, v, "the graph has a cycle: node " + cycle);
}

}  // namespace

std::string cvm_node_location(const CvmSymbol& s, int64_t node) {
  std::string loc = "symbol node " + std::to_string(node);
  if (node >= 0 && node < int64_t(s.nodes.size())) loc += " '" + s.nodes[std::size_t(node)].name + "'";
  return loc;
}

CvmGraph check_cvm_graph(CvmSymbol symbol) {
  CvmGraph g;
  g.symbol = std::move(symbol);
  const CvmSymbol& s = g.symbol;
  if (s.nodes.empty()) bad_graph("the graph has no nodes");
  std::vector<int64_t> outputs;
  check_node_ops(s, outputs);
  g.row_ptr.push_back(0);
  for (int64_t k : outputs) g.row_ptr.push_back(g.row_ptr.back() + k);
  check_attr_lengths(s, g.row_ptr.back());
  check_entry_values(g);
  check_references(g);
  std::vector<int64_t> arg_nodes;
  std::set<std::string> names;
  for (std::size_t i = 0; i < s.nodes.size(); ++i) {
    if (!s.nodes[i].variable) continue;
    arg_nodes.push_back(int64_t(i));
    if (!names.insert(s.nodes[i].name).second)
      bad_node(s, int64_t(i), "a second variable named '" + s.nodes[i].name + "'");
    if (s.nodes[i].name == "data") g.data_node = int64_t(i);
  }
  if (g.data_node < 0) bad_graph("no variable named 'data': a CVM graph's one input is 'data'");
  check_version_lists(g, arg_nodes);
  g.order = topological_order(s);
  return g;
}

}  // namespace mlvm
