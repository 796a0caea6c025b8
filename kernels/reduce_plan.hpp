// Which axes a reduction reduces and the shape it leaves (seed 000 "Reduce Operator", cases
// 1-4; ops.md §3 "Reductions"). One function serves the static rule (dims may be kDynamic)
// and the kernel (concrete dims), so both agree by construction.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "tensor/dims.hpp"
#include "tensor/error.hpp"

namespace mlvm {

struct ReducePlan {
  int rank = 0;
  bool reduced[kMaxRank] = {};  // R, as a mask over the input's dims
  int num_reduced = 0;          // r = card(R)
  Dims keep_shape;              // the input's dims with reduced dims set to 1 (keepdims=true)
  Dims out_shape;               // the result's shape (keepdims applied; never rank 0)
};

// axes: the `axes` attribute (negative allowed, no repeats, in [-N, N)).
// R = T when exclude is false, else U - T; with T empty, R = U whatever `exclude` says
// (ops.md: `axes=()` reduces everything). keepdims=false drops R; if nothing is left the
// shape is [1].
inline ReducePlan make_reduce_plan(const char* op, const Dims& in_dims,
                                   std::span<const int64_t> axes, bool keepdims, bool exclude) {
  ReducePlan P;
  P.rank = in_dims.size();
  const int n = P.rank;
  bool named[kMaxRank] = {};
  for (int64_t a : axes) {
    if (a < -n || a >= n)
      fail_invalid(std::string(op) + ": axis " + std::to_string(a) + " is out of range for rank " +
                   std::to_string(n) + " (expected -" + std::to_string(n) + ".." +
                   std::to_string(n - 1) + ")");
    int k = int(a < 0 ? a + n : a);
    if (named[k])
      fail_invalid(std::string(op) + ": axis " + std::to_string(k) + " is named twice in axes");
    named[k] = true;
  }
  for (int k = 0; k < n; ++k) {
    P.reduced[k] = axes.empty() ? true : (exclude ? !named[k] : named[k]);
    if (P.reduced[k]) ++P.num_reduced;
  }
  for (int k = 0; k < n; ++k) {
    P.keep_shape.push_back(P.reduced[k] ? 1 : in_dims[k]);
    if (!P.reduced[k] || keepdims) P.out_shape.push_back(P.reduced[k] ? 1 : in_dims[k]);
  }
  if (P.out_shape.empty()) P.out_shape.push_back(1);
  return P;
}

}  // namespace mlvm
