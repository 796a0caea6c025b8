// The static rule of every op, indexed by opcode (ir/ops.def).
#include <array>

#include "ir/infer.hpp"

namespace mlvm {

namespace {
constexpr std::array<InferFn, kNumOpcodes> make_table() {
  std::array<InferFn, kNumOpcodes> t{};
#define MLVM_OP(code, id, inputs, results, attrs, flags) t[code] = &infer_##id;
#include "ir/ops.def"
#undef MLVM_OP
  return t;
}
constexpr std::array<InferFn, kNumOpcodes> kTable = make_table();
}  // namespace

InferFn infer_fn(Opcode op) { return kTable[std::size_t(op)]; }

}  // namespace mlvm
