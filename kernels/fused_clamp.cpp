#include "kernels/fused_clamp.hpp"

#include <type_traits>

#include "kernels/simd/ew.hpp"

namespace mlvm {

bool accepts_fused_clamp(Opcode op) {
  return op == Opcode::conv2d || op == Opcode::dense || op == Opcode::matmul;
}

template <class T>
void apply_fused_clamp(T* y, int64_t n, const FusedClamp& c) {
  static_assert(std::is_floating_point_v<T>);
  const T lo = T(c.lo), hi = T(c.hi);
  const simd::Elem e = std::is_same_v<T, float> ? simd::Elem::f32 : simd::Elem::f64;
  if (const simd::ClipRun run = simd::ew_kernels().clip[int(e)]) return run(y, y, n, &lo, &hi);
  for (int64_t k = 0; k < n; ++k) y[k] = y[k] < lo ? lo : y[k] > hi ? hi : y[k];
}

void apply_fused_clamp(const FusedClamp* c, Tensor& y) {
  if (!c || y.numel() == 0) return;
  if (y.dtype() == DType::f32) apply_fused_clamp(y.data<float>(), y.numel(), *c);
  else if (y.dtype() == DType::f64) apply_fused_clamp(y.data<double>(), y.numel(), *c);
}

template void apply_fused_clamp<float>(float*, int64_t, const FusedClamp&);
template void apply_fused_clamp<double>(double*, int64_t, const FusedClamp&);

}  // namespace mlvm
