// The SSE2 instance of the normalization rows (the x86-64 baseline).
#define MLVM_SIMD_NS sse2
#include "kernels/simd/norm_impl.inl"
