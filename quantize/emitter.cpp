#include "quantize/emitter.hpp"

#include "bytecode/names.hpp"
#include "ir/op_table.hpp"
#include "tensor/error.hpp"

namespace mlvm::quant {

std::string Emitter::fresh(const std::string& want, bool exact) {
  // An exact name is an input's or output's, which the module keeps whatever its spelling (an
  // ONNX input "0" or "onnx::x", quoted in the text). It may already be a register: the float
  // program wrote its output into an input's or constant's register (`x = dense x, w` with
  // `.output x`), and so does this one, at the same point (nothing reads the register's old
  // value afterwards).
  if (exact) return want;
  return b_.fresh_name(is_identifier(want) && !is_literal_word(want) ? want : "t");
}

std::string Emitter::input(const std::string& name, const TensorType& type) {
  const std::string r = fresh(name, true);
  b_.input(r, type);
  return r;
}

std::string Emitter::constant(const std::string& want, const Tensor& value, bool exact) {
  const std::string r = fresh(want, exact);
  b_.constant(r, value);
  return r;
}

std::vector<std::string> Emitter::write(Opcode op, const std::vector<std::string>& args,
                                        std::vector<AttrValue> attrs,
                                        const std::vector<std::string>& want,
                                        const std::vector<bool>& exact, const std::string& over) {
  TypedOp typed = b_.type_op(op, std::move(attrs), b_.arg_types(args));
  std::vector<std::string> results;
  for (std::size_t k = 0; k < typed.types.size(); ++k) {
    const std::string w = k < want.size() ? want[k]
                          : want.empty()  ? "t"
                                          : want[0] + "_" + std::to_string(k);
    results.push_back(!over.empty() ? over : fresh(w, k < exact.size() && exact[k]));
  }
  b_.append(results, typed, args);
  return results;
}

void Emitter::write_over(const std::string& reg, Opcode op, const std::vector<std::string>& args,
                         std::vector<AttrValue> attrs) {
  if (!b_.has(reg) || b_.is_declared(reg) || op_info(op).num_results != 1)
    fail_invalid("internal: cannot overwrite '" + reg + "' with " + op_info(op).name);
  write(op, args, std::move(attrs), {reg}, {}, reg);
}

std::string Emitter::one(std::vector<std::string> results) {
  if (results.size() != 1)
    fail_invalid("internal: an op with " + std::to_string(results.size()) + " results");
  return results[0];
}

void Emitter::output(const std::string& reg, const OutputDecl* like) {
  std::optional<TensorType> t;
  if (like && like->has_type) t = like->type;
  b_.output(reg, t);
}

Module Emitter::finish() const {
  Module m = b_.finish(TypedBuilder::Numbering::as_assembler);
  m.precision_check = precision_check_;
  return m;
}

}  // namespace mlvm::quant
