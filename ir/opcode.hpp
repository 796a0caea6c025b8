// Opcodes, numbered by the code column of ir/ops.def.
#pragma once

#include <cstdint>
#include <initializer_list>

namespace mlvm {

enum class Opcode : uint16_t {
#define MLVM_OP(code, id, inputs, results, attrs, flags) id = code,
#include "ir/ops.def"
#undef MLVM_OP
};

// How many ops there are; codes are dense: 0 .. kNumOpcodes-1, each used once (checked below).
inline constexpr int kNumOpcodes = 0
#define MLVM_OP(code, id, inputs, results, attrs, flags) +1
#include "ir/ops.def"
#undef MLVM_OP
    ;

namespace detail {
constexpr bool opcodes_dense() {
  bool seen[kNumOpcodes] = {};
  for (int code : {
#define MLVM_OP(code, id, inputs, results, attrs, flags) code,
#include "ir/ops.def"
#undef MLVM_OP
       }) {
    if (code < 0 || code >= kNumOpcodes || seen[code]) return false;
    seen[code] = true;
  }
  return true;
}
}  // namespace detail
static_assert(detail::opcodes_dense(), "ir/ops.def: opcodes must be 0..N-1, each used once");

enum OpFlags : uint32_t {
  VIEW = 1u << 0,     // result shares its input's storage
  ARITH = 1u << 1,    // integer result is checked for precision overflow
  CONTROL = 1u << 2,  // jmp/br/halt/print: the interpreter runs it
};

}  // namespace mlvm
