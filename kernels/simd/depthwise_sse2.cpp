// The SSE2 instance of the float depthwise rows (compiled with the sse2 flags).
#define MLVM_SIMD_NS sse2
#define MLVM_SIMD_ARCH xsimd::sse2
#define MLVM_SIMD_BYTES 16
#include "kernels/simd/depthwise_impl.inl"
