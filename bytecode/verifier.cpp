// The verifier (docs/bytecode.md, "Verification"). Three passes:
//   1. structure: declarations and every instruction on their own (opcodes, arity, register
//      ranges, attributes, jump targets, read-only constants);
//   2. types: a forward dataflow over basic blocks to a fixed point, each register's slot being
//      unassigned / typed / conflicting / poisoned, then one replay of every reachable block
//      that reports errors and records the per-instruction types;
//   3. liveness: a backward dataflow giving the registers that die after each instruction.
// Register states are stored per basic block (not per instruction) and types are interned, so
// memory is 8 bytes x registers x blocks.
#include "bytecode/verifier.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>

#include "bytecode/verifier_testing.hpp"
#include "ir/infer.hpp"
#include "ir/precision.hpp"

namespace mlvm {

namespace {

InferOverride g_infer_override = nullptr;

// Upper bound on registers x basic blocks (8 bytes each), so an adversarial module cannot make
// the verifier allocate gigabytes.
constexpr int64_t kMaxStateSlots = int64_t(1) << 25;

bool is_identifier(std::string_view s) {
  if (s.empty()) return false;
  auto head = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (!head(s[0])) return false;
  for (char c : s.substr(1))
    if (!head(c) && !(c >= '0' && c <= '9') && c != '.') return false;
  return !(s == "none" || s == "true" || s == "false" || s == "inf" || s == "nan");
}

bool is_jump(Opcode op) {
  return op == Opcode::jmp || op == Opcode::br;
}

enum class SlotState : uint8_t { unassigned, ok, conflict, poison };

// What the verifier knows about one register at one point. `aux` is the interned type (ok)
// or the instruction where conflicting types met (conflict).
struct Slot {
  SlotState st = SlotState::unassigned;
  int32_t aux = -1;
  bool operator==(const Slot& o) const { return st == o.st && aux == o.aux; }
};

class TypeTable {
 public:
  int32_t intern(const TensorType& t) {
    std::string key;
    key.push_back(char(t.dtype));
    key.push_back(char(t.dims.size()));
    key.append(reinterpret_cast<const char*>(&t.precision), sizeof t.precision);
    key.append(reinterpret_cast<const char*>(t.dims.data()), sizeof(int64_t) * t.dims.size());
    auto [it, inserted] = ids_.try_emplace(std::move(key), int32_t(types_.size()));
    if (inserted) {
      types_.push_back(t);
      types_.back().present = true;
    }
    return it->second;
  }
  const TensorType& operator[](int32_t id) const { return types_[std::size_t(id)]; }

 private:
  std::vector<TensorType> types_;
  std::unordered_map<std::string, int32_t> ids_;
};

// Problems with a type as declared in the module (not inferred): empty if fine.
std::string type_problem(const TensorType& t, bool allow_dynamic) {
  if (!dtype_valid(uint8_t(t.dtype))) return "unknown dtype code " + std::to_string(int(t.dtype));
  if (t.dims.size() < 1 || t.dims.size() > kMaxRank)
    return "rank " + std::to_string(t.dims.size()) + " is outside 1.." + std::to_string(kMaxRank);
  int64_t n = 1;
  for (int64_t d : t.dims) {
    if (d == kDynamic && allow_dynamic) continue;
    if (d < 0) return "dimension " + std::to_string(d) + " is negative";
    if (d != 0 && n > INT64_MAX / d)
      return "element count of " + dims_to_string(t.dims) + " overflows int64";
    n *= d;
  }
  if (t.precision != kUnknownPrecision) {
    if (!is_signed_int(t.dtype))
      return "precision is only tracked for signed integers, not " +
             std::string(dtype_name(t.dtype));
    if (t.precision < 1 || t.precision > signed_bits(t.dtype))
      return "precision " + std::to_string(t.precision) + " is outside 1.." +
             std::to_string(signed_bits(t.dtype)) + " for " + std::string(dtype_name(t.dtype));
  }
  return "";
}

// A type an infer rule produced: the same limits, dynamic dims allowed.
bool inferred_type_ok(const TensorType& t) {
  if (!dtype_valid(uint8_t(t.dtype)) || t.dims.size() < 1 || t.dims.size() > kMaxRank) return false;
  for (int64_t d : t.dims)
    if (d < kDynamic) return false;
  return true;
}

// Exact precision of a constant's data; a constant-mode tensor is read once, not per element.
int const_precision(const Tensor& t) {
  if (!is_signed_int(t.dtype())) return kUnknownPrecision;
  if (t.mode() == ValueMode::constant && t.numel() > 0) {
    std::vector<int64_t> zero(std::size_t(t.rank()), 0);
    return precision_of_value(t.get_int(zero));
  }
  return precision_of_tensor(t);
}

struct Block {
  int32_t begin = 0, end = 0;  // instructions [begin, end)
  std::vector<int32_t> succ;   // block indices; -1 = the exit (halt or past the end)
};

class Verifier {
 public:
  Verifier(const Module& m, const VerifyOptions& o)
      : m_(m), opt_(o), n_(int32_t(m.code.size())), nregs_(m.num_registers()) {
    opt_.max_errors = std::max(1, opt_.max_errors);
  }

  VerifyResult run() {
    res_.result_types.assign(std::size_t(n_), {});
    res_.arg_types.assign(std::size_t(n_), {});
    res_.release_after.assign(std::size_t(n_), {});
    res_.output_types.assign(m_.outputs.size(), {});
    for (std::size_t k = 0; k < m_.outputs.size(); ++k) res_.output_types[k] = m_.outputs[k].type;
    check_declarations();
    check_instructions();
    build_blocks();
    if (!full()) {
      if (int64_t(blocks_.size()) * std::max<int64_t>(nregs_, 1) > kMaxStateSlots) {
        VerifyDiagnostic d;
        d.message = "module too large to verify: " + std::to_string(nregs_) + " registers x " +
                    std::to_string(blocks_.size()) + " basic blocks exceeds " +
                    std::to_string(kMaxStateSlots);
        error(std::move(d));
      } else {
        infer_types();
      }
    }
    compute_liveness();
    if (res_.errors.size() > std::size_t(opt_.max_errors))
      res_.errors.resize(std::size_t(opt_.max_errors));
    return std::move(res_);
  }

 private:
  const Module& m_;
  VerifyOptions opt_;
  int32_t n_;
  int32_t nregs_;
  VerifyResult res_;
  TypeTable types_;

  std::vector<Attrs> attrs_;       // per instruction, checked (ints caches filled)
  std::vector<uint8_t> bad_;       // structural error: results are poisoned, no inference
  std::vector<uint8_t> is_const_;  // per register
  std::vector<Slot> entry_;        // register state at instruction 0
  std::vector<Block> blocks_;
  std::vector<int32_t> block_of_;                                 // per instruction
  std::map<std::pair<int32_t, int32_t>, std::string> conflicts_;  // (join pc, reg) -> detail
  bool silent_poison_read_ = false;
  bool any_bad_ = false;  // some instruction is structurally broken: what it assigns is unknown

  bool full() const { return int(res_.errors.size()) >= opt_.max_errors; }
  void error(VerifyDiagnostic d) {
    if (!full()) res_.errors.push_back(std::move(d));
  }
  void instr_error(int32_t pc, std::string msg, int32_t operand = -1, int32_t result = -1,
                   int32_t attribute = -1) {
    VerifyDiagnostic d;
    d.instruction = pc;
    d.operand = operand;
    d.result = result;
    d.attribute = attribute;
    d.message = std::move(msg);
    error(std::move(d));
  }

  std::string reg_name(int32_t r) const {
    if (r >= 0 && r < nregs_ && !m_.register_names[std::size_t(r)].empty())
      return "'" + m_.register_names[std::size_t(r)] + "'";
    return "register " + std::to_string(r);
  }
  bool reg_in_range(int32_t r) const { return r >= 0 && r < nregs_; }

  // ------------------------------------------------------------------------------------------
  // Pass 1: structure.

  void check_declarations() {
    is_const_.assign(std::size_t(std::max(nregs_, 0)), 0);
    entry_.assign(std::size_t(std::max(nregs_, 0)), Slot{});
    std::vector<uint8_t> declared(std::size_t(std::max(nregs_, 0)), 0);
    std::set<std::string> names;

    auto check_name = [&](VerifyDiagnostic base, const std::string& kind, const std::string& name,
                          int32_t reg, bool unique_among_values) {
      if (!is_identifier(name)) {
        base.message = kind + " name '" + name + "' is not an identifier ([A-Za-z_][A-Za-z0-9_.]*)";
        error(base);
        return false;
      }
      if (unique_among_values && !names.insert(name).second) {
        base.message = kind + " name '" + name + "' is declared twice";
        error(base);
        return false;
      }
      if (!reg_in_range(reg)) {
        base.message = kind + " '" + name + "' uses register " + std::to_string(reg) +
                       ", but the module has " + std::to_string(nregs_) + " registers";
        error(base);
        return false;
      }
      // A module without debug info has unnamed registers; a named one must agree.
      if (!m_.register_names[std::size_t(reg)].empty() &&
          m_.register_names[std::size_t(reg)] != name) {
        base.message = kind + " '" + name + "' is bound to register " + std::to_string(reg) +
                       " named '" + m_.register_names[std::size_t(reg)] + "'; the names must agree";
        error(base);
        return false;
      }
      return true;
    };

    for (std::size_t k = 0; k < m_.inputs.size(); ++k) {
      const InputDecl& in = m_.inputs[k];
      VerifyDiagnostic d;
      d.input = int32_t(k);
      if (!check_name(d, "input", in.name, in.reg, true)) {
        if (reg_in_range(in.reg))
          entry_[std::size_t(in.reg)] = Slot{SlotState::poison, -1};  // no cascade
        continue;
      }
      if (declared[std::size_t(in.reg)]++) {
        d.message = "input '" + in.name + "' shares register " + std::to_string(in.reg) +
                    " with another declaration";
        error(d);
        continue;
      }
      std::string p = type_problem(in.type, true);
      if (!p.empty()) {
        d.message = "input '" + in.name + "' has an invalid type: " + p;
        error(d);
        entry_[std::size_t(in.reg)] = Slot{SlotState::poison, -1};
        continue;
      }
      entry_[std::size_t(in.reg)] = Slot{SlotState::ok, types_.intern(in.type)};
    }
    for (std::size_t k = 0; k < m_.constants.size(); ++k) {
      const ConstDecl& c = m_.constants[k];
      VerifyDiagnostic d;
      d.constant = int32_t(k);
      if (!check_name(d, "constant", c.name, c.reg, true)) {
        if (reg_in_range(c.reg)) entry_[std::size_t(c.reg)] = Slot{SlotState::poison, -1};
        continue;
      }
      is_const_[std::size_t(c.reg)] = 1;
      if (declared[std::size_t(c.reg)]++) {
        d.message = "constant '" + c.name + "' shares register " + std::to_string(c.reg) +
                    " with another declaration";
        error(d);
        continue;
      }
      TensorType declared = c.type;
      declared.precision = kUnknownPrecision;  // the module's claim is not used; see below
      std::string p = type_problem(declared, false);
      if (p.empty() && !c.value.defined()) p = "it has no data";
      if (p.empty() && (c.value.dtype() != c.type.dtype || !(c.value.shape() == c.type.dims)))
        p = "its data is " + c.value.type_string() + ", not " +
            TensorType{c.type.dtype, c.type.dims}.to_string();
      if (!p.empty()) {
        d.message = "constant '" + c.name + "' is invalid: " + p;
        error(d);
        entry_[std::size_t(c.reg)] = Slot{SlotState::poison, -1};
        continue;
      }
      TensorType t = declared;
      t.precision = const_precision(c.value);  // computed, whatever the module says
      if (t.precision > signed_bits(t.dtype)) t.precision = kUnknownPrecision;  // e.g. -128 in i8
      entry_[std::size_t(c.reg)] = Slot{SlotState::ok, types_.intern(t)};
    }
    std::set<std::string> out_names;
    for (std::size_t k = 0; k < m_.outputs.size(); ++k) {
      const OutputDecl& o = m_.outputs[k];
      VerifyDiagnostic d;
      d.output = int32_t(k);
      if (!check_name(d, "output", o.name, o.reg, false)) continue;
      if (!out_names.insert(o.name).second) {
        d.message = "output '" + o.name + "' is declared twice";
        error(d);
        continue;
      }
      if (o.has_type) {
        std::string p = type_problem(o.type, true);
        if (!p.empty()) {
          d.message = "output '" + o.name + "' has an invalid type: " + p;
          error(d);
        }
      }
    }
  }

  void check_instructions() {
    attrs_.assign(std::size_t(n_), Attrs{});
    bad_.assign(std::size_t(n_), 0);
    for (int32_t pc = 0; pc < n_; ++pc) {
      if (!check_instruction(pc)) {
        bad_[std::size_t(pc)] = 1;
        any_bad_ = true;
      }
    }
  }

  bool check_instruction(int32_t pc) {
    const Instruction& ins = m_.code[std::size_t(pc)];
    if (!opcode_valid(uint32_t(ins.op))) {
      instr_error(pc, "unknown opcode " + std::to_string(unsigned(ins.op)) + " (expected 0.." +
                          std::to_string(kNumOpcodes - 1) + ")");
      return false;
    }
    const OpInfo& op = op_info(ins.op);
    bool ok = true;
    const int nargs = int(ins.args.size());
    const bool variadic = op.max_inputs() == INT32_MAX;
    if (variadic ? nargs < op.min_inputs() : (nargs < op.min_inputs() || nargs > op.max_inputs())) {
      std::string want;
      if (variadic)
        want = "at least " + std::to_string(op.min_inputs());
      else if (op.min_inputs() == op.max_inputs())
        want = std::to_string(op.max_inputs());
      else
        want = std::to_string(op.min_inputs()) + " to " + std::to_string(op.max_inputs());
      std::string list;
      for (auto& s : op.inputs)
        list += (list.empty() ? "" : ", ") + std::string(s.optional ? "optional " : "") + s.name +
                (s.variadic ? "..." : "");
      instr_error(pc, op.name + " takes " + want + " input" + (want == "1" ? "" : "s") +
                          (list.empty() ? "" : " (" + list + ")") + ", got " +
                          std::to_string(nargs));
      ok = false;
    }
    for (int k = 0; k < nargs; ++k) {
      int32_t r = ins.args[std::size_t(k)];
      if (r == kNoRegister) {
        bool optional =
            !variadic && k < int(op.inputs.size()) && op.inputs[std::size_t(k)].optional;
        if (!optional) {
          if (op.inputs.empty()) {
            // Already reported as an arity error; nothing to name.
          } else {
            std::string nm =
                k < int(op.inputs.size()) ? op.inputs[std::size_t(k)].name : op.inputs.back().name;
            instr_error(pc, "input '" + nm + "' of " + op.name + " cannot be omitted", k);
          }
          ok = false;
        }
      } else if (!reg_in_range(r)) {
        instr_error(pc,
                    "operand " + std::to_string(k) + " is register " + std::to_string(r) +
                        ", but the module has " + std::to_string(nregs_) + " registers",
                    k);
        ok = false;
      }
    }
    if (int(ins.results.size()) != op.num_results) {
      instr_error(pc, op.name + " has " + std::to_string(op.num_results) + " result" +
                          (op.num_results == 1 ? "" : "s") + ", got " +
                          std::to_string(ins.results.size()));
      ok = false;
    }
    for (std::size_t k = 0; k < ins.results.size(); ++k) {
      int32_t r = ins.results[k];
      if (!reg_in_range(r)) {
        instr_error(pc,
                    "result " + std::to_string(k) + " is register " + std::to_string(r) +
                        ", but the module has " + std::to_string(nregs_) + " registers",
                    -1, int32_t(k));
        ok = false;
        continue;
      }
      if (is_const_[std::size_t(r)]) {
        instr_error(pc,
                    op.name + " assigns to constant " + reg_name(r) + "; constants are read-only",
                    -1, int32_t(k));
        ok = false;
      }
      for (std::size_t j = 0; j < k; ++j)
        if (ins.results[j] == r) {
          instr_error(pc, op.name + " assigns " + reg_name(r) + " twice", -1, int32_t(k));
          ok = false;
        }
    }
    int bad = -1;
    try {
      attrs_[std::size_t(pc)] = check_positional_attrs(op, ins.attrs.values(), &bad);
    } catch (const Error& e) {
      instr_error(pc, e.message(), -1, -1, bad);
      ok = false;
    }
    if (is_jump(ins.op)) {
      if (ins.target < 0 || ins.target > n_) {
        instr_error(pc, op.name + " target " + std::to_string(ins.target) +
                            " is outside the code (expected 0.." + std::to_string(n_) + ")");
        ok = false;
      }
    }
    return ok;
  }

  // ------------------------------------------------------------------------------------------
  // Control-flow graph.

  void build_blocks() {
    std::vector<uint8_t> leader(std::size_t(n_) + 1, 0);
    if (n_ > 0) leader[0] = 1;
    for (int32_t pc = 0; pc < n_; ++pc) {
      const Instruction& ins = m_.code[std::size_t(pc)];
      if (!opcode_valid(uint32_t(ins.op))) continue;
      if (is_jump(ins.op) || ins.op == Opcode::halt) {
        leader[std::size_t(pc) + 1] = 1;
        if (is_jump(ins.op) && ins.target >= 0 && ins.target < n_)
          leader[std::size_t(ins.target)] = 1;
      }
    }
    block_of_.assign(std::size_t(n_), -1);
    for (int32_t pc = 0; pc < n_; ++pc) {
      if (leader[std::size_t(pc)]) blocks_.push_back(Block{pc, pc, {}});
      blocks_.back().end = pc + 1;
      block_of_[std::size_t(pc)] = int32_t(blocks_.size()) - 1;
    }
    auto target_block = [&](int32_t pc) { return pc >= n_ ? -1 : block_of_[std::size_t(pc)]; };
    for (Block& b : blocks_) {
      int32_t last = b.end - 1;
      const Instruction& ins = m_.code[std::size_t(last)];
      bool valid_op = opcode_valid(uint32_t(ins.op));
      if (valid_op && ins.op == Opcode::halt) {
        b.succ.push_back(-1);
      } else if (valid_op && is_jump(ins.op)) {
        if (ins.op == Opcode::br) b.succ.push_back(target_block(b.end));
        if (ins.target >= 0 && ins.target <= n_) {
          int32_t t = target_block(ins.target);
          if (std::find(b.succ.begin(), b.succ.end(), t) == b.succ.end()) b.succ.push_back(t);
        }
      } else {
        b.succ.push_back(target_block(b.end));
      }
    }
  }

  // ------------------------------------------------------------------------------------------
  // Pass 2: types.

  Slot join_slot(const Slot& a, const Slot& b, int32_t join_pc, int32_t reg) {
    if (a.st == SlotState::unassigned || b.st == SlotState::unassigned) return Slot{};
    if (a.st == SlotState::poison || b.st == SlotState::poison) return Slot{SlotState::poison, -1};
    if (a.st == SlotState::conflict) return a;
    if (b.st == SlotState::conflict) return b;
    if (a.aux == b.aux) return a;
    const TensorType& ta = types_[a.aux];
    const TensorType& tb = types_[b.aux];
    if (ta.dtype != tb.dtype || ta.dims.size() != tb.dims.size()) {
      conflicts_.try_emplace({join_pc, reg},
                             ta.to_string() + " on one path and " + tb.to_string() + " on another");
      return Slot{SlotState::conflict, join_pc};
    }
    TensorType t = ta;
    for (int d = 0; d < t.dims.size(); ++d)
      if (ta.dims[d] != tb.dims[d]) t.dims[d] = kDynamic;
    if (ta.precision != tb.precision) t.precision = kUnknownPrecision;
    return Slot{SlotState::ok, types_.intern(t)};
  }

  // Joins `src` into `dst` (`reached` says whether dst held anything yet); true if dst changed.
  bool join_into(std::vector<Slot>& dst, bool& reached, const std::vector<Slot>& src,
                 int32_t join_pc) {
    if (!reached) {
      dst = src;
      reached = true;
      return true;
    }
    bool changed = false;
    for (std::size_t r = 0; r < dst.size(); ++r) {
      if (dst[r] == src[r]) continue;
      Slot j = join_slot(dst[r], src[r], join_pc, int32_t(r));
      if (!(j == dst[r])) {
        dst[r] = j;
        changed = true;
      }
    }
    return changed;
  }

  void poison_results(const Instruction& ins, std::vector<Slot>& s) {
    for (int32_t r : ins.results)
      if (reg_in_range(r)) s[std::size_t(r)] = Slot{SlotState::poison, -1};
  }

  // Applies instruction `pc` to the state `s`; reports errors and records types when `emit`.
  void transfer(int32_t pc, std::vector<Slot>& s, bool emit) {
    const Instruction& ins = m_.code[std::size_t(pc)];
    if (bad_[std::size_t(pc)]) {
      poison_results(ins, s);
      return;
    }
    const OpInfo& op = op_info(ins.op);
    const bool variadic = op.max_inputs() == INT32_MAX;
    const std::size_t npad = variadic ? ins.args.size() : op.inputs.size();
    std::vector<TensorType> in;
    in.reserve(npad);
    bool failed = false, poisoned = false;
    for (std::size_t k = 0; k < npad; ++k) {
      if (k >= ins.args.size() || ins.args[k] == kNoRegister) {
        TensorType absent;
        absent.present = false;
        in.push_back(absent);
        continue;
      }
      int32_t r = ins.args[k];
      Slot& sl = s[std::size_t(r)];
      switch (sl.st) {
        case SlotState::ok:
          in.push_back(types_[sl.aux]);
          break;
        case SlotState::poison:
          poisoned = true;
          break;
        case SlotState::unassigned:
          if (emit) {
            instr_error(pc,
                        reg_name(r) + " (operand " + std::to_string(k) + " of " + op.name +
                            ") is read before it is assigned on every path",
                        int32_t(k));
            sl = Slot{SlotState::poison, -1};  // report once per block
          }
          failed = true;
          break;
        case SlotState::conflict:
          if (emit) {
            auto it = conflicts_.find({sl.aux, r});
            std::string detail = it != conflicts_.end()
                                     ? it->second
                                     : "different dtypes or ranks on different paths";
            instr_error(pc,
                        reg_name(r) + " (operand " + std::to_string(k) + " of " + op.name +
                            ") is " + detail + " where they meet at instruction " +
                            std::to_string(sl.aux) +
                            "; a register keeps one dtype and rank across paths",
                        int32_t(k));
            sl = Slot{SlotState::poison, -1};
          }
          failed = true;
          break;
      }
    }
    if (failed || poisoned) {
      if (emit && poisoned && !failed) silent_poison_read_ = true;
      poison_results(ins, s);
      return;
    }
    if (emit) res_.arg_types[std::size_t(pc)] = in;

    const bool arith = (op.flags & ARITH) != 0;
    if (emit && arith && opt_.precision_check && opt_.strict_precision) {
      for (std::size_t k = 0; k < in.size(); ++k)
        if (in[k].present && is_signed_int(in[k].dtype) && in[k].precision == kUnknownPrecision)
          instr_error(
              pc,
              "strict precision: input '" +
                  (k < op.inputs.size() ? op.inputs[k].name : op.inputs.back().name) + "' of " +
                  op.name + " (" + reg_name(ins.args[k]) + ", " + in[k].to_string() +
                  ") has unknown precision; clip it (cvm_clip) or declare precision= on the input",
              int32_t(k));
    }

    InferContext ctx{
        in, attrs_[std::size_t(pc)], {}, InferOptions{opt_.precision_check, opt_.strict_precision}};
    try {
      InferFn infer = g_infer_override ? g_infer_override(ins.op) : nullptr;
      (infer ? infer : infer_fn(ins.op))(ctx);
    } catch (const Error& e) {
      if (emit) instr_error(pc, e.message());
      poison_results(ins, s);
      return;
    } catch (const std::exception& e) {
      if (emit) instr_error(pc, "internal error in the type rule of " + op.name + ": " + e.what());
      poison_results(ins, s);
      return;
    }
    if (op.flags & CONTROL) return;
    bool shape_ok = int(ctx.out.size()) == op.num_results;
    for (auto& t : ctx.out) shape_ok = shape_ok && inferred_type_ok(t);
    if (!shape_ok) {
      if (emit)
        instr_error(
            pc, "internal error: the type rule of " + op.name + " produced no valid result type");
      poison_results(ins, s);
      return;
    }
    for (std::size_t k = 0; k < ctx.out.size(); ++k) {
      TensorType& t = ctx.out[k];
      t.present = true;
      if (!is_signed_int(t.dtype) || t.precision < 0) {
        t.precision = kUnknownPrecision;
      } else if (t.precision > signed_bits(t.dtype)) {
        if (emit && arith && opt_.precision_check)
          instr_error(pc,
                      "result precision " + std::to_string(t.precision) + " exceeds " +
                          std::string(dtype_name(t.dtype)) + "; clip or shift first",
                      -1, int32_t(k));
        t.precision = kUnknownPrecision;
      }
      s[std::size_t(ins.results[k])] = Slot{SlotState::ok, types_.intern(t)};
    }
    if (emit) res_.result_types[std::size_t(pc)] = std::move(ctx.out);
  }

  void infer_types() {
    const std::size_t nb = blocks_.size();
    std::vector<std::vector<Slot>> in(nb);
    std::vector<uint8_t> reached_flag(nb, 0);
    std::vector<Slot> exit_state;
    bool exit_reached = false;

    auto propagate = [&](int32_t to, const std::vector<Slot>& s, std::set<int32_t>& pending) {
      if (to < 0) {
        join_into(exit_state, exit_reached, s, n_);
        return;
      }
      bool r = reached_flag[std::size_t(to)];
      if (join_into(in[std::size_t(to)], r, s, blocks_[std::size_t(to)].begin)) pending.insert(to);
      reached_flag[std::size_t(to)] = r;
    };

    std::set<int32_t> pending;
    if (nb == 0) {
      join_into(exit_state, exit_reached, entry_, 0);
    } else {
      in[0] = entry_;
      reached_flag[0] = 1;
      pending.insert(0);
    }
    while (!pending.empty()) {
      int32_t b = *pending.begin();
      pending.erase(pending.begin());
      std::vector<Slot> s = in[std::size_t(b)];
      for (int32_t pc = blocks_[std::size_t(b)].begin; pc < blocks_[std::size_t(b)].end; ++pc)
        transfer(pc, s, false);
      for (int32_t to : blocks_[std::size_t(b)].succ) propagate(to, s, pending);
    }

    // Replay with the final states: errors and per-instruction types, once each.
    for (std::size_t b = 0; b < nb && !full(); ++b) {
      if (!reached_flag[b]) continue;
      std::vector<Slot> s = in[b];
      for (int32_t pc = blocks_[b].begin; pc < blocks_[b].end; ++pc) transfer(pc, s, true);
    }

    if (exit_reached) check_outputs(exit_state);
    if (res_.errors.empty() && silent_poison_read_) {
      VerifyDiagnostic d;
      d.message =
          "a register has no valid type on some path (the type rules disagree between iterations)";
      error(std::move(d));
    }
  }

  static bool output_type_matches(const TensorType& declared, const TensorType& got) {
    if (declared.dtype != got.dtype || declared.dims.size() != got.dims.size()) return false;
    for (int d = 0; d < declared.dims.size(); ++d)
      if (declared.dims[d] != kDynamic && got.dims[d] != kDynamic &&
          declared.dims[d] != got.dims[d])
        return false;
    return true;
  }

  void check_outputs(const std::vector<Slot>& s) {
    for (std::size_t k = 0; k < m_.outputs.size(); ++k) {
      const OutputDecl& o = m_.outputs[k];
      if (!reg_in_range(o.reg)) continue;
      const Slot& sl = s[std::size_t(o.reg)];
      VerifyDiagnostic d;
      d.output = int32_t(k);
      switch (sl.st) {
        case SlotState::poison:
          break;
        case SlotState::unassigned:
          if (any_bad_) break;  // perhaps by the broken instruction; already reported
          d.message = "output '" + o.name + "' is not assigned on every path to halt";
          error(d);
          break;
        case SlotState::conflict: {
          auto it = conflicts_.find({sl.aux, o.reg});
          d.message = "output '" + o.name + "' is " +
                      (it != conflicts_.end()
                           ? it->second
                           : std::string("of different dtypes or ranks on different paths")) +
                      " where they meet at instruction " + std::to_string(sl.aux);
          error(d);
          break;
        }
        case SlotState::ok: {
          const TensorType& t = types_[sl.aux];
          res_.output_types[k] = t;
          if (o.has_type && !output_type_matches(o.type, t)) {
            TensorType shown = o.type;
            shown.precision = kUnknownPrecision;
            TensorType got = t;
            got.precision = kUnknownPrecision;
            d.message = "output '" + o.name + "' is declared " + shown.to_string() +
                        " but the program computes " + got.to_string();
            error(d);
          }
          break;
        }
      }
    }
  }

  // ------------------------------------------------------------------------------------------
  // Pass 3: liveness.

  void compute_liveness() {
    if (n_ == 0 || nregs_ <= 0) return;
    const std::size_t words = (std::size_t(nregs_) + 63) / 64;
    using Bits = std::vector<uint64_t>;
    auto set = [](Bits& b, int32_t r) { b[std::size_t(r) >> 6] |= uint64_t(1) << (r & 63); };
    auto clear = [](Bits& b, int32_t r) { b[std::size_t(r) >> 6] &= ~(uint64_t(1) << (r & 63)); };
    auto test = [](const Bits& b, int32_t r) { return (b[std::size_t(r) >> 6] >> (r & 63)) & 1; };

    Bits exit_live(words, 0);
    for (auto& o : m_.outputs)
      if (reg_in_range(o.reg)) set(exit_live, o.reg);

    // Backwards through one instruction: live = (live - defs) + uses.
    auto step = [&](int32_t pc, Bits& live) {
      const Instruction& ins = m_.code[std::size_t(pc)];
      for (int32_t r : ins.results)
        if (reg_in_range(r)) clear(live, r);
      for (int32_t r : ins.args)
        if (reg_in_range(r)) set(live, r);
    };

    const std::size_t nb = blocks_.size();
    std::vector<Bits> live_in(nb, Bits(words, 0));
    auto live_out_of = [&](std::size_t b) {
      Bits out(words, 0);
      for (int32_t s : blocks_[b].succ) {
        const Bits& src = s < 0 ? exit_live : live_in[std::size_t(s)];
        for (std::size_t w = 0; w < words; ++w) out[w] |= src[w];
      }
      return out;
    };
    bool changed = true;
    while (changed) {
      changed = false;
      for (std::size_t b = nb; b-- > 0;) {
        Bits live = live_out_of(b);
        for (int32_t pc = blocks_[b].end; pc-- > blocks_[b].begin;) step(pc, live);
        if (live != live_in[b]) {
          live_in[b] = std::move(live);
          changed = true;
        }
      }
    }
    for (std::size_t b = 0; b < nb; ++b) {
      Bits live = live_out_of(b);
      for (int32_t pc = blocks_[b].end; pc-- > blocks_[b].begin;) {
        const Instruction& ins = m_.code[std::size_t(pc)];
        std::vector<int32_t> dead;
        for (const auto* regs : {&ins.args, &ins.results})
          for (int32_t r : *regs)
            if (reg_in_range(r) && !test(live, r)) dead.push_back(r);
        std::sort(dead.begin(), dead.end());
        dead.erase(std::unique(dead.begin(), dead.end()), dead.end());
        res_.release_after[std::size_t(pc)] = std::move(dead);
        step(pc, live);
      }
    }
  }
};

}  // namespace

std::string diagnostic_location(const Module& m, const VerifyDiagnostic& d) {
  auto name_at = [](const auto& v, int32_t k) {
    return k >= 0 && std::size_t(k) < v.size() ? v[std::size_t(k)].name : std::string();
  };
  if (d.instruction >= 0) {
    std::string loc = "instruction " + std::to_string(d.instruction);
    uint32_t line = m.line_of(std::size_t(d.instruction));
    if (line) loc += " (line " + std::to_string(line) + ")";
    return loc;
  }
  if (d.output >= 0) return "output '" + name_at(m.outputs, d.output) + "'";
  if (d.input >= 0) return "input '" + name_at(m.inputs, d.input) + "'";
  if (d.constant >= 0) return "constant '" + name_at(m.constants, d.constant) + "'";
  return "module";
}

void set_infer_override_for_testing(InferOverride f) {
  g_infer_override = f;
}

VerifyResult verify_module(const Module& module, const VerifyOptions& options) {
  return Verifier(module, options).run();
}

VerifyResult verify_or_throw(const Module& module, const VerifyOptions& options) {
  VerifyResult r = verify_module(module, options);
  if (!r.ok()) {
    const VerifyDiagnostic& d = r.errors.front();
    throw Error(ErrorKind::invalid, d.message, diagnostic_location(module, d));
  }
  return r;
}

}  // namespace mlvm
