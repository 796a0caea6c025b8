// The verifier with the real type rules on the example programs (as in
// tests/data/asm/digits_mlp.mlasm and lif.mlasm).
#include <boost/test/unit_test.hpp>

#include "bytecode/sample_modules.hpp"
#include "bytecode/verifier.hpp"

using namespace mlvm;
using namespace mlvm::testing;

BOOST_AUTO_TEST_SUITE(verifier_programs)

BOOST_AUTO_TEST_CASE(digits_mlp) {
  VerifyResult r = verify_module(mlp_module());
  for (auto& e : r.errors) BOOST_ERROR(e.instruction << ": " << e.message);
  BOOST_REQUIRE(r.ok());
  BOOST_TEST(r.result_types[0][0].to_string() == "f32[?, 32]");
  BOOST_TEST(r.output_types[0].to_string() == "f32[?, 10]");
}

BOOST_AUTO_TEST_CASE(integrate_and_fire_loop) {
  Module m = loop_module();
  VerifyResult r = verify_module(m);
  for (auto& e : r.errors) BOOST_ERROR(e.instruction << ": " << e.message);
  BOOST_REQUIRE(r.ok());
  BOOST_TEST(r.result_types[3][0].to_string() == "f32[1, 100]");  // take
  BOOST_TEST(r.result_types[4][0].to_string() == "f32[100]");     // squeeze
  BOOST_TEST(r.result_types[11][0].to_string() == "i32[1]");      // the counter: precision unknown
  BOOST_TEST(r.output_types[0].to_string() == "f32[100]");
  // Strict precision rejects the counter's add (its precision is unknown around the loop).
  VerifyOptions strict;
  strict.strict_precision = true;
  r = verify_module(m, strict);
  BOOST_REQUIRE(r.errors.size() == 1u);
  BOOST_TEST(r.errors[0].instruction == 11);
}

BOOST_AUTO_TEST_SUITE_END()
