#include "tensor/buffer_pool.hpp"

#include <cstdlib>

namespace mlvm {

BufferPool::~BufferPool() {
  for (auto& [bytes, p] : free_) std::free(p);
}

std::byte* BufferPool::take(std::size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = free_.find(bytes);
  if (it == free_.end()) return nullptr;
  std::byte* p = it->second;
  free_.erase(it);
  cached_ -= int64_t(bytes);
  return p;
}

bool BufferPool::give(std::byte* p, std::size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cached_ + int64_t(bytes) > max_) return false;
  free_.emplace(bytes, p);
  cached_ += int64_t(bytes);
  return true;
}

int64_t BufferPool::cached_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cached_;
}

}  // namespace mlvm
