// The SIMD runs (kernels/simd/ew.hpp) that the elementwise kernels apply to contiguous
// operands, looked up by op, for the planner's small steps (vm/small_steps.cpp): a step that
// calls one of these instead of its kernel computes the same bits, because on those operands
// the kernel would call the very same run.
//
// The runs are those of the SIMD level current when they are looked up (simd::level(), fixed
// for the process after its first call; only tests change it).
#pragma once

#include "ir/opcode.hpp"
#include "kernels/simd/ew.hpp"
#include "tensor/dtype.hpp"

namespace mlvm {

// y = a op b over `dtype` operands laid out as `splat` (kernels/binary.cpp), or null when the
// op's kernel has no such run (comparisons, integer div, bool, ops outside that file).
simd::BinaryRun binary_small_run(Opcode op, DType dtype, simd::Splat splat);

// y = op(x) over `dtype` (kernels/unary.cpp), or null when the op's kernel has no such run.
simd::UnaryRun unary_small_run(Opcode op, DType dtype);

}  // namespace mlvm
