// A fixed pool of worker threads for splitting one kernel across cores. No external runtime.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace mlvm {

class ThreadPool {
 public:
  // `threads` counts the calling thread: 1 means no workers. 0 means all hardware threads.
  explicit ThreadPool(int threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return int(workers_.size()) + 1; }

  // Runs fn(begin, end) over [0, n) split into at most size() contiguous chunks of at least
  // `grain` items; the calling thread takes a chunk too. Returns when all are done. If a chunk
  // throws, the first exception is rethrown here after every chunk has finished.
  void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

 private:
  void worker_loop(int index);

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_, done_;
  const std::function<void(int64_t, int64_t)>* job_ = nullptr;
  std::vector<std::pair<int64_t, int64_t>> chunks_;
  std::size_t next_chunk_ = 0;
  int pending_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
  std::mutex serial_;  // one parallel_for at a time per pool
};

// parallel_for on `pool` when given, else fn(0, n) inline.
void parallel_for(ThreadPool* pool, int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

}  // namespace mlvm
