#include "vm/plan.hpp"

#include <algorithm>

namespace mlvm {

namespace {

bool contains(const std::vector<int32_t>& v, int32_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

StepKind step_kind(Opcode op) {
  switch (op) {
    case Opcode::jmp:
      return StepKind::jmp;
    case Opcode::br:
      return StepKind::br;
    case Opcode::halt:
      return StepKind::halt;
    case Opcode::print:
      return StepKind::print;
    default:
      return StepKind::kernel;
  }
}

std::vector<ArgPlan> plan_args(const std::vector<int32_t>& args, const std::vector<int32_t>& dying) {
  std::vector<ArgPlan> plan(args.size());
  for (std::size_t k = 0; k < args.size(); ++k) {
    ArgPlan& a = plan[k];
    a.reg = args[k];
    if (a.reg == kNoRegister) continue;  // absent
    const auto earlier = std::find(args.begin(), args.begin() + std::ptrdiff_t(k), a.reg);
    if (earlier != args.begin() + std::ptrdiff_t(k)) {
      a.pass = ArgPass::repeat;
      a.first = int32_t(earlier - args.begin());
    } else {
      a.pass = contains(dying, a.reg) ? ArgPass::take : ArgPass::lend;
    }
  }
  return plan;
}

}  // namespace

std::string instruction_location(std::size_t pc, uint32_t line) {
  std::string s = "instruction " + std::to_string(pc);
  if (line) s += " (line " + std::to_string(line) + ")";
  return s;
}

ExecPlan build_plan(const Module& module, const VerifyResult& verified) {
  ExecPlan plan;
  plan.num_registers = module.num_registers();
  plan.code.resize(module.code.size());
  for (std::size_t pc = 0; pc < module.code.size(); ++pc) {
    const Instruction& ins = module.code[pc];
    const OpInfo& info = op_info(ins.op);
    PlannedInstruction& p = plan.code[pc];
    p.kind = step_kind(ins.op);
    p.op = ins.op;
    p.name = info.name.c_str();
    p.run = p.kind == StepKind::kernel ? info.run : nullptr;
    p.attrs = &ins.attrs;
    p.args = ins.args;
    p.results = ins.results;
    p.target = ins.target;
    p.line = module.line_of(pc);
    if (pc < verified.result_types.size()) p.result_types = verified.result_types[pc];

    static const std::vector<int32_t> kNone;
    const std::vector<int32_t>& released =
        pc < verified.release_after.size() ? verified.release_after[pc] : kNone;
    // An argument's value dies here when the verifier releases its register after this
    // instruction, or when this instruction overwrites the register (h = relu h).
    for (std::size_t k = 0; k < p.args.size(); ++k) {
      int32_t r = p.args[k];
      if (r == kNoRegister || contains(p.dying_args, r)) continue;
      if (contains(released, r) || contains(p.results, r)) p.dying_args.push_back(r);
    }
    for (std::size_t k = 0; k < p.args.size() && k < 32; ++k) {
      int32_t r = p.args[k];
      if (r == kNoRegister || !contains(p.dying_args, r)) continue;
      if (std::count(p.args.begin(), p.args.end(), r) == 1) p.may_donate |= 1u << k;
    }
    for (int32_t r : released)
      if (!contains(p.dying_args, r) || contains(p.results, r)) p.release.push_back(r);
    if (p.kind == StepKind::kernel) p.arg_plan = plan_args(p.args, p.dying_args);
  }
  return plan;
}

}  // namespace mlvm
