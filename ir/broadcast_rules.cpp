#include <algorithm>

#include "ir/rules.hpp"

namespace mlvm {

namespace {

Dims left_pad(const Dims& d, int rank) {
  Dims out = Dims::filled(rank - d.size(), 1);
  for (int64_t x : d) out.push_back(x);
  return out;
}

}  // namespace

Dims broadcast_types(const TensorType& a, const TensorType& b) {
  int rank = std::max(a.dims.size(), b.dims.size());
  Dims x = left_pad(a.dims, rank), y = left_pad(b.dims, rank), out;
  for (int i = 0; i < rank; ++i) {
    int64_t p = x[i], q = y[i];
    if (p == q) out.push_back(p);
    else if (p == 1) out.push_back(q);
    else if (q == 1) out.push_back(p);
    else if (p == kDynamic) out.push_back(q);
    else if (q == kDynamic) out.push_back(p);
    else
      fail_invalid("shape mismatch: " + a.to_string() + " and " + b.to_string() + " cannot broadcast (dim " +
                   std::to_string(i) + ": " + std::to_string(p) + " vs " + std::to_string(q) + ")");
  }
  return out;
}

Dims broadcast_shapes(const Dims& a, const Dims& b) {
  int rank = std::max(a.size(), b.size());
  Dims x = left_pad(a, rank), y = left_pad(b, rank), out;
  for (int i = 0; i < rank; ++i) {
    int64_t p = x[i], q = y[i];
    if (p == q || q == 1) out.push_back(p);
    else if (p == 1) out.push_back(q);
    else
      fail_trap("run-time shape mismatch: " + dims_to_string(a) + " and " + dims_to_string(b) +
                " cannot broadcast (dim " + std::to_string(i) + ": " + std::to_string(p) + " vs " +
                std::to_string(q) + ")");
  }
  return out;
}

}  // namespace mlvm
