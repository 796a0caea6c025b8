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
#include "kernels/simd/ew.hpp"
#include "vm/compiled.hpp"
#include "vm/profile.hpp"
#include "mlvm/session.hpp"

namespace mlvm {

struct RunConfig {
  int64_t max_steps = 0;          // instructions executed; 0: no limit
  std::ostream* print = nullptr;  // where `print` writes; null: nowhere
  bool profile = false;           // time every instruction (vm/profile.hpp)
  // Per Module::outputs entry: where that output must end up (Session::bind_output), or an
  // undefined tensor. Empty: nothing is bound.
  std::span<const Tensor> bound;
};

class Interpreter {
 public:
  explicit Interpreter(std::shared_ptr<const CompiledProgram> program);

  // `inputs` has one tensor per Module::inputs entry, in that order. Every input is checked
  // against its declaration (type, precision) before the first instruction. Returns one
  // tensor per Module::outputs entry (a bound output's is its destination). Errors come out as mlvm::Error located at
  // "instruction N (line L)" (run time) or "input NAME" (input checks).
  std::vector<Tensor> run(std::span<const Tensor> inputs, ExecEnv& env, const RunConfig& config,
                          RunStats* stats = nullptr);  // fills steps, seconds, ops

  const CompiledProgram& program() const { return *program_; }

 private:
  void execute(ExecEnv& env, const RunConfig& config, RunStats* stats);
  // The bound destination result register `reg` may be written into directly, or null: it
  // must be contiguous, held by no register (no live value is a view of it) and not be an
  // argument of the instruction (the kernel would read what it writes).
  const Tensor* destination_for(int32_t reg, const RunConfig& config, std::size_t num_args) const;
  // A bound output's final value, moved into its destination if the kernel did not write it
  // there; returns the destination.
  static Tensor deliver(const Tensor& value, const Tensor& destination, const std::string& name);
  // The destination of a step with a role in a placed concatenation (vm/place.cpp): a part's
  // slice of the group's result (allocated by the first part), or the result itself for the
  // concatenate; null when there is none to give.
  const Tensor* placed_destination(const Placement& role, ExecEnv& env);
  // Runs small step `s` (vm/small_steps.cpp) in place when the registers allow it: true when
  // it did (its registers updated, its dying ones dropped), false when its kernel must run.
  bool run_small(const SmallStep& s, const simd::EwTable& runs);
  // Drops the values of `count` registers listed from `first` (a step's dying or release list).
  void drop_all(const int32_t* first, uint32_t count);

  std::shared_ptr<const CompiledProgram> program_;
  std::vector<Tensor> registers_;
  // Scratch, sized for the widest instruction: pointers to the argument registers (or to an
  // undefined tensor for an omitted optional input), and the kernel's results before they are
  // stored (a result register may also be an argument the kernel is still reading).
  std::vector<const Tensor*> args_;
  std::vector<Tensor> results_;
  // Output binding, set up per run: per register, the index of the bound output it holds
  // (-1: none), and per bound output the reference count of its storage outside the
  // registers (a larger count means a register still holds a view of it).
  std::vector<int32_t> bound_of_reg_;
  std::vector<long> bound_refs_;
  bool any_bound_ = false;
  // Per placed concatenation, its result from its first part's step to its concatenate
  // (undefined otherwise), and the slice handed to the step running now.
  std::vector<Tensor> concat_results_;
  Tensor slice_;
  // A profiled run's counters, kept between runs so that profiling allocates once.
  StepProfile profile_;
};

}  // namespace mlvm
