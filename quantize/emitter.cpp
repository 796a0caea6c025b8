#include "quantize/emitter.hpp"

#include "bytecode/names.hpp"
#include "ir/attr_check.hpp"
#include "ir/infer.hpp"
#include "ir/precision.hpp"
#include "tensor/error.hpp"

namespace mlvm::quant {

std::string Emitter::fresh(const std::string& want, bool exact) {
  const std::string base = is_identifier(want) && !is_literal_word(want) ? want : "t";
  // An exact name may already be a register: the float program wrote its output into an input's
  // or constant's register (`x = dense x, w` with `.output x`), and so does this one, at the
  // same point (nothing reads the register's old value afterwards).
  if (exact) return base;
  std::string name = base;
  for (int k = 2; types_.count(name) || reserved_.count(name); ++k) name = base + "_" + std::to_string(k);
  return name;
}

std::string Emitter::input(const std::string& name, const TensorType& type) {
  const std::string r = fresh(name, true);
  builder_.input(r, type);
  types_[r] = type;
  declared_.insert(r);
  return r;
}

std::string Emitter::constant(const std::string& want, const Tensor& value, bool exact) {
  const std::string r = fresh(want, exact);
  builder_.constant(r, value);
  declared_.insert(r);
  TensorType t = type_of(value);
  t.precision = is_signed_int(value.dtype()) ? precision_of_tensor(value) : kUnknownPrecision;
  types_[r] = t;
  return r;
}

std::vector<std::string> Emitter::emit_checked(const OpInfo& op, const std::vector<std::string>& args,
                                               std::vector<AttrValue> values,
                                               const std::vector<std::string>& want,
                                               const std::vector<bool>& exact, const std::string& over) {
  Attrs checked = check_positional_attrs(op, values);
  std::vector<TensorType> in;
  for (const std::string& a : args) {
    if (a == "none") {
      TensorType absent;
      absent.present = false;
      in.push_back(absent);
    } else {
      in.push_back(type(a));
    }
  }
  // Precisions computed as the verifier computes them (the strict pass, and the overflow check
  // of arithmetic ops, run on the whole module at the end).
  InferContext ctx{in, checked, {}, InferOptions{precision_check_, false}};
  infer_fn(op.code)(ctx);
  std::vector<std::string> results;
  for (std::size_t k = 0; k < ctx.out.size(); ++k) {
    const std::string w = k < want.size() ? want[k] : want.empty() ? "t" : want[0] + "_" + std::to_string(k);
    results.push_back(!over.empty() ? over : fresh(w, k < exact.size() && exact[k]));
    types_[results.back()] = ctx.out[k];
    declared_.erase(results.back());  // it now holds a result, which a later step may overwrite
  }
  std::vector<NamedAttr> named;
  for (std::size_t k = 0; k < values.size() && k < op.attrs.size(); ++k)
    named.push_back(NamedAttr{op.attrs[k].name, values[k]});
  builder_.emit(results, op.name, args, named);
  origins_.push_back(origin_);
  locations_.push_back(location_);
  return results;
}

std::string Emitter::emit(std::string_view op_name, const std::vector<std::string>& args,
                          const std::vector<NamedAttr>& attrs, const std::string& want, bool exact) {
  const OpInfo* op = find_op(op_name);
  if (!op) fail_invalid("internal: no mlvm op '" + std::string(op_name) + "'");
  std::vector<std::string> r = emit_checked(*op, args, order_attrs(*op, attrs), {want}, {exact});
  if (r.size() != 1) fail_invalid("internal: " + std::string(op_name) + " has " + std::to_string(r.size()) + " results");
  return r[0];
}

void Emitter::emit_over(const std::string& reg, std::string_view op_name, const std::vector<std::string>& args,
                        const std::vector<NamedAttr>& attrs) {
  const OpInfo* op = find_op(op_name);
  if (!op) fail_invalid("internal: no mlvm op '" + std::string(op_name) + "'");
  if (!types_.count(reg) || declared_.count(reg) || op->num_results != 1)
    fail_invalid("internal: cannot overwrite '" + reg + "' with " + std::string(op_name));
  emit_checked(*op, args, order_attrs(*op, attrs), {reg}, {}, reg);
}

std::vector<std::string> Emitter::emit_stored(Opcode op, const std::vector<std::string>& args,
                                              const std::vector<AttrValue>& attrs,
                                              const std::vector<std::string>& want,
                                              const std::vector<bool>& exact) {
  return emit_checked(op_info(op), args, attrs, want, exact);
}

const TensorType& Emitter::type(const std::string& reg) const {
  auto it = types_.find(reg);
  if (it == types_.end()) fail_invalid("internal: no register '" + reg + "'");
  return it->second;
}

void Emitter::output(const std::string& reg, const OutputDecl* like) {
  std::optional<TensorType> t;
  if (like && like->has_type) t = like->type;
  builder_.output(reg, t);
}

namespace {

// Registers numbered as the assembler numbers them (inputs, constants, then results in order
// of first assignment, then outputs), so the module's text re-assembles to the same module.
void number_as_assembler(Module& m) {
  std::vector<int32_t> to(std::size_t(m.num_registers()), -1);
  std::vector<std::string> names;
  auto take = [&](int32_t& r) {
    if (r == kNoRegister) return;
    int32_t& n = to[std::size_t(r)];
    if (n < 0) {
      n = int32_t(names.size());
      names.push_back(m.register_names[std::size_t(r)]);
    }
    r = n;
  };
  for (InputDecl& d : m.inputs) take(d.reg);
  for (ConstDecl& d : m.constants) take(d.reg);
  for (Instruction& ins : m.code)
    for (int32_t& r : ins.results) take(r);
  for (Instruction& ins : m.code)
    for (int32_t& r : ins.args) take(r);
  for (OutputDecl& d : m.outputs) take(d.reg);
  m.register_names = std::move(names);
}

}  // namespace

Module Emitter::finish() const {
  Module m = builder_.build();
  number_as_assembler(m);
  m.origins = origins_;
  m.precision_check = precision_check_;
  return m;
}

}  // namespace mlvm::quant
