#include "kernels/fused_activation.hpp"

#include <algorithm>

#include "kernels/parallel_items.hpp"
#include "kernels/simd/ew.hpp"

namespace mlvm {

bool accepts_fused_activation(Opcode op) {
  return op == Opcode::conv2d || op == Opcode::dense || op == Opcode::matmul;
}

void apply_fused_after(const FusedActivation* a, float* y, int64_t n, ThreadPool* pool) {
  if (!applied_after(a) || n <= 0) return;
  if (a->kind == FusedActivation::Kind::leaky) {
    const float alpha = float(a->alpha);  // as leaky_relu's kernel rounds it for f32
    constexpr int64_t kItem = int64_t(1) << 16;
    for_each_item(pool, (n + kItem - 1) / kItem, [&](int64_t t) {
      float* p = y + t * kItem;
      const int64_t m = std::min(kItem, n - t * kItem);
      for (int64_t i = 0; i < m; ++i) p[i] = p[i] < 0.0f ? alpha * p[i] : p[i];
    });
    return;
  }
  // The run that is the sigmoid and mul kernels' runs on contiguous f32 in one pass (every
  // level has it), over chunks at multiples of kChunk from y: every element lands where the
  // unfused ops' runs put it (a run's last partial register is computed differently: which
  // of two NaNs a mul returns depends on it), whichever thread takes the chunk.
  const simd::UnaryRun silu = simd::ew_kernels().silu_f32[a->sigmoid_first ? 1 : 0];
  constexpr int64_t kChunk = 2048, kChunksPerItem = 8;
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  auto item = [&](int64_t t) {
    for (int64_t c = t * kChunksPerItem; c < std::min(chunks, (t + 1) * kChunksPerItem); ++c) {
      const int64_t k0 = c * kChunk;
      silu(y + k0, y + k0, std::min(kChunk, n - k0));
    }
  };
  for_each_item(pool, (chunks + kChunksPerItem - 1) / kChunksPerItem, item);
}

}  // namespace mlvm
