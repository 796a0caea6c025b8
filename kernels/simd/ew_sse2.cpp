// The SSE2 instance of the elementwise SIMD runs (the x86-64 baseline).
#define MLVM_SIMD_NS sse2
#define MLVM_SIMD_ARCH xsimd::sse2
#define MLVM_SIMD_BYTES 16
#include "kernels/simd/ew_impl.inl"
