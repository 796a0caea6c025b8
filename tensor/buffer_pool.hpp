// Freed tensor buffers kept for the next run of the same session. A program allocates the
// same sizes on every run, so from the second run on its buffers come back already mapped
// and faulted in: no mmap/munmap and no page faults per run (a fresh 64 MB output costs
// more in page faults than the add that fills it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace mlvm {

class BufferPool {
 public:
  // Holds at most `max_cached_bytes` of freed buffers; past that, a freed buffer is returned
  // to the system.
  explicit BufferPool(int64_t max_cached_bytes = int64_t(1) << 30) : max_(max_cached_bytes) {}
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // A cached buffer of exactly `bytes` (64-byte aligned, contents undefined), or null.
  std::byte* take(std::size_t bytes);
  // Keeps `p` (allocated with aligned_alloc for `bytes`) for reuse; false when the pool is
  // full (the caller frees it). Safe from any thread: outputs die wherever the host drops them.
  bool give(std::byte* p, std::size_t bytes);
  int64_t cached_bytes() const;

 private:
  mutable std::mutex mu_;
  std::unordered_multimap<std::size_t, std::byte*> free_;
  int64_t cached_ = 0;
  int64_t max_;
};

}  // namespace mlvm
