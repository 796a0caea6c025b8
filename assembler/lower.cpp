// The assembler's lowering (see passes.hpp): registers by name, the Module with its gaps, and
// the source position of every part, so that the verifier's findings point at the text.
#include <unordered_map>

#include "assembler/passes.hpp"
#include "bytecode/registers.hpp"

namespace mlvm::asm_detail {

namespace {

class Lowering {
 public:
  explicit Lowering(const ResolvedProgram& p) : p_(p) {}

  Lowered run(std::string source_name) {
    Module& m = out_.module;
    m.name = p_.name;
    m.precision_check = !p_.no_precision_check;
    m.source_name = std::move(source_name);
    // Registers: inputs, then constants, then other names in order of first assignment.
    for (const Stmt* s : p_.inputs) m.inputs.push_back(InputDecl{s->name, regs_(s->name), s->type, s->scalar});
    for (const Stmt* s : p_.constants)
      m.constants.push_back(ConstDecl{s->name, regs_(s->name), s->type, s->value});
    for (const LiteralArg& l : p_.literals) {
      out_.gaps.literals.push_back(LiteralConstant{int32_t(m.constants.size()), l.ref->literal});
      m.constants.push_back(ConstDecl{l.name, regs_(l.name), l.type, l.value});
      literal_names_.emplace(l.ref, l.name);
    }
    for (const Stmt* s : p_.unknown_decls) out_.gaps.unknown_registers.push_back(regs_(s->name));
    for (const ResolvedInstruction& ins : p_.code)
      for (const NameRef& r : ins.stmt->results) regs_(r.name);
    for (const ResolvedInstruction& ins : p_.code) m.code.push_back(instruction(ins));
    for (const Stmt* s : p_.outputs)
      m.outputs.push_back(OutputDecl{s->name, regs_(s->name), s->has_type, s->type, s->scalar});
    for (auto& [at, s] : p_.labels) m.labels.emplace_back(int32_t(at), s->name);
    m.register_names = regs_.names();
    out_.map.inputs = p_.inputs;
    out_.map.constants = p_.constants;
    out_.map.outputs = p_.outputs;
    return std::move(out_);
  }

 private:
  const ResolvedProgram& p_;
  Lowered out_;
  RegisterNames regs_;
  std::unordered_map<const NameRef*, std::string> literal_names_;

  Instruction instruction(const ResolvedInstruction& r) {
    const Stmt& s = *r.stmt;
    Instruction ins;
    SourceMap::Instruction where;
    where.op = s.op.name.empty() ? s.pos : s.op.pos;
    if (r.op) ins.op = r.op->code;  // else ignored (Gap::unknown, Gap::flow)
    // A jump or halt has no results (the verifier says so): what `y = jmp a` names is of
    // unknown value throughout, so no read of it is judged by a path through the mistake.
    const bool control = r.op && (r.op->code == Opcode::jmp || r.op->code == Opcode::br ||
                                  r.op->code == Opcode::halt || r.op->code == Opcode::trap);
    for (const NameRef& res : s.results) {
      ins.results.push_back(regs_(res.name));
      where.results.push_back(res.pos);
      if (control) out_.gaps.unknown_registers.push_back(ins.results.back());
    }
    for (const NameRef* a : r.args) {
      auto lit = literal_names_.find(a);
      ins.args.push_back(a->is_none ? kNoRegister
                         : lit != literal_names_.end() ? regs_(lit->second)
                                                       : regs_(a->name));
      where.args.push_back(a->pos);
    }
    // Omitted optional inputs at the end are explicit "no register" slots.
    if (r.op && r.gap != Gap::unknown) pad_optional_inputs(*r.op, ins);
    if (r.gap != Gap::attributes) {
      ins.attrs = r.attrs;
      for (std::size_t k = 0; r.op && k < r.op->attrs.size(); ++k) {
        Pos p = where.op;
        for (const AttrAst& a : s.attrs)
          if (a.name == r.op->attrs[k].name) p = a.value_pos;
        where.attrs.push_back(p);
      }
    }
    ins.target = r.target;
    out_.gaps.code.push_back(r.gap);
    out_.module.lines.push_back(uint32_t(s.pos.line));
    out_.map.code.push_back(std::move(where));
    return ins;
  }
};

}  // namespace

Lowered lower(const ResolvedProgram& program, std::string source_name) {
  return Lowering(program).run(std::move(source_name));
}

MappedDiagnostic map_diagnostic(const SourceMap& map, const VerifyDiagnostic& d) {
  MappedDiagnostic out{Pos{0, 0}, d.message};
  auto at = [](const std::vector<Pos>& v, int32_t k, Pos fallback) {
    return k >= 0 && std::size_t(k) < v.size() ? v[std::size_t(k)] : fallback;
  };
  auto decl = [](const std::vector<const Stmt*>& v, int32_t k) -> const Stmt* {
    return k >= 0 && std::size_t(k) < v.size() ? v[std::size_t(k)] : nullptr;
  };
  if (d.instruction >= 0 && std::size_t(d.instruction) < map.code.size()) {
    const SourceMap::Instruction& w = map.code[std::size_t(d.instruction)];
    out.pos = d.operand >= 0     ? at(w.args, d.operand, w.op)
              : d.result >= 0    ? at(w.results, d.result, w.op)
              : d.attribute >= 0 ? at(w.attrs, d.attribute, w.op)
                                 : w.op;
    // A constant the instruction concerns (it assigns one): say where it is declared.
    if (const Stmt* c = decl(map.constants, d.constant))
      out.message += " (declared at line " + std::to_string(c->pos.line) + ")";
    return out;
  }
  const Stmt* s = d.output >= 0     ? decl(map.outputs, d.output)
                  : d.input >= 0    ? decl(map.inputs, d.input)
                                    : decl(map.constants, d.constant);
  if (s) out.pos = s->name_pos;
  return out;
}

}  // namespace mlvm::asm_detail
