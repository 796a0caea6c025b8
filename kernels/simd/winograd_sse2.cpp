// The SSE2 instance of the Winograd transforms, float and integer (compiled with the sse2 flags).
#define MLVM_SIMD_NS sse2
#define MLVM_SIMD_ARCH xsimd::sse2
#define MLVM_SIMD_BYTES 16
#include "kernels/simd/winograd_impl.inl"
#include "kernels/simd/winograd_int_impl.inl"
