#include "vm/interpreter.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <new>

#include "kernels/cancel.hpp"
#include "vm/input_check.hpp"
#include "vm/render.hpp"

namespace mlvm {

namespace {

using Clock = std::chrono::steady_clock;

// Puts the instruction's location on an error and its op name in front of the message, so a
// host sees "instruction 4 (line 9): trap: div: integer division by zero ...".
[[noreturn]] void fail_at(const PlannedInstruction& p, std::size_t pc, ErrorKind kind,
                          const std::string& message) {
  std::string prefix = std::string(p.name) + ": ";
  std::string msg = message.compare(0, prefix.size(), prefix) == 0 ? message : prefix + message;
  throw Error(kind, msg, instruction_location(pc, p.line));
}

// Each result must have the type the verifier proved; static dims are checked here because a
// kernel only sees concrete shapes and a `?` dim earlier may have made them differ. This is
// the common case, inlined into the run loop; report_bad_result words the failure.
inline bool result_ok(const PlannedInstruction& p, std::size_t k, const Tensor& t) {
  if (!t.defined()) return false;
  if (k >= p.result_types.size()) return true;
  const TensorType& want = p.result_types[k];
  if (t.dtype() != want.dtype || t.rank() != want.dims.size()) return false;
  for (int i = 0; i < t.rank(); ++i)
    if (want.dims[i] != kDynamic && want.dims[i] != t.dim(i)) return false;
  return true;
}

[[noreturn]] void report_bad_result(const PlannedInstruction& p, std::size_t pc, std::size_t k,
                                    const Tensor& t) {
  if (!t.defined())
    fail_at(p, pc, ErrorKind::trap,
            "internal error: the kernel produced no result " + std::to_string(k));
  const TensorType& want = p.result_types.at(k);  // result_ok passes results with no type
  if (t.dtype() != want.dtype || t.rank() != want.dims.size()) {
    TensorType plain = want;
    plain.precision = kUnknownPrecision;
    fail_at(p, pc, ErrorKind::trap,
            "internal error: result " + std::to_string(k) + " is " + t.type_string() +
                " but the verified type is " + plain.to_string());
  }
  for (int i = 0; i < t.rank(); ++i) {
    if (want.dims[i] != kDynamic && want.dims[i] != t.dim(i)) {
      TensorType plain = want;
      plain.precision = kUnknownPrecision;
      fail_at(p, pc, ErrorKind::trap,
              "dynamic-dim mismatch: result " + std::to_string(k) + " is " + t.type_string() +
                  " but the verified type is " + plain.to_string() + " (dim " + std::to_string(i) +
                  ": " + std::to_string(t.dim(i)) + " vs " + std::to_string(want.dims[i]) + ")");
    }
  }
  fail_at(p, pc, ErrorKind::trap, "internal error: result " + std::to_string(k) + " rejected");
}

// Releases a slot's value: only the storage reference goes (see Tensor::release).
inline void drop(Tensor& t) {
  t.release();
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
  args_.resize(std::size_t(program_->max_args));
  results_.resize(std::size_t(program_->max_results));
}

std::vector<Tensor> Interpreter::run(std::span<const Tensor> inputs, ExecEnv& env,
                                     const RunConfig& config, ExecStats* stats) {
  const Module& m = program_->module;
  if (inputs.size() != m.inputs.size())
    throw Error(ErrorKind::usage, "the program takes " + std::to_string(m.inputs.size()) +
                                      " inputs, " + std::to_string(inputs.size()) + " given");
  for (std::size_t k = 0; k < inputs.size(); ++k) check_input(m.inputs[k], inputs[k]);

  // Whatever happens, the registers are empty again afterwards: a failed run must not keep
  // its intermediates (or the host's inputs) alive.
  struct Clear {
    std::vector<Tensor>* regs[3];
    ~Clear() {
      for (auto* r : regs) std::fill(r->begin(), r->end(), Tensor());
    }
  } clear{{&registers_, &args_, &results_}};

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
    outputs.push_back(std::move(t));
  }
  return outputs;
}

void Interpreter::execute(ExecEnv& env, const RunConfig& config, ExecStats* stats) {
  const auto& code = program_->plan.code;
  const std::size_t n = code.size();
  const std::string_view kNoName;
  std::array<int64_t, kNumOpcodes> counts{};
  std::array<Clock::duration, kNumOpcodes> times{};
  const auto run_start = Clock::now();
  int64_t steps = 0;
  std::size_t pc = 0;
  const CancelScope cancel_scope(env.cancel);  // long kernels poll it between blocks

  while (pc < n) {
    const PlannedInstruction& p = code[pc];
    if (env.cancelled()) fail_at(p, pc, ErrorKind::limit, "run cancelled by the host");
    if (config.max_steps > 0 && steps >= config.max_steps)
      fail_at(p, pc, ErrorKind::limit,
              "step limit of " + std::to_string(config.max_steps) + " instructions reached");
    ++steps;
    const Clock::time_point t0 = config.profile ? Clock::now() : Clock::time_point{};
    std::size_t next = pc + 1;

    switch (p.kind) {
      case StepKind::kernel: {
        const std::size_t na = p.arg_plan.size(), nr = p.results.size();
        const ArgPlan* plan = p.arg_plan.data();
        // Registers move into the argument slots (no reference counting); a register read
        // twice is copied from its first slot. A taken value is then held by its slot alone,
        // so a sole owner may be donated to the result.
        uint32_t donatable = 0;
        for (std::size_t k = 0; k < na; ++k) {
          switch (plan[k].pass) {
            case ArgPass::absent:
              break;  // the slot was left undefined by the previous instruction
            case ArgPass::lend:
            case ArgPass::take:
              args_[k] = std::move(registers_[std::size_t(plan[k].reg)]);
              break;
            case ArgPass::repeat:
              args_[k] = args_[std::size_t(plan[k].first)];
              break;
          }
        }
        for (uint32_t bits = p.may_donate; bits; bits &= bits - 1) {
          const int k = __builtin_ctz(bits);
          const Tensor& a = args_[std::size_t(k)];
          if (a.defined() && a.mode() == ValueMode::owned && a.storage().use_count() == 1)
            donatable |= 1u << k;
        }
        KernelContext ctx{std::span<const Tensor>(args_.data(), na),
                          std::span<Tensor>(results_.data(), nr), *p.attrs, env, donatable};
        try {
          p.run(ctx);
        } catch (const Error& e) {
          fail_at(p, pc, e.kind(), e.what());
        } catch (const std::bad_alloc&) {
          fail_at(p, pc, ErrorKind::limit, "out of memory");
        } catch (const std::exception& e) {
          fail_at(p, pc, ErrorKind::trap, std::string("internal error: ") + e.what());
        }
        // Lent values go back to their registers before the results are stored: a result
        // register is never a lent one (writing it makes its old value die here).
        for (std::size_t k = 0; k < na; ++k) {
          if (plan[k].pass == ArgPass::lend)
            registers_[std::size_t(plan[k].reg)] = std::move(args_[k]);
          else if (plan[k].pass != ArgPass::absent)
            drop(args_[k]);
        }
        for (std::size_t k = 0; k < nr; ++k) {
          if (!result_ok(p, k, results_[k])) report_bad_result(p, pc, k, results_[k]);
          // Moving leaves the slot undefined, ready for the next kernel.
          registers_[std::size_t(p.results[k])] = std::move(results_[k]);
        }
        break;
      }
      case StepKind::jmp:
        next = std::size_t(p.target);
        break;
      case StepKind::br:
        if (is_nonzero(p, pc, registers_[std::size_t(p.args[0])])) next = std::size_t(p.target);
        break;
      case StepKind::halt:
        next = n;
        break;
      case StepKind::print:
        if (config.print) {
          const int32_t r = p.args[0];
          const auto& names = program_->module.register_names;
          render_tensor(
              *config.print,
              std::size_t(r) < names.size() ? std::string_view(names[std::size_t(r)]) : kNoName,
              registers_[std::size_t(r)]);
        }
        break;
    }
    if (p.kind != StepKind::kernel)
      for (int32_t r : p.dying_args) drop(registers_[std::size_t(r)]);
    for (int32_t r : p.release) drop(registers_[std::size_t(r)]);
    if (config.profile) {
      counts[std::size_t(p.op)] += 1;
      times[std::size_t(p.op)] += Clock::now() - t0;
    }
    pc = next;
  }

  if (stats) {
    stats->steps = steps;
    stats->seconds = std::chrono::duration<double>(Clock::now() - run_start).count();
    stats->ops.clear();
    if (config.profile) {
      for (int k = 0; k < kNumOpcodes; ++k)
        if (counts[std::size_t(k)])
          stats->ops.push_back({op_info(Opcode(k)).name, counts[std::size_t(k)],
                                std::chrono::duration<double>(times[std::size_t(k)]).count()});
      std::stable_sort(
          stats->ops.begin(), stats->ops.end(),
          [](const OpProfile& a, const OpProfile& b) { return a.seconds > b.seconds; });
    }
  }
}

}  // namespace mlvm
