// The assembler's name resolution (see passes.hpp): declarations (one per name), labels (one
// per name), op names, attribute names, jump forms and the labels jumps name. What cannot be
// resolved is reported here and marked as a gap for the verifier; everything about values,
// arity and dataflow is left to the verifier.
#include <map>
#include <set>
#include <unordered_map>

#include "assembler/diagnostics.hpp"
#include "assembler/passes.hpp"
#include "bytecode/names.hpp"
#include "ir/attr_check.hpp"
#include "ir/op_table.hpp"

namespace mlvm::asm_detail {

namespace {

// An op whose name extends what was typed ("conv" -> conv2d) beats a mere edit-distance match
// ("conv" -> copy); otherwise the op table's suggestion. Op names are lower-case: RELU -> relu.
std::string suggest_op_name(std::string_view typed) {
  std::string lowered(typed);
  for (char& c : lowered)
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  if (lowered != typed)
    if (const OpInfo* o = find_op(lowered)) return lowered == o->name ? o->name : lowered;
  std::string best;
  if (typed.size() >= 3) {
    for (const OpInfo& o : all_ops())
      for (const std::string* n = &o.name; n; n = n == &o.name && !o.aliases.empty() ? &o.aliases[0] : nullptr)
        if (n->size() > typed.size() && n->compare(0, typed.size(), typed) == 0 &&
            (best.empty() || n->size() < best.size()))
          best = *n;
  }
  return best.empty() ? suggest_op(typed) : best;
}

class Resolver {
 public:
  Resolver(const ParsedSource& parsed, const Report& report, const std::function<bool()>& stop)
      : parsed_(parsed), report_(report), stop_(stop) {}

  ResolvedProgram run(bool cross_line) {
    collect();
    for (ResolvedInstruction& ins : out_.code) instruction(ins);
    if (cross_line) resolve_labels();
    return std::move(out_);
  }

 private:
  const ParsedSource& parsed_;
  const Report& report_;
  const std::function<bool()>& stop_;
  ResolvedProgram out_;
  std::unordered_map<std::string, const Stmt*> values_;  // .input and .const, by name
  std::map<std::string, int> labels_;                    // label -> instruction index
  std::set<std::string> assigned_;  // names a broken declaration or some instruction assigns
  std::vector<const NameRef*> label_refs_;               // per instruction: its jump's label

  // ---- declarations and labels ----------------------------------------------------------------
  void collect() {
    const Stmt* program = nullptr;
    std::map<std::string, const Stmt*> output_names;
    std::vector<const Stmt*> broken_decls;
    for (const Stmt& s : parsed_.statements) {
      switch (s.kind) {
        case StmtKind::program:
          if (program)
            report_(s.pos, "the program is already named '" + program->name + "' at line " +
                               std::to_string(program->pos.line) + "; one .program per file");
          else
            program = &s;
          break;
        case StmtKind::flag:
          out_.no_precision_check = true;  // repeating it changes nothing
          break;
        case StmtKind::input:
        case StmtKind::constant: {
          auto [it, fresh] = values_.emplace(s.name, &s);
          if (!fresh) {
            report_(s.name_pos, "'" + s.name + "' is already declared as " +
                                    (it->second->kind == StmtKind::constant ? "a .const"
                                                                            : "an .input") +
                                    " at line " + std::to_string(it->second->pos.line));
            break;
          }
          (s.kind == StmtKind::input ? out_.inputs : out_.constants).push_back(&s);
          break;
        }
        case StmtKind::output: {
          auto [it, fresh] = output_names.emplace(s.name, &s);
          if (!fresh) {
            report_(s.name_pos, "output '" + s.name + "' is already declared at line " +
                                    std::to_string(it->second->pos.line));
            break;
          }
          out_.outputs.push_back(&s);
          break;
        }
        case StmtKind::label: {
          const int at = int(out_.code.size());
          auto [it, fresh] = labels_.emplace(s.name, at);
          if (!fresh) {
            report_(s.name_pos, "duplicate label '" + s.name + "' (first defined at line " +
                                    std::to_string(label_line(s.name)) + ")");
            break;
          }
          out_.labels.emplace_back(at, &s);
          break;
        }
        case StmtKind::instruction:
          add_instruction(s);
          break;
        case StmtKind::broken:
          // A declaration is known only once all are collected (see below).
          if (s.broken_decl)
            broken_decls.push_back(&s);
          else
            add_instruction(s);
          break;
      }
    }
    if (program) out_.name = program->name;
    // A broken .input/.const still declares its name (unless a good declaration has it).
    for (const Stmt* s : broken_decls) {
      if (values_.count(s->name)) continue;
      out_.unknown_decls.push_back(s);
      assigned_.insert(s->name);
    }
    for (const ResolvedInstruction& ins : out_.code)
      for (const NameRef& r : ins.stmt->results) assigned_.insert(r.name);
    label_refs_.assign(out_.code.size(), nullptr);
  }

  void add_instruction(const Stmt& s) {
    out_.code.emplace_back();
    out_.code.back().stmt = &s;
  }

  int label_line(const std::string& name) const {
    for (auto& [at, s] : out_.labels)
      if (s->name == name) return s->pos.line;
    return 0;
  }

  // A name a value has: declared (even by a broken line) or assigned by an instruction.
  bool is_value(const std::string& name) const {
    return values_.count(name) || assigned_.count(name);
  }

  // ---- one instruction ------------------------------------------------------------------------
  void instruction(ResolvedInstruction& ins) {
    const Stmt& s = *ins.stmt;
    if (s.kind == StmtKind::broken) {  // its syntax error is reported; it checks nothing
      ins.gap = s.flow_unknown ? Gap::flow : Gap::unknown;
      return;
    }
    ins.op = find_op(s.op.name);
    if (!ins.op) {
      std::string msg = "unknown op '" + s.op.name + "'";
      std::string hint = suggest_op_name(s.op.name);
      if (!hint.empty()) msg += "; did you mean '" + hint + "'?";
      report_(s.op.pos, msg);
      ins.gap = Gap::unknown;
      // Its arguments are still reads, except labels (a misspelled `jmp loop`).
      for (const NameRef& a : s.args)
        if (!a.is_none && (is_value(a.name) || !labels_.count(a.name))) ins.args.push_back(&a);
      return;
    }
    if (ins.op->code == Opcode::jmp || ins.op->code == Opcode::br) return jump(ins);
    for (const NameRef& a : s.args) ins.args.push_back(&a);
    std::vector<NamedAttr> given;
    given.reserve(s.attrs.size());
    for (const AttrAst& a : s.attrs) given.push_back(NamedAttr{a.name, a.value});
    int bad = -1;
    try {
      ins.attrs = order_attrs(*ins.op, given, &bad);
    } catch (const Error& e) {
      // An unknown or repeated name points at the name; a missing one at the op.
      report_(bad >= 0 && bad < int(s.attrs.size()) ? s.attrs[std::size_t(bad)].name_pos : s.op.pos,
              e.message());
      ins.gap = Gap::attributes;
    }
  }

  // `jmp LABEL` and `br COND, LABEL`: a form whose label cannot be told leads nowhere known.
  void jump(ResolvedInstruction& ins) {
    const Stmt& s = *ins.stmt;
    const OpInfo& op = *ins.op;
    if (!s.attrs.empty()) {
      report_(s.attrs.front().name_pos, op.name + " takes no attributes");
      ins.gap = Gap::operands;
    }
    const std::size_t want = op.code == Opcode::jmp ? 1 : 2;
    const char* form = op.code == Opcode::jmp ? "jmp LABEL" : "br COND, LABEL";
    if (s.args.size() < want) {
      report_(s.op.pos, op.name + " needs " + (want == 1 ? "a label" : "a condition and a label") +
                            ": " + form);
      ins.gap = Gap::operands;
      return;
    }
    if (s.args.size() > want) {
      report_(s.args[want].pos, std::string("too many arguments: ") + form);
      ins.gap = Gap::operands;
      return;
    }
    if (op.code == Opcode::br) ins.args.push_back(&s.args[0]);
    const NameRef& label = s.args.back();
    if (label.is_none) {
      report_(label.pos, std::string("expected a label but found none: ") + form);
      ins.gap = Gap::operands;
      return;
    }
    label_refs_[std::size_t(&ins - out_.code.data())] = &label;
  }

  // ---- labels jumps name ----------------------------------------------------------------------
  void resolve_labels() {
    for (std::size_t k = 0; k < out_.code.size() && !stop_(); ++k) {
      const NameRef* l = label_refs_[k];
      if (!l) continue;
      auto it = labels_.find(l->name);
      if (it != labels_.end()) {
        out_.code[k].target = it->second;
        continue;
      }
      std::vector<std::string_view> names;
      for (auto& [n, _] : labels_) names.push_back(n);
      if (names.size() > 1000) names.clear();  // a suggestion is not worth a quadratic search
      std::string msg = "unknown label '" + l->name + "'";
      std::string hint = closest_name(l->name, names);
      if (!hint.empty())
        msg += "; did you mean '" + hint + "'?";
      else if (names.empty())
        msg += " (the program defines no labels; write NAME: on its own line)";
      report_(l->pos, msg);
      if (out_.code[k].gap == Gap::none) out_.code[k].gap = Gap::target;
    }
  }
};

}  // namespace

ResolvedProgram resolve(const ParsedSource& parsed, bool cross_line, const Report& report,
                        const std::function<bool()>& stop) {
  return Resolver(parsed, report, stop).run(cross_line);
}

}  // namespace mlvm::asm_detail
