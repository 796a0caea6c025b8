// ThreadPool: every index covered exactly once (for_each_item's items too), chunking rules,
// exceptions, nested calls, concurrent callers, many back-to-back jobs across the spin/sleep
// boundary, workers pinned to their own CPU (or not, with MLVM_PIN_THREADS=0), and the
// measured distance between the pool's threads (far_apart).
#include <boost/test/unit_test.hpp>

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "kernels/cancel.hpp"
#include "kernels/parallel_items.hpp"
#include "kernels/thread_pool.hpp"
#include "tensor/error.hpp"

using namespace mlvm;

namespace {

// Runs parallel_for and checks [0, n) is covered exactly once by at most `max_parts` chunks
// of at least `grain` items (except when n itself is smaller).
void check_cover(ThreadPool& pool, int64_t n, int64_t grain, int64_t max_parts) {
  std::vector<std::atomic<int>> hits(std::size_t(std::max<int64_t>(n, 1)));
  std::atomic<int64_t> chunks{0}, short_chunks{0};
  pool.parallel_for(n, grain, [&](int64_t b, int64_t e) {
    chunks.fetch_add(1);
    if (e - b < grain) short_chunks.fetch_add(1);
    for (int64_t i = b; i < e; ++i) hits[std::size_t(i)].fetch_add(1);
  });
  int wrong = 0;
  for (int64_t i = 0; i < n; ++i) wrong += hits[std::size_t(i)].load() != 1;
  BOOST_TEST(wrong == 0);
  BOOST_TEST(chunks.load() <= max_parts);
  if (n >= grain) BOOST_TEST(short_chunks.load() == 0);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(thread_pool)

BOOST_AUTO_TEST_CASE(covers_every_index_once) {
  for (int threads : {1, 2, 3, 5}) {
    ThreadPool pool(threads);
    BOOST_TEST(pool.size() == threads);
    for (int64_t n : {0, 1, 2, 3, 7, 100, 1001})
      for (int64_t grain : {1, 2, 16, 1000}) check_cover(pool, n, grain, threads);
  }
}

// for_each_item (kernels/parallel_items.hpp) claims items one by one when they are few and in
// runs when they are many: each index exactly once either way, whatever the pool.
BOOST_AUTO_TEST_CASE(for_each_item_covers_every_item_once) {
  for (int threads : {1, 2, 3}) {
    ThreadPool pool(threads);
    for (int64_t n : {0, 1, 2, 5, 15, 16, 17, 47, 48, 49, 100, 997, 4096}) {
      std::vector<std::atomic<int>> hits(std::size_t(std::max<int64_t>(n, 1)));
      for_each_item(&pool, n, [&](int64_t i) { hits[std::size_t(i)].fetch_add(1); });
      int64_t bad = 0;
      for (int64_t i = 0; i < n; ++i) bad += hits[std::size_t(i)].load() != 1;
      BOOST_TEST(bad == 0, "threads " << threads << ", n " << n);
    }
  }
}

BOOST_AUTO_TEST_CASE(null_pool_runs_inline) {
  int64_t b0 = -1, e0 = -1;
  const auto me = std::this_thread::get_id();
  bool same_thread = false;
  parallel_for(nullptr, 10, 1, [&](int64_t b, int64_t e) {
    b0 = b, e0 = e;
    same_thread = std::this_thread::get_id() == me;
  });
  BOOST_TEST(b0 == 0);
  BOOST_TEST(e0 == 10);
  BOOST_TEST(same_thread);
  int calls = 0;
  parallel_for(nullptr, 0, 1, [&](int64_t, int64_t) { ++calls; });
  BOOST_TEST(calls == 0);
}

BOOST_AUTO_TEST_CASE(exceptions_propagate_after_all_chunks) {
  ThreadPool pool(3);
  std::atomic<int> finished{0};
  BOOST_CHECK_THROW(pool.parallel_for(3, 1,
                                      [&](int64_t b, int64_t) {
                                        if (b == 0) throw std::runtime_error("boom");
                                        std::this_thread::sleep_for(std::chrono::milliseconds(5));
                                        finished.fetch_add(1);
                                      }),
                    std::runtime_error);
  BOOST_TEST(finished.load() == 2);
  // The pool still works afterwards.
  check_cover(pool, 50, 1, 3);
}

// Every chunk runs under its caller's cancel flag, whichever thread takes it: a kernel's
// poll_cancel() inside a chunk on a worker sees the host's cancel. Outside the caller's scope
// the workers see none.
BOOST_AUTO_TEST_CASE(chunks_see_the_callers_cancel_flag) {
  ThreadPool pool(3);
  std::atomic<bool> flag{false};
  std::atomic<int> saw{0};
  {
    const CancelScope scope(&flag);
    pool.parallel_for(3, 1, [&](int64_t, int64_t) { saw.fetch_add(detail::current_cancel_flag == &flag); });
    BOOST_TEST(saw.load() == 3);
    flag = true;
    std::atomic<int> polled{0};
    BOOST_CHECK_THROW(pool.parallel_for(3, 1,
                                        [&](int64_t, int64_t) {
                                          polled.fetch_add(1);
                                          poll_cancel();
                                        }),
                      Error);
    BOOST_TEST(polled.load() == 3);
  }
  saw = 0;
  pool.parallel_for(3, 1, [&](int64_t, int64_t) { saw.fetch_add(detail::current_cancel_flag == nullptr); });
  BOOST_TEST(saw.load() == 3);
}

BOOST_AUTO_TEST_CASE(nested_call_runs_inline) {
  ThreadPool pool(2);
  std::atomic<int64_t> total{0};
  pool.parallel_for(4, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      pool.parallel_for(10, 1, [&](int64_t b2, int64_t e2) { total.fetch_add(e2 - b2); });
  });
  BOOST_TEST(total.load() == 40);
}

BOOST_AUTO_TEST_CASE(back_to_back_and_after_sleeping) {
  ThreadPool pool(2);
  int64_t sum = 0;
  for (int it = 0; it < 20000; ++it) {
    std::atomic<int64_t> s{0};
    pool.parallel_for(2, 1, [&](int64_t b, int64_t e) { s.fetch_add(e - b); });
    sum += s.load();
    // Now and then let the workers fall asleep (past the spin) before the next job.
    if (it % 2000 == 0) std::this_thread::sleep_for(std::chrono::microseconds(3 * ThreadPool::kSpinMicros));
  }
  BOOST_TEST(sum == 40000);
}

BOOST_AUTO_TEST_CASE(concurrent_callers_share_one_pool) {
  ThreadPool pool(2);
  std::atomic<int64_t> total{0};
  auto caller = [&] {
    for (int it = 0; it < 500; ++it)
      pool.parallel_for(8, 1, [&](int64_t b, int64_t e) { total.fetch_add(e - b); });
  };
  std::thread t1(caller), t2(caller);
  t1.join();
  t2.join();
  BOOST_TEST(total.load() == 2 * 500 * 8);
}

BOOST_AUTO_TEST_CASE(create_and_destroy_quickly) {
  // Workers may first run after the destructor has started; none may sleep through it.
  for (int it = 0; it < 300; ++it) {
    ThreadPool pool(3);
    if (it % 3 == 0) check_cover(pool, 5, 1, 3);
  }
}

// The CPUs a pool's worker may run on, seen from inside a chunk the worker ran (the caller's
// chunk sleeps a little so that the worker claims the other); false if the worker never took one.
bool worker_affinity(ThreadPool& pool, cpu_set_t& cpus) {
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<bool> seen{false};
  for (int attempt = 0; attempt < 200 && !seen.load(); ++attempt)
    pool.parallel_for(2, 1, [&](int64_t, int64_t) {
      if (std::this_thread::get_id() == caller) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        return;
      }
      if (pthread_getaffinity_np(pthread_self(), sizeof(cpus), &cpus) == 0) seen.store(true);
    });
  return seen.load();
}

// The number of those CPUs, or -1 if the worker never took a chunk.
int worker_cpu_count(ThreadPool& pool) {
  cpu_set_t cpus;
  return worker_affinity(pool, cpus) ? CPU_COUNT(&cpus) : -1;
}

BOOST_AUTO_TEST_CASE(workers_pinned_to_their_own_cpu) {
  cpu_set_t mask;
  BOOST_REQUIRE(sched_getaffinity(0, sizeof(mask), &mask) == 0);
  const int cpus = CPU_COUNT(&mask);
  {
    ThreadPool pool(2);
    const int n = worker_cpu_count(pool);
    BOOST_REQUIRE(n > 0);
    BOOST_TEST(n == (cpus >= 2 ? 1 : cpus));  // one CPU when there is one for each thread
  }
  BOOST_REQUIRE(setenv("MLVM_PIN_THREADS", "0", 1) == 0);
  {
    ThreadPool pool(2);
    BOOST_TEST(worker_cpu_count(pool) == cpus);  // the process's whole mask
  }
  unsetenv("MLVM_PIN_THREADS");
  {
    ThreadPool pool(cpus + 1);  // more threads than CPUs: left to the scheduler
    BOOST_TEST(worker_cpu_count(pool) == cpus);
  }
}

// A caller the scheduler has put on its worker's CPU: the worker moves to another, so that the
// two do not share one CPU while the other idles. The caller is pinned to each CPU in turn
// (and given its mask back after); the worker's one CPU is read from inside its chunk.
BOOST_AUTO_TEST_CASE(worker_moves_off_the_callers_cpu) {
  cpu_set_t mask;
  BOOST_REQUIRE(pthread_getaffinity_np(pthread_self(), sizeof(mask), &mask) == 0);
  if (CPU_COUNT(&mask) < 2) return;  // nothing to move to
  ThreadPool pool(2);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &mask)) continue;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    BOOST_REQUIRE(pthread_setaffinity_np(pthread_self(), sizeof(one), &one) == 0);
    BOOST_TEST_CONTEXT("caller on CPU " << cpu) {
      cpu_set_t worker;
      BOOST_REQUIRE(worker_affinity(pool, worker));
      BOOST_TEST(CPU_COUNT(&worker) == 1);
      BOOST_TEST(!CPU_ISSET(cpu, &worker));
    }
  }
  BOOST_REQUIRE(pthread_setaffinity_np(pthread_self(), sizeof(mask), &mask) == 0);
}

// far_apart's ping-pong between two threads of the pool gives a round trip (under a millisecond:
// tens to hundreds of nanoseconds on real cores) at least once in 200 tries (a try fails
// only when no worker joins within 2 ms); the pool works on after it, a call from inside a
// chunk answers without measuring, and without workers nothing is far apart.
BOOST_AUTO_TEST_CASE(far_apart_measures_a_round_trip) {
  ThreadPool pool(2);
  double ns = -1;
  for (int i = 0; i < 200 && ns <= 0; ++i) ns = pool.measure_round_trip_ns();
  BOOST_TEST(ns > 0);
  BOOST_TEST(ns < 1e6);
  check_cover(pool, 1000, 1, 2);
  // A measurement from inside a chunk would wait out its 2 ms handshakes; an answer without one
  // takes nanoseconds. One call a try, each after the recheck interval, so that every call
  // would measure; the fastest of a few tries, so that a preempted call does not count.
  // (Checked after the join: Boost.Test's assertions are not for concurrent threads.)
  std::atomic<int64_t> fastest_ns{INT64_MAX};
  for (int attempt = 0; attempt < 4; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(ThreadPool::kDistanceRecheckMillis + 10));
    pool.parallel_for(2, 1, [&](int64_t b, int64_t) {
      if (b != 0) return;
      const auto t0 = std::chrono::steady_clock::now();
      pool.far_apart();
      const int64_t ns = std::chrono::nanoseconds(std::chrono::steady_clock::now() - t0).count();
      if (ns < fastest_ns.load()) fastest_ns.store(ns);
    });
  }
  BOOST_TEST(fastest_ns.load() < 1'000'000);
  ThreadPool one(1);
  BOOST_TEST(!one.far_apart());
  BOOST_TEST(one.measure_round_trip_ns() < 0);
  ThreadPool::assume_far_apart_for_testing(1);
  BOOST_TEST(pool.far_apart());
  ThreadPool::assume_far_apart_for_testing(0);
  BOOST_TEST(!pool.far_apart());
  ThreadPool::assume_far_apart_for_testing(-1);
}

// Chunk i runs on thread i (the caller 0, the worker 1) whenever both threads take part: over
// many back-to-back jobs of two chunks that wait for each other, the worker ran chunk 1 in
// nearly all (a caller preempted between publishing and claiming may lose chunk 0).
BOOST_AUTO_TEST_CASE(chunk_i_runs_on_thread_i) {
  ThreadPool pool(2);
  const std::thread::id caller = std::this_thread::get_id();
  int both = 0, own = 0;
  for (int job = 0; job < 400; ++job) {
    std::atomic<int> arrived{0};
    std::thread::id ran[2];
    std::atomic<bool> met{true};
    pool.parallel_for(2, 1, [&](int64_t b, int64_t) {
      ran[b] = std::this_thread::get_id();
      arrived.fetch_add(1);
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(2);
      while (arrived.load() < 2)
        if (std::chrono::steady_clock::now() > deadline) {
          met.store(false);
          return;
        }
    });
    if (!met || ran[0] == ran[1]) continue;
    ++both;
    own += ran[0] == caller;
  }
  BOOST_TEST(both >= 50);
  BOOST_TEST(own >= both * 95 / 100);
}

BOOST_AUTO_TEST_SUITE_END()
