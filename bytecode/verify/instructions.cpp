// Verifier pass: every instruction on its own, reachable or not — its opcode, how many
// arguments and results it has, its registers, its attributes (checked here and only here)
// and its jump target — then every read of a register that nothing assigns.
#include "bytecode/names.hpp"
#include "bytecode/verify/state.hpp"

namespace mlvm::verify {

namespace {

std::string plural(int64_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

// "x, w, ?b" / "x...": the op's inputs as its signature writes them.
std::string signature(const OpInfo& op) {
  std::string sig;
  for (auto& in : op.inputs)
    sig += (sig.empty() ? "" : ", ") + std::string(in.optional ? "?" : "") + in.name +
           (in.variadic ? "..." : "");
  return sig;
}

class Instructions {
 public:
  explicit Instructions(State& s) : s_(s) {}

  void run() {
    s_.bad.assign(std::size_t(s_.n), 0);
    for (int32_t pc = 0; pc < s_.n; ++pc)
      if (!check(pc)) s_.bad[std::size_t(pc)] = 1;
    report_unassigned_reads();
  }

 private:
  State& s_;

  bool check(int32_t pc) {
    const Instruction& ins = s_.m.code[std::size_t(pc)];
    const Gap gap = s_.gap(pc);
    for (int32_t r : ins.results)
      if (s_.reg_in_range(r)) s_.assigned[std::size_t(r)] = 1;
    if (s_.op_ignored(pc)) {
      args_in_range(pc, ins);
      results_in_range(pc, ins);
      return false;
    }
    if (!opcode_valid(uint32_t(ins.op))) {
      s_.instr_error(pc, "unknown opcode " + std::to_string(unsigned(ins.op)) + " (expected 0.." +
                             std::to_string(kNumOpcodes - 1) + ")");
      args_in_range(pc, ins);
      results_in_range(pc, ins);
      return false;
    }
    const OpInfo& op = op_info(ins.op);
    bool ok = results(pc, ins, op);
    ok = (gap == Gap::operands || arguments(pc, ins, op)) && ok;
    ok = args_in_range(pc, ins) && ok;
    if (gap == Gap::none || gap == Gap::target) {
      int bad = -1;
      try {
        s_.res.attrs[std::size_t(pc)] = check_positional_attrs(op, ins.attrs, &bad);
      } catch (const Error& e) {
        s_.instr_error(pc, e.message(), -1, -1, bad);
        ok = false;
      }
    }
    const bool jump = ins.op == Opcode::jmp || ins.op == Opcode::br;
    const bool target_unknown = ins.target == -1 && (gap == Gap::operands || gap == Gap::target);
    if (jump && !target_unknown && (ins.target < 0 || ins.target > s_.n)) {
      s_.instr_error(pc, op.name + " target " + std::to_string(ins.target) +
                             " is outside the code (expected 0.." + std::to_string(s_.n) + ")");
      ok = false;
    }
    return ok && gap != Gap::attributes && gap != Gap::operands;
  }

  bool args_in_range(int32_t pc, const Instruction& ins) {
    bool ok = true;
    for (std::size_t k = 0; k < ins.args.size(); ++k) {
      int32_t r = ins.args[k];
      if (r == kNoRegister || s_.reg_in_range(r)) continue;
      s_.instr_error(pc,
                     "operand " + std::to_string(k) + " is register " + std::to_string(r) +
                         ", but the module has " + std::to_string(s_.nregs) + " registers",
                     int32_t(k));
      ok = false;
    }
    return ok;
  }

  bool results_in_range(int32_t pc, const Instruction& ins) {
    bool ok = true;
    for (std::size_t k = 0; k < ins.results.size(); ++k) {
      int32_t r = ins.results[k];
      if (s_.reg_in_range(r)) continue;
      s_.instr_error(pc,
                     "result " + std::to_string(k) + " is register " + std::to_string(r) +
                         ", but the module has " + std::to_string(s_.nregs) + " registers",
                     -1, int32_t(k));
      s_.results_unknown = true;  // what it assigns is unknown
      ok = false;
    }
    return ok;
  }

  bool results(int32_t pc, const Instruction& ins, const OpInfo& op) {
    bool ok = true;
    const int n = int(ins.results.size());
    if (n != op.num_results) {
      ok = false;
      const bool named = n > 0 && s_.reg_in_range(ins.results[0]) &&
                         !s_.m.register_names[std::size_t(ins.results[0])].empty();
      if (op.num_results == 0 && named)
        s_.instr_error(pc,
                       op.name + " gives no result; write it without '" +
                           s_.m.register_names[std::size_t(ins.results[0])] + " ='",
                       -1, 0);
      else
        s_.instr_error(pc,
                       op.name + " gives " +
                           (op.num_results == 0 ? std::string("no result")
                                                : plural(op.num_results, "result")) +
                           " but " + plural(n, "name") + (n == 1 ? " is" : " are") + " assigned" +
                           (n == 0 ? "; write NAME = " + op.name + " ..." : ""),
                       -1, n > 0 ? 0 : -1);
    }
    ok = results_in_range(pc, ins) && ok;
    for (int k = 0; k < n; ++k) {
      int32_t r = ins.results[std::size_t(k)];
      if (!s_.reg_in_range(r)) continue;
      if (int32_t c = s_.const_of[std::size_t(r)]; c >= 0) {
        VerifyDiagnostic d;
        d.instruction = pc;
        d.result = k;
        d.constant = c;
        d.message =
            s_.reg_name(r) + " is a .const and cannot be assigned; constants are read-only";
        s_.error(std::move(d));
        ok = false;
      }
      for (int j = 0; j < k; ++j) {
        if (ins.results[std::size_t(j)] != r) continue;
        s_.instr_error(pc, "result " + s_.reg_name(r) + " is assigned twice by one instruction",
                       -1, k);
        ok = false;
        break;
      }
    }
    return ok;
  }

  bool arguments(int32_t pc, const Instruction& ins, const OpInfo& op) {
    bool ok = true;
    const int n = int(ins.args.size());
    const int lo = op.min_inputs(), hi = op.max_inputs();
    const std::string sig = signature(op);
    if (n < lo) {
      ok = false;
      s_.instr_error(pc, op.name + " needs " + (hi != lo ? "at least " : "") +
                             plural(lo, "input") + " (" + sig + ") but " + std::to_string(n) +
                             (n == 1 ? " is" : " are") + " given");
    } else if (n > hi) {
      ok = false;
      s_.instr_error(pc,
                     op.name + " takes " + (hi == lo ? "" : "at most ") + plural(hi, "input") +
                         (sig.empty() ? "" : " (" + sig + ")") + " but " + std::to_string(n) +
                         " are given",
                     hi);
    }
    const bool variadic = hi == INT32_MAX;
    for (int k = 0; k < n && k < hi; ++k) {
      if (ins.args[std::size_t(k)] != kNoRegister) continue;
      const InputSpec& spec = op.inputs[std::min(std::size_t(k), op.inputs.size() - 1)];
      if (!variadic && spec.optional) continue;
      s_.instr_error(pc,
                     "input '" + spec.name + "' of " + op.name +
                         " cannot be none; only optional inputs (?) may be omitted",
                     k);
      ok = false;
    }
    return ok;
  }

  // A register that no declaration and no instruction assigns, reported at every read; it is
  // then of unknown value, so the dataflow does not report it again.
  void report_unassigned_reads() {
    std::vector<std::string_view> known;
    for (int32_t r = 0; r < s_.nregs; ++r)
      if (s_.assigned[std::size_t(r)] && !s_.m.register_names[std::size_t(r)].empty())
        known.push_back(s_.m.register_names[std::size_t(r)]);
    std::vector<int32_t> never;
    for (int32_t pc = 0; pc < s_.n && !s_.full(); ++pc) {
      const Instruction& ins = s_.m.code[std::size_t(pc)];
      for (std::size_t k = 0; k < s_.reads(pc); ++k) {
        int32_t r = ins.args[k];
        if (!s_.reg_in_range(r) || s_.assigned[std::size_t(r)]) continue;
        std::string msg = s_.reg_text(r) + " is read before it is assigned (nothing assigns it)";
        const std::string& name = s_.m.register_names[std::size_t(r)];
        std::string hint = name.empty() ? "" : closest_name(name, known);
        if (!hint.empty()) msg += "; did you mean '" + hint + "'?";
        s_.instr_error(pc, std::move(msg), int32_t(k));
        never.push_back(r);
      }
    }
    for (int32_t r : never) s_.entry[std::size_t(r)] = Slot{SlotState::poison, -1};
  }
};

}  // namespace

void check_instructions(State& s) {
  Instructions(s).run();
}

}  // namespace mlvm::verify
