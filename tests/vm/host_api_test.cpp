// The rest of the 1.0 host API: borrowing host memory with any layout (checked against its
// buffer, overlapping writable layouts refused), error locations in parts, the version, and
// stats after runs that did not complete.
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <thread>

#include "mlvm/version.hpp"
#include "vm/vm_test_util.hpp"

using namespace mlvm;
using namespace mlvm::test;

BOOST_AUTO_TEST_SUITE(vm_host_api)

BOOST_AUTO_TEST_CASE(borrow_checks_the_layout_against_the_buffer) {
  std::vector<float> buf(12);
  for (int i = 0; i < 12; ++i) buf[std::size_t(i)] = float(i);
  std::span<float> all(buf);
  // Negative strides: element (0, 0) at buf[11], the whole buffer reversed.
  Tensor r = borrow_tensor<float>({3, 4}, {-4, -1}, all, 11);
  BOOST_TEST(to_vector<float>(r) ==
                 std::vector<float>({11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}),
             boost::test_tools::per_element());
  // Stride 0 (a broadcast) is fine read-only.
  Tensor bc = borrow_tensor<const float>({3, 2}, {0, 1}, std::span<const float>(buf), 4);
  BOOST_TEST(to_vector<float>(bc) == std::vector<float>({4, 5, 4, 5, 4, 5}),
             boost::test_tools::per_element());
  // Reaching one element past either end is refused, naming the layout and the buffer.
  expect_error([&] { borrow_tensor<float>({3, 4}, {-4, -1}, all, 10); }, ErrorKind::usage,
               {"outside its buffer of 48 bytes"});
  expect_error([&] { borrow_tensor<float>({3, 4}, {4, 1}, all.first(11)); }, ErrorKind::usage,
               {"outside its buffer"});
  expect_error([&] { borrow_tensor<float>({2, 2}, {1}, all); }, ErrorKind::usage,
               {"do not match its rank"});
  expect_error([&] { borrow_tensor<float>({-1}, {1}, all); }, ErrorKind::usage,
               {"negative dim"});
  expect_error([&] { Tensor::borrow(DType::f32, {2}, {1}, nullptr, 8, 0, false); },
               ErrorKind::usage, {"null buffer"});
  // A byte offset that is not a whole element still works when the elements fit.
  std::vector<uint8_t> bytes(10, 0);
  bytes[1] = 1;
  bytes[5] = 2;
  Tensor odd = Tensor::borrow(DType::i32, {2}, {1}, bytes.data(), 10, 1, false);
  BOOST_TEST(to_vector<int32_t>(odd) == std::vector<int32_t>({1, 2}));
  // Empty tensors reach nothing.
  BOOST_CHECK_NO_THROW(borrow_tensor<float>({0, 4}, {4, 1}, all.first(0)));
}

BOOST_AUTO_TEST_CASE(writable_layouts_that_reach_an_element_twice_are_refused) {
  std::vector<float> buf(16);
  std::span<float> all(buf);
  expect_error([&] { borrow_tensor<float>({3, 2}, {0, 1}, all, 0, true); }, ErrorKind::usage,
               {"reaches some element twice"});
  expect_error([&] { borrow_tensor<float>({2, 3}, {2, 1}, all, 0, true); }, ErrorKind::usage,
               {"twice"});  // rows overlap by one element
  expect_error([&] { borrow_tensor<float>({2, 2}, {1, -1}, all, 1, true); }, ErrorKind::usage,
               {"twice"});  // (0, 0) and (1, 1) both reach buf[1]
  // Interleaved but disjoint (offsets 0, 2, 4, 3, 5, 7) is accepted; so are the usual ones.
  BOOST_CHECK_NO_THROW(borrow_tensor<float>({2, 3}, {3, 2}, all, 0, true));
  BOOST_CHECK_NO_THROW(borrow_tensor<float>({4, 4}, {1, 4}, all, 0, true));
  BOOST_CHECK_NO_THROW(borrow_tensor<float>({4, 4}, {-4, -1}, all, 15, true));
  // The same overlapping layout read-only is fine (a broadcast input).
  BOOST_CHECK_NO_THROW(borrow_tensor<const float>({2, 3}, {2, 1}, std::span<const float>(buf)));
}

BOOST_AUTO_TEST_CASE(error_locations_come_apart) {
  Error a(ErrorKind::invalid, "m", "prog.mlasm:12:7");
  BOOST_TEST(a.file() == "prog.mlasm");
  BOOST_TEST(a.line() == 12);
  BOOST_TEST(a.column() == 7);
  BOOST_TEST(a.instruction() == -1);
  Error b(ErrorKind::trap, "m", "instruction 4 (line 9)");
  BOOST_TEST(b.file() == "");
  BOOST_TEST(b.line() == 9);
  BOOST_TEST(b.instruction() == 4);
  Error c(ErrorKind::trap, "m", "model.mlbc: instruction 3 (Conv 'c1')");
  BOOST_TEST(c.file() == "model.mlbc");
  BOOST_TEST(c.line() == 0);
  BOOST_TEST(c.instruction() == 3);
  Error d(ErrorKind::malformed, "m", "model.mlbc: byte 12");
  BOOST_TEST(d.file() == "model.mlbc");
  BOOST_TEST(d.instruction() == -1);
  Error e(ErrorKind::usage, "m", "input x");
  BOOST_TEST(e.file() == "");
  Error f(ErrorKind::io, "m", "/tmp/missing.mlbc");
  BOOST_TEST(f.file() == "/tmp/missing.mlbc");

  // The real thing: an assembly error and a trap, located by the library.
  try {
    Program::assemble(".input x : f32[2]\n.output y : f32[2]\n    y = bogus x\n", "bad.mlasm");
    BOOST_FAIL("expected an error");
  } catch (const Error& err) {
    BOOST_TEST(err.file() == "bad.mlasm");
    BOOST_TEST(err.line() == 3);
    BOOST_TEST(err.column() > 0);
  }
  Session s(program_from(".input a : i32[1]\n.input b : i32[1]\n.output y : i32[1]\n"
                         "    y = div a, b\n"),
            single_thread());
  try {
    s.run({{"a", make_tensor<int32_t>({1}, {1})}, {"b", make_tensor<int32_t>({1}, {0})}});
    BOOST_FAIL("expected a trap");
  } catch (const Error& err) {
    BOOST_TEST(err.kind() == ErrorKind::trap);
    BOOST_TEST(err.line() == 4);
    BOOST_TEST(err.instruction() == 0);
  }
}

BOOST_AUTO_TEST_CASE(version_matches_the_project) {
  BOOST_TEST(std::string(version()) == MLVM_PROJECT_VERSION);
  BOOST_TEST(std::string(version()) == MLVM_VERSION_STRING);
  BOOST_TEST(version_major() == MLVM_VERSION_MAJOR);
  BOOST_TEST(version_minor() == MLVM_VERSION_MINOR);
  BOOST_TEST(version_patch() == MLVM_VERSION_PATCH);
  BOOST_TEST(MLVM_VERSION == MLVM_VERSION_MAJOR * 10000 + MLVM_VERSION_MINOR * 100 +
                                 MLVM_VERSION_PATCH);
}

BOOST_AUTO_TEST_CASE(stats_are_filled_after_a_trap_a_limit_and_a_cancel) {
  Program p = program_from(R"(
.input  d : i32[1]
.const  one : i32[1] = [1]
.output y : i32[1]
    a = add one, one
    b = add a, one
    y = div b, d
)");
  Session s(p, single_thread());
  BOOST_CHECK_THROW(s.run({{"d", make_tensor<int32_t>({1}, {0})}}), Error);
  BOOST_TEST(!s.stats().completed);
  BOOST_TEST(s.stats().steps == 3);  // the trapping instruction counts
  BOOST_TEST(s.stats().seconds >= 0);
  BOOST_TEST(s.stats().peak_bytes > 0);
  s.run({{"d", make_tensor<int32_t>({1}, {3})}});
  BOOST_TEST(s.stats().completed);
  BOOST_TEST(s.stats().steps == 3);

  SessionOptions limited = single_thread();
  limited.max_steps = 2;
  Session l(p, limited);
  BOOST_CHECK_THROW(l.run({{"d", make_tensor<int32_t>({1}, {3})}}), Error);
  BOOST_TEST(!l.stats().completed);
  BOOST_TEST(l.stats().steps == 2);

  // A runaway loop stopped from another thread: the stats say how far it got.
  Program loop = program_from(".input x : f32[1]\n.output y : f32[1]\n    y = copy x\n"
                              "top:\n    y = add y, x\n    jmp top\n");
  Session r(loop, single_thread());
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    r.cancel();
  });
  const auto t0 = std::chrono::steady_clock::now();
  expect_error([&] { r.run({{"x", make_tensor<float>({1}, {1})}}); }, ErrorKind::limit,
               {"cancelled"});
  stopper.join();
  BOOST_TEST((std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5)));
  BOOST_TEST(!r.stats().completed);
  BOOST_TEST(r.stats().steps > 1);
  // The session's own token was reset when the run ended: the next run is not cancelled.
  Session q(p, single_thread());
  q.cancel();  // before a run: the next run stops at once...
  BOOST_CHECK_THROW(q.run({{"d", make_tensor<int32_t>({1}, {3})}}), Error);
  BOOST_TEST(q.stats().steps == 0);
  BOOST_CHECK_NO_THROW(q.run({{"d", make_tensor<int32_t>({1}, {3})}}));  // ...and only it
}

BOOST_AUTO_TEST_CASE(positional_and_named_runs_agree) {
  Program p = program_from(".input a : f32[2]\n.input b : f32[2]\n.output y : f32[2]\n"
                           "    y = sub a, b\n");
  Session s(p, single_thread());
  Tensor a = make_tensor<float>({2}, {5, 7}), b = make_tensor<float>({2}, {1, 2});
  std::vector<Tensor> pos = s.run_positional({a, b});
  TensorMap named = s.run({{"b", b}, {"a", a}});
  BOOST_TEST(to_vector<float>(pos.at(0)) == std::vector<float>({4, 5}),
             boost::test_tools::per_element());
  BOOST_TEST(to_vector<float>(named.at("y")) == std::vector<float>({4, 5}),
             boost::test_tools::per_element());
  expect_error([&] { s.run_positional({a}); }, ErrorKind::usage, {"2 inputs", "1 given"});
  // Every missing input is named, the error located at the first.
  expect_error([&] { s.run({}); }, ErrorKind::usage,
               {"missing inputs a : f32[2], b : f32[2]: program test.mlasm declares the inputs"},
               "input a");
}

BOOST_AUTO_TEST_CASE(an_empty_program_is_a_usage_error) {
  Program empty;
  expect_error([&] { (void)empty.name(); }, ErrorKind::usage, {"empty Program"});
  expect_error([&] { Session s(empty); }, ErrorKind::usage, {"loaded Program"});
  expect_error([&] { Program::load_file("/nonexistent/x.mlbc"); }, ErrorKind::io, {"x.mlbc"});
}

BOOST_AUTO_TEST_SUITE_END()
