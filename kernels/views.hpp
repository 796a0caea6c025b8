// Ops of the 'views' family: static rules (infer_*) and kernels (run_*). See op_api.hpp.
#pragma once

#include "kernels/op_api.hpp"

namespace mlvm {

void infer_transpose(InferContext& ctx);
void run_transpose(KernelContext& ctx);
void infer_broadcast_to(InferContext& ctx);
void run_broadcast_to(KernelContext& ctx);
void infer_expand_dims(InferContext& ctx);
void run_expand_dims(KernelContext& ctx);
void infer_squeeze(InferContext& ctx);
void run_squeeze(KernelContext& ctx);
void infer_reshape(InferContext& ctx);
void run_reshape(KernelContext& ctx);
void infer_flatten(InferContext& ctx);
void run_flatten(KernelContext& ctx);
void infer_strided_slice(InferContext& ctx);
void run_strided_slice(KernelContext& ctx);
void infer_slice_like(InferContext& ctx);
void run_slice_like(KernelContext& ctx);
void infer_flip(InferContext& ctx);
void run_flip(KernelContext& ctx);
void infer_rot90(InferContext& ctx);
void run_rot90(KernelContext& ctx);
void infer_zeros(InferContext& ctx);
void run_zeros(KernelContext& ctx);
void infer_ones(InferContext& ctx);
void run_ones(KernelContext& ctx);
void infer_full(InferContext& ctx);
void run_full(KernelContext& ctx);
void infer_copy(InferContext& ctx);
void run_copy(KernelContext& ctx);

}  // namespace mlvm
