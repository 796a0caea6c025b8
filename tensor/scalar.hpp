// A single number of any dtype, as attributes and fill values carry it.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "tensor/dtype.hpp"

namespace mlvm {

struct Scalar {
  bool is_float = false;
  int64_t i = 0;
  double f = 0;

  static Scalar from_int(int64_t v) { return Scalar{false, v, double(v)}; }
  static Scalar from_float(double v) { return Scalar{true, 0, v}; }
  double as_double() const { return is_float ? f : double(i); }
  std::string to_string() const;
};

// Whether `s` is exactly representable in dtype `t` (integers: in range and not fractional;
// floats: any number; bool: 0 or 1).
bool scalar_fits(const Scalar& s, DType t);
// Converts to the C++ storage type of `t` (call only after scalar_fits, or for clamped values).
template <class T>
T scalar_as(const Scalar& s) {
  if constexpr (std::is_floating_point_v<T>) return static_cast<T>(s.as_double());
  else return s.is_float ? static_cast<T>(s.f) : static_cast<T>(s.i);
}

}  // namespace mlvm
