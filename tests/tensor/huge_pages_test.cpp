// huge_page_alloc (tensor/huge_pages.hpp): buffers of 1 MiB and more on whole 2 MiB pages of
// their own, 64 KiB .. 1 MiB as blocks of shared 2 MiB slabs, smaller ones plain. Every buffer
// is as large and as aligned as promised, none overlaps another (each keeps the pattern written
// into it while all the others are written and freed), a freed block is handed out again, and
// threads allocating and freeing at once get the same guarantees. Under AddressSanitizer every
// buffer is plain, at its own size.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "tensor/huge_pages.hpp"

using namespace mlvm;

namespace {

constexpr bool kRounded = kHugePagesUsed;  // plain buffers under AddressSanitizer

struct Buffer {
  uint32_t* p;
  std::size_t words;
  uint32_t seed;
};

void fill(const Buffer& b) {
  for (std::size_t i = 0; i < b.words; ++i) b.p[i] = b.seed * 2654435761u + uint32_t(i);
}

bool intact(const Buffer& b) {
  for (std::size_t i = 0; i < b.words; ++i)
    if (b.p[i] != b.seed * 2654435761u + uint32_t(i)) return false;
  return true;
}

// Sizes from each range: plain, slab classes (edges included), whole pages.
const std::vector<std::size_t>& sizes() {
  static const std::vector<std::size_t> s = {
      4,        100,          65535,        65536,           65537,     100000,
      131072,   300000,       524288,       524289,          1048575,   (1u << 20),
      (1u << 20) + 4, 3u << 20, (3u << 20) + 8};
  return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(huge_pages)

BOOST_AUTO_TEST_CASE(capacities_by_range) {
  for (std::size_t bytes : sizes()) BOOST_TEST(huge_page_capacity(bytes) >= bytes);
  BOOST_TEST(huge_page_capacity(100) == 128u);
  if (kRounded) {
    BOOST_TEST(huge_page_capacity(65535) == 65536u);      // under the slabs: to 64 bytes
    BOOST_TEST(huge_page_capacity(65536) == 65536u);      // the smallest block
    BOOST_TEST(huge_page_capacity(65537) == 131072u);     // the next power of two
    BOOST_TEST(huge_page_capacity(524289) == 1048576u);   // the largest block
    BOOST_TEST(huge_page_capacity(1048576) == 2097152u);  // a page of its own
    BOOST_TEST(huge_page_capacity((3u << 20) + 8) == (4u << 20));
  } else {
    BOOST_TEST(huge_page_capacity(65537) == 65600u);
    BOOST_TEST(huge_page_capacity((3u << 20) + 8) == (3u << 20) + 64);
  }
  BOOST_TEST(huge_page_alloc(0) == nullptr);
  BOOST_TEST(huge_page_alloc(std::size_t(-1)) == nullptr);
  huge_page_free(nullptr);
}

BOOST_AUTO_TEST_CASE(buffers_never_overlap_and_blocks_come_back) {
  std::mt19937 rng(5);
  std::vector<Buffer> live;
  uint32_t seed = 1;
  // Three rounds: allocate every size several times (more 64 KiB blocks than one slab holds),
  // check them all, free a random half, and go again over the survivors.
  for (int round = 0; round < 3; ++round) {
    for (int copies = 0; copies < 40; ++copies)
      for (std::size_t bytes : sizes()) {
        if (bytes > (1u << 20) && copies > 2) continue;  // a few large ones are enough
        void* p = huge_page_alloc(bytes);
        BOOST_REQUIRE(p != nullptr);
        const auto at = reinterpret_cast<std::uintptr_t>(p);
        BOOST_TEST(at % 64 == 0u);
        if (kRounded && bytes >= (1u << 20)) BOOST_TEST(at % (2u << 20) == 0u);
        // The whole capacity is usable, not just the bytes asked for.
        Buffer b{static_cast<uint32_t*>(p), huge_page_capacity(bytes) / 4, seed++};
        fill(b);
        live.push_back(b);
      }
    bool all = true;
    for (const Buffer& b : live) all = all && intact(b);
    BOOST_TEST(all, "round " << round);
    std::shuffle(live.begin(), live.end(), rng);
    for (std::size_t i = live.size() / 2; i < live.size(); ++i) huge_page_free(live[i].p);
    live.resize(live.size() / 2);
  }
  bool all = true;
  for (const Buffer& b : live) all = all && intact(b);
  BOOST_TEST(all);
  for (const Buffer& b : live) huge_page_free(b.p);
}

BOOST_AUTO_TEST_CASE(threads_allocate_and_free_at_once) {
  std::vector<int> ok(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t, &ok] {
      std::vector<Buffer> mine;
      bool good = true;
      for (int i = 0; i < 200; ++i) {
        const std::size_t bytes = sizes()[std::size_t(i * 7 + t) % 12];  // up to 1 MiB
        Buffer b{static_cast<uint32_t*>(huge_page_alloc(bytes)), bytes / 4, uint32_t(t * 1000 + i)};
        if (!b.p) {
          good = false;
          break;
        }
        fill(b);
        mine.push_back(b);
        if (i % 3 == 2) {  // free one of the older ones, checked first
          good = good && intact(mine.front());
          huge_page_free(mine.front().p);
          mine.erase(mine.begin());
        }
      }
      for (const Buffer& b : mine) {
        good = good && intact(b);
        huge_page_free(b.p);
      }
      ok[std::size_t(t)] = good;
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) BOOST_TEST(ok[std::size_t(t)] == 1, "thread " << t);
}

BOOST_AUTO_TEST_CASE(as_a_vector_allocator) {
  std::vector<float, HugePageAllocator<float>> v(300000, 1.5f);  // a slab block
  v.resize(600000, 2.5f);                                         // a page of its own
  BOOST_TEST(v[299999] == 1.5f);
  BOOST_TEST(v[300000] == 2.5f);
  BOOST_TEST(v[599999] == 2.5f);
}

BOOST_AUTO_TEST_SUITE_END()
