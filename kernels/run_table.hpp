// The kernels, declared from the op table: run_<id> is defined in its family's file
// (kernels/<family>.cpp), and kernel_fn(code) finds it by opcode.
#pragma once

#include "ir/opcode.hpp"
#include "kernels/op_api.hpp"

namespace mlvm {

#define MLVM_OP(code, id, inputs, results, attrs, flags) void run_##id(KernelContext& ctx);
#include "ir/ops.def"
#undef MLVM_OP

// The kernel of an op. Control ops' kernels only report that the interpreter runs them.
KernelFn kernel_fn(Opcode op);

}  // namespace mlvm
