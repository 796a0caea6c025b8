// The loop driver of the reduction kernels (kernels/reduce.cpp, kernels/reduce_norms.cpp): the
// input is walked in its memory order together with the accumulators, seen as a view over the
// input's shape with stride 0 on the reduced dims (operand N-1 of the plan; the operands
// before it are inputs, and any of them may be such an accumulator-shaped view too).
//
// Across the pool, the work is split so that no two threads touch one accumulator, and each
// accumulator sees its elements in the same order whatever the thread count (results do not
// depend on it): by the outermost dim of the plan when it is not reduced, else by blocks of
// the inner run when that is not reduced (accumulating rows). Reducing everything into one
// value, or only along the outer dims of each inner run, stays on one thread.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "kernels/cancel.hpp"
#include "kernels/elementwise_loop.hpp"
#include "kernels/thread_pool.hpp"
#include "tensor/strided_loop.hpp"

namespace mlvm::ew {

// Calls run(ptrs, count, byte_strides) for every inner run of L (see for_each_run).
template <int N, class Run>
void for_each_reduce_run(ThreadPool* pool, const StridedLoop<N>& L,
                         const std::array<std::byte*, N>& base, const Run& run) {
  constexpr int A = N - 1;  // the accumulator
  const int64_t outer = L.outer_count(), inner = L.inner_count();
  if (pool && pool->size() > 1 && !L.empty && L.ndim >= 2 && outer * inner >= 2 * kParallelGrain) {
    if (L.byte_strides[A][0] != 0) {  // dim 0 is kept: its slices own disjoint accumulators
      const int64_t runs_per_slice = outer / L.shape[0];
      const int64_t grain = std::max<int64_t>(1, kParallelGrain / (runs_per_slice * inner));
      in_cancellable_blocks(L.shape[0], runs_per_slice * inner, [&](int64_t b0, int64_t e0) {
        parallel_for(pool, e0 - b0, grain, [&](int64_t b, int64_t e) {
          for_each_run(L, base, (b0 + b) * runs_per_slice, (b0 + e) * runs_per_slice, run);
        });
      });
      return;
    }
    if (L.byte_strides[A][L.ndim - 1] != 0) {  // rows accumulate: split their columns
      constexpr int64_t kBlock = 64;             // columns per block, a multiple of any SIMD width
      const int64_t blocks = (inner + kBlock - 1) / kBlock;
      const int64_t grain = std::max<int64_t>(1, kParallelGrain / (kBlock * outer));
      parallel_for(pool, blocks, grain, [&](int64_t b, int64_t e) {
        const int64_t first = b * kBlock, count = std::min(e * kBlock, inner) - first;
        for_each_run(L, base, [&](auto p, int64_t, auto st) {
          for (int k = 0; k < N; ++k) p[k] += first * st[k];
          run(p, count, st);
        });
      });
      return;
    }
  }
  in_cancellable_blocks(outer, inner, [&](int64_t b, int64_t e) { for_each_run(L, base, b, e, run); });
}

}  // namespace mlvm::ew
