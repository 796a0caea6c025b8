// Numbers as tensor arguments, the shape-driven constant ops and the no-precision-check flag,
// through assemble -> verify -> encode -> decode -> disassemble -> assemble.
#include <boost/test/unit_test.hpp>

#include "assembler/asm_test_util.hpp"
#include "bytecode/codec.hpp"
#include "bytecode/disassembler.hpp"
#include "bytecode/verifier.hpp"

using namespace mlvm;
using namespace mlvm::asm_test;

namespace {

Module ok(const std::string& src, AssembleOptions o = {}) {
  AssembleResult r = run(src, o);
  BOOST_REQUIRE_MESSAGE(r.ok(), all_messages(r));
  return *r.module;
}

// encode -> decode -> disassemble -> assemble -> encode gives the same bytes, debug lines aside.
void expect_round_trip(const Module& m) {
  Module d = decode_module(encode_module(m));
  BOOST_TEST(verify_module(d).ok());
  std::string text = disassemble(d).text;
  Module again = ok(text);
  Module a = m, b = again;
  a.lines.assign(a.code.size(), 0);
  b.lines.assign(b.code.size(), 0);
  b.source_name = a.source_name;
  BOOST_TEST((encode_module(a) == encode_module(b)), text);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(assembler_literal_args)

BOOST_AUTO_TEST_CASE(a_number_takes_the_other_arguments_dtype) {
  Module m = ok(".input x : f32[2, 3]\n.output y\n    y = add x, 1.5\n");
  BOOST_REQUIRE_EQUAL(m.constants.size(), 1u);
  BOOST_TEST(m.constants[0].type.dtype == DType::f32);
  BOOST_TEST(m.constants[0].value.shape() == (Dims{1}));
  BOOST_TEST(m.constants[0].value.data<float>()[0] == 1.5f);
  expect_round_trip(m);

  Module c = ok(".input i : i32[4]\n.output c\n    c = less i, 10\n");
  BOOST_REQUIRE_EQUAL(c.constants.size(), 1u);
  BOOST_TEST(c.constants[0].type.dtype == DType::i32);
  BOOST_TEST(c.constants[0].type.precision == 5);
  expect_round_trip(c);
}

BOOST_AUTO_TEST_CASE(a_literal_types_the_next_and_precision_is_proven) {
  AssembleResult r = run(
      ".input x : i16[4] precision=8\n.output b\n    a = add x, 1\n    b = mul a, -3\n");
  BOOST_REQUIRE_MESSAGE(r.ok(), all_messages(r));
  BOOST_TEST(r.module->constants.size() == 2u);
  BOOST_TEST(r.module->constants[1].type.dtype == DType::i16);
  BOOST_TEST(r.verify.result_types[1][0].precision == 9 + 3);
  // Generated names never clash with the program's.
  Module m = ok(".input lit0 : f32[2]\n.output y\n    y = mul lit0, 2\n");
  BOOST_TEST(m.constants[0].name != "lit0");
  expect_round_trip(m);
}

BOOST_AUTO_TEST_CASE(literal_errors_point_at_the_literal) {
  expect_error(".input x : i8[4]\n.output y\n    y = add x, 300\n", 3, 16, "i8");
  expect_error(".input x : i32[4]\n.output y\n    y = add x, 1.5\n", 3, 16, "i32");
  expect_error(".output y\n    y = add 1, 2\n", 2, 13, "no other tensor argument");
  expect_error(".input x : f32[1]\n.output y\n    y = relu 1.0\n", 3, 14, "no other tensor");
}

BOOST_AUTO_TEST_CASE(shape_driven_constants) {
  AssembleResult r = run(
      ".input x : i8[?, 3]\n.output a\n.output b\n.output c\n.output s\n"
      "    a = zeros_like x\n    b = ones_like x, dtype=f64\n"
      "    c = full_like x, value=-7\n    s = shape_of x\n");
  BOOST_REQUIRE_MESSAGE(r.ok(), all_messages(r));
  BOOST_TEST(r.verify.result_types[0][0].to_string() == "i8[?, 3] precision=1");
  BOOST_TEST(r.verify.result_types[1][0].dtype == DType::f64);
  BOOST_TEST(r.verify.result_types[2][0].precision == 4);
  BOOST_TEST(r.verify.result_types[3][0].dims == (Dims{2}));
  BOOST_TEST(r.verify.result_types[3][0].precision == kUnknownPrecision);  // a `?` dim
  expect_round_trip(*r.module);
  AssembleResult k = run(".input x : f32[5, 3]\n.output s\n    s = shape_of x\n");
  BOOST_REQUIRE(k.ok());
  BOOST_TEST(k.verify.result_types[0][0].precision == 4);  // 5 needs 4 bits
  expect_error(".input x : i8[2]\n.output y\n    y = full_like x, value=300\n", 3, 9, "300");
}

BOOST_AUTO_TEST_CASE(no_precision_check_is_recorded_in_the_module) {
  const std::string src = ".input x : i32[4] precision=32\n.output y\n    y = mul x, x\n";
  BOOST_TEST(!run(src).ok());
  AssembleOptions o;
  o.verify.precision_check = false;
  Module m = ok(src, o);
  BOOST_TEST(!m.precision_check);
  Module d = decode_module(encode_module(m));
  BOOST_TEST(!d.precision_check);
  BOOST_TEST(verify_module(d).ok());  // what mlvm-run does with the module
  std::string text = disassemble(d).text;
  BOOST_TEST(text.find(".no_precision_check\n") != std::string::npos);
  expect_round_trip(m);
  // The directive alone has the same effect; modules without it keep their bytes.
  Module n = ok(".no_precision_check\n" + src);
  BOOST_TEST(!n.precision_check);
  Module plain = ok(".input x : i32[4] precision=8\n.output y\n    y = mul x, x\n");
  Module plain_d = decode_module(encode_module(plain));
  BOOST_TEST(plain_d.precision_check);
}

BOOST_AUTO_TEST_SUITE_END()
