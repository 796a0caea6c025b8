#include "kernels/fused_activation.hpp"

#include <immintrin.h>

#include <algorithm>
#include <type_traits>

#include "kernels/parallel_items.hpp"
#include "kernels/simd/cpu_features.hpp"
#include "kernels/simd/ew.hpp"

namespace mlvm {

bool accepts_fused_activation(Opcode op) {
  return op == Opcode::conv2d || op == Opcode::dense || op == Opcode::matmul;
}

namespace {

// The i32 requantization 8 lanes at a time (AVX2, whichever level runs above SSE2: a run-time
// choice by simd::level(), so MLVM_SIMD=sse2 keeps to SSE2). The very arithmetic of the
// scalar loop below: arithmetic shifts, the rounding bit added, signed min/max.
__attribute__((target("avx2"))) int64_t requant_i32_avx2(int s, int32_t lo, int32_t hi, const int32_t* src,
                                                         int32_t* dst, int64_t n) {
  const __m256i vlo = _mm256_set1_epi32(lo), vhi = _mm256_set1_epi32(hi), one = _mm256_set1_epi32(1);
  const __m128i cs = _mm_cvtsi32_si128(s < 0 ? 0 : s), c1 = _mm_cvtsi32_si128(1);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
    if (s >= 0) {
      const __m256i q = _mm256_sra_epi32(v, cs);
      v = _mm256_add_epi32(_mm256_sra_epi32(q, c1), _mm256_and_si256(q, one));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_min_epi32(_mm256_max_epi32(v, vlo), vhi));
  }
  return i;
}

}  // namespace

// i32 in 32-bit lanes (q = v >> s, then (q >> 1) + (q & 1) cannot overflow), so the loop
// vectorizes at the base level; i64 and shifts the i32 form cannot take go through 64 bits.
template <class T>
void apply_fused_requant(const FusedActivation& a, const T* src, T* dst, int64_t n) {
  if constexpr (std::is_floating_point_v<T>) {
    return;  // float kernels are never given a requantization (their template code names it)
  }
  const int s = a.rshift;
  if constexpr (std::is_same_v<T, int32_t>) {
    const int32_t lo = int32_t(a.ilo), hi = int32_t(a.ihi);
    if (s <= 30 && simd::level() >= simd::Level::avx2) {
      const int64_t done = requant_i32_avx2(s, lo, hi, src, dst, n);
      src += done;
      dst += done;
      n -= done;
    }
    if (s < 0) {
      for (int64_t i = 0; i < n; ++i) dst[i] = std::min(std::max(src[i], lo), hi);
      return;
    }
    if (s <= 30) {
      for (int64_t i = 0; i < n; ++i) {
        const int32_t q = src[i] >> s;
        dst[i] = std::min(std::max((q >> 1) + (q & 1), lo), hi);
      }
      return;
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = int64_t(src[i]);
    if (s >= 0) {
      v >>= s;
      v = (v >> 1) + (v & 1);
    }
    dst[i] = T(v < a.ilo ? a.ilo : v > a.ihi ? a.ihi : v);
  }
}
template void apply_fused_requant<int32_t>(const FusedActivation&, const int32_t*, int32_t*, int64_t);
template void apply_fused_requant<int64_t>(const FusedActivation&, const int64_t*, int64_t*, int64_t);
template void apply_fused_requant<float>(const FusedActivation&, const float*, float*, int64_t);
template void apply_fused_requant<double>(const FusedActivation&, const double*, double*, int64_t);

void apply_fused_after(const FusedActivation* a, float* y, int64_t n, ThreadPool* pool) {
  if (!applied_after(a) || n <= 0) return;
  if (a->kind == FusedActivation::Kind::hardswish) {
    // Elementwise with the same expression in every lane and the tail: any split is the same.
    const auto run = simd::ew_kernels().hardswish_f32;
    constexpr int64_t kItem = int64_t(1) << 16;
    for_each_item(pool, (n + kItem - 1) / kItem, [&](int64_t t) {
      float* p = y + t * kItem;
      run(p, p, std::min(kItem, n - t * kItem));
    });
    return;
  }
  if (a->kind == FusedActivation::Kind::leaky) {
    const float alpha = float(a->alpha);  // as leaky_relu's kernel rounds it for f32
    const float floor = float(a->floor);  // the maximum's f32 constant: exact
    const auto run = simd::ew_kernels().leaky_f32;
    constexpr int64_t kItem = int64_t(1) << 16;
    for_each_item(pool, (n + kItem - 1) / kItem, [&](int64_t t) {
      float* p = y + t * kItem;
      run(p, p, std::min(kItem, n - t * kItem), alpha, floor);
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
