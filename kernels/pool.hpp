// Ops of the 'pool' family: static rules (infer_*) and kernels (run_*). See op_api.hpp.
#pragma once

#include "kernels/op_api.hpp"

namespace mlvm {

void infer_max_pool2d(InferContext& ctx);
void run_max_pool2d(KernelContext& ctx);
void infer_avg_pool2d(InferContext& ctx);
void run_avg_pool2d(KernelContext& ctx);
void infer_upsampling(InferContext& ctx);
void run_upsampling(KernelContext& ctx);

}  // namespace mlvm
