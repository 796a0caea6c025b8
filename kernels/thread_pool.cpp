#include "kernels/thread_pool.hpp"

#include "kernels/cancel.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include <pthread.h>
#include <sched.h>

namespace mlvm {

namespace {

// The pool whose chunk this thread is running (workers: their pool, for life), so that a
// nested parallel_for on the same pool runs inline instead of waiting for itself.
thread_local const ThreadPool* tl_serving = nullptr;
// The pool this thread is a worker of, and its index there (1, 2, ...; the caller is 0).
thread_local const ThreadPool* tl_worker_of = nullptr;
thread_local int tl_worker_index = 0;
// Jobs of at most this many chunks are claimed from a bit mask, each thread taking the chunk
// of its own index first (ThreadPool::parallel_for).
constexpr int64_t kAffinityChunks = 16;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spins until pred() or kSpinMicros pass; returns pred().
template <class Pred>
bool spin_until(Pred pred) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(ThreadPool::kSpinMicros);
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (pred()) return true;
      cpu_relax();
    }
    if (std::chrono::steady_clock::now() >= deadline) return pred();
  }
}

// Pins `t` to CPU `cpu` alone; false when the OS refuses.
bool pin_to_cpu(std::thread& t, int cpu) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  return pthread_setaffinity_np(t.native_handle(), sizeof(one), &one) == 0;
}

}  // namespace

ThreadPool::ThreadPool(int threads) {
  if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::min(threads, 256);
  // Workers start from epoch 0 even if they first run after a job (or the destructor) has
  // bumped it, so they never sleep through it.
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
  pin_workers();
}

// Pins each worker to its own CPU of the process's affinity mask when the mask has a CPU for
// every thread of the pool. Left to the scheduler, a worker woken by the caller was often
// queued behind it on the caller's CPU on a busy 2-core machine (wake-affine placement), and
// each fork-join then waited a time slice: beside ONNX Runtime's processes, 2-thread
// MobileNet-V2 ran at a median of 14.2 ms unpinned and 12.0 ms pinned (minimum 10.3 ms),
// ShuffleNet-V2 12.7 and 7.7 ms. The caller stays unpinned (it is the host's thread); the
// pools of a process start at successive CPUs, so concurrent sessions spread their workers.
// MLVM_PIN_THREADS=0 in the environment turns it off.
void ThreadPool::pin_workers() {
  const char* env = std::getenv("MLVM_PIN_THREADS");
  if (workers_.empty() || (env && env[0] == '0' && env[1] == 0)) return;
  cpu_set_t mask;
  if (sched_getaffinity(0, sizeof(mask), &mask) != 0 || CPU_COUNT(&mask) < int(workers_.size()) + 1) return;
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &mask)) cpus.push_back(c);
  static std::atomic<std::size_t> next_pool{0};
  const std::size_t first = 1 + next_pool.fetch_add(workers_.size()) % cpus.size();
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    const int cpu = cpus[(first + i) % cpus.size()];
    // A refusal stops here: the workers pinned so far stay, and no CPU is kept free for the caller.
    if (!pin_to_cpu(workers_[i], cpu)) return;
    worker_cpu_.push_back(cpu);
  }
  cpus_ = std::move(cpus);
}

// The caller is not pinned, and the scheduler may move it onto a worker's CPU (a host thread
// woken from a pause, e.g. by the pipe of bench/models' server, is placed where its waker
// ran). Caller and worker then share one CPU while the other idles, and every fork-join
// runs at half speed: 2-thread ResNet-18 took 13.6 ms against 14.6 at 1 thread. So when
// the caller's CPU (sched_getcpu: no system call) has changed since the last job and a
// worker is pinned there, that worker moves to a CPU no thread of the pool is on.
void ThreadPool::keep_off_caller_cpu() {
  if (cpus_.empty()) return;
  const int here = sched_getcpu();
  if (here == caller_cpu_) return;
  caller_cpu_ = here;
  for (std::size_t i = 0; i < worker_cpu_.size(); ++i) {
    if (worker_cpu_[i] != here) continue;
    for (const int cpu : cpus_) {
      if (cpu == here || std::find(worker_cpu_.begin(), worker_cpu_.end(), cpu) != worker_cpu_.end()) continue;
      if (pin_to_cpu(workers_[i], cpu)) worker_cpu_[i] = cpu;
      break;
    }
  }
}

ThreadPool::~ThreadPool() {
  stop_.store(true);
  {
    std::lock_guard<std::mutex> lk(sleep_mu_);
    epoch_.fetch_add(1);
  }
  work_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::worker_loop(int index) {
  tl_serving = this;
  tl_worker_of = this;
  tl_worker_index = index;
  uint32_t seen = 0;
  for (;;) {
    if (!spin_until([&] { return epoch_.load(std::memory_order_acquire) != seen; })) {
      // Sleep. The seq_cst counter pairs with the publisher's epoch bump: either it sees us
      // sleeping and notifies (under the mutex), or we see its new epoch before waiting.
      std::unique_lock<std::mutex> lk(sleep_mu_);
      sleeping_workers_.fetch_add(1);
      work_cv_.wait(lk, [&] { return epoch_.load() != seen; });
      sleeping_workers_.fetch_sub(1);
    }
    seen = epoch_.load(std::memory_order_acquire);
    if (stop_.load()) return;
    run_chunks();
  }
}

void ThreadPool::run_chunks() {
  // This thread's own chunk: its index in the pool (the caller's is 0).
  const int64_t own = tl_worker_of == this ? tl_worker_index : 0;
  uint64_t s = claims_.load(std::memory_order_acquire);
  for (;;) {
    const int64_t parts = int64_t((s >> 16) & 0xffff);
    int64_t chunk;
    uint64_t claimed;
    if (parts <= kAffinityChunks) {
      // Low bits: the chunks claimed. Own chunk first, then the lowest left.
      const uint64_t mask = s & 0xffff, all = (uint64_t(1) << parts) - 1;
      if (mask == all) return;
      chunk = own < parts && !(mask >> own & 1) ? own : __builtin_ctzll(~mask & all);
      claimed = s | (uint64_t(1) << chunk);
    } else {
      chunk = int64_t(s & 0xffff);
      if (chunk >= parts) return;
      claimed = s + 1;
    }
    if (!claims_.compare_exchange_weak(s, claimed, std::memory_order_acq_rel, std::memory_order_acquire)) continue;
    // The claimed chunk keeps its job alive (pending_ > 0), so fn_ and n_ are that job's.
    const int64_t n = n_;
    const CancelScope cancel_scope(cancel_);
    try {
      (*fn_)(n * chunk / parts, n * (chunk + 1) / parts);
    } catch (...) {
      std::lock_guard<std::mutex> g(error_mu_);
      if (!error_) error_ = std::current_exception();
    }
    if (pending_.fetch_sub(1) == 1 && caller_sleeping_.load()) {
      std::lock_guard<std::mutex> lk(sleep_mu_);
      done_cv_.notify_all();
    }
    s = claims_.load(std::memory_order_acquire);
  }
}

void ThreadPool::parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  // Whole grains per chunk (n / grain, not rounded up), at most one chunk per thread (<= 256).
  const int64_t parts = std::min<int64_t>(size(), std::max<int64_t>(1, n / grain));
  if (parts <= 1 || workers_.empty() || tl_serving == this) {
    fn(0, n);
    return;
  }
  std::lock_guard<std::mutex> serial(serial_);
  keep_off_caller_cpu();
  // Publish: the job fields, then the counters, then the epoch that wakes the workers.
  fn_ = &fn;
  n_ = n;
  cancel_ = detail::current_cancel_flag;
  error_ = nullptr;
  pending_.store(parts);
  const uint64_t job = (claims_.load(std::memory_order_relaxed) >> 32) + 1;
  claims_.store((job << 32) | (uint64_t(parts) << 16), std::memory_order_release);
  epoch_.fetch_add(1);
  if (sleeping_workers_.load() > 0) {
    std::lock_guard<std::mutex> lk(sleep_mu_);
    work_cv_.notify_all();
  }

  tl_serving = this;
  run_chunks();
  tl_serving = nullptr;
  if (!spin_until([&] { return pending_.load(std::memory_order_acquire) == 0; })) {
    std::unique_lock<std::mutex> lk(sleep_mu_);
    caller_sleeping_.store(true);
    done_cv_.wait(lk, [&] { return pending_.load() == 0; });
    caller_sleeping_.store(false);
  }
  std::exception_ptr err;
  {
    std::lock_guard<std::mutex> g(error_mu_);
    err = error_;
    error_ = nullptr;
  }
  if (err) std::rethrow_exception(err);
}

namespace {

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A cache line bounced between two threads: each round trip one store by either side.
struct alignas(64) PingLine {
  std::atomic<int> value{0};
  std::atomic<bool> gave_up{false};
  // Spins until value == want (true), or the other side gave up or `limit_ns` passed (false).
  bool await(int want, int64_t limit_ns) {
    const int64_t deadline = steady_ns() + limit_ns;
    for (;;) {
      for (int i = 0; i < 64; ++i) {
        if (value.load(std::memory_order_acquire) == want) return true;
        cpu_relax();
      }
      if (gave_up.load(std::memory_order_relaxed)) return false;
      if (steady_ns() >= deadline) {
        gave_up.store(true);
        return false;
      }
    }
  }
};

// Round trips timed, after a first handshake that may wait for a sleeping worker to wake.
constexpr int kRoundTrips = 32, kGroupTrips = 8;
constexpr int64_t kHandshakeNs = 2'000'000, kRoundTripLimitNs = 100'000;
// Between the 70-120 ns of cores sharing a cache and the ~370 ns of cores that do not.
constexpr double kFarRoundTripNs = 200;

}  // namespace

bool ThreadPool::far_apart() {
  if (const int assumed = assumed_far_.load(); assumed >= 0) return assumed == 1;
  if (workers_.empty() || tl_serving == this) return far_.load(std::memory_order_relaxed);
  const int64_t now = steady_ns();
  if (now - distance_checked_at_.load(std::memory_order_relaxed) < int64_t(kDistanceRecheckMillis) * 1'000'000)
    return far_.load(std::memory_order_relaxed);
  distance_checked_at_.store(now, std::memory_order_relaxed);
  // Without an answer the last one stands.
  if (const double ns = measure_round_trip_ns(); ns > 0) far_.store(ns > kFarRoundTripNs, std::memory_order_relaxed);
  return far_.load(std::memory_order_relaxed);
}

double ThreadPool::measure_round_trip_ns() {
  // Chunk 0 pings and times, chunk 1 answers; whichever threads claim them. When one thread
  // runs both (no worker came), the first gives up after the handshake wait and the second
  // at once.
  PingLine line;
  double ns = -1;
  parallel_for(2, 1, [&](int64_t b, int64_t) {
    if (b == 0) {
      line.value.store(1, std::memory_order_release);
      if (!line.await(2, kHandshakeNs)) return;
      // The fastest group of kGroupTrips: a preempted round trip does not count.
      int64_t best = INT64_MAX, t0 = steady_ns();
      for (int i = 0; i < kRoundTrips; ++i) {
        line.value.store(2 * i + 3, std::memory_order_release);
        if (!line.await(2 * i + 4, kRoundTripLimitNs)) return;
        if ((i + 1) % kGroupTrips == 0) {
          const int64_t t = steady_ns();
          best = std::min(best, t - t0);
          t0 = t;
        }
      }
      ns = double(best) / kGroupTrips;
    } else {
      if (!line.await(1, kHandshakeNs)) return;
      line.value.store(2, std::memory_order_release);
      for (int i = 0; i < kRoundTrips; ++i) {
        if (!line.await(2 * i + 3, kRoundTripLimitNs)) return;
        line.value.store(2 * i + 4, std::memory_order_release);
      }
    }
  });
  return ns;
}

void parallel_for(ThreadPool* pool, int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
  if (pool) pool->parallel_for(n, grain, fn);
  else if (n > 0) fn(0, n);
}

}  // namespace mlvm
