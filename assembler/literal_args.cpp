// Numbers written for tensor arguments (`y = add x, 1.0`): each becomes a one-element constant
// named here. The verifier types it where its instruction reads it (ModuleGaps::literals), and
// the constant is then materialized with that dtype.
#include <set>

#include "assembler/passes.hpp"
#include "ir/precision.hpp"
#include "tensor/copy.hpp"
#include "tensor/views.hpp"

namespace mlvm::asm_detail {

namespace {

void set_value(LiteralArg& l, DType dtype) {
  l.value = contiguous(full(dtype, Dims{1}, l.ref->literal));
  l.type = TensorType{dtype, Dims{1}};
  l.type.precision = is_signed_int(dtype) ? precision_of_tensor(l.value) : kUnknownPrecision;
}

}  // namespace

void name_literals(ResolvedProgram& program, const ParsedSource& parsed) {
  // Generated names avoid every name the program spells.
  std::set<std::string> used;
  for (const Stmt& s : parsed.statements) {
    used.insert(s.name);
    for (const NameRef& r : s.results) used.insert(r.name);
    for (const NameRef& a : s.args) used.insert(a.name);
  }
  int next = 0;
  for (const ResolvedInstruction& ins : program.code) {
    for (const NameRef* a : ins.args) {
      if (!a->is_literal) continue;
      LiteralArg l;
      l.ref = a;
      do l.name = "lit" + std::to_string(next++);
      while (used.count(l.name));
      set_value(l, DType::f32);  // a placeholder until the verifier types it
      program.literals.push_back(std::move(l));
    }
  }
}

void materialize_literals(ResolvedProgram& program, Module& module, const VerifyResult& vr) {
  const std::size_t first = program.constants.size();
  for (std::size_t k = 0; k < program.literals.size() && k < vr.literal_types.size(); ++k) {
    if (!vr.literal_types[k].present) continue;  // unreachable: keeps its placeholder
    LiteralArg& l = program.literals[k];
    set_value(l, vr.literal_types[k].dtype);
    ConstDecl& c = module.constants[first + k];
    c.type = l.type;
    c.value = l.value;
  }
}

}  // namespace mlvm::asm_detail
