// The AVX2 + FMA instance of the normalization rows (compiled with the avx2 flags).
#define MLVM_SIMD_NS avx2
#include "kernels/simd/norm_impl.inl"
