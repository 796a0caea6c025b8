// What the verifier's passes share (internal to bytecode/verify/). verify_module runs them in
// order, each with one job:
//   declarations.cpp  the inputs, constants and outputs on their own
//   instructions.cpp  every instruction on its own: opcode, arity, registers, attributes,
//                     jump targets; and registers read that nothing assigns
//   blocks.cpp        the control-flow graph (basic blocks and their successors), and how
//                     each instruction moves control and which arguments it reads
//   type_flow.cpp     a forward dataflow of register states to a fixed point, then one replay
//                     that reports and records the per-instruction types
//   outputs.cpp       every output at every halt
//   liveness.cpp      a backward dataflow: the registers that die after each instruction
// Register states are kept per basic block (not per instruction) and types are interned, so
// the dataflow needs 8 bytes x registers x blocks.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "bytecode/verifier.hpp"
#include "ir/type_table.hpp"

namespace mlvm::verify {

// What is known about one register at one point.
enum class SlotState : uint8_t {
  unassigned,  // on every path here
  partial,     // assigned on some paths here, not on others
  ok,          // typed: `aux` is the interned type
  conflict,    // different dtypes or ranks met: `aux` is the instruction where they met
  poison,      // of unknown value (after an error already reported): never reported again
};

struct Slot {
  SlotState st = SlotState::unassigned;
  int32_t aux = -1;
  bool operator==(const Slot& o) const { return st == o.st && aux == o.aux; }
};

struct Block {
  int32_t begin = 0, end = 0;  // instructions [begin, end)
  std::vector<int32_t> succ;   // block indices; -1 = the exit
  int32_t exit = -1;           // when it can leave the program: the halt's index, or N (the end)
};

struct State {
  State(const Module& module, const VerifyOptions& options, const ModuleGaps* gaps);

  const Module& m;
  VerifyOptions opt;
  const ModuleGaps& gaps;
  const int32_t n;      // instructions
  const int32_t nregs;  // registers
  VerifyResult res;
  TypeTable types;

  // Declarations and instructions.
  std::vector<uint8_t> bad;         // per instruction: not typed; its results are poisoned
  std::vector<int32_t> const_of;    // per register: the constant declared in it, or -1
  std::vector<uint8_t> assigned;    // per register: declared, or some instruction assigns it
  std::vector<Slot> entry;          // per register: the state at instruction 0
  std::vector<int32_t> literal_of;  // per register: its index in gaps.literals, or -1
  bool results_unknown = false;     // an instruction assigns registers out of range
  // The control-flow graph.
  std::vector<Block> blocks;
  std::vector<int32_t> block_of;  // per instruction
  // Type flow: (instruction where paths meet, register) -> the conflicting types.
  std::map<std::pair<int32_t, int32_t>, std::string> conflicts;

  bool full() const { return int(res.errors.size()) >= opt.max_errors; }
  void error(VerifyDiagnostic d) {
    if (!full()) res.errors.push_back(std::move(d));
  }
  void instr_error(int32_t pc, std::string msg, int32_t operand = -1, int32_t result = -1,
                   int32_t attribute = -1);

  bool reg_in_range(int32_t r) const { return r >= 0 && r < nregs; }
  // "'x'", or "register 5" when the module does not name it.
  std::string reg_name(int32_t r) const;
  // "register 'x'" or "register 5".
  std::string reg_text(int32_t r) const;

  Gap gap(int32_t pc) const { return gaps.at(std::size_t(pc)); }
  // The instruction's opcode is to be ignored (a line the front end could not read).
  bool op_ignored(int32_t pc) const { return gap(pc) == Gap::unknown || gap(pc) == Gap::flow; }
  // A valid opcode that decides where control goes (jmp, br, halt).
  bool is_jump(int32_t pc) const;
  bool is_halt(int32_t pc) const;
  bool is_trap(int32_t pc) const;
  // How many of the instruction's arguments it reads: those of a gap, else those its op takes
  // (any beyond are an arity error), none for an unknown opcode.
  std::size_t reads(int32_t pc) const;
};

void check_declarations(State& s);
void check_instructions(State& s);
void build_blocks(State& s);
void infer_types(State& s);  // type flow, then the outputs
// `exits`: the halt's index or N (the end) -> the state where the program leaves there.
void check_outputs(State& s, const std::map<int32_t, std::vector<Slot>>& exits);
void compute_liveness(State& s);

// The join of two register states where paths meet at instruction `join_pc`.
Slot join_slot(State& s, const Slot& a, const Slot& b, int32_t join_pc, int32_t reg);

// Test hook (bytecode/verifier_testing.hpp): the infer function to use for an op.
InferFn infer_for(Opcode op);

}  // namespace mlvm::verify
