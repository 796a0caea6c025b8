// The dtype lists the kernel and tensor suites loop over, each dtype's integer range, and
// the two's-complement wrap of an exact integer into a dtype (what integer kernels compute).
#pragma once

#include <cstdint>
#include <vector>

#include "tensor/dtype.hpp"

namespace mlvm::testing {

inline const std::vector<DType> kAllDTypes = {DType::f32, DType::f64, DType::i8,  DType::u8,
                                              DType::i16, DType::i32, DType::i64, DType::boolean};
inline const std::vector<DType> kNumericDTypes = {DType::f32, DType::f64, DType::i8, DType::u8,
                                                  DType::i16, DType::i32, DType::i64};
inline const std::vector<DType> kFloatDTypes = {DType::f32, DType::f64};
inline const std::vector<DType> kSignedDTypes = {DType::i8, DType::i16, DType::i32, DType::i64};
inline const std::vector<DType> kIntDTypes = {DType::i8, DType::u8, DType::i16, DType::i32,
                                              DType::i64};

inline int64_t lo_of(DType t) {
  switch (t) {
    case DType::i8:
      return INT8_MIN;
    case DType::i16:
      return INT16_MIN;
    case DType::i32:
      return INT32_MIN;
    case DType::i64:
      return INT64_MIN;
    default:
      return 0;
  }
}
inline int64_t hi_of(DType t) {
  switch (t) {
    case DType::i8:
      return INT8_MAX;
    case DType::u8:
      return UINT8_MAX;
    case DType::i16:
      return INT16_MAX;
    case DType::i32:
      return INT32_MAX;
    case DType::i64:
      return INT64_MAX;
    case DType::boolean:
      return 1;
    default:
      return 0;
  }
}
// Two's-complement wrap of an exact value into dtype t (bool: nonzero; floats: 0).
inline int64_t wrap_to(DType t, __int128 v) {
  switch (t) {
    case DType::i8:
      return int8_t(uint8_t(uint64_t(v)));
    case DType::u8:
      return uint8_t(uint64_t(v));
    case DType::i16:
      return int16_t(uint16_t(uint64_t(v)));
    case DType::i32:
      return int32_t(uint32_t(uint64_t(v)));
    case DType::i64:
      return int64_t(uint64_t(v));
    case DType::boolean:
      return v != 0;
    default:
      return 0;
  }
}

}  // namespace mlvm::testing
