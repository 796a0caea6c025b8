// The verifier's precision tracking: overflow of ARITH results, strict precision, and the
// precision of constants computed from their data.
#include <boost/test/unit_test.hpp>

#include "bytecode/verifier_test_util.hpp"

using namespace mlvm;
using namespace mlvm::verifier_test;

BOOST_FIXTURE_TEST_SUITE(verifier_precision, StubRules)

BOOST_AUTO_TEST_CASE(precision_overflow) {
  ModuleBuilder b;
  b.input("x", T(DType::i32, {4}, 32));
  b.output("y");
  b.at_line(30).emit("y", "add", {"x", "x"});
  Module m = b.build();
  VerifyResult r = verify_module(m);
  auto d = only_error(r, "result precision 33 exceeds i32; clip or shift first");
  BOOST_TEST(d.result == 0);
  try {
    verify_or_throw(m);
    BOOST_FAIL("no throw");
  } catch (const Error& e) {
    BOOST_TEST(e.kind() == ErrorKind::invalid);
    BOOST_TEST(e.location() == "instruction 0 (line 30)");
    BOOST_TEST(e.message() == "result precision 33 exceeds i32; clip or shift first");
  }
  VerifyOptions off;
  off.precision_check = false;
  r = verify_module(m, off);
  BOOST_REQUIRE(r.ok());
  BOOST_TEST(r.result_types[0][0].precision == kUnknownPrecision);
  // Exactly at the width is fine; a non-ARITH op never errors.
  m.inputs[0].type.precision = 31;
  BOOST_TEST(verify_module(m).ok());
}

BOOST_AUTO_TEST_CASE(strict_precision) {
  ModuleBuilder b;
  b.input("x", T(DType::i32, {4}));
  b.input("p", T(DType::i32, {4}, 8));
  b.output("y");
  b.emit("y", "mul", {"p", "x"});
  b.emit("y", "copy", {"x"});  // not arithmetic: fine even when strict
  Module m = b.build();
  BOOST_TEST(verify_module(m).ok());
  VerifyOptions strict;
  strict.strict_precision = true;
  auto d = only_error(verify_module(m, strict),
                      "strict precision: input 'b' of mul ('x', i32[4]) has unknown precision");
  BOOST_TEST(d.operand == 1);
  strict.precision_check = false;  // --no-precision-check wins
  BOOST_TEST(verify_module(m, strict).ok());
}

BOOST_AUTO_TEST_CASE(constant_precision_is_computed_from_data) {
  ModuleBuilder b;
  b.constant("c", i32_tensor({0, -100, 5}));
  b.fill_constant("f", DType::i16, Dims{64, 64}, Scalar::from_int(-3));
  b.output("y");
  b.output("z");
  b.emit("y", "copy", {"c"});
  b.emit("z", "copy", {"f"});
  Module m = b.build();
  m.constants[0].type.precision = 2;  // the module's claim is not trusted
  VerifyResult r = verify_module(m);
  BOOST_REQUIRE(r.ok());
  BOOST_TEST(r.output_types[0].to_string() == "i32[3] precision=8");
  BOOST_TEST(r.output_types[1].to_string() == "i16[64, 64] precision=3");
}

BOOST_AUTO_TEST_CASE(constant_beyond_symmetric_range_has_unknown_precision) {
  // -128 in i8 needs precision 9: valid data, but no provable precision (docs/ops.md,
  // "Integer precision").
  ModuleBuilder b;
  Tensor t = Tensor::empty(DType::i8, Dims{2});
  t.data<int8_t>()[0] = -128;
  t.data<int8_t>()[1] = 5;
  b.constant("c", t);
  b.output("y");
  b.emit("y", "copy", {"c"});
  VerifyResult r = verify_module(b.build());
  BOOST_REQUIRE(r.ok());
  BOOST_TEST(r.output_types[0].to_string() == "i8[2]");
}

BOOST_AUTO_TEST_SUITE_END()
