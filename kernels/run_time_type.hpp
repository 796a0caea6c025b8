// What a kernel learns from its concrete inputs at run time: the result type, by the op's own
// static rule, and the values of a small integer tensor (valid counts, indices).
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/op_api.hpp"

namespace mlvm {

// The kernel re-applies the op's static rule `infer` to the concrete input types (an omitted
// optional input stays absent; precision is not checked) and returns the first result's type.
// What the verifier could not see (a `?` dim) now fails, and fails as Error(trap): an
// Error(invalid) from the rule is rethrown as a trap with the same message.
TensorType infer_at_run_time(const KernelContext& ctx, InferFn infer);

// The values of an integer tensor (any dtype, any strides), as int64 in row-major order.
std::vector<int64_t> read_ints(const Tensor& t);

// For an op whose optional input `input` gives at run time what its integer attribute `attr`
// holds otherwise (topk's k, cumsum's axis, trilu's k, one_hot's depth; ONNX passes these as
// tensors): when the input is present, runs `fn` with the attribute set from its one value
// (checked against the attribute's range: Error(trap) if outside) and the input dropped, and
// returns true. Returns false when the input is absent: the attribute stands.
bool run_with_attr_input(KernelContext& ctx, Opcode op, int input, int attr, KernelFn fn);

}  // namespace mlvm
