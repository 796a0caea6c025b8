#include "kernels/unary.hpp"

namespace mlvm {

// Placeholder definitions: each is replaced by the real rule and kernel.

void infer_abs(InferContext&) { fail_invalid("op abs is not implemented yet"); }
void run_abs(KernelContext&) { fail_invalid("op abs is not implemented yet"); }
void infer_negative(InferContext&) { fail_invalid("op negative is not implemented yet"); }
void run_negative(KernelContext&) { fail_invalid("op negative is not implemented yet"); }
void infer_relu(InferContext&) { fail_invalid("op relu is not implemented yet"); }
void run_relu(KernelContext&) { fail_invalid("op relu is not implemented yet"); }
void infer_sign(InferContext&) { fail_invalid("op sign is not implemented yet"); }
void run_sign(KernelContext&) { fail_invalid("op sign is not implemented yet"); }
void infer_exp(InferContext&) { fail_invalid("op exp is not implemented yet"); }
void run_exp(KernelContext&) { fail_invalid("op exp is not implemented yet"); }
void infer_log(InferContext&) { fail_invalid("op log is not implemented yet"); }
void run_log(KernelContext&) { fail_invalid("op log is not implemented yet"); }
void infer_sqrt(InferContext&) { fail_invalid("op sqrt is not implemented yet"); }
void run_sqrt(KernelContext&) { fail_invalid("op sqrt is not implemented yet"); }
void infer_tanh(InferContext&) { fail_invalid("op tanh is not implemented yet"); }
void run_tanh(KernelContext&) { fail_invalid("op tanh is not implemented yet"); }
void infer_sigmoid(InferContext&) { fail_invalid("op sigmoid is not implemented yet"); }
void run_sigmoid(KernelContext&) { fail_invalid("op sigmoid is not implemented yet"); }
void infer_clip(InferContext&) { fail_invalid("op clip is not implemented yet"); }
void run_clip(KernelContext&) { fail_invalid("op clip is not implemented yet"); }
void infer_cast(InferContext&) { fail_invalid("op cast is not implemented yet"); }
void run_cast(KernelContext&) { fail_invalid("op cast is not implemented yet"); }
void infer_cvm_clip(InferContext&) { fail_invalid("op cvm_clip is not implemented yet"); }
void run_cvm_clip(KernelContext&) { fail_invalid("op cvm_clip is not implemented yet"); }
void infer_cvm_right_shift(InferContext&) { fail_invalid("op cvm_right_shift is not implemented yet"); }
void run_cvm_right_shift(KernelContext&) { fail_invalid("op cvm_right_shift is not implemented yet"); }
void infer_cvm_left_shift(InferContext&) { fail_invalid("op cvm_left_shift is not implemented yet"); }
void run_cvm_left_shift(KernelContext&) { fail_invalid("op cvm_left_shift is not implemented yet"); }
void infer_cvm_precision(InferContext&) { fail_invalid("op cvm_precision is not implemented yet"); }
void run_cvm_precision(KernelContext&) { fail_invalid("op cvm_precision is not implemented yet"); }
void infer_logical_not(InferContext&) { fail_invalid("op logical_not is not implemented yet"); }
void run_logical_not(KernelContext&) { fail_invalid("op logical_not is not implemented yet"); }

}  // namespace mlvm
