// How the run loop hands registers to kernels (vm/interpreter.cpp, TensorArgs): kernels read
// registers in place; dying ones are dropped afterwards and may donate their storage; a
// register read twice is one value; an omitted optional input is undefined. Each case checks
// values, that live registers are intact afterwards (also after a trap), and that nothing
// carries over from one instruction to the next.
#include <boost/test/unit_test.hpp>

#include "vm/vm_test_util.hpp"

using namespace mlvm;
using namespace mlvm::test;

BOOST_AUTO_TEST_SUITE(vm_arg_passing)

BOOST_AUTO_TEST_CASE(lent_registers_are_intact_after_every_use) {
  // x, c live across many instructions; each reads them again.
  Program p = program_from(R"(.input x : f32[3]
.const c : f32[3] = [1, 2, 3]
.output y : f32[3]
.output z : f32[3]
    a = add x, c
    b = mul x, c
    y = sub a, b
    z = add x, c
    z = add z, x
)");
  Session s(p, single_thread());
  for (int run = 0; run < 3; ++run) {
    auto out = s.run({{"x", make_tensor<float>({3}, {2, -1, 0.5f})}});
    // (x + c) - x*c and (x + c) + x
    BOOST_TEST(to_vector<float>(out.at("y")) == std::vector<float>({1, 3, 2}), boost::test_tools::per_element());
    BOOST_TEST(to_vector<float>(out.at("z")) == std::vector<float>({5, 0, 4}), boost::test_tools::per_element());
  }
}

BOOST_AUTO_TEST_CASE(a_register_read_twice_dying_or_not) {
  Program p = program_from(R"(.input x : f32[2]
.output y : f32[2]
.output w : f32[2]
    a = abs x
    b = mul a, a
    a = add a, a
    w = maximum a, a
    y = add b, x
)");
  Session s(p, single_thread());
  auto out = s.run({{"x", make_tensor<float>({2}, {-3, 2})}});
  BOOST_TEST(to_vector<float>(out.at("y")) == std::vector<float>({6, 6}), boost::test_tools::per_element());
  BOOST_TEST(to_vector<float>(out.at("w")) == std::vector<float>({6, 4}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(an_omitted_optional_input_is_undefined_after_a_given_one) {
  // The third argument slot holds the bias for the first dense; the second dense has none and
  // must not see it, in either order.
  Program p = program_from(R"(.input x : f32[1, 2]
.const w : f32[2, 2] = [[1, 0], [0, 1]]
.const b : f32[2] = [10, 20]
.output y : f32[1, 2]
.output z : f32[1, 2]
.output v : f32[1, 2]
    y = dense x, w, b
    z = dense x, w
    v = dense x, w, b
)");
  Session s(p, single_thread());
  auto out = s.run({{"x", make_tensor<float>({1, 2}, {1, 2})}});
  BOOST_TEST(to_vector<float>(out.at("y")) == std::vector<float>({11, 22}), boost::test_tools::per_element());
  BOOST_TEST(to_vector<float>(out.at("z")) == std::vector<float>({1, 2}), boost::test_tools::per_element());
  BOOST_TEST(to_vector<float>(out.at("v")) == std::vector<float>({11, 22}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(views_of_lent_values_and_taken_values) {
  Program p = program_from(R"(.input x : f32[2, 3]
.output y : f32[3, 2]
.output t : f32[3, 2]
    t = transpose x
    a = negative x
    b = transpose a
    y = add b, t
)");
  Session s(p, single_thread());
  Tensor x = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = s.run({{"x", x}});
  BOOST_TEST(to_vector<float>(out.at("y")) == std::vector<float>(6, 0.0f), boost::test_tools::per_element());
  BOOST_TEST(to_vector<float>(out.at("t")) == std::vector<float>({1, 4, 2, 5, 3, 6}), boost::test_tools::per_element());
  BOOST_TEST(to_vector<float>(x) == std::vector<float>({1, 2, 3, 4, 5, 6}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_trap_with_lent_arguments_leaves_the_session_usable) {
  // d is lent to the failing div (it is used again afterwards); the next run must see it.
  Program p = program_from(R"(.input x : i32[2]
.input d : i32[2]
.output y : i32[2]
    q = div x, d
    y = add q, d
)");
  Session s(p, single_thread());
  expect_error([&] { s.run({{"x", make_tensor<int32_t>({2}, {4, 6})}, {"d", make_tensor<int32_t>({2}, {2, 0})}}); },
               ErrorKind::trap, {"div: integer division by zero"}, "instruction 0");
  auto out = s.run({{"x", make_tensor<int32_t>({2}, {4, 6})}, {"d", make_tensor<int32_t>({2}, {2, 3})}});
  BOOST_TEST(to_vector<int32_t>(out.at("y")) == std::vector<int32_t>({4, 5}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_long_chain_on_one_element_reuses_its_buffer) {
  // x = op x, const over and over: after the first result every one is donated, so the run
  // allocates a single element whatever the length (the interpreter-overhead benchmark shape).
  std::string src = ".input x : f32[1]\n.const a : f32[1] = [0.5]\n.const d : f32[1] = [-1]\n.output y\n";
  src += "    y = add x, a\n";
  for (int k = 0; k < 1000; ++k) src += k % 2 ? "    y = add y, a\n" : "    y = maximum y, d\n";
  Program p = program_from(src);
  Session s(p, single_thread());
  auto out = s.run({{"x", make_tensor<float>({1}, {1})}});
  BOOST_TEST(to_vector<float>(out.at("y"))[0] == 1.0f + 0.5f * 501);
  BOOST_TEST(s.stats().peak_bytes == 4);
  BOOST_TEST(s.stats().steps == 1001);
}

BOOST_AUTO_TEST_SUITE_END()
