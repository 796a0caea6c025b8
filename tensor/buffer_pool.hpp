// Freed tensor buffers kept for the next allocations of the same session. A program allocates
// the same sizes on every run, so from the second run on its buffers come back already mapped
// and faulted in: no mmap/munmap and no page faults per run (a fresh 64 MB output costs
// more in page faults than the add that fills it).
//
// A request takes the buffer freed last among those of at least its size and at most
// largest_fit of it: twice its size, or kMaxExtraBytes more, but not kMaxOversize times it
// (a few bytes holding megabytes). The last freed is the likeliest still in cache, which
// matters when runs are apart (requests served one by one, the caches cold between them): a
// layer's output then lands where an earlier layer of the same run just wrote, not in a
// buffer of its exact size untouched since the previous run. The extra bytes let the few
// buffers of a chain of layers of different sizes serve all of them, like a stack, where
// sizes within twice each other kept one buffer per size, each written once a run; a small
// tensor in a large buffer touches only its own bytes of it. Past twice the size only by a
// bounded amount, so that the small tensors of a model with 100 MB activations do not hold
// its large buffers, which would then be allocated again.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

namespace mlvm {

class BufferPool {
 public:
  // Holds at most `max_cached_bytes` of freed buffers; past that, a freed buffer is returned
  // to the system.
  explicit BufferPool(int64_t max_cached_bytes = int64_t(1) << 30) : max_(max_cached_bytes) {}
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  static constexpr std::size_t kMaxOversize = 64;
  static constexpr std::size_t kMaxExtraBytes = std::size_t(8) << 20;
  // The largest capacity a request of `bytes` takes.
  static std::size_t largest_fit(std::size_t bytes) {
    return std::min(kMaxOversize * bytes, std::max(2 * bytes, bytes + kMaxExtraBytes));
  }

  // A cached buffer of `bytes` to largest_fit(bytes) (64-byte aligned, contents undefined),
  // the one given last among those, or null; `capacity` gets its size, which give() takes back.
  std::byte* take(std::size_t bytes, std::size_t& capacity);
  // Keeps `p` (from huge_page_alloc, `capacity` bytes) for reuse; false when the
  // pool is full (the caller frees it). Safe from any thread: outputs die wherever the host
  // drops them.
  bool give(std::byte* p, std::size_t capacity);
  int64_t cached_bytes() const;

 private:
  struct Cached {
    std::byte* p;
    uint64_t stamp;  // when it was given: larger is later
  };
  mutable std::mutex mu_;
  // By capacity; buffers of one capacity in the order given (multimap keeps equal keys in
  // insertion order), so the last of each capacity is its latest.
  std::multimap<std::size_t, Cached> free_;
  uint64_t given_ = 0;
  int64_t cached_ = 0;
  int64_t max_;
};

}  // namespace mlvm
