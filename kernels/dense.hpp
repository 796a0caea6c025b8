// Ops of the 'dense' family: static rules (infer_*) and kernels (run_*). See op_api.hpp.
#pragma once

#include "kernels/op_api.hpp"

namespace mlvm {

void infer_dense(InferContext& ctx);
void run_dense(KernelContext& ctx);
void infer_matmul(InferContext& ctx);
void run_matmul(KernelContext& ctx);

}  // namespace mlvm
