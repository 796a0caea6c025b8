// One loaded Program run by many Sessions on many threads at once: the module is immutable,
// each run has its own registers, and every run gets its own right answer.
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <ostream>
#include <streambuf>
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

// The 1.0 thread contract under stress (and under ThreadSanitizer in CI): one Program, 8
// threads, 1,000 runs each through its own Session, with a bound output on half of them and
// threaded kernels (2 workers) on the other half; every result checked.
BOOST_AUTO_TEST_CASE(eight_threads_a_thousand_runs_each) {
  Program p = program_from(R"(
.input  x : f32[?]
.const  w : f32[1] = [3]
.output y : f32[?]
.output s : f32[1]
    t = mul x, w
    y = add t, x
    s = sum y, axes=(0), keepdims=true
)");
  constexpr int kThreads = 8, kRuns = 1000;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int th = 0; th < kThreads; ++th) {
    threads.emplace_back([&, th] {
      SessionOptions o;
      o.threads = th % 2 ? 1 : 2;
      Session s(p, o);
      const int64_t n = 64 + th;
      std::vector<float> x(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(n));
      if (th % 2) s.bind_output("y", borrow_tensor<float>({n}, y.data(), true));
      for (int r = 0; r < kRuns; ++r) {
        for (int64_t i = 0; i < n; ++i) x[std::size_t(i)] = float((i + r + th) % 7);
        TensorMap out = s.run({{"x", borrow_tensor<const float>({n}, x.data())}});
        std::vector<float> got = to_vector<float>(out.at("y"));
        float total = 0;
        bool ok = int64_t(got.size()) == n;
        for (int64_t i = 0; ok && i < n; ++i) {
          ok = got[std::size_t(i)] == 4 * x[std::size_t(i)];
          total += got[std::size_t(i)];
        }
        if (th % 2) ok = ok && out.at("y").data<float>() == y.data();
        if (!ok || to_vector<float>(out.at("s"))[0] != total) ++wrong;
      }
    });
  }
  for (auto& t : threads) t.join();
  BOOST_TEST(wrong.load() == 0);
}

// Kernels big enough to be split over each session's worker threads, on several sessions at
// once: the thread pools' hand-offs are what ThreadSanitizer checks here.
BOOST_AUTO_TEST_CASE(threaded_kernels_in_concurrent_sessions) {
  Program p = program_from(R"(
.input  x : f32[?]
.output y : f32[?]
.output s : f32[1]
    t = add x, x
    y = relu t
    s = sum y, axes=(0), keepdims=true
)");
  constexpr int kThreads = 4, kRuns = 20;
  constexpr int64_t n = 1 << 20;
  std::vector<float> x(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) x[std::size_t(i)] = float(i % 3) - 1.0f;  // -1, 0, 1
  const float total = float(2 * ((n + 1) / 3));  // 2 for every i % 3 == 2
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int th = 0; th < kThreads; ++th) {
    threads.emplace_back([&] {
      SessionOptions o;
      o.threads = 2;
      Session s(p, o);
      for (int r = 0; r < kRuns; ++r) {
        TensorMap out = s.run({{"x", borrow_tensor<const float>({n}, x.data())}});
        const Tensor& y = out.at("y");
        if (y.at<float>({2}) != 2.0f || y.at<float>({n - 1}) != 0.0f ||
            to_vector<float>(out.at("s"))[0] != total)
          ++wrong;
      }
    });
  }
  for (auto& t : threads) t.join();
  BOOST_TEST(wrong.load() == 0);
}

// Reports that the run printed: the program's first instruction, so the run is in progress.
class SignalOnWrite : public std::streambuf {
 public:
  std::atomic<bool> written{false};

 protected:
  int overflow(int c) override {
    written = true;
    return c;
  }
  std::streamsize xsputn(const char*, std::streamsize n) override {
    written = true;
    return n;
  }
};

BOOST_AUTO_TEST_CASE(a_session_refuses_a_second_concurrent_run) {
  Program loop = program_from(".input x : f32[1]\n.output y : f32[1]\n    print x\n"
                              "    y = copy x\ntop:\n    y = add y, x\n    jmp top\n");
  SignalOnWrite signal;
  std::ostream printed(&signal);
  SessionOptions o = single_thread();
  o.print = &printed;
  Session s(loop, o);
  std::atomic<int> runner_kind{-1};
  std::thread runner([&] {
    try {
      s.run({{"x", make_tensor<float>({1}, {1})}});
    } catch (const Error& e) {
      runner_kind = int(e.kind());
    }
  });
  while (!signal.written) std::this_thread::yield();
  expect_error([&] { s.run({{"x", make_tensor<float>({1}, {1})}}); }, ErrorKind::usage,
               {"in progress", "its own Session"});
  s.cancel();
  runner.join();
  BOOST_TEST(runner_kind.load() == int(ErrorKind::limit));
}

BOOST_AUTO_TEST_SUITE_END()
