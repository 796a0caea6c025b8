// The driver shared by every elementwise, comparison and reduction kernel
// (kernels/elementwise_loop.hpp): one copy per operand count, whatever the functor.
#include "kernels/elementwise_loop.hpp"

namespace mlvm::ew {

template <int N>
void for_each_run_parallel_erased(ThreadPool* pool, const Dims& shape,
                                  const std::array<const Tensor*, N>& ops, RunRange<N> runs) {
  StridedLoop<N> L = plan_strided_loop<N>(shape, ops);
  if (L.empty) return;
  std::array<std::byte*, N> base;
  for (int k = 0; k < N; ++k) base[k] = ops[k]->raw_data();
  const int64_t outer = L.outer_count(), inner = L.inner_count();
  const int threads = pool ? pool->size() : 1;
  if (threads <= 1 || outer * inner < 2 * kParallelGrain) {
    in_cancellable_blocks(outer, inner,
                          [&](int64_t b, int64_t e) { runs.call(runs.fn, L, base, b, e); });
    return;
  }
  if (outer >= threads) {
    const int64_t grain = std::max<int64_t>(1, kParallelGrain / inner);
    // Blocks of a few million elements, each split across the pool: cancellation is polled
    // between blocks, and one fork-join per block costs nothing beside its work.
    in_cancellable_blocks(outer, inner, [&](int64_t b0, int64_t e0) {
      parallel_for(pool, e0 - b0, grain, [&](int64_t b, int64_t e) {
        runs.call(runs.fn, L, base, b0 + b, b0 + e);
      });
    });
    return;
  }
  // Few long runs: split each run into pieces, each given as a loop of one run.
  const int64_t pieces = (inner + kParallelGrain - 1) / kParallelGrain;
  parallel_for(pool, outer * pieces, 1, [&](int64_t b, int64_t e) {
    for (int64_t item = b; item < e; ++item) {
      const int64_t run = item / pieces, piece = item % pieces;
      const int64_t first = piece * kParallelGrain;
      StridedLoop<N> one;
      one.ndim = 1;
      one.shape[0] = std::min(kParallelGrain, inner - first);
      for_each_run(L, base, run, run + 1, [&](auto p, int64_t, auto st) {
        for (int k = 0; k < N; ++k) {
          one.byte_strides[k][0] = st[k];
          one.byte_offset[k] = (p[k] - base[k]) + first * st[k];
        }
      });
      runs.call(runs.fn, one, base, 0, 1);
    }
  });
}

template void for_each_run_parallel_erased<2>(ThreadPool*, const Dims&,
                                              const std::array<const Tensor*, 2>&, RunRange<2>);
template void for_each_run_parallel_erased<3>(ThreadPool*, const Dims&,
                                              const std::array<const Tensor*, 3>&, RunRange<3>);
template void for_each_run_parallel_erased<4>(ThreadPool*, const Dims&,
                                              const std::array<const Tensor*, 4>&, RunRange<4>);

}  // namespace mlvm::ew
