// Types as the verifier sees them: a dtype, dims (kDynamic for `?`) and, for signed-integer
// values, a proven precision (docs/ops.md, "Integer precision").
#pragma once

#include <string>

#include "tensor/dims.hpp"
#include "tensor/dtype.hpp"
#include "tensor/tensor.hpp"

namespace mlvm {

inline constexpr int kUnknownPrecision = 0;

struct TensorType {
  DType dtype = DType::f32;
  Dims dims;                          // kDynamic for `?`
  int precision = kUnknownPrecision;  // signed ints only; 0 = unknown
  bool present = true;                // false for an omitted optional input

  bool has_dynamic_dims() const;
  std::string to_string() const;  // "f32[2, ?]"; with precision: "i32[4] precision=8"
  friend bool operator==(const TensorType& a, const TensorType& b) {
    return a.dtype == b.dtype && a.dims == b.dims && a.precision == b.precision &&
           a.present == b.present;
  }
};
TensorType type_of(const Tensor& t);  // precision unknown

}  // namespace mlvm
