#include "cvm/emitter.hpp"

#include <cctype>

#include "bytecode/names.hpp"
#include "ir/attr_check.hpp"
#include "ir/infer.hpp"
#include "ir/op_table.hpp"
#include "tensor/error.hpp"

namespace mlvm {

std::string cvm_register_name(const std::string& cvm_name) {
  std::string s;
  for (char c : cvm_name) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.') ? c : '_';
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '.') s = "_" + s;
  if (is_literal_word(s)) s = "_" + s;
  return s;
}

std::string CvmEmitter::fresh_name(const std::string& want) {
  const std::string base = cvm_register_name(want);
  std::string name = base;
  for (int k = 2; types_.count(name); ++k) name = base + "_" + std::to_string(k);
  return name;
}

std::string CvmEmitter::input(const std::string& want, const TensorType& type) {
  std::string name = fresh_name(want);
  builder_.input(name, type);
  types_[name] = type;
  declared_[name] = true;
  return name;
}

std::string CvmEmitter::constant(const std::string& want, const Tensor& value) {
  std::string name = fresh_name(want);
  builder_.constant(name, value);
  types_[name] = type_of(value);
  declared_[name] = true;
  return name;
}

std::vector<std::string> CvmEmitter::emit_n(std::string_view op_name, const std::vector<std::string>& args,
                                             const std::vector<NamedAttr>& attrs, const std::string& result_hint) {
  const OpInfo* op = find_op(op_name);
  if (!op) fail_invalid("internal: no mlvm op '" + std::string(op_name) + "'");
  Attrs checked = resolve_attrs(*op, attrs);
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
  InferContext ctx{in, checked, {}, InferOptions{false, false}};
  infer_fn(op->code)(ctx);
  std::vector<std::string> results;
  for (std::size_t k = 0; k < ctx.out.size(); ++k) {
    std::string r = fresh_name(k == 0 ? result_hint : result_hint + "." + std::to_string(k));
    types_[r] = ctx.out[k];
    results.push_back(r);
  }
  builder_.emit(results, op_name, args, attrs);
  origins_.push_back(origin_);
  return results;
}

std::string CvmEmitter::emit(std::string_view op, const std::vector<std::string>& args,
                             const std::vector<NamedAttr>& attrs, const std::string& result_hint) {
  std::vector<std::string> r = emit_n(op, args, attrs, result_hint);
  if (r.size() != 1) fail_invalid("internal: op " + std::string(op) + " has " + std::to_string(r.size()) + " results");
  return r[0];
}

const TensorType& CvmEmitter::type(const std::string& reg) const {
  auto it = types_.find(reg);
  if (it == types_.end()) fail_invalid("internal: no register '" + reg + "'");
  return it->second;
}

bool CvmEmitter::is_declared(const std::string& reg) const { return declared_.count(reg) != 0; }

Module CvmEmitter::finish() const {
  Module m = builder_.build();
  m.origins = origins_;
  return m;
}

}  // namespace mlvm
