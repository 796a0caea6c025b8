// Registers by name, numbered in order of first mention, and the one rule for what a module
// stores of an instruction's omitted optional inputs. The assembler's lowering numbers a
// program's registers with it (declarations first, so inputs, constants, then results), and
// so does ModuleBuilder, under every producer that builds modules from C++.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "bytecode/module.hpp"
#include "ir/op_table.hpp"

namespace mlvm {

class RegisterNames {
 public:
  // The register named `name`, numbered next if new.
  int32_t operator()(const std::string& name);
  bool has(const std::string& name) const { return number_.count(name) != 0; }
  // Gives register `from` the name `to`: Error(usage) unless `from` exists and `to` does not.
  void rename(const std::string& from, const std::string& to);
  int32_t size() const { return int32_t(names_.size()); }
  // One name per register, by number (Module::register_names).
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::unordered_map<std::string, int32_t> number_;
  std::vector<std::string> names_;
};

// Omitted trailing optional inputs written out as kNoRegister slots, so every instruction of
// an op with a fixed number of inputs stores all of them; a count outside the op's range is
// left for the verifier to report.
void pad_optional_inputs(const OpInfo& op, Instruction& ins);

}  // namespace mlvm
