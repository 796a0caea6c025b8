// The op table (ir/ops.def): what an op is — name, inputs, results, attributes, flags — for
// every part of mlvm. Its static rule is infer_fn(code) (ir/infer.hpp); its kernel lives in
// kernels/ (kernels/run_table.hpp).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/attrs.hpp"
#include "ir/opcode.hpp"

namespace mlvm {

struct InputSpec {
  std::string name;
  bool optional = false;
  bool variadic = false;
};

struct OpInfo {
  Opcode code;
  std::string name;
  std::vector<std::string> aliases;
  std::vector<InputSpec> inputs;
  int num_results = 0;
  AttrSet attr_set = AttrSet::none;
  std::span<const AttrSpec> attrs;  // the set's specs, in declared (stored) order
  uint32_t flags = 0;

  int min_inputs() const;
  int max_inputs() const;  // INT32_MAX when variadic
  int attr_index(std::string_view attr_name) const;  // -1 if unknown
};

const OpInfo& op_info(Opcode code);
bool opcode_valid(uint32_t code);
// By name or alias; null if unknown.
const OpInfo* find_op(std::string_view name);
// The closest op name (edit distance <= 2), for "did you mean" hints; empty if none.
std::string suggest_op(std::string_view name);
std::span<const OpInfo> all_ops();

// Levenshtein distance, for suggestions.
int edit_distance(std::string_view a, std::string_view b);

}  // namespace mlvm
