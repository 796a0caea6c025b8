// The static rule and the kernel of every op, declared from the op table itself, so adding an
// op means one line in bytecode/ops.def plus infer_<id>/run_<id> in its family's .cpp file.
#pragma once

#include "kernels/op_api.hpp"

namespace mlvm {

#define MLVM_OP(id, name_, alias_, inputs_, results_, attrs_, flags_) \
  void infer_##id(InferContext& ctx);                                 \
  void run_##id(KernelContext& ctx);
#include "bytecode/ops.def"
#undef MLVM_OP

}  // namespace mlvm
