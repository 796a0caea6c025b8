// Element types. bool is stored as one byte holding 0 or 1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string_view>
#include <type_traits>

#include "mlvm/export.hpp"

namespace mlvm {

enum class DType : uint8_t { f32 = 0, f64, i8, u8, i16, i32, i64, boolean };

constexpr std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::f32: return 4;
    case DType::f64: return 8;
    case DType::i8: return 1;
    case DType::u8: return 1;
    case DType::i16: return 2;
    case DType::i32: return 4;
    case DType::i64: return 8;
    case DType::boolean: return 1;
  }
  return 0;
}
constexpr bool is_float(DType t) { return t == DType::f32 || t == DType::f64; }
constexpr bool is_signed_int(DType t) {
  return t == DType::i8 || t == DType::i16 || t == DType::i32 || t == DType::i64;
}
constexpr bool is_integer(DType t) { return is_signed_int(t) || t == DType::u8; }

MLVM_API std::string_view dtype_name(DType t);                       // "f32", ..., "bool"
MLVM_API std::optional<DType> dtype_from_name(std::string_view name);  // inverse of dtype_name
inline std::ostream& operator<<(std::ostream& os, DType t) { return os << dtype_name(t); }

// The dtype whose elements a C++ type holds: dtype_of<float>::value is DType::f32. Defined
// for float, double and every signed integer type of 1, 2, 4 or 8 bytes (so `long long` and
// `long` are both i64) and the unsigned 1-byte types (u8). bool tensors are read and written
// as uint8_t 0/1, so uint8_t means u8; pass DType::boolean explicitly for bool.
template <class T, class = void>
struct dtype_of {};
template <>
struct dtype_of<float> {
  static constexpr DType value = DType::f32;
};
template <>
struct dtype_of<double> {
  static constexpr DType value = DType::f64;
};
template <class T>
struct dtype_of<T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                                    !std::is_same_v<T, char> &&
                                    (std::is_signed_v<T> || sizeof(T) == 1)>> {
  static constexpr DType value = sizeof(T) == 1 ? (std::is_signed_v<T> ? DType::i8 : DType::u8)
                                 : sizeof(T) == 2 ? DType::i16
                                 : sizeof(T) == 4 ? DType::i32
                                                  : DType::i64;
};

// Whether a host may read or write elements of dtype `t` as C++ type T: T's own dtype, any
// integer type of the right size and signedness (`long long` for i64), and uint8_t, unsigned
// char or bool for bool.
template <class T>
constexpr bool element_type_matches(DType t) {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, float>) return t == DType::f32;
  else if constexpr (std::is_same_v<U, double>) return t == DType::f64;
  else if constexpr (std::is_same_v<U, bool>) return t == DType::boolean;
  else if constexpr (std::is_integral_v<U>) {
    if (sizeof(U) != dtype_size(t) || is_float(t)) return false;
    if (t == DType::boolean || t == DType::u8) return std::is_unsigned_v<U>;
    return std::is_signed_v<U>;
  } else {
    return false;
  }
}

}  // namespace mlvm
