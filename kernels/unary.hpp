// Ops of the 'unary' family: static rules (infer_*) and kernels (run_*). See op_api.hpp.
#pragma once

#include "kernels/op_api.hpp"

namespace mlvm {

void infer_abs(InferContext& ctx);
void run_abs(KernelContext& ctx);
void infer_negative(InferContext& ctx);
void run_negative(KernelContext& ctx);
void infer_relu(InferContext& ctx);
void run_relu(KernelContext& ctx);
void infer_sign(InferContext& ctx);
void run_sign(KernelContext& ctx);
void infer_exp(InferContext& ctx);
void run_exp(KernelContext& ctx);
void infer_log(InferContext& ctx);
void run_log(KernelContext& ctx);
void infer_sqrt(InferContext& ctx);
void run_sqrt(KernelContext& ctx);
void infer_tanh(InferContext& ctx);
void run_tanh(KernelContext& ctx);
void infer_sigmoid(InferContext& ctx);
void run_sigmoid(KernelContext& ctx);
void infer_clip(InferContext& ctx);
void run_clip(KernelContext& ctx);
void infer_cast(InferContext& ctx);
void run_cast(KernelContext& ctx);
void infer_cvm_clip(InferContext& ctx);
void run_cvm_clip(KernelContext& ctx);
void infer_cvm_right_shift(InferContext& ctx);
void run_cvm_right_shift(KernelContext& ctx);
void infer_cvm_left_shift(InferContext& ctx);
void run_cvm_left_shift(KernelContext& ctx);
void infer_cvm_precision(InferContext& ctx);
void run_cvm_precision(KernelContext& ctx);
void infer_logical_not(InferContext& ctx);
void run_logical_not(KernelContext& ctx);

}  // namespace mlvm
