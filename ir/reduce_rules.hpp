// What the static rules of the reductions (ir/infer_reduce.cpp) share with their kernels
// (kernels/reduce.cpp): which axes a reduction reduces and the shape it leaves, each kind's
// name and dtypes, and argmax/argmin's result shape (docs/ops.md, "Reductions"). The rule
// calls these on type-level dims (kDynamic for `?`), the kernel on concrete dims, so both agree
// by construction.
#pragma once

#include <cstdint>
#include <span>

#include "ir/rules.hpp"
#include "tensor/dims.hpp"

namespace mlvm {

struct ReducePlan {
  int rank = 0;
  bool reduced[kMaxRank] = {};  // R, as a mask over the input's dims
  int num_reduced = 0;          // r = card(R)
  Dims keep_shape;              // the input's dims with reduced dims set to 1 (keepdims=true)
  Dims out_shape;               // the result's shape (keepdims applied; never rank 0)
};

// axes: the `axes` attribute (negative allowed, no repeats, in [-N, N)); Error(invalid)
// otherwise. R = T when exclude is false, else U - T; with T empty, R = U whatever `exclude`
// says (`axes=()` reduces everything). keepdims=false drops R; if nothing is left the shape
// is [1].
ReducePlan make_reduce_plan(const char* op, const Dims& in_dims, std::span<const int64_t> axes,
                            bool keepdims, bool exclude);

enum class ReduceKind { sum, max, min, mean };

const char* reduce_kind_name(ReduceKind k);  // "sum", ...
// The dtypes a kind accepts, and the reason given when x has another.
ew::DTypeSet reduce_kind_dtypes(ReduceKind k);
const char* reduce_kind_why(ReduceKind k);

// argmax / argmin: `in` without dim `axis` (already normalized), or with it as 1 when
// keepdims; [1] if that leaves nothing.
Dims arg_out_dims(const Dims& in, int axis, bool keepdims);

}  // namespace mlvm
