#include "kernels/dense.hpp"

namespace mlvm {

// Placeholder definitions: each is replaced by the real rule and kernel.

void infer_dense(InferContext&) { fail_invalid("op dense is not implemented yet"); }
void run_dense(KernelContext&) { fail_invalid("op dense is not implemented yet"); }
void infer_matmul(InferContext&) { fail_invalid("op matmul is not implemented yet"); }
void run_matmul(KernelContext&) { fail_invalid("op matmul is not implemented yet"); }

}  // namespace mlvm
