// Numbers written for tensor arguments (`y = add x, 1.0`): each becomes a one-element constant
// whose dtype is that of the instruction's other tensor argument. That dtype is the verifier's
// to know (the argument may be any register), so the program is lowered with placeholders and
// verified, and each literal whose other argument got a type takes its dtype; a literal typed
// this way can type the next one (`a = add x, 1` then `b = mul a, 2`), so this repeats until
// nothing changes. The real verification then runs once on the finished module.
#include <climits>
#include <set>

#include "assembler/literal.hpp"
#include "assembler/passes.hpp"
#include "ir/precision.hpp"
#include "tensor/copy.hpp"
#include "tensor/views.hpp"

namespace mlvm::asm_detail {

namespace {

std::string literal_text(const Scalar& s) { return s.to_string(); }

// The first argument of the instruction that is a register (not a literal, not `none`).
int other_operand(const ResolvedInstruction& ins) {
  for (std::size_t k = 0; k < ins.args.size(); ++k)
    if (!ins.args[k]->is_literal && !ins.args[k]->is_none) return int(k);
  return -1;
}

void set_value(LiteralArg& l, DType dtype) {
  l.value = contiguous(full(dtype, Dims{1}, l.ref->literal));
  l.type = TensorType{dtype, Dims{1}};
  l.type.precision = is_signed_int(dtype) ? precision_of_tensor(l.value) : kUnknownPrecision;
}

}  // namespace

void type_literals(ResolvedProgram& program, const ParsedSource& parsed,
                   const VerifyOptions& options, const Report& report) {
  // Generated names avoid every name the program spells.
  std::set<std::string> used;
  for (const Stmt& s : parsed.statements) {
    used.insert(s.name);
    for (const NameRef& r : s.results) used.insert(r.name);
    for (const NameRef& a : s.args) used.insert(a.name);
  }
  int next = 0;
  struct Site {
    std::size_t literal;
    int pc, other;
  };
  std::vector<Site> sites;
  for (std::size_t pc = 0; pc < program.code.size(); ++pc) {
    ResolvedInstruction& ins = program.code[pc];
    for (const NameRef* a : ins.args) {
      if (!a->is_literal) continue;
      LiteralArg l;
      l.ref = a;
      do l.name = "lit" + std::to_string(next++);
      while (used.count(l.name));
      set_value(l, DType::f32);
      program.literals.push_back(std::move(l));
      if (ins.gap == Gap::unknown || ins.gap == Gap::flow) continue;  // already reported
      const int other = other_operand(ins);
      if (other < 0) {
        report(a->pos, "the number " + literal_text(a->literal) +
                           " has no other tensor argument to take its dtype from; declare it "
                           "as a .const");
        if (ins.gap == Gap::none) ins.gap = Gap::operands;
        continue;
      }
      sites.push_back(Site{program.literals.size() - 1, int(pc), other});
    }
  }
  if (sites.empty()) return;

  VerifyOptions vo = options;
  vo.max_errors = INT_MAX;  // every instruction's argument types are wanted
  vo.precision_check = false;
  for (std::size_t pass = 0; pass <= sites.size(); ++pass) {
    Lowered low = lower(program, "");
    VerifyResult vr = verify_module(low.module, vo, &low.gaps);
    bool changed = false;
    for (const Site& s : sites) {
      LiteralArg& l = program.literals[s.literal];
      if (l.typed) continue;
      const auto& args = vr.arg_types[std::size_t(s.pc)];
      if (std::size_t(s.other) >= args.size() || !args[std::size_t(s.other)].present) continue;
      l.typed = true;
      changed = true;
      const DType dt = args[std::size_t(s.other)].dtype;
      std::string bad = scalar_fit_error(l.ref->literal, dt);
      if (!bad.empty()) {
        report(l.ref->pos, "the number " + literal_text(l.ref->literal) + " takes the dtype " +
                               std::string(dtype_name(dt)) + " of its other argument: " + bad);
        ResolvedInstruction& ins = program.code[std::size_t(s.pc)];
        if (ins.gap == Gap::none) ins.gap = Gap::operands;
        continue;
      }
      set_value(l, dt);
    }
    if (!changed) break;
  }
}

}  // namespace mlvm::asm_detail
