// Test hook: lets a test replace ops' type rules so the verifier's own logic (dataflow, joins,
// precision, liveness) can be tested independently of the kernel families' progress.
// Not for production use; not thread-safe; reset it with nullptr.
#pragma once

#include "ir/op_table.hpp"

namespace mlvm {

// Returns the infer function to use for an op, or null to use the op table's.
using InferOverride = InferFn (*)(Opcode);
void set_infer_override_for_testing(InferOverride f);

}  // namespace mlvm
