// Picks the GEMM micro-kernel table of the current SIMD level.
#include "kernels/simd/gemm_kernels.hpp"

#include "kernels/simd/cpu_features.hpp"

namespace mlvm::simd {

const GemmKernelTable& gemm_kernels() {
  switch (level()) {
    case Level::avx512: return cpu_has_avx512_vnni() ? avx512::gemm_table_vnni() : avx512::gemm_table();
    case Level::avx2: return avx2_uses_vnni() ? avx2::gemm_table_vnni() : avx2::gemm_table();
    case Level::sse2: break;
  }
  return sse2::gemm_table();
}

}  // namespace mlvm::simd
