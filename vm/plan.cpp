#include "vm/plan.hpp"

#include <algorithm>

#include "ir/type_table.hpp"
#include "kernels/prepare.hpp"
#include "kernels/run_table.hpp"

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
    case Opcode::trap:
      return StepKind::trap;
    default:
      return StepKind::kernel;
  }
}

}  // namespace

std::string instruction_location(std::size_t pc, uint32_t line, const char* origin) {
  std::string s = "instruction " + std::to_string(pc);
  if (origin && *origin) s += " (" + std::string(origin) + ")";
  else if (line) s += " (line " + std::to_string(line) + ")";
  return s;
}

std::vector<bool> jump_targets(const Module& module, std::size_t steps) {
  std::vector<bool> landed(steps + 1, false);
  for (const Instruction& ins : module.code)
    if ((ins.op == Opcode::jmp || ins.op == Opcode::br) && ins.target >= 0 && std::size_t(ins.target) < landed.size())
      landed[std::size_t(ins.target)] = true;
  return landed;
}

ExecPlan build_plan(const Module& module, const VerifyResult& verified) {
  ExecPlan plan;
  plan.num_registers = module.num_registers();
  plan.code.resize(module.code.size());
  // Distinct result types: most instructions of a program share a handful. Precision is not
  // checked at run time, so types that differ only in it are one.
  TypeTable types;
  auto plain = [](TensorType t) {
    t.precision = kUnknownPrecision;
    return t;
  };
  static const Attrs kNoAttrs;
  std::vector<int32_t> dying, release;
  for (std::size_t pc = 0; pc < module.code.size(); ++pc) {
    const Instruction& ins = module.code[pc];
    PlannedInstruction& p = plan.code[pc];
    p.kind = step_kind(ins.op);
    p.op = ins.op;
    p.run = p.kind == StepKind::kernel ? kernel_fn(ins.op) : nullptr;
    p.attrs = pc < verified.attrs.size() ? &verified.attrs[pc] : &kNoAttrs;
    p.target = ins.target;
    p.line = module.line_of(pc);
    if (pc < module.origins.size()) p.origin = module.origins[pc].c_str();

    static const std::vector<int32_t> kNone;
    const std::vector<int32_t>& released =
        pc < verified.release_after.size() ? verified.release_after[pc] : kNone;
    // An argument's value dies here when the verifier releases its register after this
    // instruction, or when this instruction overwrites the register (h = relu h).
    dying.clear();
    for (int32_t r : ins.args) {
      if (r == kNoRegister || contains(dying, r)) continue;
      if (contains(released, r) || contains(ins.results, r)) dying.push_back(r);
    }
    for (std::size_t k = 0; k < ins.args.size() && k < 32; ++k) {
      int32_t r = ins.args[k];
      if (r == kNoRegister || !contains(dying, r)) continue;
      if (std::count(ins.args.begin(), ins.args.end(), r) == 1) p.may_donate |= 1u << k;
    }
    release.clear();
    for (int32_t r : released)
      if (!contains(dying, r) || contains(ins.results, r)) release.push_back(r);

    p.regs = uint32_t(plan.regs.size());
    p.num_args = uint32_t(ins.args.size());
    p.num_results = uint32_t(ins.results.size());
    p.num_dying = uint32_t(dying.size());
    p.num_release = uint32_t(release.size());
    plan.regs.insert(plan.regs.end(), ins.args.begin(), ins.args.end());
    plan.regs.insert(plan.regs.end(), ins.results.begin(), ins.results.end());
    plan.regs.insert(plan.regs.end(), dying.begin(), dying.end());
    plan.regs.insert(plan.regs.end(), release.begin(), release.end());
    const std::vector<TensorType>* result_types =
        pc < verified.result_types.size() ? &verified.result_types[pc] : nullptr;
    for (std::size_t k = 0; k < ins.results.size(); ++k)
      plan.regs.push_back(
          result_types && k < result_types->size() ? types.intern(plain((*result_types)[k]))
                                                   : kNoType);
    plan.max_args = std::max(plan.max_args, int(ins.args.size()));
    plan.max_results = std::max(plan.max_results, int(ins.results.size()));
  }
  plan.types = types.take();
  fuse_activations(plan, module);
  place_concatenations(plan, module);
  plan_small_steps(plan, verified);
  return plan;
}

void prepare_constants(ExecPlan& plan, const Module& module, const std::vector<Tensor>& constants) {
  // A register holds its constant throughout only if no instruction ever writes it.
  std::vector<const Tensor*> constant_of(std::size_t(module.num_registers()), nullptr);
  for (std::size_t k = 0; k < module.constants.size() && k < constants.size(); ++k) {
    const int32_t r = module.constants[k].reg;
    if (r >= 0 && std::size_t(r) < constant_of.size()) constant_of[std::size_t(r)] = &constants[k];
  }
  for (const Instruction& ins : module.code)
    for (int32_t r : ins.results)
      if (r >= 0 && std::size_t(r) < constant_of.size()) constant_of[std::size_t(r)] = nullptr;
  std::vector<Tensor> in;
  for (std::size_t pc = 0; pc < module.code.size() && pc < plan.code.size(); ++pc) {
    const Instruction& ins = module.code[pc];
    const PrepareFn prepare = plan.code[pc].kind == StepKind::kernel ? prepare_fn(ins.op) : nullptr;
    if (!prepare) continue;
    in.assign(ins.args.size(), Tensor());
    bool any = false;
    for (std::size_t k = 0; k < ins.args.size(); ++k) {
      const int32_t r = ins.args[k];
      if (r >= 0 && std::size_t(r) < constant_of.size() && constant_of[std::size_t(r)]) {
        in[k] = *constant_of[std::size_t(r)];
        any = true;
      }
    }
    if (!any) continue;
    std::shared_ptr<const void> made;
    try {
      const PlannedInstruction& step = plan.code[pc];
      const TensorType* result = nullptr;
      if (step.num_results > 0) {
        const int32_t t = step.result_types(plan.regs.data())[0];
        if (t != kNoType && std::size_t(t) < plan.types.size()) result = &plan.types[std::size_t(t)];
      }
      made = prepare(PrepareContext{in, *step.attrs, result});
    } catch (...) {
      made = nullptr;  // out of memory, or a preparer's own refusal: run unprepared
    }
    if (!made) continue;
    plan.extras_for(pc).prepared = std::move(made);
  }
}

}  // namespace mlvm
