#include "tensor/buffer_pool.hpp"

#include <cstdlib>
#include <iterator>

#include "tensor/huge_pages.hpp"

namespace mlvm {

BufferPool::~BufferPool() {
  for (auto& [capacity, c] : free_) huge_page_free(c.p);
}

std::byte* BufferPool::take(std::size_t bytes, std::size_t& capacity) {
  std::lock_guard<std::mutex> lock(mu_);
  // The latest of each capacity in [bytes, largest_fit(bytes)], and the latest of those.
  auto best = free_.end();
  const std::size_t most = largest_fit(bytes);
  for (auto it = free_.lower_bound(bytes); it != free_.end() && it->first <= most;) {
    const auto last = std::prev(free_.upper_bound(it->first));
    if (best == free_.end() || last->second.stamp > best->second.stamp) best = last;
    it = std::next(last);
  }
  if (best == free_.end()) return nullptr;
  std::byte* p = best->second.p;
  capacity = best->first;
  cached_ -= int64_t(capacity);
  free_.erase(best);
  return p;
}

bool BufferPool::give(std::byte* p, std::size_t capacity) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cached_ + int64_t(capacity) > max_) return false;
  free_.emplace(capacity, Cached{p, ++given_});
  cached_ += int64_t(capacity);
  return true;
}

int64_t BufferPool::cached_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cached_;
}

}  // namespace mlvm
