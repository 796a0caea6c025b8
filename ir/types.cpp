#include "ir/types.hpp"

namespace mlvm {

bool TensorType::has_dynamic_dims() const {
  for (int64_t d : dims)
    if (d == kDynamic) return true;
  return false;
}

std::string TensorType::to_string() const {
  if (!present) return "none";
  std::string s = std::string(dtype_name(dtype)) + dims_to_string(dims);
  if (precision != kUnknownPrecision) s += " precision=" + std::to_string(precision);
  return s;
}

TensorType type_of(const Tensor& t) {
  TensorType ty;
  ty.dtype = t.dtype();
  ty.dims = t.shape();
  return ty;
}

}  // namespace mlvm
