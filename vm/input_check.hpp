// Checks a host-supplied input against its `.input` declaration before anything runs.
#pragma once

#include "bytecode/module.hpp"
#include "tensor/tensor.hpp"

namespace mlvm {

// dtype, rank and every static dim must match: else Error(invalid) located at "input NAME".
// A declared precision P (signed ints) is checked element by element, whatever options the
// module was assembled with: an element outside ±(2^(P-1)-1) is Error(trap) naming its index
// and value.
void check_input(const InputDecl& decl, const Tensor& value);

}  // namespace mlvm
