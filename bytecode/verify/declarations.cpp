// Verifier pass: the inputs, constants and outputs on their own (names, registers, types,
// constant data), and the register states they give instruction 0.
#include <set>

#include "bytecode/names.hpp"
#include "bytecode/verify/state.hpp"
#include "ir/precision.hpp"

namespace mlvm::verify {

namespace {

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

// Exact precision of a constant's data; a constant-mode tensor is read once, not per element.
int const_precision(const Tensor& t) {
  if (!is_signed_int(t.dtype())) return kUnknownPrecision;
  if (t.mode() == ValueMode::constant && t.numel() > 0) {
    std::vector<int64_t> zero(std::size_t(t.rank()), 0);
    return precision_of_value(t.get_int(zero));
  }
  return precision_of_tensor(t);
}

class Declarations {
 public:
  explicit Declarations(State& s) : s_(s), declared_(std::size_t(s.nregs), 0) {}

  void run() {
    for (std::size_t k = 0; k < s_.m.inputs.size(); ++k) input(int32_t(k));
    for (std::size_t k = 0; k < s_.m.constants.size(); ++k) constant(int32_t(k));
    std::set<std::string> out_names;
    for (std::size_t k = 0; k < s_.m.outputs.size(); ++k) output(int32_t(k), out_names);
    // What the front end could not declare is of unknown value, and declared all the same.
    for (int32_t r : s_.gaps.unknown_registers) {
      if (!s_.reg_in_range(r)) continue;
      s_.entry[std::size_t(r)] = Slot{SlotState::poison, -1};
      s_.assigned[std::size_t(r)] = 1;
    }
  }

 private:
  State& s_;
  std::vector<uint8_t> declared_;  // per register: an input or constant lives there
  std::set<std::string> names_;    // input and constant names

  void poison(int32_t reg) {
    if (!s_.reg_in_range(reg)) return;
    s_.entry[std::size_t(reg)] = Slot{SlotState::poison, -1};  // no cascade
    s_.assigned[std::size_t(reg)] = 1;
  }

  // A rank-0 declaration is held as one element of rank 1.
  static bool is_scalar_type(const TensorType& t) { return t.dims.size() == 1 && t.dims[0] == 1; }

  bool check_name(VerifyDiagnostic base, const std::string& kind, const std::string& name,
                  int32_t reg, bool unique_among_values) {
    if (!is_declaration_name(name)) {
      base.message = kind + " name " + quoted(name.substr(0, 200)) +
                     " is not a valid name (non-empty UTF-8 text without control characters)";
      s_.error(base);
      return false;
    }
    if (unique_among_values && !names_.insert(name).second) {
      base.message = kind + " name '" + name + "' is declared twice";
      s_.error(base);
      return false;
    }
    if (!s_.reg_in_range(reg)) {
      base.message = kind + " '" + name + "' uses register " + std::to_string(reg) +
                     ", but the module has " + std::to_string(s_.nregs) + " registers";
      s_.error(base);
      return false;
    }
    // A module without debug info has unnamed registers; a named one must agree.
    const std::string& reg_name = s_.m.register_names[std::size_t(reg)];
    if (!reg_name.empty() && reg_name != name) {
      base.message = kind + " '" + name + "' is bound to register " + std::to_string(reg) +
                     " named '" + reg_name + "'; the names must agree";
      s_.error(base);
      return false;
    }
    return true;
  }

  void input(int32_t k) {
    const InputDecl& in = s_.m.inputs[std::size_t(k)];
    VerifyDiagnostic d;
    d.input = k;
    if (!check_name(d, "input", in.name, in.reg, true)) return poison(in.reg);
    if (declared_[std::size_t(in.reg)]++) {
      d.message = "input '" + in.name + "' shares register " + std::to_string(in.reg) +
                  " with another declaration";
      return s_.error(d);
    }
    s_.assigned[std::size_t(in.reg)] = 1;
    std::string p = type_problem(in.type, true);
    if (!p.empty()) {
      d.message = "input '" + in.name + "' has an invalid type: " + p;
      s_.error(d);
      return poison(in.reg);
    }
    if (in.scalar && !is_scalar_type(in.type)) {
      d.message = "input '" + in.name + "' is declared rank 0, so its type must be " +
                  std::string(dtype_name(in.type.dtype)) + "[1], not " + in.type.to_string();
      s_.error(d);
      return poison(in.reg);
    }
    s_.entry[std::size_t(in.reg)] = Slot{SlotState::ok, s_.types.intern(in.type)};
  }

  void constant(int32_t k) {
    const ConstDecl& c = s_.m.constants[std::size_t(k)];
    VerifyDiagnostic d;
    d.constant = k;
    if (!check_name(d, "constant", c.name, c.reg, true)) return poison(c.reg);
    s_.const_of[std::size_t(c.reg)] = k;
    if (declared_[std::size_t(c.reg)]++) {
      d.message = "constant '" + c.name + "' shares register " + std::to_string(c.reg) +
                  " with another declaration";
      return s_.error(d);
    }
    s_.assigned[std::size_t(c.reg)] = 1;
    TensorType declared = c.type;
    declared.precision = kUnknownPrecision;  // the module's claim is not used; see below
    std::string p = type_problem(declared, false);
    if (p.empty() && !c.value.defined()) p = "it has no data";
    if (p.empty() && (c.value.dtype() != c.type.dtype || !(c.value.shape() == c.type.dims)))
      p = "its data is " + c.value.type_string() + ", not " +
          TensorType{c.type.dtype, c.type.dims}.to_string();
    if (!p.empty()) {
      d.message = "constant '" + c.name + "' is invalid: " + p;
      s_.error(d);
      return poison(c.reg);
    }
    TensorType t = declared;
    t.precision = const_precision(c.value);  // computed, whatever the module says
    if (t.precision > signed_bits(t.dtype)) t.precision = kUnknownPrecision;  // e.g. -128 in i8
    s_.entry[std::size_t(c.reg)] = Slot{SlotState::ok, s_.types.intern(t)};
  }

  void output(int32_t k, std::set<std::string>& out_names) {
    const OutputDecl& o = s_.m.outputs[std::size_t(k)];
    VerifyDiagnostic d;
    d.output = k;
    if (!check_name(d, "output", o.name, o.reg, false)) return;
    if (!out_names.insert(o.name).second) {
      d.message = "output '" + o.name + "' is declared twice";
      return s_.error(d);
    }
    if (o.has_type) {
      std::string p = type_problem(o.type, true);
      if (!p.empty()) {
        d.message = "output '" + o.name + "' has an invalid type: " + p;
        s_.error(d);
      }
    }
    if (o.scalar && !(o.has_type && is_scalar_type(o.type))) {
      d.message = "output '" + o.name + "' is declared rank 0, so it must declare the type " +
                  "DTYPE[1]" + (o.has_type ? ", not " + o.type.to_string() : " (it has none)");
      s_.error(d);
    }
  }
};

}  // namespace

void check_declarations(State& s) {
  Declarations(s).run();
}

}  // namespace mlvm::verify
