// What the static rules of the further reductions (ir/infer_reduce_more.cpp) share with their
// kernels (kernels/reduce_more.cpp): each kind's name and dtypes (docs/ops.md, "Reductions").
// They take the `reduce` attribute set and the shape rule of sum (ir/reduce_rules.hpp).
#pragma once

#include "ir/elementwise_rules.hpp"
#include "ir/rules.hpp"

namespace mlvm {

enum class ReduceMoreKind { prod, sum_square, l1, l2, log_sum, logsumexp };

inline const char* reduce_more_name(ReduceMoreKind k) {
  switch (k) {
    case ReduceMoreKind::prod:
      return "prod";
    case ReduceMoreKind::sum_square:
      return "sum_square";
    case ReduceMoreKind::l1:
      return "l1";
    case ReduceMoreKind::l2:
      return "l2";
    case ReduceMoreKind::log_sum:
      return "log_sum";
    case ReduceMoreKind::logsumexp:
      return "logsumexp";
  }
  return "?";
}

// prod, sum_square, l1: every numeric dtype (integers wrap in x's dtype); the others: floats.
inline bool reduce_more_takes_ints(ReduceMoreKind k) {
  return k == ReduceMoreKind::prod || k == ReduceMoreKind::sum_square || k == ReduceMoreKind::l1;
}
inline ew::DTypeSet reduce_more_dtypes(ReduceMoreKind k) {
  return reduce_more_takes_ints(k) ? ew::kNumeric : ew::kFloats;
}
inline const char* reduce_more_why(ReduceMoreKind k) {
  return reduce_more_takes_ints(k) ? ew::kNoBool : ew::kFloatOnly;
}

}  // namespace mlvm
