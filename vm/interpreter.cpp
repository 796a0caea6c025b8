#include "vm/interpreter.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <new>

#include "kernels/cancel.hpp"
#include "tensor/copy.hpp"
#include "tensor/views.hpp"
#include "vm/input_check.hpp"
#include "vm/render.hpp"

namespace mlvm {

namespace {

using Clock = std::chrono::steady_clock;

// Puts the instruction's location on an error and its op name in front of the message, so a
// host sees "instruction 4 (line 9): trap: div: integer division by zero ...".
[[noreturn]] void fail_at(const PlannedInstruction& p, std::size_t pc, ErrorKind kind,
                          const std::string& message) {
  std::string prefix = std::string(p.name()) + ": ";
  std::string msg = message.compare(0, prefix.size(), prefix) == 0 ? message : prefix + message;
  throw Error(kind, msg, instruction_location(pc, p.line, p.origin));
}

// Each result must have the type the verifier proved (`want`, null when it saw none); static
// dims are checked here because a kernel only sees concrete shapes and a `?` dim earlier may
// have made them differ. This is the common case, inlined into the run loop;
// report_bad_result words the failure.
inline bool result_ok(const TensorType* want, const Tensor& t) {
  if (!t.defined()) return false;
  if (!want) return true;
  if (t.dtype() != want->dtype || t.rank() != want->dims.size()) return false;
  for (int i = 0; i < t.rank(); ++i)
    if (want->dims[i] != kDynamic && want->dims[i] != t.dim(i)) return false;
  return true;
}

[[noreturn]] void report_bad_result(const PlannedInstruction& p, std::size_t pc, std::size_t k,
                                    const TensorType* want, const Tensor& t) {
  if (!t.defined())
    fail_at(p, pc, ErrorKind::trap,
            "internal error: the kernel produced no result " + std::to_string(k));
  if (!want)
    fail_at(p, pc, ErrorKind::trap, "internal error: result " + std::to_string(k) + " rejected");
  if (t.dtype() != want->dtype || t.rank() != want->dims.size())
    fail_at(p, pc, ErrorKind::trap,
            "internal error: result " + std::to_string(k) + " is " + t.type_string() +
                " but the verified type is " + want->to_string());
  for (int i = 0; i < t.rank(); ++i) {
    if (want->dims[i] != kDynamic && want->dims[i] != t.dim(i)) {
      fail_at(p, pc, ErrorKind::trap,
              "dynamic-dim mismatch: result " + std::to_string(k) + " is " + t.type_string() +
                  " but the verified type is " + want->to_string() + " (dim " + std::to_string(i) +
                  ": " + std::to_string(t.dim(i)) + " vs " + std::to_string(want->dims[i]) + ")");
    }
  }
  fail_at(p, pc, ErrorKind::trap, "internal error: result " + std::to_string(k) + " rejected");
}

// Releases a slot's value: only the storage reference goes (see Tensor::release).
inline void drop(Tensor& t) {
  t.release();
}

std::string out_of_memory_message(const MemoryBudget* budget) {
  std::string m = "out of memory: the system refused an allocation for the kernel's scratch";
  if (!budget) return m + " (no memory limit set)";
  return m + " with " + std::to_string(budget->live()) + " bytes of tensors live, under a " +
         "memory limit of " + std::to_string(budget->limit()) + " bytes";
}

bool is_nonzero(const PlannedInstruction& p, std::size_t pc, const Tensor& c) {
  if (c.numel() != 1)
    fail_at(p, pc, ErrorKind::trap,
            "condition must have exactly one element, got " + c.type_string());
  return visit_dtype(c.dtype(), [&](auto tag) {
    storage_t<typename decltype(tag)::type> v;
    std::memcpy(&v, c.raw_data(), sizeof v);
    return v != 0;  // NaN is non-zero
  });
}

}  // namespace

Interpreter::Interpreter(std::shared_ptr<const CompiledProgram> program)
    : program_(std::move(program)) {
  if (!program_) throw Error(ErrorKind::usage, "interpreter without a program");
  registers_.resize(std::size_t(program_->plan.num_registers));
  bound_of_reg_.assign(std::size_t(program_->plan.num_registers), -1);
  args_.resize(std::size_t(program_->plan.max_args));
  concat_results_.resize(program_->plan.concats.size());
  results_.resize(std::size_t(program_->plan.max_results));
}

std::vector<Tensor> Interpreter::run(std::span<const Tensor> inputs, ExecEnv& env,
                                     const RunConfig& config, RunStats* stats) {
  const Module& m = program_->module;
  if (inputs.size() != m.inputs.size())
    throw Error(ErrorKind::usage, "the program takes " + std::to_string(m.inputs.size()) +
                                      " inputs, " + std::to_string(inputs.size()) + " given");
  for (std::size_t k = 0; k < inputs.size(); ++k) check_input(m.inputs[k], inputs[k]);
  if (!config.bound.empty() && config.bound.size() != m.outputs.size())
    throw Error(ErrorKind::usage, "bound outputs do not match the program's outputs");

  // Whatever happens, the registers are empty again afterwards: a failed run must not keep
  // its intermediates (or the host's inputs) alive.
  struct Clear {
    Interpreter* in;
    ~Clear() {
      for (auto* r : {&in->registers_, &in->results_, &in->concat_results_}) std::fill(r->begin(), r->end(), Tensor());
      in->slice_ = Tensor();
      if (in->any_bound_) std::fill(in->bound_of_reg_.begin(), in->bound_of_reg_.end(), -1);
      in->any_bound_ = false;
    }
  } clear{this};
  bound_refs_.assign(config.bound.size(), 0);
  for (std::size_t k = 0; k < config.bound.size(); ++k) {
    if (!config.bound[k].defined()) continue;
    bound_of_reg_[std::size_t(m.outputs[k].reg)] = int32_t(k);
    bound_refs_[k] = config.bound[k].storage().use_count();
    any_bound_ = true;
  }

  for (std::size_t k = 0; k < inputs.size(); ++k)
    registers_[std::size_t(m.inputs[k].reg)] = inputs[k];
  for (std::size_t k = 0; k < m.constants.size(); ++k)
    registers_[std::size_t(m.constants[k].reg)] = program_->constant_values[k];

  execute(env, config, stats);

  std::vector<Tensor> outputs;
  outputs.reserve(m.outputs.size());
  for (const OutputDecl& o : m.outputs) {
    Tensor& t = registers_[std::size_t(o.reg)];
    if (!t.defined())
      throw Error(ErrorKind::trap,
                  "internal error: output " + o.name + " was not assigned on this path",
                  "output " + o.name);
    // A declared `.output y : f32[2]` accepts an inferred `?` dim, so the size is only known
    // now: a declared static dim must hold for the value returned.
    if (o.has_type) {
      for (int i = 0; i < t.rank() && i < o.type.dims.size(); ++i) {
        if (o.type.dims[i] != kDynamic && o.type.dims[i] != t.dim(i)) {
          TensorType plain = o.type;
          plain.precision = kUnknownPrecision;
          throw Error(ErrorKind::trap,
                      "dynamic-dim mismatch: output " + o.name + " is " + t.type_string() +
                          " but is declared " + plain.to_string() + " (dim " + std::to_string(i) +
                          ": " + std::to_string(t.dim(i)) + " vs " +
                          std::to_string(o.type.dims[i]) + ")",
                      "output " + o.name);
        }
      }
    }
    if (!config.bound.empty() && config.bound[outputs.size()].defined())
      outputs.push_back(deliver(t, config.bound[outputs.size()], o.name));
    else
      outputs.push_back(std::move(t));
  }
  return outputs;
}

const Tensor* Interpreter::destination_for(int32_t reg, const RunConfig& config,
                                           std::size_t num_args) const {
  const int32_t b = bound_of_reg_[std::size_t(reg)];
  if (b < 0) return nullptr;
  const Tensor& d = config.bound[std::size_t(b)];
  if (!d.is_contiguous() || d.storage().use_count() != bound_refs_[std::size_t(b)]) return nullptr;
  for (std::size_t k = 0; k < num_args; ++k)
    if (args_[k]->defined() && args_[k]->storage() == d.storage()) return nullptr;
  return &d;
}

const Tensor* Interpreter::placed_destination(const Placement& role, ExecEnv& env) {
  Tensor& result = concat_results_[std::size_t(role.group)];
  if (role.part < 0) return result.defined() ? &result : nullptr;
  const PlacedConcat& c = program_->plan.concats[std::size_t(role.group)];
  const std::size_t k = std::size_t(role.part);
  try {
    if (!result.defined()) result = Tensor::empty(c.dtype, c.dims, env.budget);
    slice_ = Tensor::make_view(result.storage(), c.dtype, c.parts[k], contiguous_strides(c.parts[k]),
                               result.offset() + c.at[k], ValueMode::view);
  } catch (const Error&) {
    return nullptr;  // over the memory limit: the kernel allocates (and reports) as usual
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
  return &slice_;
}

bool Interpreter::run_small(const SmallStep& s, const simd::EwTable& runs) {
  Tensor& donor = registers_[std::size_t(s.donor)];
  const Tensor& a = registers_[std::size_t(s.a)];
  const Tensor* b = s.unary ? nullptr : &registers_[std::size_t(s.b)];
  if (donor.storage().use_count() != 1 || !storage_reusable(donor) || !a.is_contiguous() ||
      (b && !b->is_contiguous()))
    return false;
  if (b) {
    const simd::BinaryRun run = runs.binary[s.op][s.elem][s.splat][0];
    if (!run) return false;
    run(donor.raw_data(), a.raw_data(), b->raw_data(), s.n);
  } else {
    const simd::UnaryRun run = runs.unary[s.op][s.elem];
    if (!run) return false;
    run(donor.raw_data(), a.raw_data(), s.n);
  }
  if (s.donor != s.result) registers_[std::size_t(s.result)] = std::move(donor);
  if (s.also_dying >= 0) drop(registers_[std::size_t(s.also_dying)]);
  return true;
}

void Interpreter::drop_all(const int32_t* first, uint32_t count) {
  for (uint32_t k = 0; k < count; ++k) drop(registers_[std::size_t(first[k])]);
}

Tensor Interpreter::deliver(const Tensor& value, const Tensor& destination,
                            const std::string& name) {
  if (value.dtype() == destination.dtype() && same_elements(value, destination))
    return destination;  // the kernel wrote it in place
  if (value.dtype() != destination.dtype() || !(value.shape() == destination.shape()))
    throw Error(ErrorKind::usage,
                "output " + name + " is " + value.type_string() +
                    " but the tensor bound to it is " + destination.type_string(),
                "output " + name);
  // A view of the destination itself (a transpose of what a kernel wrote there) is copied
  // out first: copy_into needs source and destination apart.
  copy_into(value.storage() == destination.storage() ? clone(value) : value, destination);
  return destination;
}

void Interpreter::execute(ExecEnv& env, const RunConfig& config, RunStats* stats) {
  const auto& code = program_->plan.code;
  const int32_t* const pool = program_->plan.regs.data();
  const TensorType* const types = program_->plan.types.data();
  const std::size_t n = code.size();
  const auto& small = program_->plan.small;
  const std::string_view kNoName;
  StepProfile* const prof = config.profile ? &profile_ : nullptr;
  if (prof) prof->start(n);
  const auto run_start = Clock::now();
  const uint64_t tick_start = prof ? profile_ticks() : 0;
  int64_t steps = 0;
  std::size_t pc = 0;
  // Steps and time are reported however the run ends (a trap, a limit, cancellation); on a
  // normal end, before the profile's tables are built, which is not the run's time.
  struct Progress {
    RunStats* stats;
    const int64_t& steps;
    Clock::time_point start;
    bool reported = false;
    double report() {
      const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
      if (stats && !reported) {
        stats->steps = steps;
        stats->seconds = seconds;
      }
      reported = true;
      return seconds;
    }
    ~Progress() { report(); }
  } progress{stats, steps, run_start};
  const CancelScope cancel_scope(env.cancel);  // long kernels poll it between blocks

  // Stretches of small steps run in a loop of their own that reads only their entries
  // (ExecPlan::small); a step it declines, and every other step, goes through the loop below,
  // which also reports the step limit and cancellation.
  const bool tight = !small.empty() && !any_bound_;
  // The runs of the level current now, as the kernels would use (kernels/small_runs.hpp).
  const simd::EwTable* const runs = small.empty() ? nullptr : &simd::ew_kernels();
  while (pc < n) {
    if (tight) {
      const int64_t limit = config.max_steps > 0 ? config.max_steps : INT64_MAX;
      const std::size_t first = pc;
      const uint64_t t0 = prof ? profile_ticks() : 0;
      while (pc < n && small[pc].n > 0 && steps < limit && !env.cancelled() &&
             run_small(small[pc], *runs)) {
        if (small[pc].releases) drop_all(code[pc].release(pool), code[pc].num_release);
        ++steps;
        ++pc;
      }
      if (prof && pc > first) prof->stretch(first, pc, profile_ticks() - t0);
      if (pc >= n) break;
    }
    const PlannedInstruction& p = code[pc];
    if (env.cancelled()) fail_at(p, pc, ErrorKind::limit, "run cancelled by the host");
    if (config.max_steps > 0 && steps >= config.max_steps)
      fail_at(p, pc, ErrorKind::limit,
              "step limit of " + std::to_string(config.max_steps) + " instructions reached");
    ++steps;
    const uint64_t t0 = prof ? profile_ticks() : 0;
    const int64_t reserved0 = prof && env.budget ? env.budget->reserved_total() : 0;
    std::size_t next = pc + 1;

    switch (p.kind) {
      case StepKind::small:  // here when the tight loop above declined it
        if (!any_bound_ && run_small(small[pc], *runs)) break;
        [[fallthrough]];  // the kernel handles every other case
      case StepKind::kernel: {
        const std::size_t na = p.num_args, nr = p.num_results;
        const int32_t* const args = p.args(pool);
        static const Tensor kAbsent;  // an omitted optional input
        for (std::size_t k = 0; k < na; ++k)
          args_[k] = args[k] == kNoRegister ? &kAbsent : &registers_[std::size_t(args[k])];
        // A dying argument whose register is its storage's only owner may become the result.
        uint32_t donatable = 0;
        for (uint32_t bits = p.may_donate; bits; bits &= bits - 1) {
          const int k = __builtin_ctz(bits);
          const Tensor& a = *args_[std::size_t(k)];
          if (a.defined() && a.mode() == ValueMode::owned && a.storage().use_count() == 1)
            donatable |= 1u << k;
        }
        // Every member given (none left to value-initialization): GCC would otherwise clear
        // the whole context with `rep stos` first, a measurable part of a small instruction.
        const Tensor* destination = any_bound_ && nr == 1 ? destination_for(p.results(pool)[0], config, na) : nullptr;
        const StepExtras* const x = program_->plan.extras_of(pc);
        if (!destination && x && x->placement.group >= 0) destination = placed_destination(x->placement, env);
        KernelContext ctx{TensorArgs::refs(args_.data(), na),
                          std::span<Tensor>(results_.data(), nr),
                          *p.attrs,
                          env,
                          donatable,
                          destination,
                          x ? x->prepared.get() : nullptr,
                          x && x->activation ? &*x->activation : nullptr};
        try {
          p.run(ctx);
        } catch (const Error& e) {
          fail_at(p, pc, e.kind(), e.what());
        } catch (const std::bad_alloc&) {
          // The kernel's own scratch (not tensor storage) could not be had: say how much
          // tensor storage was live against which limit, the closest the host can act on.
          fail_at(p, pc, ErrorKind::limit, out_of_memory_message(env.budget.get()));
        } catch (const std::exception& e) {
          fail_at(p, pc, ErrorKind::trap, std::string("internal error: ") + e.what());
        }
        const int32_t* const type_ids = p.result_types(pool);
        for (std::size_t k = 0; k < nr; ++k) {
          const TensorType* want = type_ids[k] == kNoType ? nullptr : &types[type_ids[k]];
          if (!result_ok(want, results_[k])) report_bad_result(p, pc, k, want, results_[k]);
        }
        // Dying arguments go before the results are stored: a result register may be one of
        // them (h = relu h), and its old value must not outlive this instruction.
        drop_all(p.dying(pool), p.num_dying);
        // Moving leaves each result slot undefined, ready for the next kernel.
        const int32_t* const results = p.results(pool);
        for (std::size_t k = 0; k < nr; ++k)
          registers_[std::size_t(results[k])] = std::move(results_[k]);
        if (x && x->placement.group >= 0) {
          slice_.release();
          if (x->placement.part < 0) concat_results_[std::size_t(x->placement.group)].release();
        }
        break;
      }
      case StepKind::jmp:
        next = std::size_t(p.target);
        break;
      case StepKind::br:
        if (is_nonzero(p, pc, registers_[std::size_t(p.args(pool)[0])]))
          next = std::size_t(p.target);
        break;
      case StepKind::halt:
        next = n;
        break;
      case StepKind::fused:  // its work was done by the step before
        break;
      case StepKind::trap:
        // An importer's branch that cannot run with the shapes it was imported for (ONNX runs
        // an If's branches only when taken); the origin says which and why.
        // (Not through fail_at: its "trap: " op-name prefix would repeat the kind's name.)
        throw Error(ErrorKind::trap, "the program reached a path it cannot run",
                    instruction_location(pc, p.line, p.origin));
      case StepKind::print:
        if (config.print) {
          const int32_t r = p.args(pool)[0];
          const auto& names = program_->module.register_names;
          render_tensor(*config.print,
                        print_label(program_->module.source_name, p.line, pc,
                                    std::size_t(r) < names.size()
                                        ? std::string_view(names[std::size_t(r)])
                                        : kNoName),
                        registers_[std::size_t(r)]);
        }
        break;
    }
    if (p.kind != StepKind::kernel && p.kind != StepKind::small) drop_all(p.dying(pool), p.num_dying);
    drop_all(p.release(pool), p.num_release);
    if (prof) prof->step(pc, profile_ticks() - t0, env.budget ? env.budget->reserved_total() - reserved0 : 0);
    pc = next;
  }

  const uint64_t ticks = prof ? profile_ticks() - tick_start : 0;
  const double seconds = progress.report();
  if (stats) {
    stats->ops.clear();
    stats->instructions.clear();
    if (prof) prof->report(program_->plan, ticks ? seconds / double(ticks) : 0.0, *stats);
  }
}

}  // namespace mlvm
