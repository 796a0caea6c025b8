// One failing program per syntax error the assembler reports (lexer, parser, .const literals,
// load), asserting message and exact line:col.
#include <boost/test/unit_test.hpp>
#include <cfloat>
#include <cstring>

#include "asm_test_util.hpp"

using namespace mlvm;
using namespace mlvm::asm_test;

BOOST_AUTO_TEST_SUITE(assembler_syntax_errors)

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
               ".const, .output, .no_precision_check)");
  expect_error(".OUTPUT y\n", 1, 1, "unknown directive '.OUTPUT'; did you mean '.output'?");
  expect_error(".zzzzzz x : f32[1]\n", 1, 1,
               "unknown directive '.zzzzzz'; expected .program, .input, .const, .output or "
               ".no_precision_check");
  expect_error(".input x f32[1]\n", 1, 10, "expected ':' and a type");
  expect_error(".input x : f31[1]\n", 1, 12, "unknown dtype 'f31'");
  expect_error(".input x : F32[1]\n", 1, 12,
               "unknown dtype 'F32'; did you mean 'f32'? (dtypes: f32 f64 i8 u8 i16 i32 i64 bool)");
  expect_error(".input x : float64[1]\n", 1, 12, "unknown dtype 'float64'; did you mean 'f64'?");
  expect_error(".input x : tensor[1]\n", 1, 12,
               "unknown dtype 'tensor'; expected one of f32 f64 i8 u8 i16 i32 i64 bool");
  expect_error(".input x : f32\n", 1, 15, "expected '[' and the dims after the dtype");
  expect_error(".const x : f32[] = [1]\n", 1, 16,
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
      "expected an argument (a register name, a number or none) or name=value but found end of line");
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

BOOST_AUTO_TEST_SUITE_END()
