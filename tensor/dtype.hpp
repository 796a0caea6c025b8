// Element types. bool is stored as one byte holding 0 or 1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string_view>
#include <utility>

namespace mlvm {

enum class DType : uint8_t { f32 = 0, f64, i8, u8, i16, i32, i64, boolean };
inline constexpr int kNumDTypes = 8;

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
// Bits of a signed integer dtype (the precision ceiling); 0 for the others.
constexpr int signed_bits(DType t) { return is_signed_int(t) ? int(dtype_size(t) * 8) : 0; }

std::string_view dtype_name(DType t);                       // "f32", ..., "bool"
std::optional<DType> dtype_from_name(std::string_view name);  // inverse of dtype_name
bool dtype_valid(uint8_t code);
inline std::ostream& operator<<(std::ostream& os, DType t) { return os << dtype_name(t); }

template <class T> struct dtype_of;
template <> struct dtype_of<float> { static constexpr DType value = DType::f32; };
template <> struct dtype_of<double> { static constexpr DType value = DType::f64; };
template <> struct dtype_of<int8_t> { static constexpr DType value = DType::i8; };
template <> struct dtype_of<uint8_t> { static constexpr DType value = DType::u8; };
template <> struct dtype_of<int16_t> { static constexpr DType value = DType::i16; };
template <> struct dtype_of<int32_t> { static constexpr DType value = DType::i32; };
template <> struct dtype_of<int64_t> { static constexpr DType value = DType::i64; };
// bool tensors are read and written as uint8_t 0/1; dtype_of<bool> names the tag type below.
struct bool_tag {};

template <class T> struct type_tag { using type = T; };

// Calls f(type_tag<T>{}) with T the C++ element type of `t` (uint8_t for bool, via
// `bool_as`). Used to instantiate a kernel once per dtype without per-element switches.
template <class F>
decltype(auto) visit_dtype(DType t, F&& f) {
  switch (t) {
    case DType::f32: return f(type_tag<float>{});
    case DType::f64: return f(type_tag<double>{});
    case DType::i8: return f(type_tag<int8_t>{});
    case DType::u8: return f(type_tag<uint8_t>{});
    case DType::i16: return f(type_tag<int16_t>{});
    case DType::i32: return f(type_tag<int32_t>{});
    case DType::i64: return f(type_tag<int64_t>{});
    case DType::boolean: return f(type_tag<bool_tag>{});
  }
  return f(type_tag<float>{});
}

// Storage type of a visited element type: bool_tag is stored as uint8_t.
template <class T> struct storage_of { using type = T; };
template <> struct storage_of<bool_tag> { using type = uint8_t; };
template <class T> using storage_t = typename storage_of<T>::type;

}  // namespace mlvm
