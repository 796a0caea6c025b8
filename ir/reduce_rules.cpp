#include "ir/reduce_rules.hpp"

#include <string>

#include "ir/elementwise_rules.hpp"
#include "tensor/error.hpp"

namespace mlvm {

ReducePlan make_reduce_plan(const char* op, const Dims& in_dims, std::span<const int64_t> axes,
                            bool keepdims, bool exclude) {
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

const char* reduce_kind_name(ReduceKind k) {
  switch (k) {
    case ReduceKind::sum:
      return "sum";
    case ReduceKind::max:
      return "max";
    case ReduceKind::min:
      return "min";
    case ReduceKind::mean:
      return "mean";
  }
  return "?";
}

ew::DTypeSet reduce_kind_dtypes(ReduceKind k) {
  switch (k) {
    case ReduceKind::sum:
      return ew::kNumeric;
    case ReduceKind::mean:
      return ew::kFloats;
    default:
      return ew::kAnyDType;
  }
}

const char* reduce_kind_why(ReduceKind k) {
  switch (k) {
    case ReduceKind::sum:
      return ew::kNoBool;
    case ReduceKind::mean:
      return ew::kFloatOnly;
    default:
      return "";
  }
}

Dims arg_out_dims(const Dims& in, int axis, bool keepdims) {
  Dims out;
  for (int k = 0; k < in.size(); ++k) {
    if (k != axis)
      out.push_back(in[k]);
    else if (keepdims)
      out.push_back(1);
  }
  if (out.empty()) out.push_back(1);
  return out;
}

}  // namespace mlvm
