// ModuleBuilder: constructs Modules from C++ (tests, tools, converters) the way the assembler
// does from text — registers by name, ops by name, attributes by name (put in the op's order
// and filled with defaults by order_attrs), labels resolved at build().
//
//   ModuleBuilder b("mlp");
//   b.input("x", tensor_type(DType::f32, {kDynamic, 64}));
//   b.constant("w", w_tensor);
//   b.output("y");
//   b.emit({"y"}, "dense", {"x", "w", "none"});
//   Module m = b.build();
//
// The builder checks only what it needs to build (known op, known labels, known attribute
// names); everything else, attribute values included, is the verifier's job, so tests can
// build invalid programs on purpose.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bytecode/module.hpp"
#include "bytecode/registers.hpp"
#include "ir/attr_check.hpp"

namespace mlvm {

class ModuleBuilder {
 public:
  explicit ModuleBuilder(std::string program_name = {});

  // The register named `name`, created if new.
  int32_t reg(const std::string& name);

  // Declarations; each returns the register. The names become register names.
  // `scalar`: declared rank 0 (the type is then [1]); see InputDecl.
  int32_t input(const std::string& name, const TensorType& type, bool scalar = false);
  // The type is the tensor's; the precision is computed from the data.
  int32_t constant(const std::string& name, const Tensor& value);
  // A constant-mode tensor (one stored element): `.const NAME : T = fill(V)`.
  int32_t fill_constant(const std::string& name, DType dtype, const Dims& shape,
                        const Scalar& value);
  void output(const std::string& name, std::optional<TensorType> type = std::nullopt,
              bool scalar = false);

  // Line recorded for the instructions emitted from now on (0 = unknown).
  ModuleBuilder& at_line(uint32_t line);
  // Source file name recorded in the debug section.
  ModuleBuilder& source_name(std::string name);

  // DST... = OP ARG..., attrs. An argument "" or "none" is an omitted optional input.
  // Unknown op: Error(usage); an unknown, repeated or missing required attribute:
  // Error(invalid) from order_attrs.
  ModuleBuilder& emit(const std::vector<std::string>& results, std::string_view op,
                      const std::vector<std::string>& args,
                      const std::vector<NamedAttr>& attrs = {});
  // The same with the attributes as a module stores them (every one, in declared order).
  ModuleBuilder& emit(const std::vector<std::string>& results, Opcode op,
                      const std::vector<std::string>& args, std::vector<AttrValue> attrs);
  // `dst = op args...` with one result.
  ModuleBuilder& emit(const std::string& result, std::string_view op,
                      const std::vector<std::string>& args,
                      const std::vector<NamedAttr>& attrs = {});

  // Control flow. Labels may be used before they are placed.
  ModuleBuilder& label(const std::string& name);  // at the next instruction emitted
  ModuleBuilder& jmp(const std::string& label);
  ModuleBuilder& br(const std::string& cond, const std::string& label);
  ModuleBuilder& halt();
  ModuleBuilder& trap();
  ModuleBuilder& print(const std::string& x);

  // The code written so far, to go back to: rollback(checkpoint()) drops every instruction,
  // label and jump written since (registers named since stay, unused). A front end that tried
  // to build a part and failed leaves no trace of it in the code.
  struct Checkpoint {
    std::size_t code = 0, labels = 0, pending = 0;
  };
  Checkpoint checkpoint() const { return {module_.code.size(), labels_.size(), pending_targets_.size()}; }
  void rollback(const Checkpoint& at);

  // Gives the register named `from` the name `to` (which no register has yet).
  void rename(const std::string& from, const std::string& to);

  int32_t size() const { return int32_t(module_.code.size()); }

  // Resolves labels (Error(usage) naming an unknown or duplicate label) and returns the module.
  Module build() const;

 private:
  Module module_;
  RegisterNames regs_;
  std::vector<std::pair<std::string, int32_t>> labels_;           // name, instruction index
  std::vector<std::pair<int32_t, std::string>> pending_targets_;  // instruction, label
  uint32_t line_ = 0;
};

// Small helpers for writing types in C++.
TensorType tensor_type(DType dtype, std::initializer_list<int64_t> dims,
                       int precision = kUnknownPrecision);

}  // namespace mlvm
