// The op table (see ops.def): what an op is, for every part of mlvm.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kernels/op_api.hpp"

namespace mlvm {

enum class Opcode : uint16_t {
#define MLVM_OP(id, name, alias, inputs, results, attrs, flags) id,
#include "bytecode/ops.def"
#undef MLVM_OP
  count_
};
inline constexpr int kNumOpcodes = int(Opcode::count_);

enum OpFlags : uint32_t {
  VIEW = 1u << 0,     // result shares its input's storage
  ARITH = 1u << 1,    // integer result is checked for precision overflow (ops.md §2)
  CONTROL = 1u << 2,  // jmp/br/halt/print: the interpreter runs it
};

struct InputSpec {
  std::string name;
  bool optional = false;
  bool variadic = false;
};

struct OpInfo {
  Opcode code;
  std::string name;
  std::string alias;  // "" if none
  std::vector<InputSpec> inputs;
  int num_results = 0;
  std::vector<AttrSpec> attrs;
  uint32_t flags = 0;
  InferFn infer = nullptr;  // null for control ops
  KernelFn run = nullptr;   // null for control ops
  std::string summary;

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

struct NamedAttr {
  std::string name;
  AttrValue value;
};

// Checks the given attributes against the op's specs (known name, no duplicate, right kind,
// in range, required ones present), converts bare ints to 1-tuples for `ints`, fills
// defaults, and returns them in declared order. On error throws Error(invalid); if
// `bad_index` is given it receives the position in `given` of the culprit (-1: a missing one).
Attrs resolve_attrs(const OpInfo& op, std::span<const NamedAttr> given, int* bad_index = nullptr);

// Checks attribute values already in declared order (the decoder's path: a module stores
// them positionally). Same checks as resolve_attrs; the values' `ints` caches are filled.
Attrs check_positional_attrs(const OpInfo& op, std::vector<AttrValue> values);

// Levenshtein distance, for suggestions.
int edit_distance(std::string_view a, std::string_view b);

}  // namespace mlvm
