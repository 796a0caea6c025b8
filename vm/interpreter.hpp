// The run loop: executes a planned module over one set of registers. One Interpreter per
// thread; the CompiledProgram it runs is shared and never written.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "kernels/op_api.hpp"
#include "vm/compiled.hpp"
#include "vm/run_stats.hpp"

namespace mlvm {

struct RunConfig {
  int64_t max_steps = 0;          // instructions executed; 0: no limit
  std::ostream* print = nullptr;  // where `print` writes; null: nowhere
  bool profile = false;           // time every instruction by op kind
};

class Interpreter {
 public:
  explicit Interpreter(std::shared_ptr<const CompiledProgram> program);

  // `inputs` has one tensor per Module::inputs entry, in that order. Every input is checked
  // against its declaration (type, precision) before the first instruction. Returns one
  // tensor per Module::outputs entry. Errors come out as mlvm::Error located at
  // "instruction N (line L)" (run time) or "input NAME" (input checks).
  std::vector<Tensor> run(std::span<const Tensor> inputs, ExecEnv& env, const RunConfig& config,
                          RunStats* stats = nullptr);  // fills steps, seconds, ops

  const CompiledProgram& program() const { return *program_; }

 private:
  void execute(ExecEnv& env, const RunConfig& config, RunStats* stats);

  std::shared_ptr<const CompiledProgram> program_;
  std::vector<Tensor> registers_;
  // Scratch, sized for the widest instruction: pointers to the argument registers (or to an
  // undefined tensor for an omitted optional input), and the kernel's results before they are
  // stored (a result register may also be an argument the kernel is still reading).
  std::vector<const Tensor*> args_;
  std::vector<Tensor> results_;
};

}  // namespace mlvm
