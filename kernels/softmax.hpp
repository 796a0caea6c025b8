// Ops of the 'softmax' family: static rules (infer_*) and kernels (run_*). See op_api.hpp.
#pragma once

#include "kernels/op_api.hpp"

namespace mlvm {

void infer_softmax(InferContext& ctx);
void run_softmax(KernelContext& ctx);

}  // namespace mlvm
