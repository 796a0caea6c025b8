#include "cvm/emitter.hpp"

#include "ir/op_table.hpp"
#include "tensor/error.hpp"

namespace mlvm {

std::string CvmEmitter::input(const std::string& want, const TensorType& type) {
  std::string name = b_.fresh_name(want);
  b_.input(name, type);
  return name;
}

std::string CvmEmitter::constant(const std::string& want, const Tensor& value) {
  std::string name = b_.fresh_name(want);
  b_.constant(name, value);
  return name;
}

std::vector<std::string> CvmEmitter::write(Opcode op, const std::vector<std::string>& args,
                                           std::vector<AttrValue> attrs,
                                           const std::string& result_hint) {
  TypedOp typed = b_.type_op(op, std::move(attrs), b_.arg_types(args));
  std::vector<std::string> results;
  for (std::size_t k = 0; k < typed.types.size(); ++k)
    results.push_back(b_.fresh_name(k == 0 ? result_hint : result_hint + "." + std::to_string(k)));
  b_.append(results, typed, args);
  return results;
}

std::string CvmEmitter::one(std::vector<std::string> results) {
  if (results.size() != 1)
    fail_invalid("internal: an op with " + std::to_string(results.size()) + " results");
  return results[0];
}

}  // namespace mlvm
