// Items [0, n) claimed from an atomic counter, one at a time or in short runs, by the calling
// thread and the pool's workers. ThreadPool::parallel_for splits a range into one contiguous
// chunk per thread; when the items are few and heavy (a GEMM's column chunk or row block, a
// depthwise channel block, one Winograd GEMM), a worker that starts late or is preempted
// mid-chunk then holds up half the work. Claimed one by one, the others take over what it has
// not started.
// Each item is computed the same way whichever thread runs it.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "kernels/thread_pool.hpp"

namespace mlvm {

// Many light items (a Winograd transform's channels, a depthwise convolution's planes: up to
// hundreds of a few microseconds each) are claimed in runs, about kRunsPerThread per thread:
// every claim moves the counter's cache line between the threads' cores, which costs most
// when the cores are far apart (a cache-line round trip of hundreds of nanoseconds).
inline constexpr int64_t kRunsPerThread = 8;

template <class F>
void for_each_item(ThreadPool* pool, int64_t n, const F& f) {
  if (!pool || pool->size() <= 1 || n <= 1) {
    for (int64_t i = 0; i < n; ++i) f(i);
    return;
  }
  // An item a thread: item i to thread i first (ThreadPool::parallel_for's chunk affinity).
  if (n <= pool->size()) {
    parallel_for(pool, n, 1, [&](int64_t b, int64_t e) {
      for (; b < e; ++b) f(b);
    });
    return;
  }
  const int64_t run = std::max<int64_t>(1, n / (kRunsPerThread * pool->size()));
  struct alignas(64) Counter {  // a cache line of its own: the caller's stack shares no other
    std::atomic<int64_t> next{0};
  } counter;
  parallel_for(pool, std::min<int64_t>(pool->size(), n), 1, [&](int64_t, int64_t) {
    for (int64_t i; (i = counter.next.fetch_add(run, std::memory_order_relaxed)) < n;)
      for (const int64_t end = std::min(n, i + run); i < end; ++i) f(i);
  });
}

}  // namespace mlvm
