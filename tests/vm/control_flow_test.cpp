// Control-flow shapes run by the interpreter: loops, nested loops, branches, early halt,
// outputs assigned in both arms, br on every dtype, print.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <limits>
#include <sstream>

#include "vm/vm_test_util.hpp"

using namespace mlvm;
using namespace mlvm::test;

BOOST_AUTO_TEST_SUITE(vm_control_flow)

BOOST_AUTO_TEST_CASE(counting_loop_sums_one_to_ten) {
  Program p = program_from(R"(
.const zero : i32[1] = [0]
.const one  : i32[1] = [1]
.const n    : i32[1] = [10]
.output s   : i32[1]
    s = copy zero
    i = copy zero
loop:
    i = add i, one
    s = add s, i
    more = less i, n
    br more, loop
)");
  Session session(p, single_thread());
  TensorMap out = session.run(TensorMap{});
  BOOST_TEST(to_vector<int32_t>(out.at("s")) == std::vector<int32_t>{55},
             boost::test_tools::per_element());
  // 2 before the loop, 4 per iteration; falling off the end halts without a step.
  BOOST_TEST(session.stats().steps == 2 + 10 * 4);
}

BOOST_AUTO_TEST_CASE(nested_loops_visit_every_pair) {
  // acc = sum over i < 3, j < 4 of (4 i + j) = 0 + 1 + ... + 11 = 66; pairs counts 12.
  Program p = program_from(R"(
.const zero  : i32[1] = [0]
.const one   : i32[1] = [1]
.const three : i32[1] = [3]
.const four  : i32[1] = [4]
.output acc   : i32[1]
.output pairs : i32[1]
    acc = copy zero
    pairs = copy zero
    i = copy zero
outer:
    j = copy zero
inner:
    k = mul i, four
    k = add k, j
    acc = add acc, k
    pairs = add pairs, one
    j = add j, one
    c = less j, four
    br c, inner
    i = add i, one
    c = less i, three
    br c, outer
)");
  Session session(p, single_thread());
  TensorMap out = session.run(TensorMap{});
  BOOST_TEST(to_vector<int32_t>(out.at("acc"))[0] == 66);
  BOOST_TEST(to_vector<int32_t>(out.at("pairs"))[0] == 12);
}

BOOST_AUTO_TEST_CASE(branch_assigns_output_in_both_arms) {
  Program p = program_from(R"(
.input  x    : f32[3]
.const  zero : f32[1] = [0]
.output y    : f32[3]
    s = sum x
    pos = greater s, zero
    br pos, positive
    y = negative x
    jmp done
positive:
    y = copy x
done:
    halt
)");
  Session session(p, single_thread());
  auto pos = session.run({{"x", make_tensor<float>({3}, {1, 2, -0.5f})}});
  BOOST_TEST(to_vector<float>(pos.at("y")) == std::vector<float>({1, 2, -0.5f}),
             boost::test_tools::per_element());
  auto neg = session.run({{"x", make_tensor<float>({3}, {-1, 2, -4})}});
  BOOST_TEST(to_vector<float>(neg.at("y")) == std::vector<float>({1, -2, 4}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(early_halt_skips_the_rest) {
  Program p = program_from(R"(
.const zero : i32[1] = [0]
.const one  : i32[1] = [1]
.const five : i32[1] = [5]
.output y : i32[1]
    i = copy zero
loop:
    i = add i, one
    stop = greater_equal i, five
    br stop, finish
    jmp loop
finish:
    y = copy i
    halt
    y = add y, one
    y = add y, one
)");
  Session session(p, single_thread());
  auto out = session.run(TensorMap{});
  BOOST_TEST(to_vector<int32_t>(out.at("y"))[0] == 5);
  // 1 + 5 iterations of 3 or 4 (the last one branches out) + copy + halt
  BOOST_TEST(session.stats().steps == 1 + 4 * 4 + 3 + 2);
}

BOOST_AUTO_TEST_CASE(loop_with_dynamic_dims_grows_a_value) {
  // The verifier joins f32[1] and f32[2] ... at the loop head into f32[?]; the run goes on.
  Program p = program_from(R"(
.const seed : f32[1] = [1]
.const zero : i32[1] = [0]
.const one  : i32[1] = [1]
.const n    : i32[1] = [3]
.output v : f32[?]
    v = copy seed
    i = copy zero
loop:
    v = concatenate v, v, axis=0
    i = add i, one
    c = less i, n
    br c, loop
)");
  Session session(p, single_thread());
  auto out = session.run(TensorMap{});
  BOOST_TEST(out.at("v").shape() == Dims({8}));
}

template <class T>
bool branch_taken(DType dt, T value) {
  std::string src = R"(
.input  c : )" + std::string(dtype_name(dt)) +
                    R"([1]
.const  a : i32[1] = [1]
.const  b : i32[1] = [2]
.output y : i32[1]
    br c, yes
    y = copy b
    halt
yes:
    y = copy a
)";
  Program p = program_from(src);
  Session session(p, single_thread());
  T v = value;
  auto out = session.run({{"c", Tensor::borrow(dt, {1}, &v, sizeof v, false)}});
  return to_vector<int32_t>(out.at("y"))[0] == 1;
}

BOOST_AUTO_TEST_CASE(br_accepts_any_dtype_nonzero_jumps) {
  BOOST_TEST(branch_taken<uint8_t>(DType::boolean, 1));
  BOOST_TEST(!branch_taken<uint8_t>(DType::boolean, 0));
  BOOST_TEST(branch_taken<float>(DType::f32, std::numeric_limits<float>::quiet_NaN()));
  BOOST_TEST(!branch_taken<float>(DType::f32, -0.0f));
  BOOST_TEST(branch_taken<double>(DType::f64, 1e-300));
  BOOST_TEST(!branch_taken<double>(DType::f64, 0.0));
  BOOST_TEST(branch_taken<int64_t>(DType::i64, int64_t(1) << 40));
  BOOST_TEST(branch_taken<int8_t>(DType::i8, -1));
  BOOST_TEST(!branch_taken<int16_t>(DType::i16, 0));
  BOOST_TEST(branch_taken<uint8_t>(DType::u8, 255));
  BOOST_TEST(!branch_taken<int32_t>(DType::i32, 0));
}

BOOST_AUTO_TEST_CASE(print_writes_to_the_host_stream_only) {
  Program p = program_from(R"(
.input  x : f32[3]
.output y : f32[3]
    print x
    y = negative x
    print y
)");
  std::ostringstream os;
  SessionOptions o = single_thread();
  o.print = &os;
  Session session(p, o);
  session.run({{"x", make_tensor<float>({3}, {1, 2.5f, -3})}});
  // Labelled with the source and line, so a print cannot pass for an output.
  BOOST_TEST(os.str() ==
             "print @ test.mlasm:4: x : f32[3] = [1, 2.5, -3]\nprint @ test.mlasm:6: y : f32[3] = "
             "[-1, -2.5, 3]\n");

  // Without a stream the library prints nothing at all, not even to stdout.
  std::ostringstream captured;
  auto* old = std::cout.rdbuf(captured.rdbuf());
  Session quiet(p, single_thread());
  quiet.run({{"x", make_tensor<float>({3}, {1, 2, 3})}});
  std::cout.rdbuf(old);
  BOOST_TEST(captured.str().empty());
}

BOOST_AUTO_TEST_SUITE_END()
