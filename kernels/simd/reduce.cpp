// Picks the reduction SIMD table of the current level.
#include "kernels/simd/reduce.hpp"

#include "kernels/simd/cpu_features.hpp"

namespace mlvm::simd {

const ReduceTable& reduce_kernels() {
  switch (level()) {
    case Level::avx512: return avx512::reduce_table();
    case Level::avx2: return avx2::reduce_table();
    case Level::sse2: break;
  }
  return sse2::reduce_table();
}

}  // namespace mlvm::simd
