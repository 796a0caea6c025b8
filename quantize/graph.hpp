// The float program as the quantizer reads it: a straight-line module in SSA form. Registers
// may be written many times (`h = relu h`), so every definition becomes a value of its own;
// each value knows where it comes from (an input, a constant, or a result of an instruction)
// and which instructions read it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bytecode/module.hpp"
#include "bytecode/verifier.hpp"

namespace mlvm::quant {

inline constexpr int32_t kNoValue = -1;

struct GraphValue {
  int32_t reg = 0;        // the module register holding it
  int32_t def = -1;       // the instruction that defines it; -1 for inputs and constants
  int32_t input = -1;     // index into Module::inputs when it is an input
  int32_t constant = -1;  // index into Module::constants when it is a constant
  TensorType type;        // as the verifier inferred (declared, for inputs and constants)
  std::vector<int32_t> readers;  // instructions reading it, in program order (repeats once)

  bool is_constant() const { return constant >= 0; }
};

struct GraphNode {
  int32_t pc = 0;
  Opcode op = Opcode::halt;
  std::vector<int32_t> args;     // value ids; kNoValue for an omitted optional input
  std::vector<int32_t> results;  // value ids
};

struct Graph {
  const Module* module = nullptr;
  const VerifyResult* verified = nullptr;  // its attrs and types, per instruction
  std::vector<GraphValue> values;
  std::vector<GraphNode> nodes;  // one per instruction that runs (a final halt excluded)
  std::vector<int32_t> outputs;  // per Module::outputs: the value it returns

  const Attrs& attrs(const GraphNode& n) const { return verified->attrs[std::size_t(n.pc)]; }
  const GraphNode& node_of(int32_t value) const;  // the defining node (value must have one)
  const std::string& name(int32_t value) const;   // its register's source name
  // "instruction 3 (line 17)", with the instruction's origin when it has one:
  // "instruction 3 (Conv '/conv1')".
  std::string where(const GraphNode& n) const;
  // The instruction as text ("h = conv2d x, w1, b1, padding=(1, 1)"), for messages.
  std::string text(const GraphNode& n) const;
  bool is_output(int32_t value) const;
};

// SSA over a verified module. Error(invalid) for control flow (jmp, br) or a halt before the
// end, naming the instruction: the quantizer handles straight-line programs only.
Graph build_graph(const Module& module, const VerifyResult& verified);

}  // namespace mlvm::quant
