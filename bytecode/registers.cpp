#include "bytecode/registers.hpp"

#include "tensor/error.hpp"

namespace mlvm {

int32_t RegisterNames::operator()(const std::string& name) {
  auto [it, inserted] = number_.try_emplace(name, size());
  if (inserted) names_.push_back(name);
  return it->second;
}

void RegisterNames::rename(const std::string& from, const std::string& to) {
  auto it = number_.find(from);
  if (it == number_.end()) fail(ErrorKind::usage, "rename: no register '" + from + "'");
  if (has(to)) fail(ErrorKind::usage, "rename: register '" + to + "' exists");
  const int32_t r = it->second;
  number_.erase(it);
  number_[to] = r;
  names_[std::size_t(r)] = to;
}

void pad_optional_inputs(const OpInfo& op, Instruction& ins) {
  const int n = int(ins.args.size());
  if (op.max_inputs() != INT32_MAX && n >= op.min_inputs() && n < op.max_inputs())
    ins.args.resize(std::size_t(op.max_inputs()), kNoRegister);
}

}  // namespace mlvm
