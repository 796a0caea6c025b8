// Structural checks of an ONNX graph, run before any of ONNX's own code (checker, shape
// inference, version converter) sees the model: that code trusts the graph's structure and
// crashes on a hostile one (a graph output no node produces reaches a null pointer in the
// version converter). Error(malformed) names the first problem.
#pragma once

namespace onnx {
class ModelProto;
}

namespace mlvm {

void check_graph_structure(const onnx::ModelProto& model);

}  // namespace mlvm
