// Field-by-field Module comparison for round-trip tests: an empty string when equal, else the
// first difference.
#pragma once

#include <cstring>
#include <string>

#include "bytecode/module.hpp"
#include "tensor/copy.hpp"

namespace mlvm::testing {

inline std::string tensor_difference(const Tensor& a, const Tensor& b) {
  if (a.defined() != b.defined()) return "one tensor is undefined";
  if (!a.defined()) return "";
  if (a.dtype() != b.dtype() || !(a.shape() == b.shape()))
    return a.type_string() + " vs " + b.type_string();
  if ((a.mode() == ValueMode::constant) != (b.mode() == ValueMode::constant))
    return "fill vs dense";
  Tensor ca =
      contiguous(a.mode() == ValueMode::constant ? a.with_layout(Dims{1}, Dims{0}, a.offset()) : a);
  Tensor cb =
      contiguous(b.mode() == ValueMode::constant ? b.with_layout(Dims{1}, Dims{0}, b.offset()) : b);
  if (ca.numel() != cb.numel() ||
      std::memcmp(ca.raw_data(), cb.raw_data(), std::size_t(ca.numel() * ca.itemsize())) != 0)
    return "data differs";
  return "";
}

// `compare_names`: false when one side has no register names (a stripped module).
inline std::string module_difference(const Module& a, const Module& b, bool compare_names = true) {
  if (a.name != b.name) return "name: " + a.name + " vs " + b.name;
  if (compare_names && a.register_names != b.register_names) return "register names";
  if (a.num_registers() != b.num_registers()) return "register count";
  if (a.inputs.size() != b.inputs.size()) return "input count";
  for (std::size_t k = 0; k < a.inputs.size(); ++k)
    if (a.inputs[k].name != b.inputs[k].name || a.inputs[k].reg != b.inputs[k].reg ||
        !(a.inputs[k].type == b.inputs[k].type))
      return "input " + a.inputs[k].name;
  if (a.constants.size() != b.constants.size()) return "constant count";
  for (std::size_t k = 0; k < a.constants.size(); ++k) {
    const auto &x = a.constants[k], &y = b.constants[k];
    if (x.name != y.name || x.reg != y.reg || !(x.type == y.type))
      return "constant " + x.name + ": " + x.type.to_string() + " vs " + y.type.to_string();
    std::string d = tensor_difference(x.value, y.value);
    if (!d.empty()) return "constant " + x.name + ": " + d;
  }
  if (a.outputs.size() != b.outputs.size()) return "output count";
  for (std::size_t k = 0; k < a.outputs.size(); ++k) {
    const auto &x = a.outputs[k], &y = b.outputs[k];
    if (x.name != y.name || x.reg != y.reg || x.has_type != y.has_type ||
        (x.has_type && !(x.type == y.type)))
      return "output " + x.name;
  }
  if (a.code.size() != b.code.size()) return "instruction count";
  for (std::size_t pc = 0; pc < a.code.size(); ++pc) {
    const auto &x = a.code[pc], &y = b.code[pc];
    std::string at = "instruction " + std::to_string(pc) + " (" + op_info(x.op).name + "): ";
    if (x.op != y.op) return at + "opcode";
    if (x.results != y.results) return at + "results";
    if (x.args != y.args) return at + "args";
    if (!(x.attrs == y.attrs)) return at + "attrs";
    if (x.target != y.target) return at + "target";
  }
  if (a.lines != b.lines) return "lines";
  if (a.source_name != b.source_name) return "source name";
  if (a.labels != b.labels) return "labels";
  return "";
}

}  // namespace mlvm::testing
