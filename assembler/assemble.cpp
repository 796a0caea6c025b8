// From statements to a verified Module: declarations, per-instruction checks (op, arity,
// attributes), register allocation by name, label resolution, a definite-assignment dataflow
// (so "read before assigned" points at the source), then the verifier, whose findings are
// mapped back to the line:col recorded for each instruction, operand and attribute.
//
// Every pass runs even when an earlier one found errors, so one mistake does not hide the
// others. What an error leaves unknown is poisoned rather than guessed: a name declared or
// assigned by a broken line counts as assigned, a broken instruction's results are of no known
// type (the verifier sees it as an instruction that assigns them and checks nothing), a jump
// to an unknown label leads nowhere, and a broken line that may have been a jump or a halt
// poisons every register from there on. So later passes report independent errors only.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

#include "assembler/assembler.hpp"
#include "assembler/diagnostics.hpp"
#include "assembler/parser.hpp"
#include "bytecode/format.hpp"
#include "ir/op_table.hpp"

namespace mlvm {

namespace {

using namespace asm_detail;

// Bitset states per instruction for the definite-assignment pass are capped at this many
// 64-bit words; bigger programs leave the check to the verifier alone.
constexpr std::size_t kMaxFlowWords = std::size_t(1) << 22;

struct Decl {
  const Stmt* stmt = nullptr;
  bool is_const = false;
};

struct Label {
  int index = 0;  // instruction index the label points at (== count: the end)
  Pos pos;
};

// How control leaves an instruction; known even for one with errors (a broken `halt x` halts).
enum class Flow {
  next,     // falls through
  halt,     // stops
  jump,     // jmp: to `target`
  branch,   // br: falls through or goes to `target`
  unknown,  // a line too broken to tell (it may have jumped): poisons everything after it
};

// Per-instruction facts gathered by check_instruction (and allocate_registers).
struct Checked {
  const OpInfo* op = nullptr;  // null: the instruction has an error (already reported)
  Attrs attrs;
  const NameRef* label = nullptr;     // jmp/br target
  const NameRef* cond = nullptr;      // br's condition, when it names a register
  std::vector<const NameRef*> reads;  // register arguments (no none, no label)
  Flow flow = Flow::next;
  int target = -1;  // jump/branch: instruction index (count = the end); -1 = unknown label
};

std::string plural(int64_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

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

class Assembler {
 public:
  Assembler(std::string_view source, const std::string& file, const AssembleOptions& options)
      : source_(source), file_(file), options_(options) {}

  AssembleResult run() {
    std::string base_dir = options_.base_dir;
    if (base_dir.empty()) base_dir = std::filesystem::path(file_).parent_path().string();
    parsed_ = parse_source(source_, base_dir, std::max(1, options_.max_errors));
    for (auto& e : parsed_.errors) error(e.pos, e.message);

    collect_declarations();
    checked_.resize(instrs_.size());
    for (std::size_t k = 0; k < instrs_.size(); ++k) check_instruction(*instrs_[k], checked_[k]);
    // Cross-line checks need every line: when the error limit cut parsing short, the lines
    // never read would make them report names defined there as unknown. Broken lines that
    // were read are recovered (parser.hpp) and poison what they touch instead.
    if (!parsed_.truncated) {
      allocate_registers();
      resolve_jumps();
      // Past the limit nothing more would be shown (and reads may be left unallocated).
      if (!too_many()) check_definite_assignment();
      if (!too_many()) build_and_verify();
    }
    finish();
    return std::move(result_);
  }

 private:
  void error(Pos p, std::string message) {
    result_.diagnostics.push_back(
        make_diagnostic(file_, parsed_.lines, p.line, p.col, std::move(message)));
  }
  bool too_many() const {
    return int(result_.diagnostics.size()) >= std::max(1, options_.max_errors) * 4;
  }

  // ---- declarations and labels ---------------------------------------------------------------
  void collect_declarations() {
    const Stmt* program = nullptr;
    std::map<std::string, const Stmt*> output_names;
    for (const Stmt& s : parsed_.statements) {
      switch (s.kind) {
        case StmtKind::program:
          if (program)
            error(s.pos, "the program is already named '" + program->name + "' at line " +
                             std::to_string(program->pos.line) + "; one .program per file");
          else
            program = &s;
          break;
        case StmtKind::input:
        case StmtKind::constant: {
          auto it = decls_.find(s.name);
          if (it != decls_.end()) {
            error(s.name_pos, "'" + s.name + "' is already declared as " +
                                  (it->second.is_const ? "a .const" : "an .input") + " at line " +
                                  std::to_string(it->second.stmt->pos.line));
            break;
          }
          decls_[s.name] = Decl{&s, s.kind == StmtKind::constant};
          (s.kind == StmtKind::input ? inputs_ : consts_).push_back(&s);
          break;
        }
        case StmtKind::output: {
          auto [it, fresh] = output_names.emplace(s.name, &s);
          if (!fresh) {
            error(s.name_pos, "output '" + s.name + "' is already declared at line " +
                                  std::to_string(it->second->pos.line));
            break;
          }
          outputs_.push_back(&s);
          break;
        }
        case StmtKind::label: {
          auto [it, fresh] = labels_.emplace(s.name, Label{int(instrs_.size()), s.name_pos});
          if (!fresh) {
            error(s.name_pos, "duplicate label '" + s.name + "' (first defined at line " +
                                  std::to_string(it->second.pos.line) + ")");
            break;
          }
          label_order_.push_back(&s);
          label_index_.push_back(int(instrs_.size()));
          break;
        }
        case StmtKind::instruction:
          instrs_.push_back(&s);
          break;
        case StmtKind::broken:
          // A declaration is known only once all are collected (see allocate_registers).
          (s.broken_decl ? broken_decls_ : instrs_).push_back(&s);
          break;
      }
    }
    if (program) program_name_ = program->name;
  }

  // ---- one instruction on its own -----------------------------------------------------------
  void check_instruction(const Stmt& s, Checked& out) {
    if (s.kind == StmtKind::broken) {  // its syntax error is reported; it checks nothing
      out.flow = s.flow_unknown ? Flow::unknown : Flow::next;
      return;
    }
    const OpInfo* op = find_op(s.op.name);
    if (!op) {
      std::string msg = "unknown op '" + s.op.name + "'";
      std::string hint = suggest_op_name(s.op.name);
      if (!hint.empty()) msg += "; did you mean '" + hint + "'?";
      error(s.op.pos, msg);
      // Still count its reads, so later checks do not pile up on its names.
      for (auto& a : s.args)
        if (!a.is_none) out.reads.push_back(&a);
      return;
    }
    if (op->code == Opcode::jmp || op->code == Opcode::br) return check_jump(s, *op, out);
    if (op->code == Opcode::halt) out.flow = Flow::halt;

    bool ok = true;
    if (int(s.results.size()) != op->num_results) {
      ok = false;
      Pos p = s.results.empty() ? s.op.pos : s.results.front().pos;
      if (op->num_results == 0)
        error(p,
              op->name + " gives no result; write it without '" + s.results.front().name + " ='");
      else
        error(p, op->name + " gives " + plural(op->num_results, "result") + " but " +
                     plural(int64_t(s.results.size()), "name") +
                     (s.results.size() == 1 ? " is" : " are") + " assigned" +
                     (s.results.empty() ? "; write NAME = " + op->name + " ..." : ""));
    }
    std::unordered_map<std::string_view, bool> result_names;
    for (auto& r : s.results) {
      if (result_names.emplace(r.name, true).second) continue;
      ok = false;
      error(r.pos, "result '" + r.name + "' is assigned twice by one instruction");
      if (too_many()) break;
    }

    std::string sig;
    for (auto& in : op->inputs)
      sig += (sig.empty() ? "" : ", ") + std::string(in.optional ? "?" : "") + in.name +
             (in.variadic ? "..." : "");
    int n = int(s.args.size());
    if (n < op->min_inputs()) {
      ok = false;
      bool range = op->max_inputs() != op->min_inputs();
      error(s.op.pos, op->name + " needs " + (range ? "at least " : "") +
                          plural(op->min_inputs(), "input") + " (" + sig + ") but " +
                          std::to_string(n) + (n == 1 ? " is" : " are") + " given");
    } else if (n > op->max_inputs()) {
      ok = false;
      error(s.args[std::size_t(op->max_inputs())].pos,
            op->name + " takes " + (op->max_inputs() == op->min_inputs() ? "" : "at most ") +
                plural(op->max_inputs(), "input") + (sig.empty() ? "" : " (" + sig + ")") +
                " but " + std::to_string(n) + " are given");
    }
    for (int k = 0; k < n && k < op->max_inputs(); ++k) {
      const NameRef& a = s.args[std::size_t(k)];
      if (!a.is_none) {
        out.reads.push_back(&a);
        continue;
      }
      const InputSpec& spec =
          op->inputs[std::min<std::size_t>(std::size_t(k), op->inputs.size() - 1)];
      if (!spec.optional || spec.variadic) {
        ok = false;
        error(a.pos, "input '" + spec.name + "' of " + op->name +
                         " cannot be none; only optional inputs (?" + ") may be omitted");
      }
    }

    std::vector<NamedAttr> given;
    given.reserve(s.attrs.size());
    for (auto& a : s.attrs) given.push_back(NamedAttr{a.name, a.value});
    int bad = -1;
    try {
      out.attrs = resolve_attrs(*op, given, &bad);
    } catch (const Error& e) {
      ok = false;
      Pos p = s.op.pos;
      if (bad >= 0 && bad < int(s.attrs.size())) {
        const AttrAst& a = s.attrs[std::size_t(bad)];
        // Unknown or repeated names point at the name; a bad value at the value.
        bool name_fault = op->attr_index(a.name) < 0;
        for (int q = 0; q < bad; ++q)
          if (s.attrs[std::size_t(q)].name == a.name) name_fault = true;
        p = name_fault ? a.name_pos : a.value_pos;
      }
      error(p, e.message());
    }
    if (ok) out.op = op;
  }

  void check_jump(const Stmt& s, const OpInfo& op, Checked& out) {
    // Without a usable label the jump leads nowhere known (target -1): no later check follows it.
    out.flow = op.code == Opcode::jmp ? Flow::jump : Flow::branch;
    bool ok = true;
    if (!s.results.empty()) {
      ok = false;
      error(s.results.front().pos,
            op.name + " gives no result; write it without '" + s.results.front().name + " ='");
    }
    if (!s.attrs.empty()) {
      ok = false;
      error(s.attrs.front().name_pos, op.name + " takes no attributes");
    }
    std::size_t want = op.code == Opcode::jmp ? 1 : 2;
    const char* form = op.code == Opcode::jmp ? "jmp LABEL" : "br COND, LABEL";
    if (s.args.size() < want) {
      error(s.op.pos, op.name + " needs " + (want == 1 ? "a label" : "a condition and a label") +
                          ": " + form);
      return;
    }
    if (s.args.size() > want) {
      error(s.args[want].pos, std::string("too many arguments: ") + form);
      return;
    }
    if (op.code == Opcode::br) {
      if (s.args[0].is_none) {
        ok = false;
        error(s.args[0].pos, "br's condition cannot be none: " + std::string(form));
      } else {
        out.reads.push_back(&s.args[0]);
        out.cond = &s.args[0];
      }
    }
    const NameRef& label = s.args.back();
    if (label.is_none) {
      error(label.pos, std::string("expected a label but found none: ") + form);
      return;
    }
    out.label = &label;
    if (ok) out.op = &op;
  }

  // ---- registers and labels across the program ----------------------------------------------
  int32_t reg(const std::string& name) {
    auto [it, fresh] = regs_.emplace(name, int32_t(reg_names_.size()));
    if (fresh) reg_names_.push_back(name);
    return it->second;
  }

  // A register whose value is unknown from the start: reading it is no error (one was
  // reported where its trouble began) and nothing computed from it is type-checked.
  void poison(const std::string& name) {
    int32_t r = reg(name);
    if (poison_.size() <= std::size_t(r)) poison_.resize(std::size_t(r) + 1, 0);
    poison_[std::size_t(r)] = 1;
  }
  bool poisoned(int32_t r) const {
    return std::size_t(r) < poison_.size() && poison_[std::size_t(r)];
  }

  void allocate_registers() {
    for (const Stmt* s : inputs_) reg(s->name);
    for (const Stmt* s : consts_) reg(s->name);
    // A broken .input/.const still declares its name (unless a good declaration has it).
    for (const Stmt* s : broken_decls_)
      if (!decls_.count(s->name)) poison(s->name);
    std::unordered_map<std::string, bool> assigned;
    for (std::size_t k = 0; k < instrs_.size(); ++k) {
      const Stmt* s = instrs_[k];
      for (auto& r : s->results) {
        auto d = decls_.find(r.name);
        if (d != decls_.end() && d->second.is_const && s->kind != StmtKind::broken) {
          error(r.pos, "'" + r.name + "' is a .const (line " +
                           std::to_string(d->second.stmt->pos.line) +
                           ") and cannot be assigned; constants are read-only");
          checked_[k].op = nullptr;  // its results are poisoned, not the constant's type
          continue;
        }
        reg(r.name);
        assigned[r.name] = true;
        // A jump or halt has no results for the verifier: `y = jmp a` poisons y throughout.
        Flow f = checked_[k].flow;
        if (f == Flow::jump || f == Flow::branch || f == Flow::halt) poison(r.name);
      }
    }
    // A copy: poison() below adds registers, and reg_names_ may reallocate (short names live
    // inside their std::string, so views into it would dangle).
    const std::vector<std::string> known_names = reg_names_;
    std::vector<std::string_view> known;
    for (auto& n : known_names) known.push_back(n);
    std::unordered_map<std::string, bool> unknown;  // read but assigned nowhere
    for (std::size_t k = 0; k < instrs_.size() && !too_many(); ++k) {
      // An unknown op's arguments may be labels (a misspelled `jmp loop`): those are no reads.
      const bool op_unknown =
          instrs_[k]->kind == StmtKind::instruction && !find_op(instrs_[k]->op.name);
      for (const NameRef* a : checked_[k].reads) {
        if (regs_.count(a->name) && !unknown.count(a->name)) continue;
        if (op_unknown && labels_.count(a->name)) continue;
        std::string msg =
            "register '" + a->name + "' is read before it is assigned (nothing assigns it)";
        std::string hint = closest_name(a->name, known);
        if (!hint.empty()) msg += "; did you mean '" + hint + "'?";
        error(a->pos, msg);
        unknown[a->name] = true;
        poison(a->name);  // every read is reported here; the flow checks skip it
        if (too_many()) return;
      }
      if (const NameRef* l = checked_[k].label; l && !labels_.count(l->name)) {
        std::vector<std::string_view> names;
        for (auto& [n, _] : labels_) names.push_back(n);
        if (names.size() > 1000) names.clear();  // a suggestion is not worth a quadratic search
        std::string msg = "unknown label '" + l->name + "'";
        std::string hint = closest_name(l->name, names);
        if (!hint.empty())
          msg += "; did you mean '" + hint + "'?";
        else if (names.empty())
          msg += " (the program defines no labels; write NAME: on its own line)";
        error(l->pos, msg);
      }
    }
    for (const Stmt* s : outputs_) {
      auto r = regs_.find(s->name);
      if (!decls_.count(s->name) && !assigned.count(s->name) &&
          !(r != regs_.end() && poisoned(r->second)))
        error(s->name_pos, "output '" + s->name + "' is never assigned; no instruction writes it");
    }
  }

  void resolve_jumps() {
    for (Checked& c : checked_) {
      if (c.flow != Flow::jump && c.flow != Flow::branch) continue;
      auto it = c.label ? labels_.find(c.label->name) : labels_.end();
      c.target = it != labels_.end() ? it->second.index : -1;
    }
  }

  // ---- definite assignment: reads before writes, outputs at every halt ------------------------
  void check_definite_assignment() {
    const std::size_t n = instrs_.size();
    const std::size_t W = (reg_names_.size() + 63) / 64;
    if (W == 0 || (n + 1) * W * 2 > kMaxFlowWords) return;  // the verifier still checks it
    // Successors of k (n = the end); a jump to an unknown label has none: that path is dropped.
    auto succs = [&](std::size_t k, std::size_t out[2]) -> int {
      const Checked& c = checked_[k];
      switch (c.flow) {
        case Flow::halt:
          return 0;
        case Flow::jump:
          if (c.target < 0) return 0;
          out[0] = std::size_t(c.target);
          return 1;
        case Flow::branch:
          out[0] = k + 1;
          if (c.target < 0) return 1;
          out[1] = std::size_t(c.target);
          return 2;
        default:
          out[0] = k + 1;
          return 1;
      }
    };
    // must[k]: registers assigned on every path to k; may[k]: on some path. Index n = the end.
    std::vector<uint64_t> must((n + 1) * W, 0), may((n + 1) * W, 0);
    std::vector<char> reached(n + 1, 0);
    std::vector<uint64_t> entry(W, 0);
    for (const Stmt* s : inputs_) set_bit(entry, regs_.at(s->name));
    for (const Stmt* s : consts_) set_bit(entry, regs_.at(s->name));
    for (std::size_t r = 0; r < poison_.size(); ++r)
      if (poison_[r]) set_bit(entry, int32_t(r));
    std::copy(entry.begin(), entry.end(), must.begin());
    std::copy(entry.begin(), entry.end(), may.begin());
    reached[0] = 1;
    // Sweeps in program order until nothing changes: few sweeps for structured control flow.
    std::vector<uint64_t> mo(W), yo(W);
    for (bool changed = true; changed;) {
      changed = false;
      for (std::size_t k = 0; k < n; ++k) {
        if (!reached[k]) continue;
        std::copy(&must[k * W], &must[k * W] + W, mo.begin());
        std::copy(&may[k * W], &may[k * W] + W, yo.begin());
        if (checked_[k].flow == Flow::unknown) {
          // A line too broken to tell what it did: assume it assigned everything.
          std::fill(mo.begin(), mo.end(), ~uint64_t(0));
          std::fill(yo.begin(), yo.end(), ~uint64_t(0));
        }
        for (auto& r : instrs_[k]->results) {
          auto it = regs_.find(r.name);
          if (it == regs_.end()) continue;
          set_bit(mo, it->second);
          set_bit(yo, it->second);
        }
        std::size_t sx[2];
        int ns = succs(k, sx);
        for (int q = 0; q < ns; ++q) {
          std::size_t t = sx[q];
          uint64_t* m = &must[t * W];
          uint64_t* y = &may[t * W];
          bool first = !reached[t];
          reached[t] = 1;
          for (std::size_t w = 0; w < W; ++w) {
            uint64_t nm = first ? mo[w] : (m[w] & mo[w]);
            uint64_t ny = y[w] | yo[w];
            if (first || nm != m[w] || ny != y[w]) changed = true;
            m[w] = nm;
            y[w] = ny;
          }
        }
      }
    }
    for (std::size_t k = 0; k < n && !too_many(); ++k) {
      if (!reached[k]) continue;  // unreachable code reads nothing
      for (const NameRef* a : checked_[k].reads) {
        int32_t r = lookup(a->name);
        if (r < 0 || test_bit(&must[k * W], r)) continue;
        if (test_bit(&may[k * W], r))
          error(a->pos,
                "register '" + a->name + "' is read before it is assigned on some path to here");
        else
          error(a->pos, "register '" + a->name + "' is read before it is assigned");
      }
    }
    // Outputs must be assigned wherever the program halts: at each halt and at the end.
    for (const Stmt* o : outputs_) {
      auto it = regs_.find(o->name);
      if (it == regs_.end()) continue;  // never assigned at all: reported already
      int32_t r = it->second;
      for (std::size_t k = 0; k <= n; ++k) {
        if (!reached[k]) continue;
        bool exit = k == n || checked_[k].flow == Flow::halt;
        if (!exit || test_bit(&must[k * W], r)) continue;
        std::string where = k == n ? "the end of the program"
                                   : "the halt at line " + std::to_string(instrs_[k]->pos.line);
        error(o->name_pos, "output '" + o->name +
                               "' is not assigned on every path to halt (not on a path to " +
                               where + ")");
        break;
      }
    }
  }

  static void set_bit(std::vector<uint64_t>& v, int32_t r) {
    v[std::size_t(r) / 64] |= uint64_t(1) << (r % 64);
  }
  static bool test_bit(const uint64_t* v, int32_t r) {
    return v[std::size_t(r) / 64] >> (r % 64) & 1;
  }

  // ---- the module and the verifier ------------------------------------------------------------
  int32_t lookup(const std::string& name) const {
    auto it = regs_.find(name);
    return it == regs_.end() ? -1 : it->second;
  }

  // The debug section names the source file, not the path it was reached by, so the module
  // does not depend on the directory it was assembled from.
  std::string source_name() const {
    std::string base = std::filesystem::path(file_).filename().string();
    if (base.empty()) base = file_;
    if (base.size() > format::kMaxStringBytes) base.resize(format::kMaxStringBytes);
    return base;
  }

  // After earlier errors the module built here is scaffolding for the verifier, never returned,
  // so that type errors elsewhere are still found: an instruction with an error becomes an
  // invalid opcode "assigning" its results (the verifier poisons them and checks nothing); a
  // line of unknown flow assigns every register; a poisoned name is an input of invalid type
  // (poisoned from the start); a jump to an unknown label goes to a self-loop after a final
  // halt (a path that never reaches the exit). Findings about the scaffolding are dropped, as
  // are findings at a position already reported.
  void build_and_verify() {
    const bool clean = result_.diagnostics.empty();
    const std::size_t n = instrs_.size();
    Module m;
    m.name = program_name_;
    m.source_name = source_name();
    for (const Stmt* s : inputs_)
      m.inputs.push_back(InputDecl{s->name, regs_.at(s->name), s->type});
    for (const Stmt* s : consts_)
      m.constants.push_back(ConstDecl{s->name, regs_.at(s->name), s->type, s->value});
    for (const Stmt* s : outputs_)
      m.outputs.push_back(OutputDecl{s->name, reg(s->name), s->has_type, s->type});
    const std::size_t real_inputs = m.inputs.size();
    for (std::size_t r = 0; r < poison_.size(); ++r) {
      if (!poison_[r] || decls_.count(reg_names_[r])) continue;
      m.inputs.push_back(InputDecl{reg_names_[r], int32_t(r), TensorType{}});  // rank 0: invalid
    }
    const int32_t nregs = int32_t(reg_names_.size());
    m.register_names = reg_names_;

    std::size_t unknown_flow = 0;
    bool needs_sink = false;
    for (const Checked& c : checked_) {
      unknown_flow += c.flow == Flow::unknown;
      needs_sink |= (c.flow == Flow::jump || c.flow == Flow::branch) && c.target < 0;
    }
    if (unknown_flow * std::size_t(nregs) > (std::size_t(1) << 24)) return;  // too costly
    const int32_t sink_pc = int32_t(n) + 1;  // after the halt that stands for the end
    const Opcode kPoisonOp = Opcode(uint16_t(0xFFFF));
    std::vector<char> artifact(n, 0);
    for (std::size_t k = 0; k < n; ++k) {
      const Stmt& s = *instrs_[k];
      const Checked& c = checked_[k];
      Instruction ins;
      bool ok = c.op != nullptr;
      const bool control = c.flow == Flow::jump || c.flow == Flow::branch || c.flow == Flow::halt;
      if (c.flow == Flow::jump || c.flow == Flow::branch) {
        ins.op = c.flow == Flow::jump ? Opcode::jmp : Opcode::br;
        ins.target = c.target >= 0 ? c.target : sink_pc;
        if (c.flow == Flow::branch) {
          int32_t r = c.cond ? lookup(c.cond->name) : -1;
          // No usable condition: a br without one, whose edges the verifier still follows.
          if (r >= 0) ins.args.push_back(r);
          ok = ok && r >= 0;
        }
      } else if (c.flow == Flow::halt && !ok) {
        ins.op = Opcode::halt;  // `halt x`: still a halt
      } else if (ok) {
        ins.op = c.op->code;
        ins.attrs = c.attrs;
        for (auto& a : s.args) {
          int32_t r = a.is_none ? kNoRegister : lookup(a.name);
          ok = ok && (a.is_none || r >= 0);
          ins.args.push_back(r);
        }
        // Omitted optional inputs are explicit "no register" slots.
        if (c.op->max_inputs() != INT32_MAX)
          while (int(ins.args.size()) < c.op->max_inputs()) ins.args.push_back(kNoRegister);
      }
      if (ok || c.flow == Flow::unknown || c.flow == Flow::halt) {
        for (auto& r : s.results) ins.results.push_back(lookup(r.name));
        ok = ok && std::find(ins.results.begin(), ins.results.end(), -1) == ins.results.end();
      }
      if (!ok && !control) {
        ins = Instruction{};
        ins.op = kPoisonOp;
        if (c.flow == Flow::unknown) {
          for (int32_t r = 0; r < nregs; ++r) ins.results.push_back(r);
        } else {
          for (auto& r : s.results) {
            int32_t q = lookup(r.name);
            if (q >= 0 && std::find(ins.results.begin(), ins.results.end(), q) == ins.results.end())
              ins.results.push_back(q);
          }
        }
      } else if (!ok) {
        ins.results.clear();  // a broken jump or halt: its stray results are poisoned inputs
      }
      artifact[k] = !ok;
      m.code.push_back(std::move(ins));
      m.lines.push_back(uint32_t(s.pos.line));
    }
    for (std::size_t k = 0; k < label_order_.size(); ++k)
      m.labels.emplace_back(int32_t(label_index_[k]), label_order_[k]->name);
    if (needs_sink) {
      Instruction halt;
      halt.op = Opcode::halt;
      Instruction loop;
      loop.op = Opcode::jmp;
      loop.target = sink_pc;
      m.code.push_back(std::move(halt));
      m.code.push_back(std::move(loop));
      m.lines.resize(m.code.size(), 0);
    }
    const bool scaffold = m.inputs.size() > real_inputs || needs_sink ||
                          std::find(artifact.begin(), artifact.end(), 1) != artifact.end();

    VerifyOptions vo = options_.verify;
    vo.max_errors = std::max(1, options_.max_errors);
    if (scaffold)  // each piece of scaffolding draws one finding, dropped below
      vo.max_errors += int(m.inputs.size() - real_inputs) +
                       int(std::count(artifact.begin(), artifact.end(), 1)) + 2;
    VerifyResult vr;
    try {
      vr = verify_module(m, vo);
    } catch (const Error& e) {
      error(Pos{0, 0}, "verification failed: " + e.message());
      return;
    }
    std::set<std::pair<int, int>> reported;
    for (const Diagnostic& d : result_.diagnostics) reported.emplace(d.line, d.col);
    int kept = 0;
    for (const VerifyDiagnostic& d : vr.errors) {
      if (d.instruction >= 0 &&
          (std::size_t(d.instruction) >= n || artifact[std::size_t(d.instruction)]))
        continue;
      if (d.input >= 0 && std::size_t(d.input) >= real_inputs) continue;
      Pos p = position_of(d);
      if (!clean && p.line > 0 && reported.count({p.line, p.col})) continue;
      error(p, d.message);
      ++kept;
    }
    if (scaffold || !clean) return;
    result_.verify = std::move(vr);
    if (kept == 0) result_.module = std::move(m);
  }

  Pos position_of(const VerifyDiagnostic& d) const {
    if (d.instruction >= 0 && std::size_t(d.instruction) < instrs_.size()) {
      const Stmt& s = *instrs_[std::size_t(d.instruction)];
      if (d.operand >= 0 && std::size_t(d.operand) < s.args.size())
        return s.args[std::size_t(d.operand)].pos;
      if (d.result >= 0 && std::size_t(d.result) < s.results.size())
        return s.results[std::size_t(d.result)].pos;
      const OpInfo* op = checked_[std::size_t(d.instruction)].op;
      if (d.attribute >= 0 && op && std::size_t(d.attribute) < op->attrs.size()) {
        for (auto& a : s.attrs)
          if (a.name == op->attrs[std::size_t(d.attribute)].name) return a.value_pos;
      }
      return s.op.pos;
    }
    if (d.output >= 0 && std::size_t(d.output) < outputs_.size()) {
      const Stmt& s = *outputs_[std::size_t(d.output)];
      return s.name_pos;
    }
    if (d.input >= 0 && std::size_t(d.input) < inputs_.size())
      return inputs_[std::size_t(d.input)]->name_pos;
    if (d.constant >= 0 && std::size_t(d.constant) < consts_.size())
      return consts_[std::size_t(d.constant)]->name_pos;
    return Pos{0, 0};
  }

  void finish() {
    auto& ds = result_.diagnostics;
    // Source order reads best; errors without a position go last.
    std::stable_sort(ds.begin(), ds.end(), [](const Diagnostic& a, const Diagnostic& b) {
      int la = a.line > 0 ? a.line : INT32_MAX, lb = b.line > 0 ? b.line : INT32_MAX;
      return la != lb ? la < lb : a.col < b.col;
    });
    if (int(ds.size()) > std::max(1, options_.max_errors))
      ds.resize(std::size_t(std::max(1, options_.max_errors)));
    if (!ds.empty()) result_.module.reset();
  }

  std::string_view source_;
  const std::string& file_;
  const AssembleOptions& options_;
  AssembleResult result_;
  ParsedSource parsed_;
  std::string program_name_;
  std::unordered_map<std::string, Decl> decls_;
  std::vector<const Stmt*> inputs_, consts_, outputs_, instrs_;
  std::map<std::string, Label> labels_;
  std::vector<const Stmt*> label_order_;
  std::vector<int> label_index_;
  std::vector<Checked> checked_;
  std::vector<const Stmt*> broken_decls_;  // .input/.const lines with a syntax error
  std::vector<char> poison_;               // per register: its value is unknown throughout
  std::unordered_map<std::string, int32_t> regs_;
  std::vector<std::string> reg_names_;
};

}  // namespace

AssembleResult assemble(std::string_view source, const std::string& file_name,
                        const AssembleOptions& options) {
  try {
    return Assembler(source, file_name, options).run();
  } catch (const Error& e) {
    AssembleResult r;
    r.diagnostics.push_back(Diagnostic{file_name, 0, 0, e.message(), "", 0});
    return r;
  } catch (const std::bad_alloc&) {
    AssembleResult r;
    r.diagnostics.push_back(Diagnostic{file_name, 0, 0, "out of memory while assembling", "", 0});
    return r;
  }
}

Module assemble_or_throw(std::string_view source, const std::string& file_name,
                         const AssembleOptions& options) {
  AssembleResult r = assemble(source, file_name, options);
  if (r.ok()) return std::move(*r.module);
  std::string msg;
  for (auto& d : r.diagnostics) msg += (msg.empty() ? "" : "\n") + d.render();
  if (msg.empty()) msg = file_name + ": error: assembly failed";
  throw Error(ErrorKind::invalid, msg,
              r.diagnostics.empty() || r.diagnostics[0].line == 0
                  ? file_name
                  : file_name + ":" + std::to_string(r.diagnostics[0].line) + ":" +
                        std::to_string(r.diagnostics[0].col));
}

AssembleResult assemble_file(const std::string& path, const AssembleOptions& options) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error(ErrorKind::io, "cannot read " + path + ": it is a directory", path);
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(ErrorKind::io, "cannot read " + path + ": no such file or not readable", path);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw Error(ErrorKind::io, "cannot read " + path, path);
  std::string text = ss.str();
  AssembleOptions o = options;
  if (o.base_dir.empty()) {
    o.base_dir = std::filesystem::path(path).parent_path().string();
    if (o.base_dir.empty()) o.base_dir = ".";
  }
  return assemble(text, path, o);
}

}  // namespace mlvm
