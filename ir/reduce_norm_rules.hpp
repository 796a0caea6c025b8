// What the static rules of the norm-like reductions (ir/infer_reduce_norms.cpp) share with their
// kernels (kernels/reduce_norms.cpp): each kind's name and dtypes (docs/ops.md, "Reductions").
// They take the `reduce` attribute set and the shape rule of sum (ir/reduce_rules.hpp).
#pragma once

#include "ir/elementwise_rules.hpp"
#include "ir/rules.hpp"

namespace mlvm {

enum class ReduceNormKind { prod, sum_square, l1, l2, log_sum, logsumexp };

inline const char* reduce_norm_name(ReduceNormKind k) {
  switch (k) {
    case ReduceNormKind::prod:
      return "prod";
    case ReduceNormKind::sum_square:
      return "sum_square";
    case ReduceNormKind::l1:
      return "l1";
    case ReduceNormKind::l2:
      return "l2";
    case ReduceNormKind::log_sum:
      return "log_sum";
    case ReduceNormKind::logsumexp:
      return "logsumexp";
  }
  return "?";
}

// prod, sum_square, l1: every numeric dtype (integers wrap in x's dtype); the others: floats.
inline bool reduce_norm_takes_ints(ReduceNormKind k) {
  return k == ReduceNormKind::prod || k == ReduceNormKind::sum_square || k == ReduceNormKind::l1;
}
inline ew::DTypeSet reduce_norm_dtypes(ReduceNormKind k) {
  return reduce_norm_takes_ints(k) ? ew::kNumeric : ew::kFloats;
}
inline const char* reduce_norm_why(ReduceNormKind k) {
  return reduce_norm_takes_ints(k) ? ew::kNoBool : ew::kFloatOnly;
}

}  // namespace mlvm
