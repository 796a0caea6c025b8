// An index of one ONNX graph for the lowerings that look at a node's neighbours (the affine
// fold, onnx/lower_nn_fold.cpp): its constants, each value's writers and its readers, built
// once when the importer starts lowering the graph. Asked of the graph itself, each question
// is a walk over every node, and an import asks them for every Mul, Add, Sub and
// BatchNormalization: quadratic in the nodes.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>
#include <unordered_map>
#include <vector>

namespace mlvm {

class GraphIndex {
 public:
  explicit GraphIndex(const onnx::GraphProto& g);

  const onnx::GraphProto& graph() const { return g_; }
  // The TensorProto `name` stands for when it is a constant of the graph: an initializer, or
  // else the first Constant node (default domain) writing it, when its `value` is a tensor.
  const onnx::TensorProto* constant(const std::string& name) const;
  // The last node of the graph before node `before` (a node of the graph) that writes `name`.
  const onnx::NodeProto* writer_before(const std::string& name, const onnx::NodeProto& before) const;
  // The one node of the graph itself that reads `name`, when `name` is read exactly once in
  // all: by the graph's nodes, the graphs nested in them (which see its values) and its
  // outputs. A reader inside a nested graph does not count.
  const onnx::NodeProto* only_reader(const std::string& name) const;

 private:
  struct Reads {
    int count = 0;
    const onnx::NodeProto* last = nullptr;  // the last reading node (any depth), or null for an output
  };
  const onnx::GraphProto& g_;
  std::unordered_map<std::string, const onnx::TensorProto*> constants_;
  std::unordered_map<std::string, std::vector<int>> writers_;  // node positions, ascending
  std::unordered_map<const onnx::NodeProto*, int> position_;   // the graph's own nodes
  std::unordered_map<std::string, Reads> reads_;
};

}  // namespace mlvm
