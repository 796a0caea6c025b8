// Static rules of the control ops (docs/ops.md, "Control (interpreter)"). The interpreter runs
// these ops itself; the verifier still checks their operands here.
#include "ir/infer.hpp"

namespace mlvm {

void infer_jmp(InferContext&) {}
void infer_halt(InferContext&) {}
void infer_print(InferContext&) {}
void infer_trap(InferContext&) {}

// The condition has exactly one element. With a `?` dim the interpreter checks the count at
// run time (a trap), unless a static dim is 0.
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

}  // namespace mlvm
