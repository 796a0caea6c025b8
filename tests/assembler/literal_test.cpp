// .const literals and attribute values as the parser builds them (no verifier involved):
// nested literals row-major, `[]`, fill(V) as a constant view, load("...") with `?` dims,
// exact precision, and every attribute value form of docs/language.md.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <limits>

#include "asm_test_util.hpp"
#include "assembler/parser.hpp"

namespace mlvm {
// How Boost.Test prints an AttrValue in a failed check.
inline std::ostream& boost_test_print_type(std::ostream& os, const AttrValue& v) {
  return os << v.to_string();
}
}  // namespace mlvm

using namespace mlvm;
using namespace mlvm::asm_detail;
using namespace mlvm::asm_test;

namespace {

// Note: ParsedSource::lines are views into `src`; only the statements outlive it.
ParsedSource parse_ok(const std::string& src) {
  ParsedSource p = parse_source(src, data_dir(), 20);
  std::string errs;
  for (auto& e : p.errors)
    errs += std::to_string(e.pos.line) + ":" + std::to_string(e.pos.col) + " " + e.message + "\n";
  BOOST_TEST_REQUIRE(p.errors.empty(), errs);
  return p;
}

const Stmt& only_const(const ParsedSource& p) {
  BOOST_REQUIRE(p.statements.size() == 1u);
  BOOST_REQUIRE(p.statements[0].kind == StmtKind::constant);
  return p.statements[0];
}

// The attribute value of `y = op x, a=<text>`.
AttrValue attr(const std::string& text) {
  ParsedSource p = parse_ok("y = op x, a=" + text + "\n");
  BOOST_REQUIRE(p.statements.size() == 1u);
  BOOST_REQUIRE(p.statements[0].attrs.size() == 1u);
  return p.statements[0].attrs[0].value;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(assembler_literals)

BOOST_AUTO_TEST_CASE(nested_literal_is_row_major) {
  ParsedSource p = parse_ok(".const m : f32[2, 3] = [[1, 2, 3], [4.5, -5e-1, 0x10]]\n");
  const Stmt& s = only_const(p);
  BOOST_TEST(s.type.to_string() == "f32[2, 3]");
  const Tensor& t = s.value;
  BOOST_TEST(t.type_string() == "f32[2, 3]");
  BOOST_TEST(t.is_contiguous());
  const float want[] = {1, 2, 3, 4.5f, -0.5f, 16};
  for (int k = 0; k < 6; ++k) BOOST_TEST(t.data<float>()[k] == want[k]);
  BOOST_TEST(s.type.precision == 0);  // floats carry no precision
}

BOOST_AUTO_TEST_CASE(every_dtype_and_exact_precision) {
  struct Case {
    std::string src;
    std::string type;
    int precision;
  };
  const Case cases[] = {
      {".const c : i8[3] = [-128, 127, 0]\n", "i8[3]", 0},  // -128 needs 9 > 8 bits: unknown
      {".const c : i8[2] = [-127, 5]\n", "i8[2]", 8},
      {".const c : i16[2] = [0, 0]\n", "i16[2]", 1},  // all-zero: 1
      {".const c : i32[1] = [1]\n", "i32[1]", 2},
      {".const c : i32[2] = [-100, 99]\n", "i32[2]", 8},
      {".const c : i64[1] = [0x7FFFFFFFFFFFFFFF]\n", "i64[1]", 64},
      {".const c : i64[1] = [-9223372036854775808]\n", "i64[1]", 0},
      {".const c : u8[2] = [255, 0]\n", "u8[2]", 0},  // unsigned: not tracked
      {".const c : bool[3] = [true, false, 1]\n", "bool[3]", 0},
      {".const c : f64[3] = [inf, -inf, nan]\n", "f64[3]", 0},
  };
  for (auto& c : cases) {
    BOOST_TEST_CONTEXT(c.src) {
      ParsedSource p = parse_ok(c.src);
      const Stmt& s = only_const(p);
      BOOST_TEST(std::string(dtype_name(s.type.dtype)) + dims_to_string(s.type.dims) == c.type);
      BOOST_TEST(s.type.precision == c.precision);
    }
  }
  ParsedSource p = parse_ok(".const c : bool[3] = [true, false, 1]\n");
  const uint8_t* b = only_const(p).value.data<uint8_t>();
  BOOST_TEST((b[0] == 1 && b[1] == 0 && b[2] == 1));
  p = parse_ok(".const c : f64[3] = [inf, -inf, nan]\n");
  const double* d = only_const(p).value.data<double>();
  BOOST_TEST((std::isinf(d[0]) && d[0] > 0 && std::isinf(d[1]) && d[1] < 0 && std::isnan(d[2])));
  p = parse_ok(".const c : i32[2] = [2.0, -3e0]\n");  // integral floats are fine for ints
  BOOST_TEST(only_const(p).value.data<int32_t>()[1] == -3);
}

BOOST_AUTO_TEST_CASE(empty_literals) {
  for (std::string src :
       {".const e : f32[0] = []\n", ".const e : f32[0, 3] = []\n", ".const e : f32[2, 0] = []\n",
        ".const e : f32[2, 0] = [[], []]\n", ".const e : i8[3, 0, 2] = [[], [], []]\n"}) {
    BOOST_TEST_CONTEXT(src) {
      ParsedSource p = parse_ok(src);
      const Stmt& s = only_const(p);
      BOOST_TEST(s.value.numel() == 0);
      BOOST_TEST(s.value.shape() == s.type.dims);
    }
  }
  ParsedSource p = parse_ok(".const e : f32[?, 3] = []\n");
  BOOST_TEST(only_const(p).type.to_string() == "f32[0, 3]");
}

BOOST_AUTO_TEST_CASE(dynamic_dims_take_the_literals_size) {
  ParsedSource p =
      parse_ok(".const c : i32[?, ?] = [[1, 2, 3], [4, 5, 6,],]\n");  // trailing commas allowed
  const Stmt& s = only_const(p);
  BOOST_TEST(s.type.to_string() == "i32[2, 3] precision=4");
  BOOST_TEST(s.value.data<int32_t>()[5] == 6);
  BOOST_TEST(parse_source(".const c : i32[?, ?] = [[1, 2], [3]]\n", "", 5).errors.size() == 1u);
}

BOOST_AUTO_TEST_CASE(fill_is_a_constant_view) {
  ParsedSource p = parse_ok(".const z : f32[4096, 4096] = fill(0)\n");
  const Stmt& s = only_const(p);
  BOOST_TEST((s.value.mode() == ValueMode::constant));
  BOOST_TEST(s.value.storage()->bytes() == 4);
  BOOST_TEST(s.value.type_string() == "f32[4096, 4096]");
  BOOST_TEST(s.value.strides()[0] == 0);
  p = parse_ok(".const z : i16[1000000, 1000] = fill(-300)\n");
  BOOST_TEST(only_const(p).type.precision == 10);  // 300 < 2^9 - 1
  BOOST_TEST(only_const(p).value.data<int16_t>()[0] == -300);
  p = parse_ok(".const z : bool[8] = fill(true)\n");
  BOOST_TEST(only_const(p).value.data<uint8_t>()[0] == 1);
  p = parse_ok(".const z : f64[2] = fill(-inf)\n");
  BOOST_TEST(std::isinf(only_const(p).value.data<double>()[0]));
}

BOOST_AUTO_TEST_CASE(load_embeds_the_file) {
  // Needs tensor/npy.cpp (load_npy); the fixtures come from tests/data/asm/gen_npy.py.
  ParsedSource p = parse_source(".const t : i32[2, ?] = load(\"table_i32.npy\")\n", data_dir(), 5);
  if (!p.errors.empty() && p.errors[0].message.find("cannot read") != std::string::npos) {
    BOOST_TEST_MESSAGE("load_npy is not available yet: " << p.errors[0].message);
    BOOST_TEST(p.errors[0].pos.col == 29);
    return;
  }
  BOOST_REQUIRE(p.errors.empty());
  const Stmt& s = only_const(p);
  BOOST_TEST(s.type.to_string() == "i32[2, 3] precision=8");
  BOOST_TEST(s.value.data<int32_t>()[0] == -100);
  BOOST_TEST(s.value.data<int32_t>()[4] == 99);

  p = parse_ok(".const f : f64[2, 3] = load(\"fortran_f64.npy\")\n");  // Fortran order -> row-major
  const double* d = only_const(p).value.data<double>();
  for (int k = 0; k < 6; ++k) BOOST_TEST(d[k] == double(k));
  p = parse_ok(".const s : i8[1] = load(\"scalar_i8.npy\")\n");  // 0-d -> [1]
  BOOST_TEST(only_const(p).value.data<int8_t>()[0] == -5);
  BOOST_TEST(only_const(p).type.precision == 4);
  p = parse_ok(".const s : f32[?, ?] = load(\"w1.npy\")\n");
  BOOST_TEST(only_const(p).type.to_string() == "f32[32, 64]");
}

BOOST_AUTO_TEST_CASE(attribute_values) {
  BOOST_TEST(attr("42") == AttrValue::integer(42));
  BOOST_TEST(attr("-7") == AttrValue::integer(-7));
  BOOST_TEST(attr("0x1F") == AttrValue::integer(31));
  BOOST_TEST(attr("-0x1f") == AttrValue::integer(-31));
  BOOST_TEST(attr("1.5") == AttrValue::floating(1.5));
  BOOST_TEST(attr("-2e-3") == AttrValue::floating(-2e-3));
  BOOST_TEST(attr("1E+2") == AttrValue::floating(100.0));
  BOOST_TEST(attr("inf") == AttrValue::floating(std::numeric_limits<double>::infinity()));
  BOOST_TEST(attr("-inf") == AttrValue::floating(-std::numeric_limits<double>::infinity()));
  BOOST_TEST(std::isnan(attr("nan").f));
  BOOST_TEST(attr("true") == AttrValue::boolean(true));
  BOOST_TEST(attr("false") == AttrValue::boolean(false));
  BOOST_TEST(attr("none") == AttrValue::none());
  BOOST_TEST(attr("f32") == AttrValue::dtype(DType::f32));
  BOOST_TEST(attr("bool") == AttrValue::dtype(DType::boolean));
  BOOST_TEST(attr("i64") == AttrValue::dtype(DType::i64));
  BOOST_TEST(attr("\"a \\\"q\\\" \\\\ b\"") == AttrValue::string("a \"q\" \\ b"));
  BOOST_TEST(attr("\"\"") == AttrValue::string(""));
  auto I = [](int64_t v) { return AttrValue::integer(v); };
  auto T = [](std::vector<AttrValue> v) { return AttrValue::tuple(std::move(v)); };
  BOOST_TEST(attr("()") == T({}));
  BOOST_TEST(attr("[]") == T({}));
  BOOST_TEST(attr("(3,)") == T({I(3)}));
  BOOST_TEST(attr("[3]") == T({I(3)}));
  BOOST_TEST(attr("(3)") == I(3));  // parentheses alone make no tuple
  BOOST_TEST(attr("(1, 2)") == T({I(1), I(2)}));
  BOOST_TEST(attr("[1, 2,]") == T({I(1), I(2)}));
  BOOST_TEST(attr("((1, 1), (0, 2))") == T({T({I(1), I(1)}), T({I(0), I(2)})}));
  BOOST_TEST(attr("[(1, none), [true, \"s\"], f64]") ==
             T({T({I(1), AttrValue::none()}), T({AttrValue::boolean(true), AttrValue::string("s")}),
                AttrValue::dtype(DType::f64)}));
  // The text form of a value parses back to the same value.
  AttrValue v = attr("((1, -2), [3.5, inf], (), (\"x\",), none, false, u8)");
  BOOST_TEST(attr(v.to_string()) == v);
}

BOOST_AUTO_TEST_CASE(statement_forms_and_positions) {
  ParsedSource p = parse_ok(
      "; comment\n"
      ".program demo   # named\n"
      ".input x : f32[?, 4]\n"
      ".input q : i32[4] precision=8\n"
      ".output y : f32[?, 4]\n"
      ".output n\n"
      "loop:\n"
      "  a, b = get_valid_count x, score_threshold=0.5\n"
      "  print x ; trailing\n"
      "  halt\n"
      "done: y = relu x\n"
      "  y = dense x, w, none\n");
  BOOST_REQUIRE(p.statements.size() == 12u);
  const auto& S = p.statements;
  BOOST_TEST(int(S[0].kind) == int(StmtKind::program));
  BOOST_TEST(S[0].name == "demo");
  BOOST_TEST(S[1].type.to_string() == "f32[?, 4]");
  BOOST_TEST(S[2].type.precision == 8);
  BOOST_TEST(S[3].has_type);
  BOOST_TEST(!S[4].has_type);
  BOOST_TEST(int(S[5].kind) == int(StmtKind::label));
  BOOST_TEST(S[5].name == "loop");
  BOOST_TEST(S[6].results.size() == 2u);
  BOOST_TEST(S[6].results[1].name == "b");
  BOOST_TEST(S[6].results[1].pos.col == 6);
  BOOST_TEST(S[6].op.name == "get_valid_count");
  BOOST_TEST(S[6].op.pos.line == 8);
  BOOST_TEST(S[6].op.pos.col == 10);
  BOOST_TEST(S[6].attrs[0].name_pos.col == 29);
  BOOST_TEST(S[6].attrs[0].value_pos.col == 45);
  BOOST_TEST(S[7].results.empty());
  BOOST_TEST(S[7].args[0].name == "x");
  BOOST_TEST(S[8].op.name == "halt");
  BOOST_TEST(S[8].args.empty());
  BOOST_TEST(int(S[9].kind) == int(StmtKind::label));  // label and instruction on one line
  BOOST_TEST(S[10].op.name == "relu");
  BOOST_TEST(S[11].args[2].is_none);
}

BOOST_AUTO_TEST_CASE(line_endings_and_blank_input) {
  BOOST_TEST(parse_ok("").statements.empty());
  BOOST_TEST(parse_ok("\n\n   \n# only comments\n").statements.empty());
  const std::string src = ".input x : f32[1]\r\n  y = relu x\r\n";  // lines are views into it
  ParsedSource p = parse_ok(src);
  BOOST_TEST(p.statements.size() == 2u);
  BOOST_TEST(p.lines[1] == "  y = relu x");
}

BOOST_AUTO_TEST_SUITE_END()
