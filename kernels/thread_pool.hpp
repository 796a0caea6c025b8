// A fixed pool of worker threads for splitting one kernel across cores. No external runtime.
//
// Low overhead between back-to-back kernels (a GEMM forks and joins a few times per call):
// idle workers spin for a short while (kSpinMicros) before sleeping on a condition variable,
// the calling
// thread takes chunks too, and chunks are claimed from an atomic counter, so a worker that is
// slow to wake (a busy machine) simply gets fewer chunks.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
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
  // `grain` items; the calling thread takes chunks too. Returns when all are done. If a chunk
  // throws, the first exception is rethrown here after every chunk has finished. One call at
  // a time per pool (other callers wait); a call from inside a chunk of this pool runs inline.
  // Chunk i goes to thread i (the caller 0, worker k k) unless another thread finds it
  // unclaimed first (up to 16 chunks), so that from op to op and run to run the same thread
  // writes and reads the same part of a tensor: its lines stay in that core's cache, where
  // chunks claimed in the order threads arrived moved them between cores (through memory,
  // when the cores share no cache).
  void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

  // How long an idle worker spins before sleeping.
  static constexpr int kSpinMicros = 300;

  // Whether the pool's threads now run on cores that share no cache. The host of a 2-core VM
  // from time to time places its two vCPUs so (a cache-line round trip between them of about
  // 370 ns instead of 70-120, for seconds to minutes), and data one thread wrote then reaches
  // the other through memory: kernels whose threads exchange data within an op lose much of
  // their second thread (conv_winograd.cpp and gemm_run.hpp choose their splits by it).
  // Measured by a short cache-line ping-pong between the caller and a worker, again when the
  // last measurement is older than kDistanceRecheckMillis; false without workers, and the
  // last answer when called from a chunk of this pool (which cannot measure: it would wait
  // for itself).
  bool far_apart();
  static constexpr int kDistanceRecheckMillis = 200;
  // far_apart's measurement: the cache-line round trip between the two threads that ran its
  // two chunks (the mean of the fastest of a few groups), in nanoseconds, or -1 when no second
  // thread joined within 2 ms.
  double measure_round_trip_ns();
  // Tests: 1 or 0 makes every pool's far_apart() answer so without measuring; -1 measures.
  static void assume_far_apart_for_testing(int far) { assumed_far_.store(far); }

 private:
  void worker_loop(int index);
  // Claims and runs chunks of the current job until none is left.
  void run_chunks();
  // Pins each worker to a CPU of its own (see thread_pool.cpp), and moves a worker off the
  // calling thread's current CPU when the caller has landed there.
  void pin_workers();
  void keep_off_caller_cpu();

  std::vector<std::thread> workers_;
  std::vector<int> cpus_;        // the process's CPUs when workers are pinned, else empty
  std::vector<int> worker_cpu_;  // each worker's CPU (pinned)
  int caller_cpu_ = -1;          // the caller's CPU at the last parallel_for

  // The current job; written by the caller before it publishes the job's claim state, and
  // not again until every chunk has finished.
  const std::function<void(int64_t, int64_t)>* fn_ = nullptr;
  int64_t n_ = 0;
  // The caller's cancel flag (kernels/cancel.hpp), installed on every thread running one of
  // the job's chunks: a long kernel polls it from inside its chunks, on whichever thread.
  const std::atomic<bool>* cancel_ = nullptr;
  // Claim state: job number (32 bits) | chunk count (16) | next chunk (16). Claiming is a CAS
  // on the whole word, so a worker waking late can never claim a chunk of a newer job against
  // an older job's count.
  std::atomic<uint64_t> claims_{0};
  std::atomic<int64_t> pending_{0};  // chunks not yet finished
  std::atomic<uint32_t> epoch_{0};   // bumped once per job (and at shutdown)
  std::atomic<int> sleeping_workers_{0};
  std::atomic<bool> caller_sleeping_{false};
  std::atomic<bool> stop_{false};
  // Sleeping after the spin (not std::atomic::wait: libstdc++ 12's can miss a notify).
  std::mutex sleep_mu_;
  std::condition_variable work_cv_, done_cv_;

  // far_apart(): the last answer and when it was measured (steady_clock nanoseconds).
  std::atomic<bool> far_{false};
  std::atomic<int64_t> distance_checked_at_{INT64_MIN / 2};
  static inline std::atomic<int> assumed_far_{-1};

  std::mutex error_mu_;
  std::exception_ptr error_;
  std::mutex serial_;  // one parallel_for at a time per pool
};

// parallel_for on `pool` when given, else fn(0, n) inline.
void parallel_for(ThreadPool* pool, int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

}  // namespace mlvm
