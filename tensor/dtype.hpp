// Element types: DType is public (mlvm/dtype.hpp); this adds what the layers need to
// instantiate code once per dtype (visit_dtype) and to check stored codes.
#pragma once

#include "mlvm/dtype.hpp"

namespace mlvm {

inline constexpr int kNumDTypes = 8;

// Bits of a signed integer dtype (the precision ceiling); 0 for the others.
constexpr int signed_bits(DType t) { return is_signed_int(t) ? int(dtype_size(t) * 8) : 0; }

bool dtype_valid(uint8_t code);

// bool tensors are read and written as uint8_t 0/1; visit_dtype names them bool_tag.
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
