// Picks the normalization rows' SIMD table of the current level.
#include "kernels/simd/norm.hpp"

#include "kernels/simd/cpu_features.hpp"

namespace mlvm::simd {

const NormTable& norm_kernels() {
  switch (level()) {
    case Level::avx512: return avx512::norm_table();
    case Level::avx2: return avx2::norm_table();
    case Level::sse2: break;
  }
  return sse2::norm_table();
}

}  // namespace mlvm::simd
