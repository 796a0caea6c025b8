// Ops of the 'conv' family: static rules (infer_*) and kernels (run_*). See op_api.hpp.
#pragma once

#include "kernels/op_api.hpp"

namespace mlvm {

void infer_conv2d(InferContext& ctx);
void run_conv2d(KernelContext& ctx);

}  // namespace mlvm
