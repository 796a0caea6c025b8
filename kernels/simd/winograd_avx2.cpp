// The AVX2 + FMA instance of the Winograd transforms, float and integer (compiled with the avx2 flags).
#define MLVM_SIMD_NS avx2
#define MLVM_SIMD_ARCH xsimd::fma3<xsimd::avx2>
#define MLVM_SIMD_BYTES 32
#include "kernels/simd/winograd_impl.inl"
#include "kernels/simd/winograd_int_impl.inl"
