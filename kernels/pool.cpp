#include "kernels/pool.hpp"

namespace mlvm {

// Placeholder definitions: each is replaced by the real rule and kernel.

void infer_max_pool2d(InferContext&) { fail_invalid("op max_pool2d is not implemented yet"); }
void run_max_pool2d(KernelContext&) { fail_invalid("op max_pool2d is not implemented yet"); }
void infer_avg_pool2d(InferContext&) { fail_invalid("op avg_pool2d is not implemented yet"); }
void run_avg_pool2d(KernelContext&) { fail_invalid("op avg_pool2d is not implemented yet"); }
void infer_upsampling(InferContext&) { fail_invalid("op upsampling is not implemented yet"); }
void run_upsampling(KernelContext&) { fail_invalid("op upsampling is not implemented yet"); }

}  // namespace mlvm
