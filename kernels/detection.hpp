// Ops of the 'detection' family: static rules (infer_*) and kernels (run_*). See op_api.hpp.
#pragma once

#include "kernels/op_api.hpp"

namespace mlvm {

void infer_get_valid_count(InferContext& ctx);
void run_get_valid_count(KernelContext& ctx);
void infer_non_max_suppression(InferContext& ctx);
void run_non_max_suppression(KernelContext& ctx);

}  // namespace mlvm
