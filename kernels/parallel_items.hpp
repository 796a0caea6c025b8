// Items [0, n) claimed one at a time from an atomic counter by the calling thread and the
// pool's workers. ThreadPool::parallel_for splits a range into one contiguous chunk per
// thread; when the items are few and heavy (a GEMM's column chunk or row block, a depthwise
// channel block, one Winograd GEMM), a worker that starts late or is preempted mid-chunk then
// holds up half the work. Claimed one by one, the others take over what it has not started.
// Each item is computed the same way whichever thread runs it.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "kernels/thread_pool.hpp"

namespace mlvm {

template <class F>
void for_each_item(ThreadPool* pool, int64_t n, const F& f) {
  if (!pool || pool->size() <= 1 || n <= 1) {
    for (int64_t i = 0; i < n; ++i) f(i);
    return;
  }
  std::atomic<int64_t> next{0};
  parallel_for(pool, std::min<int64_t>(pool->size(), n), 1, [&](int64_t, int64_t) {
    for (int64_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) f(i);
  });
}

}  // namespace mlvm
