#include "kernels/reduce.hpp"

namespace mlvm {

// Placeholder definitions: each is replaced by the real rule and kernel.

void infer_sum(InferContext&) { fail_invalid("op sum is not implemented yet"); }
void run_sum(KernelContext&) { fail_invalid("op sum is not implemented yet"); }
void infer_max(InferContext&) { fail_invalid("op max is not implemented yet"); }
void run_max(KernelContext&) { fail_invalid("op max is not implemented yet"); }
void infer_min(InferContext&) { fail_invalid("op min is not implemented yet"); }
void run_min(KernelContext&) { fail_invalid("op min is not implemented yet"); }
void infer_mean(InferContext&) { fail_invalid("op mean is not implemented yet"); }
void run_mean(KernelContext&) { fail_invalid("op mean is not implemented yet"); }
void infer_argmax(InferContext&) { fail_invalid("op argmax is not implemented yet"); }
void run_argmax(KernelContext&) { fail_invalid("op argmax is not implemented yet"); }
void infer_argmin(InferContext&) { fail_invalid("op argmin is not implemented yet"); }
void run_argmin(KernelContext&) { fail_invalid("op argmin is not implemented yet"); }

}  // namespace mlvm
