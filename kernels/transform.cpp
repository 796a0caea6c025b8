#include "kernels/transform.hpp"

namespace mlvm {

// Placeholder definitions: each is replaced by the real rule and kernel.

void infer_repeat(InferContext&) { fail_invalid("op repeat is not implemented yet"); }
void run_repeat(KernelContext&) { fail_invalid("op repeat is not implemented yet"); }
void infer_tile(InferContext&) { fail_invalid("op tile is not implemented yet"); }
void run_tile(KernelContext&) { fail_invalid("op tile is not implemented yet"); }
void infer_concatenate(InferContext&) { fail_invalid("op concatenate is not implemented yet"); }
void run_concatenate(KernelContext&) { fail_invalid("op concatenate is not implemented yet"); }
void infer_take(InferContext&) { fail_invalid("op take is not implemented yet"); }
void run_take(KernelContext&) { fail_invalid("op take is not implemented yet"); }
void infer_cvm_lut(InferContext&) { fail_invalid("op cvm_lut is not implemented yet"); }
void run_cvm_lut(KernelContext&) { fail_invalid("op cvm_lut is not implemented yet"); }
void infer_pad(InferContext&) { fail_invalid("op pad is not implemented yet"); }
void run_pad(KernelContext&) { fail_invalid("op pad is not implemented yet"); }
void infer_roll(InferContext&) { fail_invalid("op roll is not implemented yet"); }
void run_roll(KernelContext&) { fail_invalid("op roll is not implemented yet"); }

}  // namespace mlvm
