#include "kernels/views.hpp"

namespace mlvm {

// Placeholder definitions: each is replaced by the real rule and kernel.

void infer_transpose(InferContext&) { fail_invalid("op transpose is not implemented yet"); }
void run_transpose(KernelContext&) { fail_invalid("op transpose is not implemented yet"); }
void infer_broadcast_to(InferContext&) { fail_invalid("op broadcast_to is not implemented yet"); }
void run_broadcast_to(KernelContext&) { fail_invalid("op broadcast_to is not implemented yet"); }
void infer_expand_dims(InferContext&) { fail_invalid("op expand_dims is not implemented yet"); }
void run_expand_dims(KernelContext&) { fail_invalid("op expand_dims is not implemented yet"); }
void infer_squeeze(InferContext&) { fail_invalid("op squeeze is not implemented yet"); }
void run_squeeze(KernelContext&) { fail_invalid("op squeeze is not implemented yet"); }
void infer_reshape(InferContext&) { fail_invalid("op reshape is not implemented yet"); }
void run_reshape(KernelContext&) { fail_invalid("op reshape is not implemented yet"); }
void infer_flatten(InferContext&) { fail_invalid("op flatten is not implemented yet"); }
void run_flatten(KernelContext&) { fail_invalid("op flatten is not implemented yet"); }
void infer_strided_slice(InferContext&) { fail_invalid("op strided_slice is not implemented yet"); }
void run_strided_slice(KernelContext&) { fail_invalid("op strided_slice is not implemented yet"); }
void infer_slice_like(InferContext&) { fail_invalid("op slice_like is not implemented yet"); }
void run_slice_like(KernelContext&) { fail_invalid("op slice_like is not implemented yet"); }
void infer_flip(InferContext&) { fail_invalid("op flip is not implemented yet"); }
void run_flip(KernelContext&) { fail_invalid("op flip is not implemented yet"); }
void infer_rot90(InferContext&) { fail_invalid("op rot90 is not implemented yet"); }
void run_rot90(KernelContext&) { fail_invalid("op rot90 is not implemented yet"); }
void infer_zeros(InferContext&) { fail_invalid("op zeros is not implemented yet"); }
void run_zeros(KernelContext&) { fail_invalid("op zeros is not implemented yet"); }
void infer_ones(InferContext&) { fail_invalid("op ones is not implemented yet"); }
void run_ones(KernelContext&) { fail_invalid("op ones is not implemented yet"); }
void infer_full(InferContext&) { fail_invalid("op full is not implemented yet"); }
void run_full(KernelContext&) { fail_invalid("op full is not implemented yet"); }
void infer_copy(InferContext&) { fail_invalid("op copy is not implemented yet"); }
void run_copy(KernelContext&) { fail_invalid("op copy is not implemented yet"); }

}  // namespace mlvm
