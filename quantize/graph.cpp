#include "quantize/graph.hpp"

#include <algorithm>

#include "bytecode/disassembler.hpp"
#include "tensor/error.hpp"

namespace mlvm::quant {

const GraphNode& Graph::node_of(int32_t value) const {
  const int32_t def = values.at(std::size_t(value)).def;
  if (def < 0) fail_invalid("internal: value " + std::to_string(value) + " has no defining instruction");
  // Nodes are one per instruction in order, so the defining instruction is its own index.
  return nodes.at(std::size_t(def));
}

const std::string& Graph::name(int32_t value) const {
  return module->register_names.at(std::size_t(values.at(std::size_t(value)).reg));
}

std::string Graph::where(const GraphNode& n) const {
  std::string loc = "instruction " + std::to_string(n.pc);
  const std::size_t pc = std::size_t(n.pc);
  if (pc < module->origins.size() && !module->origins[pc].empty())
    return loc + " (" + module->origins[pc] + ")";
  if (uint32_t line = module->line_of(pc)) loc += " (line " + std::to_string(line) + ")";
  return loc;
}

std::string Graph::text(const GraphNode& n) const {
  return instruction_text(module->code.at(std::size_t(n.pc)), std::size_t(n.pc),
                          module->register_names, "", false);
}

bool Graph::is_output(int32_t value) const {
  return std::find(outputs.begin(), outputs.end(), value) != outputs.end();
}

Graph build_graph(const Module& m, const VerifyResult& verified) {
  Graph g;
  g.module = &m;
  g.verified = &verified;
  // The value each register holds at this point of the program.
  std::vector<int32_t> current(std::size_t(m.num_registers()), kNoValue);
  auto add_value = [&](GraphValue v) {
    g.values.push_back(std::move(v));
    const int32_t id = int32_t(g.values.size() - 1);
    current.at(std::size_t(g.values.back().reg)) = id;
    return id;
  };
  for (std::size_t k = 0; k < m.inputs.size(); ++k) {
    GraphValue v;
    v.reg = m.inputs[k].reg;
    v.input = int32_t(k);
    v.type = m.inputs[k].type;
    add_value(std::move(v));
  }
  for (std::size_t k = 0; k < m.constants.size(); ++k) {
    GraphValue v;
    v.reg = m.constants[k].reg;
    v.constant = int32_t(k);
    v.type = m.constants[k].type;
    add_value(std::move(v));
  }
  for (std::size_t pc = 0; pc < m.code.size(); ++pc) {
    const Instruction& ins = m.code[pc];
    const std::string loc = "instruction " + std::to_string(pc);
    if (ins.op == Opcode::jmp || ins.op == Opcode::br)
      throw Error(ErrorKind::invalid,
                  std::string(op_info(ins.op).name) +
                      ": the quantizer handles straight-line programs only (no jumps or branches)",
                  loc);
    if (ins.op == Opcode::halt) {
      if (pc + 1 != m.code.size())
        throw Error(ErrorKind::invalid,
                    "halt before the last instruction: the quantizer handles straight-line programs only", loc);
      break;
    }
    GraphNode n;
    n.pc = int32_t(pc);
    n.op = ins.op;
    for (int32_t r : ins.args) {
      const int32_t v = r == kNoRegister ? kNoValue : current.at(std::size_t(r));
      if (r != kNoRegister && v == kNoValue)
        throw Error(ErrorKind::invalid, "internal: register read before it is written", loc);
      n.args.push_back(v);
      if (v != kNoValue) {
        auto& readers = g.values[std::size_t(v)].readers;
        if (readers.empty() || readers.back() != n.pc) readers.push_back(n.pc);
      }
    }
    const auto& types = verified.result_types.at(pc);
    for (std::size_t k = 0; k < ins.results.size(); ++k) {
      GraphValue v;
      v.reg = ins.results[k];
      v.def = int32_t(pc);
      v.type = k < types.size() ? types[k] : TensorType{};
      n.results.push_back(add_value(std::move(v)));
    }
    g.nodes.push_back(std::move(n));
  }
  for (const OutputDecl& o : m.outputs) g.outputs.push_back(current.at(std::size_t(o.reg)));
  return g;
}

}  // namespace mlvm::quant
