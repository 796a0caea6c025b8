// Ops of the 'transform' family: static rules (infer_*) and kernels (run_*). See op_api.hpp.
#pragma once

#include "kernels/op_api.hpp"

namespace mlvm {

void infer_repeat(InferContext& ctx);
void run_repeat(KernelContext& ctx);
void infer_tile(InferContext& ctx);
void run_tile(KernelContext& ctx);
void infer_concatenate(InferContext& ctx);
void run_concatenate(KernelContext& ctx);
void infer_take(InferContext& ctx);
void run_take(KernelContext& ctx);
void infer_cvm_lut(InferContext& ctx);
void run_cvm_lut(KernelContext& ctx);
void infer_pad(InferContext& ctx);
void run_pad(KernelContext& ctx);
void infer_roll(InferContext& ctx);
void run_roll(KernelContext& ctx);

}  // namespace mlvm
