#include "kernels/control.hpp"

namespace mlvm {

// Control ops have static rules (the verifier checks their operands) but no kernels: the
// interpreter executes them itself.

void infer_jmp(InferContext&) {}
void infer_halt(InferContext&) {}
void infer_print(InferContext&) {}

void infer_br(InferContext& ctx) {
  const TensorType& c = ctx.in[0];
  int64_t n = 1;
  bool dynamic = false;
  for (int64_t d : c.dims) {
    if (d == kDynamic) dynamic = true;
    else n *= d;
  }
  if (n != 1 && !(dynamic && n != 0))
    fail_invalid("br condition must have exactly one element, got " + c.to_string());
}

namespace {
[[noreturn]] void interpreter_only(const char* name) {
  fail(ErrorKind::usage, std::string(name) + " is a control op executed by the interpreter, not a kernel");
}
}  // namespace

void run_jmp(KernelContext&) { interpreter_only("jmp"); }
void run_br(KernelContext&) { interpreter_only("br"); }
void run_halt(KernelContext&) { interpreter_only("halt"); }
void run_print(KernelContext&) { interpreter_only("print"); }

}  // namespace mlvm
