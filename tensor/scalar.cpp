#include "tensor/scalar.hpp"

#include <limits>
#include <sstream>

namespace mlvm {

std::string Scalar::to_string() const {
  if (!is_float) return std::to_string(i);
  if (std::isnan(f)) return "nan";
  if (std::isinf(f)) return f > 0 ? "inf" : "-inf";
  std::ostringstream os;
  os.precision(17);
  os << f;
  std::string s = os.str();
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

namespace {
template <class T>
bool int_fits(const Scalar& s) {
  if (s.is_float) {
    if (!std::isfinite(s.f) || s.f != std::trunc(s.f)) return false;
    return s.f >= double(std::numeric_limits<T>::min()) && s.f <= double(std::numeric_limits<T>::max()) &&
           !(sizeof(T) == 8 && s.f >= 9223372036854775808.0);
  }
  return s.i >= int64_t(std::numeric_limits<T>::min()) &&
         (std::is_same_v<T, int64_t> || s.i <= int64_t(std::numeric_limits<T>::max()));
}
}  // namespace

bool scalar_fits(const Scalar& s, DType t) {
  switch (t) {
    case DType::f32:
    case DType::f64: return true;
    case DType::i8: return int_fits<int8_t>(s);
    case DType::u8: return int_fits<uint8_t>(s);
    case DType::i16: return int_fits<int16_t>(s);
    case DType::i32: return int_fits<int32_t>(s);
    case DType::i64: return int_fits<int64_t>(s);
    case DType::boolean: return s.as_double() == 0 || s.as_double() == 1;
  }
  return false;
}

}  // namespace mlvm
