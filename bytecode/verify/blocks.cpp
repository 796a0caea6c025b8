// Verifier pass: the control-flow graph. A block starts at instruction 0, after a jump, halt
// or trap, and at every jump target; it ends by falling through, jumping, branching, halting
// or trapping (a trap has no successor).
// Also how each instruction moves control and which arguments it reads.
#include <algorithm>

#include "bytecode/verify/state.hpp"

namespace mlvm::verify {

bool State::is_jump(int32_t pc) const {
  const Opcode op = m.code[std::size_t(pc)].op;
  return !op_ignored(pc) && opcode_valid(uint32_t(op)) && (op == Opcode::jmp || op == Opcode::br);
}

bool State::is_halt(int32_t pc) const {
  const Opcode op = m.code[std::size_t(pc)].op;
  return !op_ignored(pc) && opcode_valid(uint32_t(op)) && op == Opcode::halt;
}

bool State::is_trap(int32_t pc) const {
  const Opcode op = m.code[std::size_t(pc)].op;
  return !op_ignored(pc) && opcode_valid(uint32_t(op)) && op == Opcode::trap;
}

std::size_t State::reads(int32_t pc) const {
  const Instruction& ins = m.code[std::size_t(pc)];
  if (op_ignored(pc) || gap(pc) == Gap::operands) return ins.args.size();
  if (!opcode_valid(uint32_t(ins.op))) return 0;
  return std::min(ins.args.size(), std::size_t(op_info(ins.op).max_inputs()));
}

void build_blocks(State& s) {
  const int32_t n = s.n;
  // A target outside 0..N was reported; such an edge (like an unknown one, -1) is not followed.
  auto has_target = [&](int32_t pc) {
    int32_t t = s.m.code[std::size_t(pc)].target;
    return s.is_jump(pc) && t >= 0 && t <= n;
  };
  std::vector<uint8_t> leader(std::size_t(n) + 1, 0);
  if (n > 0) leader[0] = 1;
  for (int32_t pc = 0; pc < n; ++pc) {
    if (!s.is_jump(pc) && !s.is_halt(pc) && !s.is_trap(pc)) continue;
    leader[std::size_t(pc) + 1] = 1;
    if (has_target(pc)) leader[std::size_t(s.m.code[std::size_t(pc)].target)] = 1;
  }
  s.block_of.assign(std::size_t(n), -1);
  for (int32_t pc = 0; pc < n; ++pc) {
    if (leader[std::size_t(pc)]) s.blocks.push_back(Block{pc, pc, {}, -1});
    s.blocks.back().end = pc + 1;
    s.block_of[std::size_t(pc)] = int32_t(s.blocks.size()) - 1;
  }
  auto target_block = [&](int32_t pc) { return pc >= n ? -1 : s.block_of[std::size_t(pc)]; };
  for (Block& b : s.blocks) {
    const int32_t last = b.end - 1;
    const Instruction& ins = s.m.code[std::size_t(last)];
    if (s.is_halt(last)) {
      b.succ.push_back(-1);
    } else if (s.is_trap(last)) {
      // The run stops with an error here: nothing follows, and no output need be assigned.
    } else if (s.is_jump(last)) {
      if (ins.op == Opcode::br) b.succ.push_back(target_block(b.end));
      if (has_target(last)) {
        int32_t t = target_block(ins.target);
        if (std::find(b.succ.begin(), b.succ.end(), t) == b.succ.end()) b.succ.push_back(t);
      }
    } else {
      b.succ.push_back(target_block(b.end));
    }
    // Leaving the program: at this halt, or at the end (falling off it or jumping to N).
    if (std::find(b.succ.begin(), b.succ.end(), -1) != b.succ.end())
      b.exit = s.is_halt(last) ? last : n;
  }
}

}  // namespace mlvm::verify
