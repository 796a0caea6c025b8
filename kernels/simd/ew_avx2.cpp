// The AVX2 + FMA instance of the elementwise SIMD runs (compiled with the avx2 flags).
#define MLVM_SIMD_NS avx2
#define MLVM_SIMD_ARCH xsimd::fma3<xsimd::avx2>
#define MLVM_SIMD_BYTES 32
#include "kernels/simd/ew_impl.inl"
