// The AVX-512 instance of the Winograd transforms, float and integer (compiled with the avx512 flags).
#define MLVM_SIMD_NS avx512
#define MLVM_SIMD_ARCH xsimd::avx512bw
#define MLVM_SIMD_BYTES 64
#include "kernels/simd/winograd_impl.inl"
#include "kernels/simd/winograd_int_impl.inl"
