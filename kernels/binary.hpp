// Ops of the 'binary' family: static rules (infer_*) and kernels (run_*). See op_api.hpp.
#pragma once

#include "kernels/op_api.hpp"

namespace mlvm {

void infer_add(InferContext& ctx);
void run_add(KernelContext& ctx);
void infer_sub(InferContext& ctx);
void run_sub(KernelContext& ctx);
void infer_mul(InferContext& ctx);
void run_mul(KernelContext& ctx);
void infer_div(InferContext& ctx);
void run_div(KernelContext& ctx);
void infer_maximum(InferContext& ctx);
void run_maximum(KernelContext& ctx);
void infer_minimum(InferContext& ctx);
void run_minimum(KernelContext& ctx);
void infer_elemwise_add(InferContext& ctx);
void run_elemwise_add(KernelContext& ctx);
void infer_elemwise_sub(InferContext& ctx);
void run_elemwise_sub(KernelContext& ctx);
void infer_elemwise_mul(InferContext& ctx);
void run_elemwise_mul(KernelContext& ctx);
void infer_less(InferContext& ctx);
void run_less(KernelContext& ctx);
void infer_less_equal(InferContext& ctx);
void run_less_equal(KernelContext& ctx);
void infer_greater(InferContext& ctx);
void run_greater(KernelContext& ctx);
void infer_greater_equal(InferContext& ctx);
void run_greater_equal(KernelContext& ctx);
void infer_equal(InferContext& ctx);
void run_equal(KernelContext& ctx);
void infer_not_equal(InferContext& ctx);
void run_not_equal(KernelContext& ctx);
void infer_logical_and(InferContext& ctx);
void run_logical_and(KernelContext& ctx);
void infer_logical_or(InferContext& ctx);
void run_logical_or(KernelContext& ctx);
void infer_where(InferContext& ctx);
void run_where(KernelContext& ctx);

}  // namespace mlvm
