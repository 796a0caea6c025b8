#include "kernels/fused_activation.hpp"

#include <algorithm>

#include "kernels/simd/ew.hpp"

namespace mlvm {

bool accepts_fused_activation(Opcode op) {
  return op == Opcode::conv2d || op == Opcode::dense || op == Opcode::matmul;
}

void apply_fused_silu(const FusedActivation* a, float* y, int64_t n) {
  if (!a || a->kind != FusedActivation::Kind::silu || n <= 0) return;
  // The runs the sigmoid and mul kernels take on contiguous f32 (every level has both); each
  // element's result depends on its value alone, so chunking does not change it.
  const simd::EwTable& k = simd::ew_kernels();
  const simd::UnaryRun sigmoid = k.unary[int(simd::UnaryOp::sigmoid)][int(simd::Elem::f32)];
  const simd::BinaryRun mul = k.binary[int(simd::BinaryOp::mul)][int(simd::Elem::f32)][int(simd::Splat::vv)][0];
  constexpr int64_t kChunk = 2048;
  alignas(64) float s[kChunk];
  for (int64_t k0 = 0; k0 < n; k0 += kChunk) {
    const int64_t m = std::min(kChunk, n - k0);
    float* h = y + k0;
    sigmoid(s, h, m);
    if (a->sigmoid_first) mul(h, s, h, m);
    else mul(h, h, s, m);
  }
}

}  // namespace mlvm
