// One failing program per diagnostic the assembler itself produces (lexer, parser, literal,
// declarations, per-instruction and cross-line checks), asserting message and exact line:col.
// None of these reach the verifier.
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <cfloat>
#include <cstring>

#include "asm_test_util.hpp"
#include "bytecode/codec.hpp"
#include "bytecode/format.hpp"

using namespace mlvm;
using namespace mlvm::asm_test;

BOOST_AUTO_TEST_SUITE(assembler_diagnostics)

// ---- lexical ------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(lexical_errors) {
  expect_error(".input x : f32[2]\n  y = relu x $\n", 2, 14, "unexpected character '$'");
  expect_error("y = relu x\x01\n", 1, 11, "unexpected character '\\x01'");
  expect_error(std::string("y = relu\0 x\n", 12), 1, 9, "unexpected character '\\x00'");
  expect_error("y = relu x\xc3\xa9\n", 1, 11, "'\\xc3'");
  expect_error(".const c : i64[1] = [99999999999999999999]\n", 1, 22,
               "integer 99999999999999999999 does not fit in 64 bits");
  expect_error(".const c : i64[1] = [0x10000000000000000]\n", 1, 22, "does not fit in 64 bits");
  expect_error(".const c : f64[1] = [1e999]\n", 1, 22, "out of range of f64");
  expect_error(".const c : f64[1] = [1e]\n", 1, 22, "expected digits in the exponent");
  expect_error(".const c : f64[1] = [12abc]\n", 1, 22, "malformed number '12abc'");
  // A malformed number is shown whole, not cut at the first offending character.
  expect_error(".const c : f64[1] = [1.5.5]\n", 1, 22, "malformed number '1.5.5'");
  expect_error(".const c : f64[2] = [0, -1.5.5e3]\n", 1, 25, "malformed number '-1.5.5e3'");
  expect_error(".const c : i32[1] = [0x1fg]\n", 1, 22, "malformed number '0x1fg'");
  expect_error(".const c : f64[1] = [1ex]\n", 1, 22,
               "malformed number '1ex': expected digits in the exponent");
  expect_error(".const c : f64[1] = [2e+]\n", 1, 22,
               "malformed number '2e+': expected digits in the exponent");
  expect_error(".const c : f64[1] = [0x]\n", 1, 22, "expected hex digits");
  expect_error("y = take x, i, mode=\"cl\n", 1, 21, "unterminated string");
  expect_error("y = take x, i, mode=\"c\\n\"\n", 1, 23, "unknown escape '\\n'");
  expect_error("y = relu - x\n", 1, 10, "expected a number after it");
  expect_error(". input x : f32[1]\n", 1, 1, "unexpected '.'");
}

BOOST_AUTO_TEST_CASE(f32_accepts_what_rounds_to_a_finite_float) {
  // mlvm-dis writes FLT_MAX as 3.4028235e38 (shortest text; as a decimal above FLT_MAX).
  for (std::string v :
       {"3.4028235e38", "-3.4028235e38", "3.40282356e38", "3.4028235677973362e38"}) {
    BOOST_TEST_CONTEXT(v) {
      for (std::string lit : {"[" + v + "]", "fill(" + v + ")"}) {
        AssembleResult r = run(".const c : f32[1] = " + lit + "\n.output c\n");
        BOOST_REQUIRE_MESSAGE(r.ok(), all_messages(r));
        float got = 0;
        std::memcpy(&got, r.module->constants[0].value.raw_data(), sizeof got);
        BOOST_TEST(got == (v[0] == '-' ? -FLT_MAX : FLT_MAX));
      }
    }
  }
  // Underflow is no error: denormals and values that round to 0 are finite.
  BOOST_TEST(run(".const c : f32[3] = [1e-45, 1e-50, -0.0]\n.output c\n").ok());
}

BOOST_AUTO_TEST_CASE(limits_of_numbers_are_exact) {
  // INT64_MIN is representable; one more is not.
  BOOST_TEST(run(".const c : i64[1] = [-9223372036854775808]\n.output c\n").diagnostics.size() <=
             1u);
  expect_error(".const c : i64[1] = [-9223372036854775809]\n", 1, 22, "does not fit in 64 bits");
  expect_error(".const c : i64[1] = [9223372036854775808]\n", 1, 22, "does not fit in 64 bits");
}

// ---- statements ---------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(directive_errors) {
  expect_error(".inptu x : f32[1]\n", 1, 1,
               "unknown directive '.inptu'; did you mean '.input'? (directives: .program, .input, "
               ".const, .output)");
  expect_error(".OUTPUT y\n", 1, 1, "unknown directive '.OUTPUT'; did you mean '.output'?");
  expect_error(".zzzzzz x : f32[1]\n", 1, 1,
               "unknown directive '.zzzzzz'; expected .program, .input, .const or .output");
  expect_error(".input x f32[1]\n", 1, 10, "expected ':' and a type");
  expect_error(".input x : f31[1]\n", 1, 12, "unknown dtype 'f31'");
  expect_error(".input x : F32[1]\n", 1, 12,
               "unknown dtype 'F32'; did you mean 'f32'? (dtypes: f32 f64 i8 u8 i16 i32 i64 bool)");
  expect_error(".input x : float64[1]\n", 1, 12, "unknown dtype 'float64'; did you mean 'f64'?");
  expect_error(".input x : tensor[1]\n", 1, 12,
               "unknown dtype 'tensor'; expected one of f32 f64 i8 u8 i16 i32 i64 bool");
  expect_error(".input x : f32\n", 1, 15, "expected '[' and the dims after the dtype");
  expect_error(".input x : f32[]\n", 1, 16,
               "a type needs at least one dim; a scalar is written f32[1]");
  expect_error(".input x : f32[2 3]\n", 1, 18, "expected ',' or ']' but found 3");
  expect_error(".input x : f32[2, -3]\n", 1, 19, "dim -3 is negative");
  expect_error(".input x : f32[1,1,1,1,1,1,1,1,1]\n", 1, 32, "rank is at most 8");
  expect_error(".input x : f32[4294967296, 4294967296]\n", 1, 12,
               "more elements than fit in int64");
  expect_error(".input x : f32[2] precision=8\n", 1, 29,
               "precision applies only to signed integer inputs");
  expect_error(".input x : i8[2] precision=9\n", 1, 28,
               "precision 9 is out of range for i8; expected 1..8");
  expect_error(".input x : i32[2] extra\n", 1, 19,
               "expected precision=P or end of line but found 'extra'");
  expect_error(".output y : f32[2] junk\n", 1, 20, "expected end of line but found 'junk'");
  expect_error(".program a b\n", 1, 12, "expected end of line but found 'b'");
  expect_error(".input none : f32[1]\n", 1, 8, "'none' is a keyword");
  expect_error(".input 3 : f32[1]\n", 1, 8, "expected an input name but found 3");
}

BOOST_AUTO_TEST_CASE(instruction_syntax_errors) {
  expect_error(".input x : f32[2]\n.output y\n  y = relu x x\n", 3, 14,
               "expected ',' or end of line but found 'x'");
  expect_error(
      ".input x : f32[2]\n  y = relu x,\n", 2, 14,
      "expected an argument (a register name or none) or name=value but found end of line");
  expect_error(".input x : f32[2]\n  y = squeeze axes=(0,), x\n", 2, 26,
               "argument 'x' after attributes");
  expect_error("  y = \n", 1, 7, "expected an op name after '=' but found end of line");
  expect_error("  y, = relu x\n", 1, 6, "expected a result name but found '='");
  expect_error("  = relu x\n", 1, 3,
               "expected an op name, a label (name:) or a directive but found '='");
  expect_error("  y = squeeze x, axes=(0\n", 1, 25, "expected ',' or ')' but found end of line");
  expect_error("  y = squeeze x, axes=[0 1]\n", 1, 26, "expected ',' or ']' but found 1");
  expect_error("  y = take x, i, mode=clip\n", 1, 23, "strings are quoted, e.g. \"clip\"");
  expect_error("  y = squeeze x, axes=\n", 1, 23, "expected a value");
}

BOOST_AUTO_TEST_CASE(nesting_is_bounded) {
  std::string deep = "  y = squeeze x, axes=" + std::string(100000, '(') + "\n";
  expect_error(deep, 1, 23 + 64, "nested more than 64 levels deep");
  std::string deep_list = ".const c : f32[1] = " + std::string(100000, '[') + "\n";
  expect_error(deep_list, 1, 22, "literal nests deeper than the type f32[1] (rank 1)");
}

// ---- .const literals ----------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(literal_errors) {
  expect_error(".const c : i8[2] = [300, 1]\n", 1, 21,
               "value 300 does not fit in i8 (range -128..127)");
  expect_error(".const c : u8[2] = [1, -1]\n", 1, 24, "value -1 does not fit in u8 (range 0..255)");
  expect_error(".const c : i32[2] = [1.5, 1]\n", 1, 22,
               "value 1.5 is not an integer; i32 holds integers");
  expect_error(".const c : i32[1] = [nan]\n", 1, 22, "is not an integer");
  expect_error(".const c : f32[1] = [1e39]\n", 1, 22, "overflows f32");
  expect_error(".const c : f32[2] = [0, 3.5e38]\n", 1, 25,
               "value 3.5e38 overflows f32 (largest finite value 3.4028235e38");
  expect_error(".const c : f32[2] = fill(-3.5e38)\n", 1, 26,
               "value -3.5e38 overflows f32 (largest finite value 3.4028235e38");
  // Overflow starts at FLT_MAX + half an ulp (2^128 - 2^103 = 3.4028235677973366e38).
  expect_error(".const c : f32[1] = [3.4028236e38]\n", 1, 22, "overflows f32");
  expect_error(".const c : f32[1] = [3.4028235677973366e38]\n", 1, 22, "overflows f32");
  expect_error(".const c : bool[2] = [true, 2]\n", 1, 29, "value 2 is not a bool");
  expect_error(".const c : f32[2] = [true, 1]\n", 1, 22,
               "true is a bool value but the constant is f32");
  expect_error(".const c : f32[2, 2] = [[1, 2], [3]]\n", 1, 35,
               "dim 1 has 1 element but f32[2, 2] needs 2");
  expect_error(".const c : f32[2, 2] = [[1, 2], [3, 4, 5]]\n", 1, 40, "too many elements in dim 1");
  expect_error(".const c : f32[2] = [1, 2, 3]\n", 1, 28, "too many elements in dim 0");
  expect_error(".const c : f32[2, 2] = [1, 2]\n", 1, 25,
               "expected '[' (dim 1 of f32[2, 2] is a list) but found 1");
  expect_error(".const c : f32[2] = [[1], [2]]\n", 1, 22,
               "literal nests deeper than the type f32[2]");
  expect_error(".const c : f32[2] = [1 2]\n", 1, 24, "expected ',' or ']' but found 2");
  expect_error(".const c : f32[2] = [1, 2\n", 1, 26, "expected ',' or ']' but found end of line");
  expect_error(".const c : f32[2, 3] = []\n", 1, 24,
               "literal [] has no elements but f32[2, 3] needs 6");
  expect_error(".const c : f32[2] = 5\n", 1, 21,
               "expected '[', fill(...) or load(\"...\") but found 5");
  expect_error(".const c : f32[2] = [1, 2] x\n", 1, 28, "expected end of line but found 'x'");
  expect_error(".const c : f32[2]\n", 1, 18, "expected '=' and a literal");
  expect_error(".const c : i8[2] = fill(1000)\n", 1, 25, "value 1000 does not fit in i8");
  expect_error(".const c : f32[?, 2] = fill(1)\n", 1, 24, "fill(...) needs a fully known shape");
  expect_error(".const c : f32[2] = fill 1\n", 1, 21,
               "expected '[', fill(...) or load(\"...\") but found 'fill'");
}

BOOST_AUTO_TEST_CASE(load_errors) {
  expect_error(".const c : f32[2] = load(\"missing.npy\")\n", 1, 26,
               "cannot load \"missing.npy\": no such file");
  expect_error(".const c : f32[2] = load(\"ops\")\n", 1, 26, "not a regular file");
  expect_error(".const c : f32[2] = load(\"/dev/zero\")\n", 1, 26, "not a regular file");
  expect_error(".const c : f32[2] = load(\"/proc/self/status\")\n", 1, 26, "not a regular file");
  expect_error(".const c : f32[2] = load(\"gen_npy.py\")\n", 1, 26, "cannot load \"gen_npy.py\"");
  expect_error(".const c : f32[2] = load(w1.npy)\n", 1, 26, "expected a quoted file name");
  expect_error(
      ".const c : f64[32, 64] = load(\"w1.npy\")\n", 1, 31,
      "\"w1.npy\" holds f32[32, 64] but the constant is declared f64[32, 64] (dtype differs)");
  expect_error(".const c : f32[32, 65] = load(\"w1.npy\")\n", 1, 31, "(dim 1: 64 vs 65)");
  expect_error(".const c : f32[2048] = load(\"w1.npy\")\n", 1, 29, "(rank differs)");
}

// ---- declarations, instructions, registers, labels
// ------------------------------------------------

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
  expect_error(".input x : f32[1]\na:\n  br none, a\n", 3, 6, "br's condition cannot be none");
}

BOOST_AUTO_TEST_CASE(register_errors) {
  expect_error(".const c : f32[1] = [1]\n.input x : f32[1]\n  c = relu x\n", 3, 3,
               "'c' is a .const (line 1) and cannot be assigned; constants are read-only");
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

// ---- recovery, limits, rendering ----------------------------------------------------------------

BOOST_AUTO_TEST_CASE(every_independent_error_is_reported) {
  std::string src =
      ".input x : f32[2]\n"          // 1
      "  y = relu x $\n"             // 2: lexical
      "  y = relu x x\n"             // 3: syntax
      "  z = conv x\n"               // 4: unknown op (still checked after syntax errors)
      ".const c : i8[1] = [300]\n";  // 5: literal
  AssembleResult r = run(src);
  BOOST_REQUIRE(r.diagnostics.size() == 4u);
  BOOST_TEST(r.diagnostics[0].line == 2);
  BOOST_TEST(r.diagnostics[1].line == 3);
  BOOST_TEST(r.diagnostics[2].line == 4);
  BOOST_TEST(r.diagnostics[3].line == 5);
  BOOST_TEST(!r.module.has_value());

  AssembleOptions few;
  few.max_errors = 2;
  BOOST_TEST(run(src, few).diagnostics.size() == 2u);
}

namespace {

struct Expected {
  int line, col;
  std::string text;
};

// Exactly these diagnostics, in order: each independent error, and no consequence of one.
void expect_errors(const std::string& src, const std::vector<Expected>& want) {
  AssembleResult r = run(src);
  BOOST_TEST_CONTEXT("diagnostics:\n" << all_messages(r)) {
    BOOST_TEST(!r.module.has_value());
    BOOST_REQUIRE_EQUAL(r.diagnostics.size(), want.size());
    for (std::size_t k = 0; k < want.size(); ++k) {
      const Diagnostic& d = r.diagnostics[k];
      BOOST_TEST(d.line == want[k].line, "diagnostic " << k);
      BOOST_TEST(d.col == want[k].col, "diagnostic " << k);
      BOOST_TEST(d.message.find(want[k].text) != std::string::npos,
                 "message '" << d.message << "' lacks '" << want[k].text << "'");
    }
  }
}

}  // namespace

// One error of every kind in one file: syntax, attribute value, unknown label, unknown
// register, definite assignment, output path, type (shape, axis), attribute range. No pass
// hides another's findings, and what a broken line would have assigned (h, z, u) is poisoned,
// so its readers (g, w, v, t) report nothing.
BOOST_AUTO_TEST_CASE(errors_of_every_kind_are_reported_together) {
  expect_errors(
      ".input x : f32[3, 4]\n"         // 1
      ".input b : f32[5]\n"            // 2
      ".input c : bool[1]\n"           // 3
      ".output q\n"                    // 4: not assigned on the path via `away`
      ".output y\n"                    // 5
      "  h = cast x, dtype=f33\n"      // 6: unknown dtype (a syntax error)
      "  g = relu h\n"                 // 7
      "  br c, away\n"                 // 8
      "  z = relu undefined_reg\n"     // 9: nothing assigns it
      "  w = relu z\n"                 // 10
      "  q = relu x\n"                 // 11
      "away:\n"                        // 12
      "  y = add x, b\n"               // 13: shape mismatch
      "  s = sum x, axes=(5,)\n"       // 14: axis out of range
      "  u = relu x x\n"               // 15: syntax
      "  v = relu u\n"                 // 16
      "  br c, nowhere\n"              // 17: unknown label
      "  t = conv2d g, v, groups=0\n"  // 18: attribute out of range
      "  k = relu later\n"             // 19: read before assigned
      "  later = relu x\n",            // 20
      {{4, 9, "output 'q' is not assigned on every path to halt"},
       {6, 21, "unknown dtype 'f33'; did you mean 'f32'?"},
       {9, 12, "register 'undefined_reg' is read before it is assigned (nothing assigns it)"},
       {13, 7, "shape mismatch: f32[3, 4] and f32[5] cannot broadcast"},
       {14, 7, "axis 5 is out of range for rank 2"},
       {15, 14, "expected ',' or end of line but found 'x'"},
       {17, 9, "unknown label 'nowhere'"},
       {18, 27, "attribute 'groups' of conv2d is 0"},
       {19, 12, "register 'later' is read before it is assigned"}});
}

BOOST_AUTO_TEST_CASE(an_output_path_error_does_not_hide_type_errors) {
  expect_errors(
      ".input x : f32[3, 4]\n.input b : f32[5]\n.input c : bool[1]\n.output q\n"
      "  br c, out\n  q = relu x\nout:\n  r = add x, b\n  s = transpose x, axes=(0, 3)\n",
      {{4, 9, "output 'q' is not assigned on every path to halt (not on a path to the end"},
       {8, 7, "shape mismatch"},
       {9, 7, "transpose"}});
}

BOOST_AUTO_TEST_CASE(attribute_errors_do_not_hide_labels_or_registers) {
  expect_errors(
      ".input x : f32[2]\n.output y\n  y = take x, x, mode=clip\n  jmp nowhere\n"
      "  z = relu nothing\n",
      {{3, 23, "strings are quoted"},
       {4, 7, "unknown label 'nowhere'"},
       {5, 12, "register 'nothing' is read before it is assigned (nothing assigns it)"}});
  expect_errors(".input x : f32[2]\n.output y\n  y = relu x, axis=1\n  jmp nowhere\n",
                {{3, 15, "unknown attribute 'axis' for relu"}, {4, 7, "unknown label 'nowhere'"}});
}

// What a broken line declares or assigns is poisoned, not unknown: no cascades.
BOOST_AUTO_TEST_CASE(broken_lines_cause_no_cascades) {
  // A declaration with a bad type or literal still declares its name.
  expect_errors(".input x : f31[2]\n.output y\n  y = relu x\n", {{1, 12, "unknown dtype 'f31'"}});
  expect_errors(".inptu x : f32[2]\n.output y\n  y = relu x\n",
                {{1, 1, "unknown directive '.inptu'"}});
  expect_errors(".const w : f32[2] = [1, 2, 3]\n.input x : f32[2]\n.output y\n  y = add x, w\n",
                {{1, 28, "too many elements in dim 0"}});
  // A lexical error keeps what came before it on the line: y is assigned, `loop` exists.
  expect_errors(
      ".input x : f32[2]\n.input c : bool[1]\n.output y\nloop: y = relu x $\n"
      "  br c, loop\n",
      {{4, 18, "unexpected character '$'"}});
  // A misspelled jump's label is no register read.
  expect_errors(".input x : f32[1]\nloop:\n  jpm loop\n", {{3, 3, "unknown op 'jpm'"}});
  // An instruction with an error assigns its results (of unknown type).
  expect_errors(".input x : f32[2]\n.output y\n  h = conv x\n  y = add h, x\n",
                {{3, 7, "unknown op 'conv'"}});
  // A broken jump leaves the flow unknown: nothing after it is judged by a guessed path.
  expect_errors(".input x : f32[2]\n.output y\n  jmp done extra\n  halt\ndone:\n  y = relu x\n",
                {{3, 12, "expected ',' or end of line but found 'extra'"}});
  // An unknown label leads nowhere: the jump's path is not followed, the other paths are.
  expect_errors(
      ".input x : f32[2]\n.input c : bool[1]\n.output y\n  br c, nowhere\n"
      "  y = add x, c\n",
      {{4, 9, "unknown label 'nowhere'"}, {5, 7, "add"}});
  // Assigning a constant: reported once; readers of the result are not judged.
  expect_errors(
      ".const c : f32[1] = [1]\n.input x : f32[2, 2]\n.output y\n  c = relu x\n"
      "  y = add c, x\n",
      {{4, 3, "'c' is a .const"}});
}

BOOST_AUTO_TEST_CASE(stopping_at_the_limit_skips_cross_line_checks) {
  // Parsing stops after max_errors errors; names defined further down are not "unknown".
  AssembleOptions two;
  two.max_errors = 2;
  AssembleResult r =
      run(".output y\n  a = relu x x\n  b = relu x x\n.input x : f32[1]\n"
          "  y = relu x\n  z = relu nothing\n",
          two);
  BOOST_REQUIRE(r.diagnostics.size() == 2u);
  BOOST_TEST(r.diagnostics[0].line == 2);
  BOOST_TEST(r.diagnostics[1].line == 3);
}

// The .mlbc format holds strings of at most format::kMaxStringBytes bytes; a longer name is
// an assembly error at its position, not a failure when the module is written.
BOOST_AUTO_TEST_CASE(names_longer_than_the_format_allows) {
  const std::size_t max = format::kMaxStringBytes;
  const std::string fits(max, 'n'), too_long(max + 1, 'n');
  AssembleResult ok = run(".program " + fits + "\n.input " + fits + " : f32[1]\n.output " + fits +
                          "\n" + fits + ":\n  " + fits + " = relu " + fits + "\n");
  BOOST_REQUIRE_MESSAGE(ok.ok(), all_messages(ok).substr(0, 500));
  BOOST_CHECK_NO_THROW(encode_module(*ok.module));

  const std::string n = std::to_string(max + 1);
  expect_error(".program " + too_long + "\n", 1, 10, "is " + n + " bytes long");
  expect_error(".input " + too_long + " : f32[1]\n", 1, 8,
               "is " + n + " bytes long; a .mlbc module holds names of at most " +
                   std::to_string(max) + " bytes");
  expect_error(".input x : f32[1]\n.output y\n  y = relu " + too_long + "\n", 3, 12, "bytes long");
  expect_error(".input x : f32[1]\n.output y\n  y = relu x\n" + too_long + ":\n", 4, 1,
               "bytes long");
  expect_error(
      ".input x : f32[5,3]\n.input i : i32[2]\n  y = take x, i, mode=\"" + too_long + "\"\n", 3, 23,
      "string is " + n + " bytes long");
  // --check used to pass such a program; only writing it failed, with no position.
  AssembleResult r =
      run(".input x : f32[1]\n.output " + too_long + "\n  " + too_long + " = relu x\n");
  BOOST_TEST(!r.ok());
  for (auto& d : r.diagnostics) BOOST_TEST(d.line > 0);
}

BOOST_AUTO_TEST_CASE(render_shows_line_and_caret) {
  AssembleResult r = run(".input x : f32[1]\n\ty = conv x\n");
  BOOST_REQUIRE(!r.diagnostics.empty());
  BOOST_TEST(
      r.diagnostics[0].render() ==
      "t.mlasm:2:6: error: unknown op 'conv'; did you mean 'conv2d'?\n  \ty = conv x\n  \t    ^");
  // A caret past the end of the line (end of line errors).
  r = run("  y = relu x,\n");
  BOOST_TEST(r.diagnostics[0].render() ==
             "t.mlasm:1:14: error: expected an argument (a register name or none) or name=value "
             "but found end of "
             "line\n    y = relu x,\n               ^");
  // Control bytes are not echoed raw.
  r = run(std::string("y = relu\0 x\n", 12));
  BOOST_TEST(r.diagnostics[0].render().find('\0') == std::string::npos);
}

BOOST_AUTO_TEST_CASE(long_lines_are_windowed) {
  std::string args;
  for (int k = 0; k < 250000; ++k) args += "aaa,";  // short names: a long name is an error
  std::string line = "  y = relu x, " + args + " $";
  AssembleResult r = run(".input x : f32[1]\n" + line + "\n");
  BOOST_REQUIRE(!r.diagnostics.empty());
  const Diagnostic& d = r.diagnostics[0];
  BOOST_TEST(d.line == 2);
  BOOST_TEST(d.col == int(line.size()));
  BOOST_TEST(d.source_line.size() < 200u);
  std::string text = d.render();
  // The caret sits under the '$' in the window.
  auto lines_end = text.rfind('\n');
  auto prev = text.rfind('\n', lines_end - 1);
  std::string src_line = text.substr(prev + 1, lines_end - prev - 1);
  std::string caret_line = text.substr(lines_end + 1);
  BOOST_TEST(caret_line.size() == src_line.find('$') + 1);
}

BOOST_AUTO_TEST_CASE(garbage_never_crashes) {
  std::string bin;
  for (int k = 0; k < 4096; ++k) bin += char((k * 131 + 7) % 256);
  AssembleResult r = run(bin);
  BOOST_TEST(!r.ok());
  BOOST_TEST(!r.diagnostics.empty());
  // An empty program has nothing to report from the parser.
  BOOST_TEST(run("").diagnostics.size() <= 1u);
  std::string nuls(1000, '\0');
  BOOST_TEST(!run(nuls).ok());
  // Deterministic: the same input gives the same diagnostics.
  BOOST_TEST(all_messages(run(bin)) == all_messages(run(bin)));
}

BOOST_AUTO_TEST_CASE(assemble_or_throw_reports_every_error) {
  try {
    assemble_or_throw("  y = conv x\n  z = relu\n", "f.mlasm");
    BOOST_FAIL("expected an error");
  } catch (const Error& e) {
    BOOST_TEST(e.kind() == ErrorKind::invalid);
    BOOST_TEST(e.location() == "f.mlasm:1:7");
    std::string m = e.message();
    BOOST_TEST(m.find("f.mlasm:1:7: error: unknown op 'conv'") != std::string::npos);
    BOOST_TEST(m.find("f.mlasm:2:7: error: relu needs 1 input") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(assemble_file_errors) {
  BOOST_CHECK_THROW(assemble_file(data_dir() + "/no_such_file.mlasm"), Error);
  try {
    assemble_file(data_dir());
    BOOST_FAIL("expected an error");
  } catch (const Error& e) {
    BOOST_TEST(e.kind() == ErrorKind::io);
  }
}

// Inputs the fuzzer once crashed on (kept in tests/data/asm/fuzz_regressions/): each must be
// reported as errors, under the sanitizers without a finding.
BOOST_AUTO_TEST_CASE(fuzz_regressions) {
  namespace fs = std::filesystem;
  int files = 0;
  for (const auto& e : fs::directory_iterator(data_dir() + "/fuzz_regressions")) {
    ++files;
    AssembleResult r = run(read_text(e.path().string()));
    BOOST_TEST_INFO("file " << e.path().filename().string());
    BOOST_TEST(!r.ok());
    BOOST_TEST(!all_messages(r).empty());
  }
  BOOST_TEST(files >= 1);
}

BOOST_AUTO_TEST_SUITE_END()
