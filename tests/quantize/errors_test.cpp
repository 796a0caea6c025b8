// What the quantizer refuses, and how it says so: a second input reaching the activations
// (named with its instruction), control flow, a wrong --input, calibration data that does not
// fit the input, and integer programs the verifier cannot prove. (Ops it cannot lower run in
// float: mixed_precision_test.cpp.) Every failure is an mlvm::Error.
#include <boost/test/unit_test.hpp>

#include <filesystem>

#include "common/checks.hpp"
#include "common/quantize_support.hpp"
#include "common/tool_runner.hpp"

using namespace mlvm;
using namespace mlvm::quant_test;
using mlvm::testing::expect_error;

namespace {

const char* const kDenseProgram = R"(.program d
.input  x : f32[?, 2]
.const  w : f32[1, 2] = [[1, -1]]
.output y
    y = dense x, w
)";

Tensor samples() { return make_tensor<float>({2, 2}, {1.0f, 0.5f, -1.0f, 0.25f}); }

// The error's location and message both, as a tool prints them.
template <class Fn>
void expect_located(Fn&& fn, const std::string& location, const std::vector<std::string>& parts) {
  try {
    fn();
  } catch (const Error& e) {
    BOOST_TEST(e.kind() == ErrorKind::invalid);
    BOOST_TEST(e.location() == location);
    for (const std::string& p : parts) BOOST_TEST(e.message().find(p) != std::string::npos, e.message() << " lacks " << p);
    return;
  }
  BOOST_ERROR("no error; expected one at " << location);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(quantize_errors)

BOOST_AUTO_TEST_CASE(a_second_input_reaching_the_activations_is_named_with_its_instruction) {
  // `add x, z` has no integer lowering (z is not a constant), so it would run in float; but
  // the calibration has samples of x only, and z is part of every activation after it.
  const char* add = R"(.program a
.input  x : f32[?, 2]
.input  z : f32[1, 2]
.output y
    y = add x, z
)";
  expect_located([&] {
    quant::QuantizeOptions o;
    o.input = "x";
    quant::quantize_program(assemble(add), samples(), o);
  }, "instruction 0 (line 5)", {"the activations depend on input 'z' as well as on 'x'"});
}

BOOST_AUTO_TEST_CASE(control_flow_is_refused) {
  const char* text = R"(.program loop
.input  x : f32[?, 2]
.const  w : f32[1, 2] = [[1, -1]]
.const  t : bool[1] = [true]
.output y
    y = dense x, w
    br t, end
    y = relu y
end:
)";
  expect_located([&] { quant::quantize_program(assemble(text), samples()); }, "instruction 1",
                 {"br", "straight-line programs only"});
}

BOOST_AUTO_TEST_CASE(the_input_to_quantize_must_be_an_f32_input_or_constant) {
  quant::QuantizeOptions o;
  o.input = "nope";
  expect_error([&] { quant::quantize_program(assemble(kDenseProgram), samples(), o); }, ErrorKind::invalid,
               {"--input 'nope'", "no input or constant of that name", "inputs: x : f32[?, 2]", "f32 constants: w"});
  const char* two = R"(.program two
.input  a : f32[?, 2]
.input  b : f32[?, 2]
.output y
    y = add a, b
)";
  expect_error([&] { quant::quantize_program(assemble(two), samples()); }, ErrorKind::invalid,
               {"several f32 inputs (a, b)", "--input NAME"});
  const char* none = R"(.program no_input
.input  n : i32[2]
.const  w : f32[1, 2] = [[1, -1]]
.output y
    y = relu w
)";
  expect_error([&] { quant::quantize_program(assemble(none), samples()); }, ErrorKind::invalid,
               {"no f32 input (inputs: n : i32[2])", "--input NAME"});
  o.input = "n";
  expect_error([&] { quant::quantize_program(assemble(none), samples(), o); }, ErrorKind::invalid,
               "'n' is i32[2]; the quantizer quantizes an f32 input");
}

BOOST_AUTO_TEST_CASE(calibration_data_must_fit_the_input) {
  const Program p = assemble(kDenseProgram);
  expect_error([&] { quant::quantize_program(p, make_tensor<int32_t>({2, 2}, {1, 2, 3, 4})); }, ErrorKind::invalid,
               {"calibration data i32[2, 2]: dtype i32", "expected samples along dim 0 of input 'x' f32[?, 2]",
                "f32[S, 2]"});
  expect_error([&] { quant::quantize_program(p, make_tensor<float>({4}, {1, 2, 3, 4})); }, ErrorKind::invalid,
               {"rank 1", "f32[S, 2]"});
  expect_error([&] { quant::quantize_program(p, make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6})); },
               ErrorKind::invalid, {"dim 1 is 3", "f32[S, 2]"});
  expect_error([&] { quant::quantize_program(p, Tensor::empty(DType::f32, {0, 2})); }, ErrorKind::invalid,
               "no samples");
  expect_error([&] { quant::quantize_program(p, make_tensor<float>({2, 2}, {1, 2, NAN, 4})); }, ErrorKind::invalid,
               {"calibration sample 1", "non-finite", "flat index 0"});
  quant::QuantizeOptions o;
  o.max_samples = -1;
  expect_error([&] { quant::quantize_program(p, samples(), o); }, ErrorKind::invalid, "--max-samples must be >= 0");
}

BOOST_AUTO_TEST_CASE(calibration_files_are_npy_or_npz_with_a_fitting_member) {
  mlvm::tool_test::ScratchDir dir("quantize_errors_test");
  const Program p = assemble(kDenseProgram);
  save_npz(dir.path("two.npz"), {{"a", samples()}, {"b", samples()}});
  expect_located([&] { quant::quantize_program(p, dir.path("two.npz")); }, dir.path("two.npz"),
                 {"no array named 'x'", "several others: a, b"});
  save_npz(dir.path("named.npz"), {{"a", samples()}, {"x", samples()}});
  BOOST_TEST(quant::quantize_program(p, dir.path("named.npz")).samples == 2);
  save_npz(dir.path("one.npz"), {{"anything", samples()}});
  BOOST_TEST(quant::quantize_program(p, dir.path("one.npz")).samples == 2);
  save_npy(dir.path("bad_shape.npy"), make_tensor<float>({3}, {1, 2, 3}));
  expect_located([&] { quant::quantize_program(p, dir.path("bad_shape.npy")); }, dir.path("bad_shape.npy"),
                 {"rank 1", "f32[S, 2]"});
  dir.write("calib.txt", "1 2 3");
  expect_located([&] { quant::quantize_program(p, dir.path("calib.txt")); }, dir.path("calib.txt"),
                 {"a calibration file is .npy", "not '.txt'"});
  dir.write("garbage.npy", "not a numpy file");
  expect_error([&] { quant::quantize_program(p, dir.path("garbage.npy")); }, ErrorKind::malformed, "");
  expect_error([&] { quant::quantize_program(p, dir.path("missing.npy")); }, ErrorKind::io, "");
}

BOOST_AUTO_TEST_CASE(a_layer_that_cannot_be_proven_is_named) {
  // 2^17 taps of i8 x i8: precision 8 + 8 + 17 = 33 does not fit the i32 accumulator.
  const char* wide = R"(.program wide
.input  x : f32[?, 131072]
.const  w : f32[2, 131072] = fill(0.5)
.output y
    y = dense x, w
)";
  expect_located([&] { quant::quantize_program(assemble(wide), Tensor::zeros_owned(DType::f32, {1, 131072})); },
                 "instruction 0 (line 5)",
                 {"cannot be proven overflow-free", "(y.acc = dense x.q, w.q)", "precision 33 exceeds i32"});
  // Integer arithmetic the float program did on an input of unknown precision is copied, and
  // the strict proof refuses it, at that instruction.
  const char* unproven = R"(.program unproven
.input  x : f32[?, 2]
.input  n : i32[2]
.const  w : f32[1, 2] = [[1, -1]]
.output y
.output m
    y = dense x, w
    m = add n, n
)";
  quant::QuantizeOptions o;
  o.input = "x";
  expect_located([&] { quant::quantize_program(assemble(unproven), samples(), o); }, "instruction 1 (line 8)",
                 {"cannot be proven overflow-free", "m = add n, n", "unknown precision"});
}

BOOST_AUTO_TEST_SUITE_END()
