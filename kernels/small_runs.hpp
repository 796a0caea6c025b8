// Which SIMD run (kernels/simd/ew.hpp) an elementwise op's kernel applies to contiguous
// operands, by opcode, for the planner's small steps (vm/small_steps.cpp): a step that calls
// that run instead of its kernel computes the same bits, because on those operands the kernel
// would call the very same run. The run itself is looked up in the table of the level current
// when the step runs (simd::ew_kernels()), as the kernel does: a level chosen after planning
// (tests switch levels) must reach small steps too.
#pragma once

#include <optional>

#include "ir/opcode.hpp"
#include "kernels/simd/ew.hpp"

namespace mlvm {

// The binary run of `op`'s functor (kernels/binary.cpp), or none (comparisons, logical ops,
// ops outside that file). Integer div has an entry here but no run in the table.
std::optional<simd::BinaryOp> binary_simd_op(Opcode op);

// The unary run of `op`'s functor (kernels/unary.cpp), or none.
std::optional<simd::UnaryOp> unary_simd_op(Opcode op);

}  // namespace mlvm
