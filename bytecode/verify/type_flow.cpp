// Verifier pass: types (docs/bytecode.md, "Types (dataflow)"). A forward dataflow over the
// basic blocks runs to a fixed point, then every reachable block is replayed once from its
// final entry state to report errors and record each instruction's argument and result types.
// The states where the program leaves (per halt, and at the end) go to the outputs pass.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "bytecode/verify/state.hpp"
#include "ir/infer.hpp"
#include "ir/precision.hpp"

namespace mlvm::verify {

namespace {

// A type an infer rule produced: the limits of a declared type, dynamic dims allowed.
bool inferred_type_ok(const TensorType& t) {
  if (!dtype_valid(uint8_t(t.dtype)) || t.dims.size() < 1 || t.dims.size() > kMaxRank) return false;
  for (int64_t d : t.dims)
    if (d < kDynamic) return false;
  return true;
}

bool unassigned(const Slot& sl) {
  return sl.st == SlotState::unassigned || sl.st == SlotState::partial;
}

class TypeFlow {
 public:
  explicit TypeFlow(State& s) : s_(s) {}

  void run();

 private:
  State& s_;
  bool silent_poison_read_ = false;

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
      Slot j = join_slot(s_, dst[r], src[r], join_pc, int32_t(r));
      if (!(j == dst[r])) {
        dst[r] = j;
        changed = true;
      }
    }
    return changed;
  }

  void poison_results(int32_t pc, std::vector<Slot>& st) {
    if (s_.gap(pc) == Gap::flow) {  // it may have done anything
      std::fill(st.begin(), st.end(), Slot{SlotState::poison, -1});
      return;
    }
    for (int32_t r : s_.m.code[std::size_t(pc)].results)
      if (s_.reg_in_range(r)) st[std::size_t(r)] = Slot{SlotState::poison, -1};
  }

  // Every such read is reported: each is a place the program must change.
  void report_unassigned(int32_t pc, std::size_t k, int32_t r, const Slot& sl) {
    s_.instr_error(pc,
                   s_.reg_text(r) + " is read before it is assigned" +
                       (sl.st == SlotState::partial ? " on some path to here" : ""),
                   int32_t(k));
  }

  // An instruction that is not typed (a structural error, or a gap): its reads must still be
  // assigned; its results are of unknown value.
  void transfer_untyped(int32_t pc, std::vector<Slot>& st, bool emit) {
    const Instruction& ins = s_.m.code[std::size_t(pc)];
    for (std::size_t k = 0; emit && k < s_.reads(pc); ++k) {
      int32_t r = ins.args[k];
      if (s_.reg_in_range(r) && unassigned(st[std::size_t(r)]))
        report_unassigned(pc, k, r, st[std::size_t(r)]);
    }
    poison_results(pc, st);
  }

  // Applies instruction `pc` to the state `st`; reports errors and records types when `emit`.
  void transfer(int32_t pc, std::vector<Slot>& st, bool emit);

  std::vector<TensorType> arguments(int32_t pc, std::vector<Slot>& st, bool emit, bool& failed,
                                    bool& poisoned);

  // The type of the literal constant `lit` read as argument `k` of `pc` (ModuleGaps::literals).
  TensorType literal_type(int32_t pc, std::size_t k, int32_t lit, const std::vector<Slot>& st,
                          bool emit, bool& failed, bool& poisoned);
};

// Whether `v` rounds to a finite f32 (to nearest, ties to even, it overflows from FLT_MAX
// plus half an ulp: 2^128 - 2^103, exact in a double).
bool fits_f32(double v) {
  static const double kOverflow = std::ldexp(1.0, 128) - std::ldexp(1.0, 103);
  return !std::isfinite(v) || std::fabs(v) < kOverflow;
}

TensorType TypeFlow::literal_type(int32_t pc, std::size_t k, int32_t lit,
                                  const std::vector<Slot>& st, bool emit, bool& failed,
                                  bool& poisoned) {
  const Instruction& ins = s_.m.code[std::size_t(pc)];
  const Scalar& v = s_.gaps.literals[std::size_t(lit)].value;
  TensorType t;
  // The first argument that is a register and not a literal gives the dtype.
  std::size_t from = ins.args.size();
  for (std::size_t j = 0; j < s_.reads(pc) && from == ins.args.size(); ++j)
    if (s_.reg_in_range(ins.args[j]) && s_.literal_of[std::size_t(ins.args[j])] < 0) from = j;
  if (from == ins.args.size()) {
    if (emit)
      s_.instr_error(pc,
                     "the number " + v.to_string() +
                         " has no other tensor argument to take its dtype from; declare it "
                         "as a .const",
                     int32_t(k));
    failed = true;
    return t;
  }
  const Slot& src = st[std::size_t(ins.args[from])];
  if (src.st != SlotState::ok) {  // argument `from` is reported (or of unknown value)
    poisoned = true;
    return t;
  }
  t.dtype = s_.types[src.aux].dtype;
  t.dims = Dims{1};
  const std::string dt(dtype_name(t.dtype));
  if (!scalar_fits(v, t.dtype) || (t.dtype == DType::f32 && !fits_f32(v.as_double()))) {
    if (emit)
      s_.instr_error(pc,
                     "the number " + v.to_string() + " takes the dtype " + dt +
                         " of its other argument: value " + v.to_string() +
                         " is not representable in " + dt,
                     int32_t(k));
    failed = true;
    return t;
  }
  t.precision = kUnknownPrecision;
  if (is_signed_int(t.dtype)) {
    const int p = precision_of_value(v.is_float ? int64_t(v.f) : v.i);
    if (p <= signed_bits(t.dtype)) t.precision = p;  // -128 in i8 needs 9: no bound
  }
  return t;
}

std::vector<TensorType> TypeFlow::arguments(int32_t pc, std::vector<Slot>& st, bool emit,
                                            bool& failed, bool& poisoned) {
  const Instruction& ins = s_.m.code[std::size_t(pc)];
  const OpInfo& op = op_info(ins.op);
  const bool variadic = op.max_inputs() == INT32_MAX;
  const std::size_t npad = variadic ? ins.args.size() : op.inputs.size();
  std::vector<TensorType> in;
  in.reserve(npad);
  for (std::size_t k = 0; k < npad; ++k) {
    if (k >= ins.args.size() || ins.args[k] == kNoRegister) {
      TensorType absent;
      absent.present = false;
      in.push_back(absent);
      continue;
    }
    const int32_t r = ins.args[k];
    Slot& sl = st[std::size_t(r)];
    switch (sl.st) {
      case SlotState::ok:
        if (const int32_t lit = s_.literal_of[std::size_t(r)]; lit >= 0)
          in.push_back(literal_type(pc, k, lit, st, emit, failed, poisoned));
        else
          in.push_back(s_.types[sl.aux]);
        break;
      case SlotState::poison:
        poisoned = true;
        break;
      case SlotState::unassigned:
      case SlotState::partial:
        if (emit) report_unassigned(pc, k, r, sl);
        failed = true;
        break;
      case SlotState::conflict:
        if (emit) {
          auto it = s_.conflicts.find({sl.aux, r});
          std::string detail = it != s_.conflicts.end()
                                   ? it->second
                                   : "different dtypes or ranks on different paths";
          s_.instr_error(pc,
                         s_.reg_name(r) + " (operand " + std::to_string(k) + " of " + op.name +
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
  return in;
}

void TypeFlow::transfer(int32_t pc, std::vector<Slot>& st, bool emit) {
  if (s_.bad[std::size_t(pc)]) return transfer_untyped(pc, st, emit);
  const Instruction& ins = s_.m.code[std::size_t(pc)];
  const OpInfo& op = op_info(ins.op);
  bool failed = false, poisoned = false;
  std::vector<TensorType> in = arguments(pc, st, emit, failed, poisoned);
  if (failed || poisoned) {
    if (emit && poisoned && !failed) silent_poison_read_ = true;
    return poison_results(pc, st);
  }
  if (emit) {
    for (std::size_t k = 0; k < in.size() && k < ins.args.size(); ++k)
      if (s_.reg_in_range(ins.args[k]) && s_.literal_of[std::size_t(ins.args[k])] >= 0)
        s_.res.literal_types[std::size_t(s_.literal_of[std::size_t(ins.args[k])])] = in[k];
    s_.res.arg_types[std::size_t(pc)] = in;
  }

  const bool arith = (op.flags & ARITH) != 0;
  const VerifyOptions& o = s_.opt;
  if (emit && arith && o.precision_check && o.strict_precision) {
    for (std::size_t k = 0; k < in.size(); ++k)
      if (in[k].present && is_signed_int(in[k].dtype) && in[k].precision == kUnknownPrecision)
        s_.instr_error(
            pc,
            "strict precision: input '" +
                (k < op.inputs.size() ? op.inputs[k].name : op.inputs.back().name) + "' of " +
                op.name + " (" + s_.reg_name(ins.args[k]) + ", " + in[k].to_string() +
                ") has unknown precision; clip it (cvm_clip) or declare precision= on the input",
            int32_t(k));
  }

  InferContext ctx{in, s_.res.attrs[std::size_t(pc)], {},
                   InferOptions{o.precision_check, o.strict_precision}};
  try {
    infer_for(ins.op)(ctx);
  } catch (const Error& e) {
    if (emit) s_.instr_error(pc, e.message());
    return poison_results(pc, st);
  } catch (const std::exception& e) {
    if (emit) s_.instr_error(pc, "internal error in the type rule of " + op.name + ": " + e.what());
    return poison_results(pc, st);
  }
  if (op.flags & CONTROL) return;
  bool shape_ok = int(ctx.out.size()) == op.num_results;
  for (auto& t : ctx.out) shape_ok = shape_ok && inferred_type_ok(t);
  if (!shape_ok) {
    if (emit)
      s_.instr_error(
          pc, "internal error: the type rule of " + op.name + " produced no valid result type");
    return poison_results(pc, st);
  }
  for (std::size_t k = 0; k < ctx.out.size(); ++k) {
    TensorType& t = ctx.out[k];
    t.present = true;
    if (!is_signed_int(t.dtype) || t.precision < 0) {
      t.precision = kUnknownPrecision;
    } else if (t.precision > signed_bits(t.dtype)) {
      if (emit && arith && o.precision_check)
        s_.instr_error(pc,
                       "result precision " + std::to_string(t.precision) + " exceeds " +
                           std::string(dtype_name(t.dtype)) + "; clip or shift first",
                       -1, int32_t(k));
      t.precision = kUnknownPrecision;
    }
    st[std::size_t(ins.results[k])] = Slot{SlotState::ok, s_.types.intern(t)};
  }
  if (emit) s_.res.result_types[std::size_t(pc)] = std::move(ctx.out);
}

void TypeFlow::run() {
  const std::size_t nb = s_.blocks.size();
  std::vector<std::vector<Slot>> in(nb);
  std::vector<uint8_t> reached(nb, 0);
  // Where the program leaves: the halt's index or N (the end) -> the state there, joined over
  // the paths that reach it.
  std::map<int32_t, std::vector<Slot>> exits;
  auto leave = [&](int32_t at, const std::vector<Slot>& st) {
    auto [it, fresh] = exits.try_emplace(at);
    bool r = !fresh;
    join_into(it->second, r, st, s_.n);
  };

  std::set<int32_t> pending;
  if (nb == 0) {
    leave(s_.n, s_.entry);
  } else {
    in[0] = s_.entry;
    reached[0] = 1;
    pending.insert(0);
  }
  while (!pending.empty()) {
    const int32_t b = *pending.begin();
    pending.erase(pending.begin());
    const Block& blk = s_.blocks[std::size_t(b)];
    std::vector<Slot> st = in[std::size_t(b)];
    for (int32_t pc = blk.begin; pc < blk.end; ++pc) transfer(pc, st, false);
    for (int32_t to : blk.succ) {
      if (to < 0) {
        leave(blk.exit, st);
        continue;
      }
      bool r = reached[std::size_t(to)];
      if (join_into(in[std::size_t(to)], r, st, s_.blocks[std::size_t(to)].begin))
        pending.insert(to);
      reached[std::size_t(to)] = r;
    }
  }

  // Replay with the final states: errors and per-instruction types, once each.
  for (std::size_t b = 0; b < nb && !s_.full(); ++b) {
    if (!reached[b]) continue;
    std::vector<Slot> st = in[b];
    for (int32_t pc = s_.blocks[b].begin; pc < s_.blocks[b].end; ++pc) transfer(pc, st, true);
  }

  check_outputs(s_, exits);
  // A value of unknown type comes from an error: one reported, or one the front end reported
  // (a gap). Without either, the type rules must have disagreed between iterations.
  if (s_.res.errors.empty() && silent_poison_read_ && !s_.gaps.any()) {
    VerifyDiagnostic d;
    d.message =
        "a register has no valid type on some path (the type rules disagree between iterations)";
    s_.error(std::move(d));
  }
}

}  // namespace

Slot join_slot(State& s, const Slot& a, const Slot& b, int32_t join_pc, int32_t reg) {
  if (unassigned(a) || unassigned(b)) {
    if (a.st == SlotState::unassigned && b.st == SlotState::unassigned) return a;
    return Slot{SlotState::partial, -1};
  }
  if (a.st == SlotState::poison || b.st == SlotState::poison) return Slot{SlotState::poison, -1};
  if (a.st == SlotState::conflict) return a;
  if (b.st == SlotState::conflict) return b;
  if (a.aux == b.aux) return a;
  const TensorType& ta = s.types[a.aux];
  const TensorType& tb = s.types[b.aux];
  if (ta.dtype != tb.dtype || ta.dims.size() != tb.dims.size()) {
    s.conflicts.try_emplace({join_pc, reg},
                            ta.to_string() + " on one path and " + tb.to_string() + " on another");
    return Slot{SlotState::conflict, join_pc};
  }
  TensorType t = ta;
  for (int d = 0; d < t.dims.size(); ++d)
    if (ta.dims[d] != tb.dims[d]) t.dims[d] = kDynamic;
  if (ta.precision != tb.precision) t.precision = kUnknownPrecision;
  return Slot{SlotState::ok, s.types.intern(t)};
}

void infer_types(State& s) {
  TypeFlow(s).run();
}

}  // namespace mlvm::verify
