#include "kernels/binary.hpp"

namespace mlvm {

// Placeholder definitions: each is replaced by the real rule and kernel.

void infer_add(InferContext&) { fail_invalid("op add is not implemented yet"); }
void run_add(KernelContext&) { fail_invalid("op add is not implemented yet"); }
void infer_sub(InferContext&) { fail_invalid("op sub is not implemented yet"); }
void run_sub(KernelContext&) { fail_invalid("op sub is not implemented yet"); }
void infer_mul(InferContext&) { fail_invalid("op mul is not implemented yet"); }
void run_mul(KernelContext&) { fail_invalid("op mul is not implemented yet"); }
void infer_div(InferContext&) { fail_invalid("op div is not implemented yet"); }
void run_div(KernelContext&) { fail_invalid("op div is not implemented yet"); }
void infer_maximum(InferContext&) { fail_invalid("op maximum is not implemented yet"); }
void run_maximum(KernelContext&) { fail_invalid("op maximum is not implemented yet"); }
void infer_minimum(InferContext&) { fail_invalid("op minimum is not implemented yet"); }
void run_minimum(KernelContext&) { fail_invalid("op minimum is not implemented yet"); }
void infer_elemwise_add(InferContext&) { fail_invalid("op elemwise_add is not implemented yet"); }
void run_elemwise_add(KernelContext&) { fail_invalid("op elemwise_add is not implemented yet"); }
void infer_elemwise_sub(InferContext&) { fail_invalid("op elemwise_sub is not implemented yet"); }
void run_elemwise_sub(KernelContext&) { fail_invalid("op elemwise_sub is not implemented yet"); }
void infer_elemwise_mul(InferContext&) { fail_invalid("op elemwise_mul is not implemented yet"); }
void run_elemwise_mul(KernelContext&) { fail_invalid("op elemwise_mul is not implemented yet"); }
void infer_less(InferContext&) { fail_invalid("op less is not implemented yet"); }
void run_less(KernelContext&) { fail_invalid("op less is not implemented yet"); }
void infer_less_equal(InferContext&) { fail_invalid("op less_equal is not implemented yet"); }
void run_less_equal(KernelContext&) { fail_invalid("op less_equal is not implemented yet"); }
void infer_greater(InferContext&) { fail_invalid("op greater is not implemented yet"); }
void run_greater(KernelContext&) { fail_invalid("op greater is not implemented yet"); }
void infer_greater_equal(InferContext&) { fail_invalid("op greater_equal is not implemented yet"); }
void run_greater_equal(KernelContext&) { fail_invalid("op greater_equal is not implemented yet"); }
void infer_equal(InferContext&) { fail_invalid("op equal is not implemented yet"); }
void run_equal(KernelContext&) { fail_invalid("op equal is not implemented yet"); }
void infer_not_equal(InferContext&) { fail_invalid("op not_equal is not implemented yet"); }
void run_not_equal(KernelContext&) { fail_invalid("op not_equal is not implemented yet"); }
void infer_logical_and(InferContext&) { fail_invalid("op logical_and is not implemented yet"); }
void run_logical_and(KernelContext&) { fail_invalid("op logical_and is not implemented yet"); }
void infer_logical_or(InferContext&) { fail_invalid("op logical_or is not implemented yet"); }
void run_logical_or(KernelContext&) { fail_invalid("op logical_or is not implemented yet"); }
void infer_where(InferContext&) { fail_invalid("op where is not implemented yet"); }
void run_where(KernelContext&) { fail_invalid("op where is not implemented yet"); }

}  // namespace mlvm
