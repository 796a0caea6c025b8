// The AVX-512 instance of the normalization rows (compiled with the avx512 flags).
#define MLVM_SIMD_NS avx512
#include "kernels/simd/norm_impl.inl"
