// Ops of the 'reduce' family: static rules (infer_*) and kernels (run_*). See op_api.hpp.
#pragma once

#include "kernels/op_api.hpp"

namespace mlvm {

void infer_sum(InferContext& ctx);
void run_sum(KernelContext& ctx);
void infer_max(InferContext& ctx);
void run_max(KernelContext& ctx);
void infer_min(InferContext& ctx);
void run_min(KernelContext& ctx);
void infer_mean(InferContext& ctx);
void run_mean(KernelContext& ctx);
void infer_argmax(InferContext& ctx);
void run_argmax(KernelContext& ctx);
void infer_argmin(InferContext& ctx);
void run_argmin(KernelContext& ctx);

}  // namespace mlvm
