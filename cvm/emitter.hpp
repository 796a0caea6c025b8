// The importer's module builder: registers by name over ModuleBuilder, and every instruction
// typed by its op's static rule as it is emitted, so the lowering of a node sees the mlvm type
// of everything it reads and a node mlvm cannot type fails at that node, in graph order. The
// precision proof is not made here: the importer verifies the finished module once, strictly.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "bytecode/builder.hpp"
#include "ir/types.hpp"
#include "tensor/tensor.hpp"

namespace mlvm {

class CvmEmitter {
 public:
  explicit CvmEmitter(std::string program_name) : builder_(std::move(program_name)) {}

  // Declarations; each returns the register's name (derived from `want`, made unique).
  std::string input(const std::string& want, const TensorType& type);
  std::string constant(const std::string& want, const Tensor& value);

  // results = op args..., attrs; "none" is an omitted optional input. Error(invalid) from the
  // op's attribute check or static rule.
  std::vector<std::string> emit_n(std::string_view op, const std::vector<std::string>& args,
                                  const std::vector<NamedAttr>& attrs = {},
                                  const std::string& result_hint = "t");
  std::string emit(std::string_view op, const std::vector<std::string>& args,
                   const std::vector<NamedAttr>& attrs = {}, const std::string& result_hint = "t");

  const TensorType& type(const std::string& reg) const;
  const Dims& dims(const std::string& reg) const { return type(reg).dims; }
  bool is_declared(const std::string& reg) const;  // an input or a constant

  // Origin recorded for the instructions emitted from now on ("conv2d 'conv0' (node 3)").
  void set_origin(std::string origin) { origin_ = std::move(origin); }
  int32_t size() const { return builder_.size(); }

  void output(const std::string& reg) { builder_.output(reg); }
  Module finish() const;

 private:
  std::string fresh_name(const std::string& want);

  ModuleBuilder builder_;
  std::map<std::string, TensorType> types_;
  std::map<std::string, bool> declared_;
  std::vector<std::string> origins_;
  std::string origin_;
};

// An mlvm identifier for a CVM name: [A-Za-z_][A-Za-z0-9_.]*, other characters -> '_'.
std::string cvm_register_name(const std::string& cvm_name);

}  // namespace mlvm
