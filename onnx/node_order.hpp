// Graphs as exporters write them: nodes in any order. A converter that appends nodes (the f16
// converter's Casts of graph inputs) leaves a graph whose nodes are not topologically sorted;
// ONNX Runtime sorts them, and so does the importer, before anything else reads the graph.
#pragma once

namespace onnx {
class GraphProto;
}

namespace mlvm {

// Reorders g's nodes, and those of its subgraphs, so that every node comes after the nodes
// producing what it reads: its inputs, and the values of this graph its subgraphs read (an If
// branch reading an outer value waits for that value's producer). Among the nodes ready to
// go, the one first in the file goes first: a sorted graph keeps its order. Nodes on a cycle
// keep their order after all the others, where the structure check (onnx/graph_check.hpp)
// names the first of them. Subgraphs nested deeper than that check allows are left alone.
void sort_nodes(onnx::GraphProto& g);

}  // namespace mlvm
