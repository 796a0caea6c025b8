// An activation the planner folds into the instruction that computes its input (vm/fuse.cpp):
// a relu or a clip that follows a conv2d, dense or matmul with a float result and is the only
// reader of that result. The kernel clamps its result in place while it is still in cache,
// instead of a second instruction reading it back from memory.
//
// The clamp is the clip kernel's own: y < lo ? lo : y > hi ? hi : y, NaN passing through (relu
// is lo = 0, hi = +inf: -0 and NaN pass, as relu's x < 0 ? 0 : x), with lo and hi rounded to
// the result's dtype as clip rounds them, so a fused run gives the same bits as an unfused one.
#pragma once

#include <array>
#include <cstdint>

#include "ir/opcode.hpp"

namespace mlvm {

struct FusedClamp {
  double lo, hi;
};

// The ops whose kernels apply KernelContext::clamp.
bool accepts_fused_clamp(Opcode op);

// {lo, hi} in the result's dtype T (rounded as clip rounds its bounds): GemmArgs::clamp, and
// the depthwise rows' bounds.
template <class T>
std::array<T, 2> clamp_bounds(const FusedClamp& c) {
  return {T(c.lo), T(c.hi)};
}

}  // namespace mlvm
