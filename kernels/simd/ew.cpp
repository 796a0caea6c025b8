// Picks the elementwise SIMD table of the current level.
#include "kernels/simd/ew.hpp"

#include "kernels/simd/cpu_features.hpp"
#include "tensor/dtype.hpp"

namespace mlvm::simd {

// Elem indexes tables by DType's number.
static_assert(int(Elem::f32) == int(DType::f32) && int(Elem::f64) == int(DType::f64) &&
              int(Elem::i8) == int(DType::i8) && int(Elem::u8) == int(DType::u8) &&
              int(Elem::i16) == int(DType::i16) && int(Elem::i32) == int(DType::i32) &&
              int(Elem::i64) == int(DType::i64) && kNumElems == int(DType::boolean));

const EwTable& ew_kernels() {
  switch (level()) {
    case Level::avx512: return avx512::ew_table();
    case Level::avx2: return avx2::ew_table();
    case Level::sse2: break;
  }
  return sse2::ew_table();
}

}  // namespace mlvm::simd
