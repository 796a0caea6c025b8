#include "kernels/detection.hpp"

namespace mlvm {

// Placeholder definitions: each is replaced by the real rule and kernel.

void infer_get_valid_count(InferContext&) { fail_invalid("op get_valid_count is not implemented yet"); }
void run_get_valid_count(KernelContext&) { fail_invalid("op get_valid_count is not implemented yet"); }
void infer_non_max_suppression(InferContext&) { fail_invalid("op non_max_suppression is not implemented yet"); }
void run_non_max_suppression(KernelContext&) { fail_invalid("op non_max_suppression is not implemented yet"); }

}  // namespace mlvm
