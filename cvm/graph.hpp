// What a CVM graph's values mean, checked before anything is lowered: every op known with a
// fitting input count, the graph attributes one per node output, the runtime's limits on
// shapes and precisions, node ids and output indices in range, the version's node_row_ptr and
// arg_nodes, one input named `data`, unique variable names, and no cycle. Error(invalid)
// located at "symbol node N 'name'" (or "symbol" for the graph as a whole).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cvm/symbol.hpp"

namespace mlvm {

struct CvmGraph {
  CvmSymbol symbol;
  std::vector<int64_t> row_ptr;     // node -> its first entry (node output); size nodes + 1
  std::vector<int64_t> order;       // the nodes, each after the nodes it reads
  int64_t data_node = -1;

  int64_t entry(const CvmEntry& e) const { return row_ptr[std::size_t(e.node)] + e.index; }
  int64_t num_outputs(int64_t node) const { return row_ptr[std::size_t(node) + 1] - row_ptr[std::size_t(node)]; }
};

CvmGraph check_cvm_graph(CvmSymbol symbol);

// "symbol node 3 'conv0'".
std::string cvm_node_location(const CvmSymbol& symbol, int64_t node);

}  // namespace mlvm
