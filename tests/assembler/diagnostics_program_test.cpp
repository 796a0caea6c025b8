// One failing program per error in what the lines say (declarations, ops, arity, attributes,
// jumps, registers, outputs), asserting message and exact line:col. Names are the assembler's
// to resolve; arity, attribute values and dataflow are the verifier's, reported at the source.
#include <boost/test/unit_test.hpp>

#include "asm_test_util.hpp"

using namespace mlvm;
using namespace mlvm::asm_test;

BOOST_AUTO_TEST_SUITE(assembler_program_errors)

// ---- declarations, instructions, registers, labels ---------------------------------------------

BOOST_AUTO_TEST_CASE(declaration_errors) {
  expect_error(".program a\n.program b\n", 2, 1, "the program is already named 'a' at line 1");
  expect_error(".input x : f32[1]\n.const x : f32[1] = [0]\n", 2, 8,
               "'x' is already declared as an .input at line 1");
  expect_error(".input x : f32[1]\n.output x\n.output x\n", 3, 9,
               "output 'x' is already declared at line 2");
  expect_error(".input x : f32[1]\na:\na:\n  halt\n", 3, 1,
               "duplicate label 'a' (first defined at line 2)");
}

BOOST_AUTO_TEST_CASE(op_and_arity_errors) {
  expect_error(".input x : f32[1,2,3,3]\n.input w : f32[1,2,3,3]\n  y = conv x, w\n", 3, 7,
               "unknown op 'conv'; did you mean 'conv2d'?");
  expect_error(".input x : f32[1]\n  y = zzzzzzzz x\n", 2, 7, "unknown op 'zzzzzzzz'");
  expect_error(".input x : f32[1]\n  y = RELU x\n", 2, 7,
               "unknown op 'RELU'; did you mean 'relu'?");
  expect_error(".input x : f32[1]\n  y = relu x, x\n", 2, 15,
               "relu takes 1 input (x) but 2 are given");
  expect_error(".input x : f32[1]\n  y = add x\n", 2, 7,
               "add needs 2 inputs (a, b) but 1 is given");
  expect_error(".input x : f32[1]\n  y = dense x\n", 2, 7,
               "dense needs at least 2 inputs (x, w, ?b) but 1 is given");
  expect_error(".input x : f32[1]\n  y = dense x, x, x, x\n", 2, 22,
               "dense takes at most 3 inputs");
  expect_error(".input x : f32[1]\n  y = relu none\n", 2, 12, "input 'x' of relu cannot be none");
  expect_error(".input x : f32[1]\n  y = concatenate x, none\n", 2, 22, "cannot be none");
  expect_error(".input x : f32[1]\n  y, z = relu x\n", 2, 3,
               "relu gives 1 result but 2 names are assigned");
  expect_error(".input x : f32[1,4,6]\n  y = get_valid_count x\n", 2, 3,
               "get_valid_count gives 2 results but 1 name is assigned");
  expect_error(".input x : f32[1]\n  relu x\n", 2, 3,
               "relu gives 1 result but 0 names are assigned; write NAME = relu");
  expect_error(".input x : f32[1]\n  y = print x\n", 2, 3,
               "print gives no result; write it without 'y ='");
  expect_error(".input x : f32[1,4,6]\n  y, y = get_valid_count x\n", 2, 6,
               "result 'y' is assigned twice");
}

BOOST_AUTO_TEST_CASE(attribute_errors) {
  const std::string decl = ".input x : f32[1,2,5,5]\n.input w : f32[2,2,3,3]\n";
  expect_error(decl + "  y = conv2d x, w, strid=(1, 1)\n", 3, 20,
               "unknown attribute 'strid' for conv2d; did you mean 'strides'?");
  expect_error(decl + "  y = conv2d x, w, groups=0\n", 3, 27,
               "attribute 'groups' of conv2d is 0; expected a value >= 1");
  expect_error(decl + "  y = conv2d x, w, groups=1, groups=1\n", 3, 30,
               "attribute 'groups' of conv2d is given twice");
  expect_error(decl + "  y = conv2d x, w, padding=1.5\n", 3, 28,
               "attribute 'padding' of conv2d must be an integer or a tuple");
  expect_error(".input x : f32[1]\n  y = cast x\n", 2, 7, "cast needs attribute 'dtype'");
  expect_error(".input x : f32[1]\n  y = cast x, dtype=f33\n", 2, 21,
               "unknown dtype 'f33'; did you mean 'f32'? (dtypes: f32 f64 i8 u8 i16 i32 i64 bool)");
  expect_error(".input x : f32[1]\n  y = cast x, dtype=F32\n", 2, 21,
               "unknown dtype 'F32'; did you mean 'f32'?");
  expect_error(".input x : f32[1]\n  y = cast x, dtype=int32\n", 2, 21,
               "unknown dtype 'int32'; did you mean 'i32'?");
  expect_error(".input x : f32[1]\n  y = cast x, dtype=qq\n", 2, 21,
               "unknown dtype 'qq'; expected one of f32 f64 i8 u8 i16 i32 i64 bool");
  expect_error(".input x : f32[1]\n  y = cast x, dtype=\"f32\"\n", 2, 21,
               "attribute 'dtype' of cast must be a dtype");
  expect_error(".input x : f32[1]\n  y = relu x, axis=1\n", 2, 15,
               "unknown attribute 'axis' for relu (it takes no attributes)");
  expect_error(".input x : f32[5,3]\n.input i : i32[2]\n  y = take x, i, mode=\"clamp\"\n", 3, 23,
               "attribute 'mode' of take must be one of \"clip\" \"wrap\" \"raise\"");
  expect_error(".input x : f32[1]\n  y = cvm_clip x, precision=33\n", 2, 29,
               "expected a value in [1, 32]");
}

BOOST_AUTO_TEST_CASE(jump_errors) {
  expect_error(".input x : f32[1]\nloop:\n  jmp lop\n", 3, 7,
               "unknown label 'lop'; did you mean 'loop'?");
  expect_error(".input x : f32[1]\n  jmp nowhere\n", 2, 7,
               "unknown label 'nowhere' (the program defines no labels");
  expect_error(".input x : f32[1]\n  jmp\n", 2, 3, "jmp needs a label: jmp LABEL");
  expect_error(".input x : f32[1]\na:\n  br a\n", 3, 3,
               "br needs a condition and a label: br COND, LABEL");
  expect_error(".input x : f32[1]\na:\n  br x, a, a\n", 3, 12,
               "too many arguments: br COND, LABEL");
  expect_error(".input x : f32[1]\na:\n  y = jmp a\n", 3, 3, "jmp gives no result");
  expect_error(".input x : f32[1]\na:\n  jmp a, k=1\n", 3, 10, "jmp takes no attributes");
  expect_error(".input x : f32[1]\na:\n  br none, a\n", 3, 6, "input 'cond' of br cannot be none");
}

BOOST_AUTO_TEST_CASE(register_errors) {
  expect_error(".const c : f32[1] = [1]\n.input x : f32[1]\n  c = relu x\n", 3, 3,
               "'c' is a .const and cannot be assigned; constants are read-only (declared at line 1)");
  expect_error(".input x : f32[1]\n.output y\n  y = relu h\n", 3, 12,
               "register 'h' is read before it is assigned");
  expect_error(".input xx : f32[1]\n.output y\n  y = relu x\n", 3, 12, "did you mean 'xx'?");
  expect_error(".input X : f32[1]\n.output y\n  y = relu x\n", 3, 12, "did you mean 'X'?");
  // A one- or two-letter name is no hint for another of that length: x is not y.
  for (const char* src : {".input y : f32[1]\n.output z\n  z = relu x\n",
                          ".input ab : f32[1]\n.output z\n  z = relu cd\n",
                          ".input q : f32[1]\n.output z\n  z = relu cd\n"}) {
    AssembleResult r = run(src);
    BOOST_REQUIRE(r.diagnostics.size() == 1u);
    BOOST_TEST(r.diagnostics[0].line == 3);
    BOOST_TEST(r.diagnostics[0].col == 12);
    BOOST_TEST(r.diagnostics[0].message.find("(nothing assigns it)") != std::string::npos);
    BOOST_TEST(r.diagnostics[0].message.find("did you mean") == std::string::npos,
               r.diagnostics[0].message);
  }
  // Assigned later in straight-line code: read before assigned.
  expect_error(".input x : f32[1]\n.output y\n  y = relu h\n  h = relu x\n", 3, 12,
               "register 'h' is read before it is assigned");
  // Assigned on one path only.
  expect_error(
      ".input x : f32[1]\n.input c : bool[1]\n.output y\n  br c, skip\n  h = relu x\nskip:\n  y = "
      "relu h\n",
      7, 12, "register 'h' is read before it is assigned on some path to here");
  expect_error(".input x : f32[1]\n.output y\n  z = relu x\n", 2, 9,
               "output 'y' is never assigned");
  expect_error(
      ".input x : f32[1]\n.input c : bool[1]\n.output y\n  br c, out\n  y = relu x\nout:\n", 3, 9,
      "output 'y' is not assigned on every path to halt (not on a path to the end of the program)");
  expect_error(
      ".input x : f32[1]\n.input c : bool[1]\n.output y\n  br c, out\n  y = relu x\n  jmp "
      "end\nout:\n  halt\nend:\n",
      3, 9,
      "output 'y' is not assigned on every path to halt (not on a path to the halt at line 8)");
}

BOOST_AUTO_TEST_CASE(unreachable_code_reads_nothing) {
  // `h` is read before its assignment, but the read is dead code: no error there.
  AssembleResult r =
      run(".input x : f32[1]\n.output y\n  y = relu x\n  halt\n  y = relu h\n  h = relu x\n");
  for (auto& d : r.diagnostics)
    BOOST_TEST(d.message.find("read before") == std::string::npos, d.render());
}

BOOST_AUTO_TEST_SUITE_END()
