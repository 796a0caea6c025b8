// The CVM graph JSON ("symbol", cvm_format.md), read into plain structs. This layer checks the
// JSON itself: it parses (nlohmann), every key is known, every value has the type the format
// says. What the values mean (ids in range, lengths, ops, cycles) is checked by graph.hpp.
// Errors: Error(malformed) located at "symbol byte N" (not JSON) or at the JSON path
// ("symbol nodes[3] 'conv0'.inputs[1]").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace mlvm {

struct CvmEntry {
  int64_t node = 0;
  int64_t index = 0;  // which output of the node
};

struct CvmNode {
  std::string name;
  bool variable = true;    // op null: the input `data` or a parameter
  std::string func_name;   // as written ("cvm_right_shift_1")
  std::string op;          // func_name without a trailing _<digits> ("cvm_right_shift")
  std::vector<CvmEntry> inputs;
  std::optional<int64_t> num_inputs, num_outputs;  // the node's own claims, when given
};

struct CvmSymbol {
  std::vector<CvmNode> nodes;
  std::vector<CvmEntry> heads;
  std::string version = "cvm_1.0.0";
  std::string postprocess;  // "", "argmax" or "detection"
  std::optional<std::vector<int64_t>> arg_nodes, node_row_ptr;
  // The graph attributes, one entry per node output (lengths are checked by graph.hpp).
  std::vector<std::vector<int64_t>> shapes;
  std::vector<int64_t> precisions;
  std::optional<std::vector<std::string>> dltypes;
  std::vector<int64_t> storage_ids;
  std::vector<std::string> op_attrs;  // one JSON-encoded object per node
};

CvmSymbol parse_cvm_symbol(std::span<const uint8_t> json);

// A node's op attributes: its op_attrs string, a JSON object of strings. Error(malformed)
// located at `location`.
std::map<std::string, std::string> parse_cvm_op_attrs(const std::string& text,
                                                      const std::string& location);

}  // namespace mlvm
