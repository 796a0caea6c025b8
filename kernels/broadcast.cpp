#include "kernels/broadcast.hpp"

namespace mlvm {

Tensor broadcast_view(const Tensor& t, const Dims& shape) {
  int rank = shape.size();
  if (t.rank() > rank)
    fail_trap("cannot broadcast " + t.type_string() + " to " + dims_to_string(shape) + ": rank is larger");
  int lead = rank - t.rank();
  Dims strides = Dims::filled(rank, 0);
  for (int i = 0; i < t.rank(); ++i) {
    int64_t n = t.dim(i), m = shape[lead + i];
    if (n == m) strides[lead + i] = t.strides()[i];
    else if (n == 1) strides[lead + i] = 0;
    else
      fail_trap("cannot broadcast " + t.type_string() + " to " + dims_to_string(shape) + " (dim " +
                std::to_string(lead + i) + ": " + std::to_string(n) + " vs " + std::to_string(m) + ")");
  }
  if (t.shape() == shape) return t;
  return t.with_layout(shape, strides, t.offset());
}

}  // namespace mlvm
