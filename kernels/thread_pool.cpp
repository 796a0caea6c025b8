#include "kernels/thread_pool.hpp"

#include <algorithm>

namespace mlvm {

ThreadPool::ThreadPool(int threads) {
  if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::min(threads, 256);
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::worker_loop(int) {
  uint64_t seen = 0;
  for (;;) {
    std::unique_lock<std::mutex> lk(mu_);
    wake_.wait(lk, [&] { return stop_ || (generation_ != seen && next_chunk_ < chunks_.size()); });
    if (stop_) return;
    while (next_chunk_ < chunks_.size()) {
      auto [b, e] = chunks_[next_chunk_++];
      const auto* job = job_;
      lk.unlock();
      try {
        (*job)(b, e);
      } catch (...) {
        std::lock_guard<std::mutex> g(mu_);
        if (!error_) error_ = std::current_exception();
      }
      lk.lock();
      if (--pending_ == 0) done_.notify_all();
    }
    seen = generation_;
  }
}

void ThreadPool::parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  int64_t parts = std::min<int64_t>(size(), (n + grain - 1) / grain);
  if (parts <= 1 || workers_.empty()) {
    fn(0, n);
    return;
  }
  std::lock_guard<std::mutex> serial(serial_);
  {
    std::lock_guard<std::mutex> lk(mu_);
    chunks_.clear();
    for (int64_t p = 0; p < parts; ++p) chunks_.emplace_back(n * p / parts, n * (p + 1) / parts);
    job_ = &fn;
    next_chunk_ = 0;
    pending_ = int(parts);
    error_ = nullptr;
    ++generation_;
  }
  wake_.notify_all();
  // The caller works too.
  std::unique_lock<std::mutex> lk(mu_);
  while (next_chunk_ < chunks_.size()) {
    auto [b, e] = chunks_[next_chunk_++];
    lk.unlock();
    try {
      fn(b, e);
    } catch (...) {
      std::lock_guard<std::mutex> g(mu_);
      if (!error_) error_ = std::current_exception();
    }
    lk.lock();
    --pending_;
  }
  done_.wait(lk, [&] { return pending_ == 0; });
  job_ = nullptr;
  chunks_.clear();
  auto err = error_;
  error_ = nullptr;
  lk.unlock();
  if (err) std::rethrow_exception(err);
}

void parallel_for(ThreadPool* pool, int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
  if (pool) pool->parallel_for(n, grain, fn);
  else if (n > 0) fn(0, n);
}

}  // namespace mlvm
