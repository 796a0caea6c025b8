// Ops of the 'control' family: static rules (infer_*) and kernels (run_*). See op_api.hpp.
#pragma once

#include "kernels/op_api.hpp"

namespace mlvm {

void infer_jmp(InferContext& ctx);
void run_jmp(KernelContext& ctx);
void infer_br(InferContext& ctx);
void run_br(KernelContext& ctx);
void infer_halt(InferContext& ctx);
void run_halt(KernelContext& ctx);
void infer_print(InferContext& ctx);
void run_print(KernelContext& ctx);

}  // namespace mlvm
