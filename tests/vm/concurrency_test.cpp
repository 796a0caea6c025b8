// One loaded Program run by many Sessions on many threads at once: the module is immutable,
// each run has its own registers, and every run gets its own right answer.
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <thread>

#include "vm/vm_test_util.hpp"

using namespace mlvm;
using namespace mlvm::test;

BOOST_AUTO_TEST_SUITE(vm_concurrency)

BOOST_AUTO_TEST_CASE(one_program_many_threads) {
  // y = x * k + c for a loop of k = 0..n-1 summed: y = x * n(n-1)/2 + n * c, with a
  // constant shared by every run and a per-thread input.
  Program p = program_from(R"(
.input  x    : f32[?]
.const  c    : f32[1] = [0.5]
.const  zero : i32[1] = [0]
.const  one  : i32[1] = [1]
.const  n    : i32[1] = [20]
.output y    : f32[?]
    y = mul x, c
    y = sub y, y
    k = copy zero
loop:
    kf = cast k, dtype=f32
    t = mul x, kf
    t = add t, c
    y = add y, t
    k = add k, one
    more = less k, n
    br more, loop
)");
  constexpr int kThreads = 6, kRuns = 25;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int th = 0; th < kThreads; ++th) {
    threads.emplace_back([&, th] {
      SessionOptions o;
      o.threads = th % 2 ? 2 : 1;
      Session s(p, o);
      for (int r = 0; r < kRuns; ++r) {
        int64_t len = 1 + (th * 7 + r) % 300;
        std::vector<float> x(static_cast<std::size_t>(len));
        for (int64_t i = 0; i < len; ++i) x[std::size_t(i)] = float(th + 1) * float(i % 5 - 2);
        auto out = s.run({{"x", borrow_tensor<const float>({len}, x.data())}});
        std::vector<float> y = to_vector<float>(out.at("y"));
        bool ok = int64_t(y.size()) == len;
        for (int64_t i = 0; ok && i < len; ++i)
          ok = y[std::size_t(i)] == x[std::size_t(i)] * 190.0f + 10.0f;
        if (!ok) ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  BOOST_TEST(failures.load() == 0);
}

BOOST_AUTO_TEST_CASE(traps_on_one_thread_do_not_disturb_others) {
  Program p = program_from(R"(.input a : i64[?]
.input b : i64[?]
.output y : i64[?]
    y = div a, b
)");
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int th = 0; th < 4; ++th) {
    threads.emplace_back([&, th] {
      Session s(p, single_thread());
      for (int r = 0; r < 50; ++r) {
        bool trap = (th + r) % 3 == 0;
        auto a = make_tensor<int64_t>({2}, {100, int64_t(r)});
        auto b = make_tensor<int64_t>({2}, {trap ? 0 : 5, 1});
        try {
          auto out = s.run({{"a", a}, {"b", b}});
          if (trap || to_vector<int64_t>(out.at("y")) != std::vector<int64_t>{20, r}) ++wrong;
        } catch (const Error& e) {
          if (!trap || e.kind() != ErrorKind::trap) ++wrong;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  BOOST_TEST(wrong.load() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
