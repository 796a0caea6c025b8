#include "kernels/simd/winograd.hpp"
#include "kernels/simd/winograd_int.hpp"

#include "kernels/simd/cpu_features.hpp"

namespace mlvm::simd {

const WinogradTable& winograd_kernels() {
  switch (level()) {
    case Level::avx512: return avx512::winograd_table();
    case Level::avx2: return avx2::winograd_table();
    case Level::sse2: break;
  }
  return sse2::winograd_table();
}

const WinogradIntTable& winograd_int_kernels() {
  switch (level()) {
    case Level::avx512: return avx512::winograd_int_table();
    case Level::avx2: return avx2::winograd_int_table();
    case Level::sse2: break;
  }
  return sse2::winograd_int_table();
}

}  // namespace mlvm::simd
