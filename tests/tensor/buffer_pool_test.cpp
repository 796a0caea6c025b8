// BufferPool: freed buffers kept for the next allocations, the latest fit first, up to a byte cap; a session
// hands its pool to every run, so a dropped output's memory is the next run's output.
#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <thread>
#include <vector>

#include "tensor/buffer_pool.hpp"
#include "tensor/storage.hpp"

using namespace mlvm;

namespace {
std::byte* fresh(std::size_t bytes) { return static_cast<std::byte*>(std::aligned_alloc(64, bytes)); }
}  // namespace

BOOST_AUTO_TEST_SUITE(buffer_pool)

BOOST_AUTO_TEST_CASE(gives_back_the_latest_fit_up_to_its_cap) {
  BufferPool pool(1024);
  std::byte* a = fresh(512);
  std::byte* b = fresh(256);
  std::size_t capacity = 0;
  BOOST_TEST(pool.take(512, capacity) == nullptr);
  BOOST_TEST(pool.give(a, 512));
  BOOST_TEST(pool.give(b, 256));
  BOOST_TEST(pool.cached_bytes() == 768);
  std::byte* c = fresh(512);
  BOOST_TEST(!pool.give(c, 512));  // 768 + 512 > 1024: the caller frees it
  std::free(c);
  BOOST_TEST(pool.take(600, capacity) == nullptr);  // none large enough
  BOOST_TEST(pool.take(3, capacity) == nullptr);    // 256 is more than 64 times 3
  BOOST_TEST(pool.take(7, capacity) == b);          // both fit [7, 64 · 7]: b was given last
  BOOST_TEST(capacity == 256u);
  BOOST_TEST(pool.give(b, 256));
  BOOST_TEST(pool.take(256, capacity) == b);  // both fit, b was given last
  BOOST_TEST(pool.give(b, 256));
  BOOST_TEST(pool.take(300, capacity) == a);  // only 512 is large enough, though b came later
  BOOST_TEST(capacity == 512u);
  BOOST_TEST(pool.take(256, capacity) == b);
  BOOST_TEST(pool.cached_bytes() == 0);
  BOOST_TEST(pool.give(a, 512));
  BOOST_TEST(pool.give(b, 256));
  BOOST_TEST(pool.cached_bytes() == 768);
  // Both freed by the pool's destructor (LeakSanitizer would say otherwise).
}

// Past twice a request's size only by BufferPool::kMaxExtraBytes: a small tensor does not hold
// a large buffer that a large one then allocates again.
BOOST_AUTO_TEST_CASE(large_buffers_serve_small_requests_within_a_bound) {
  const std::size_t big = std::size_t(64) << 20;
  BOOST_TEST(BufferPool::largest_fit(100) == 6400u);
  BOOST_TEST(BufferPool::largest_fit(std::size_t(1) << 20) == (std::size_t(9) << 20));
  BOOST_TEST(BufferPool::largest_fit(big) == 2 * big);
  BufferPool pool;
  std::byte* p = fresh(big);
  BOOST_TEST(pool.give(p, big));
  std::size_t capacity = 0;
  BOOST_TEST(pool.take(big / 4, capacity) == nullptr);  // 64 MiB is more than twice 16 MiB and 8 MiB more
  BOOST_TEST(pool.take(big / 2, capacity) == p);        // twice 32 MiB
  BOOST_TEST(capacity == big);
  BOOST_TEST(pool.give(p, big));
  // Both freed by the pool's destructor.
}

BOOST_AUTO_TEST_CASE(the_latest_of_many_of_one_size_comes_first) {
  BufferPool pool;
  std::vector<std::byte*> bufs;
  for (int k = 0; k < 5; ++k) {
    bufs.push_back(fresh(128));
    BOOST_TEST(pool.give(bufs.back(), 128));
  }
  std::byte* big = fresh(192);
  BOOST_TEST(pool.give(big, 192));
  std::size_t capacity = 0;
  BOOST_TEST(pool.take(128, capacity) == big);
  for (int k = 4; k >= 0; --k) BOOST_TEST(pool.take(100, capacity) == bufs[std::size_t(k)]);
  BOOST_TEST(pool.take(100, capacity) == nullptr);
  for (std::byte* p : bufs) std::free(p);
  std::free(big);
}

BOOST_AUTO_TEST_CASE(storage_returns_its_bytes_to_the_budgets_pool) {
  auto pool = std::make_shared<BufferPool>();
  auto budget = std::make_shared<MemoryBudget>();
  budget->set_pool(pool);
  std::byte* first = nullptr;
  {
    auto s = Storage::allocate(1000, budget);
    first = s->data();
    BOOST_TEST(budget->live() == 1000);
  }
  BOOST_TEST(budget->live() == 0);
#if defined(__SANITIZE_ADDRESS__)
  BOOST_TEST(pool->cached_bytes() == 0);  // never reused under ASan: use-after-free stays visible
#else
  BOOST_TEST(pool->cached_bytes() == 1024);  // rounded up to the 64-byte alignment
  auto again = Storage::allocate(600, budget);  // 1024 bytes serve a request of 600
  BOOST_TEST(again->data() == first);
  BOOST_TEST(budget->live() == 600);  // reused memory still counts against the limit, as asked
  again.reset();
  BOOST_TEST(pool->cached_bytes() == 1024);  // back with its whole capacity
  again = Storage::allocate(1000, budget);
  BOOST_TEST(again->data() == first);
  auto zeroed = Storage::allocate_zeroed(1000, budget);  // a different buffer, zero-filled
  for (int64_t i = 0; i < 1000; ++i) BOOST_REQUIRE(zeroed->data()[i] == std::byte{0});
#endif
}

BOOST_AUTO_TEST_CASE(buffers_freed_on_other_threads_come_back) {
  auto pool = std::make_shared<BufferPool>();
  auto budget = std::make_shared<MemoryBudget>();
  budget->set_pool(pool);
  std::vector<std::shared_ptr<Storage>> made;
  for (int k = 0; k < 64; ++k) made.push_back(Storage::allocate(4096, budget));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&made, t] {
      for (int k = t; k < 64; k += 4) made[std::size_t(k)].reset();
    });
  for (auto& t : threads) t.join();
  BOOST_TEST(budget->live() == 0);
#if !defined(__SANITIZE_ADDRESS__)
  BOOST_TEST(pool->cached_bytes() == 64 * 4096);
#endif
}

BOOST_AUTO_TEST_SUITE_END()
