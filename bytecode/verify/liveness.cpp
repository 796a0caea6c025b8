// Verifier pass: liveness (docs/bytecode.md, "Liveness (release_after)"). A backward dataflow
// over the blocks gives the registers live after each instruction (the outputs are live where
// the program leaves); release_after[i] lists the registers instruction i reads or writes that
// are live after it on no path.
#include <algorithm>

#include "bytecode/verify/state.hpp"

namespace mlvm::verify {

void compute_liveness(State& s) {
  if (s.n == 0 || s.nregs <= 0) return;
  const std::size_t words = (std::size_t(s.nregs) + 63) / 64;
  using Bits = std::vector<uint64_t>;
  auto set = [](Bits& b, int32_t r) { b[std::size_t(r) >> 6] |= uint64_t(1) << (r & 63); };
  auto clear = [](Bits& b, int32_t r) { b[std::size_t(r) >> 6] &= ~(uint64_t(1) << (r & 63)); };
  auto test = [](const Bits& b, int32_t r) { return (b[std::size_t(r) >> 6] >> (r & 63)) & 1; };

  Bits exit_live(words, 0);
  for (auto& o : s.m.outputs)
    if (s.reg_in_range(o.reg)) set(exit_live, o.reg);

  // Backwards through one instruction: live = (live - defs) + uses.
  auto step = [&](int32_t pc, Bits& live) {
    const Instruction& ins = s.m.code[std::size_t(pc)];
    for (int32_t r : ins.results)
      if (s.reg_in_range(r)) clear(live, r);
    for (int32_t r : ins.args)
      if (s.reg_in_range(r)) set(live, r);
  };

  const std::size_t nb = s.blocks.size();
  std::vector<Bits> live_in(nb, Bits(words, 0));
  auto live_out_of = [&](std::size_t b) {
    Bits out(words, 0);
    for (int32_t succ : s.blocks[b].succ) {
      const Bits& src = succ < 0 ? exit_live : live_in[std::size_t(succ)];
      for (std::size_t w = 0; w < words; ++w) out[w] |= src[w];
    }
    return out;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t b = nb; b-- > 0;) {
      Bits live = live_out_of(b);
      for (int32_t pc = s.blocks[b].end; pc-- > s.blocks[b].begin;) step(pc, live);
      if (live != live_in[b]) {
        live_in[b] = std::move(live);
        changed = true;
      }
    }
  }
  for (std::size_t b = 0; b < nb; ++b) {
    Bits live = live_out_of(b);
    for (int32_t pc = s.blocks[b].end; pc-- > s.blocks[b].begin;) {
      const Instruction& ins = s.m.code[std::size_t(pc)];
      std::vector<int32_t> dead;
      for (const auto* regs : {&ins.args, &ins.results})
        for (int32_t r : *regs)
          if (s.reg_in_range(r) && !test(live, r)) dead.push_back(r);
      std::sort(dead.begin(), dead.end());
      dead.erase(std::unique(dead.begin(), dead.end()), dead.end());
      s.res.release_after[std::size_t(pc)] = std::move(dead);
      step(pc, live);
    }
  }
}

}  // namespace mlvm::verify
