// Traps and limits: each reaches the host as an mlvm::Error with the right kind, a message
// naming the op and the values involved, and the location "instruction N (line L)".
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <thread>

#include "vm/interpreter.hpp"
#include "vm/vm_test_util.hpp"

using namespace mlvm;
using namespace mlvm::test;

BOOST_AUTO_TEST_SUITE(vm_traps)

BOOST_AUTO_TEST_CASE(integer_division_by_zero) {
  Program p = program_from(R"(.input a : i32[3]
.input b : i32[3]
.output y : i32[3]
    t = copy a
    y = div t, b
)");
  Session s(p, single_thread());
  expect_error(
      [&] {
        s.run({{"a", make_tensor<int32_t>({3}, {6, 7, 8})},
               {"b", make_tensor<int32_t>({3}, {2, 0, 1})}});
      },
      ErrorKind::trap, {"div", "zero"}, "instruction 1 (line 5)");
  // The session is usable again after a trap.
  auto ok = s.run(
      {{"a", make_tensor<int32_t>({3}, {6, -7, 8})}, {"b", make_tensor<int32_t>({3}, {2, 2, 1})}});
  BOOST_TEST(to_vector<int32_t>(ok.at("y")) == std::vector<int32_t>({3, -3, 8}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(dynamic_dim_mismatch) {
  // x is f32[?]; against w : f32[4] the verifier proves the sum is f32[4]; a run with 3
  // elements cannot broadcast.
  Program p = program_from(R"(.input x : f32[?]
.const w : f32[4] = [1, 2, 3, 4]
.output y : f32[4]
    y = add x, w
)");
  Session s(p, single_thread());
  auto e = expect_error(
      [&] {
        s.run({{"x", make_tensor<float>({3}, {1, 2, 3})}});
      },
      ErrorKind::trap, {"add", "3", "4"}, "instruction 0 (line 4)");
  // One element broadcasts: fine.
  auto out = s.run({{"x", make_tensor<float>({1}, {10})}});
  BOOST_TEST(to_vector<float>(out.at("y")) == std::vector<float>({11, 12, 13, 14}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(dynamic_dim_mismatch_against_a_declared_output) {
  // The slice's length depends on x (clamped), so the verifier infers f32[?]; the declared
  // f32[2] is checked when the program halts.
  Program p = program_from(R"(.input x : f32[?]
.output y : f32[2]
    y = strided_slice x, begin=(0,), end=(2,)
)");
  Session s(p, single_thread());
  BOOST_CHECK_NO_THROW(s.run({{"x", make_tensor<float>({5}, {1, 2, 3, 4, 5})}}));
  expect_error(
      [&] {
        s.run({{"x", make_tensor<float>({1}, {1})}});
      },
      ErrorKind::trap, {"dynamic-dim mismatch", "f32[1]", "f32[2]", "dim 0: 1 vs 2"}, "output y");
}

BOOST_AUTO_TEST_CASE(result_checked_against_its_verified_type) {
  // White-box: every result is checked against the type the verifier proved. Here the
  // verified type is made stricter than the kernel's result to reach that check.
  Module m = program_module(Program::assemble(
      ".input x : f32[?]\n.output y : f32[?]\n    a = negative x\n    y = abs a\n", "t.mlasm"));
  VerifyResult v = verify_module(m);
  BOOST_REQUIRE(v.ok());
  v.result_types[1][0].dims = Dims{4};
  Interpreter interp(CompiledProgram::from_verified(m, v));
  ExecEnv env;
  Tensor x = make_tensor<float>({3}, {1, 2, 3});
  expect_error([&] { interp.run(std::span<const Tensor>(&x, 1), env, RunConfig{}); },
               ErrorKind::trap,
               {"abs", "dynamic-dim mismatch", "f32[3]", "f32[4]", "dim 0: 3 vs 4"},
               "instruction 1 (line 4)");
  Tensor x4 = make_tensor<float>({4}, {1, 2, 3, 4});
  BOOST_TEST(interp.run(std::span<const Tensor>(&x4, 1), env, RunConfig{}).size() == 1u);
}

BOOST_AUTO_TEST_CASE(br_condition_with_several_elements_at_run_time) {
  Program p = program_from(R"(.input c : f32[?]
.output y : f32[?]
    y = copy c
    br c, end
end:
    halt
)");
  Session s(p, single_thread());
  expect_error(
      [&] {
        s.run({{"c", make_tensor<float>({2}, {1, 0})}});
      },
      ErrorKind::trap, {"br", "one element", "f32[2]"}, "instruction 1 (line 4)");
  BOOST_CHECK_NO_THROW(s.run({{"c", make_tensor<float>({1}, {0})}}));
}

BOOST_AUTO_TEST_CASE(input_breaking_its_precision) {
  Program p = program_from(R"(.input x : i32[4] precision=8
.output y : i32[4]
    y = copy x
)");
  Session s(p, single_thread());
  BOOST_CHECK_NO_THROW(s.run({{"x", make_tensor<int32_t>({4}, {127, -127, 0, 5})}}));
  expect_error(
      [&] {
        s.run({{"x", make_tensor<int32_t>({4}, {1, 2, -128, 4})}});
      },
      ErrorKind::trap, {"x", "precision 8", "[2]", "-128", "127"}, "input x");
  // Checked through any strides: a flipped view of the same data.
  std::vector<int32_t> data = {200, 1, 2, 3};
  Dims strides{-1};
  Tensor flipped = Tensor::make_view(Storage::borrow(data.data(), 16, false), DType::i32, {4},
                                     strides, 3, ValueMode::borrowed);
  expect_error(
      [&] {
        s.run({{"x", flipped}});
      },
      ErrorKind::trap, {"precision 8", "[3]", "200"}, "input x");
}

BOOST_AUTO_TEST_CASE(precision_checked_even_without_precision_checks) {
  LoadOptions o;
  o.precision_check = false;
  Program p = Program::assemble(
      ".input x : i16[2] precision=4\n.output y : i16[2]\n    y = copy x\n", "t.mlasm", o);
  Session s(p, single_thread());
  BOOST_CHECK_NO_THROW(s.run({{"x", make_tensor<int16_t>({2}, {7, -7})}}));
  expect_error(
      [&] {
        s.run({{"x", make_tensor<int16_t>({2}, {7, 8})}});
      },
      ErrorKind::trap, {"precision 4", "8"}, "input x");
}

BOOST_AUTO_TEST_CASE(input_of_the_wrong_type) {
  Program p = program_from(".input x : f32[?, 3]\n.output y : f32[?, 3]\n    y = copy x\n");
  Session s(p, single_thread());
  expect_error(
      [&] {
        s.run({{"x", make_tensor<float>({3}, {1, 2, 3})}});
      },
      ErrorKind::invalid, {"f32[3]", "f32[?, 3]"}, "input x");
  expect_error(
      [&] {
        s.run({{"x", make_tensor<double>({1, 3}, {1, 2, 3})}});
      },
      ErrorKind::invalid, {"f64[1, 3]"}, "input x");
  expect_error(
      [&] {
        s.run({{"x", make_tensor<float>({1, 2}, {1, 2})}});
      },
      ErrorKind::invalid, {"f32[1, 2]"}, "input x");
  expect_error([&] { s.run(TensorMap{}); }, ErrorKind::usage, {"missing input x"}, "input x");
  expect_error(
      [&] {
        s.run({{"x", make_tensor<float>({1, 3}, {1, 2, 3})}, {"z", make_tensor<float>({1}, {1})}});
      },
      ErrorKind::usage, {"unknown input z"}, "input z");
  BOOST_CHECK_NO_THROW(s.run({{"x", make_tensor<float>({0, 3}, std::span<const float>())}}));
}

const char* kEndless = R"(.const one : i32[1] = [1]
.output i : i32[1]
    i = copy one
loop:
    i = add i, one
    jmp loop
)";

BOOST_AUTO_TEST_CASE(step_limit) {
  SessionOptions o = single_thread();
  o.max_steps = 101;
  Session s(program_from(kEndless), o);
  // Step 102 would be instruction 1 (the add) after copy + 50 rounds of (add, jmp).
  expect_error([&] { s.run(TensorMap{}); }, ErrorKind::limit, {"step limit", "101"},
               "instruction 1 (line 5)");
}

BOOST_AUTO_TEST_CASE(memory_limit) {
  // The bool result cannot reuse an f32 buffer, so the third instruction needs a, b and y
  // (4096 + 4096 + 1024 bytes) live at once. The host's input is not counted.
  Program p = program_from(R"(.input x : f32[1024]
.output y : bool[1024]
    a = negative x
    b = negative a
    y = less a, b
)");
  SessionOptions o = single_thread();
  o.max_memory = 9216;
  BOOST_CHECK_NO_THROW(Session(p, o).run({{"x", Tensor::zeros_owned(DType::f32, {1024})}}));
  o.max_memory = 9215;
  Session s(p, o);
  expect_error(
      [&] {
        s.run({{"x", Tensor::zeros_owned(DType::f32, {1024})}});
      },
      ErrorKind::limit, {"less", "memory limit", "1024", "8192", "9215"}, "instruction 2 (line 5)");
  o.max_memory = 4095;
  expect_error(
      [&] {
        Session(p, o).run({{"x", Tensor::zeros_owned(DType::f32, {1024})}});
      },
      ErrorKind::limit, {"negative", "memory limit"}, "instruction 0 (line 3)");
}

BOOST_AUTO_TEST_CASE(cancellation_from_another_thread) {
  auto token = std::make_shared<CancelToken>();
  SessionOptions o = single_thread();
  o.cancel = token;
  Session s(program_from(kEndless), o);
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    token->cancel();
  });
  auto e =
      expect_error([&] { s.run(TensorMap{}); }, ErrorKind::limit, {"cancelled"}, "instruction ");
  canceller.join();
  BOOST_TEST(e.location().find("(line ") != std::string::npos);
  // Still cancelled: the next run stops at once; after reset a bounded run completes.
  expect_error([&] { s.run(TensorMap{}); }, ErrorKind::limit, {"cancelled"},
               "instruction 0 (line 3)");
  token->reset();
  Session bounded(program_from(kEndless), [&] {
    SessionOptions b = o;
    b.max_steps = 10;
    return b;
  }());
  expect_error([&] { bounded.run(TensorMap{}); }, ErrorKind::limit, {"step limit"}, "instruction");
}

// A single kernel over 2^34 elements would run for many seconds: the host's cancel must stop
// it between blocks, not after the whole kernel (the step limit cannot help: it is one step).
BOOST_AUTO_TEST_CASE(cancellation_inside_a_long_kernel) {
  for (int threads : {1, 2}) {
    auto token = std::make_shared<CancelToken>();
    SessionOptions o;
    o.threads = threads;
    o.cancel = token;
    Session s(program_from(".const c : f32[131072, 131072] = fill(1.0)\n"
                           ".output y : f32[131072]\n"
                           "    y = sum c, axes=(1,)\n"
                           "    y = sum c, axes=(0,)\n"),
              o);
    std::thread canceller([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      token->cancel();
    });
    const auto t0 = std::chrono::steady_clock::now();
    expect_error([&] { s.run(TensorMap{}); }, ErrorKind::limit, {"cancelled"}, "instruction 0");
    canceller.join();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    BOOST_TEST_INFO("threads " << threads << ": cancelled after " << seconds << " s");
    BOOST_CHECK_LT(seconds, 5.0);
  }
}

BOOST_AUTO_TEST_CASE(bool_input_bytes_must_be_0_or_1) {
  Program p = program_from(".input m : bool[4]\n.output y : bool[4]\n    y = logical_not m\n");
  Session s(p, single_thread());
  uint8_t bytes[4] = {0, 1, 2, 1};
  Tensor bad = Tensor::borrow(DType::boolean, Dims{4}, bytes, int64_t(sizeof bytes), false);
  expect_error([&] { s.run(TensorMap{{"m", bad}}); }, ErrorKind::invalid, {"[2]", "holds 2", "0 or 1"},
               "input m");
  bytes[2] = 0;
  auto out = s.run(TensorMap{{"m", Tensor::borrow(DType::boolean, Dims{4}, bytes, int64_t(sizeof bytes), false)}});
  const auto* y = reinterpret_cast<const uint8_t*>(out.at("y").raw_data());
  BOOST_CHECK_EQUAL(int(y[0]), 1);
  BOOST_CHECK_EQUAL(int(y[1]), 0);
  BOOST_CHECK_EQUAL(int(y[2]), 1);
  BOOST_CHECK_EQUAL(int(y[3]), 0);
}

BOOST_AUTO_TEST_SUITE_END()
