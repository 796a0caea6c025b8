#include "kernels/run_table.hpp"

#include <array>

namespace mlvm {

namespace {

constexpr std::array<KernelFn, kNumOpcodes> make_table() {
  std::array<KernelFn, kNumOpcodes> t{};
#define MLVM_OP(code, id, inputs, results, attrs, flags) t[code] = &run_##id;
#include "ir/ops.def"
#undef MLVM_OP
  return t;
}

constexpr std::array<KernelFn, kNumOpcodes> kTable = make_table();

}  // namespace

KernelFn kernel_fn(Opcode op) { return kTable[std::size_t(op)]; }

}  // namespace mlvm
