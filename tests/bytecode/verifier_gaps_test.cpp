// Modules with gaps (ModuleGaps): what a front end could not lower after errors it reported
// itself. The verifier checks the rest and reports nothing that only follows from a gap.
#include <boost/test/unit_test.hpp>

#include "bytecode/verifier_test_util.hpp"

using namespace mlvm;
using namespace mlvm::verifier_test;

namespace {

ModuleGaps gaps_at(std::size_t n, std::size_t pc, Gap g) {
  ModuleGaps gaps;
  gaps.code.assign(n, Gap::none);
  gaps.code[pc] = g;
  return gaps;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(verifier_gaps, StubRules)

BOOST_AUTO_TEST_CASE(a_literal_constant_takes_its_other_arguments_dtype) {
  auto build = [] {
    ModuleBuilder b;
    b.input("x", T(DType::i16, {4}));
    b.constant("lit", i32_tensor({0}));  // a placeholder: the verifier types it where read
    b.output("y");
    b.emit("y", "add", {"lit", "x"});
    return b.build();
  };
  Module m = build();
  ModuleGaps gaps;
  gaps.literals.push_back(LiteralConstant{0, Scalar::from_int(100)});
  VerifyResult r = verify_module(m, {}, &gaps);
  BOOST_REQUIRE_MESSAGE(r.ok(), (r.errors.empty() ? std::string() : r.errors[0].message));
  BOOST_REQUIRE_EQUAL(r.literal_types.size(), 1u);
  BOOST_TEST(r.literal_types[0].to_string() == T(DType::i16, {1}, 8).to_string());
  BOOST_TEST(r.arg_types[0][0].to_string() == r.literal_types[0].to_string());
  // Out of the dtype's range: an error on that operand, and its results are not reported on.
  gaps.literals[0].value = Scalar::from_int(40000);
  VerifyResult bad = verify_module(m, {}, &gaps);
  auto d = only_error(bad, "the number 40000 takes the dtype i16");
  BOOST_TEST(d.instruction == 0);
  BOOST_TEST(d.operand == 0);
  BOOST_TEST(!bad.literal_types[0].present);
  // With no other register argument there is no dtype to take.
  ModuleBuilder b;
  b.constant("lit", i32_tensor({0}));
  b.output("y");
  b.emit("y", "relu", {"lit"});
  gaps.literals[0].value = Scalar::from_float(1.5);
  auto e = only_error(verify_module(b.build(), {}, &gaps), "no other tensor argument");
  BOOST_TEST(e.operand == 0);
}

BOOST_AUTO_TEST_CASE(an_unknown_line_assigns_values_of_unknown_type) {
  ModuleBuilder b;
  b.input("x", T(DType::f32, {4}));
  b.output("y");
  b.emit("h", "halt", {"t"});       // a line that could not be read: its opcode is ignored
  b.emit("y", "add", {"h", "x"});  // no type error from h, and control falls through
  b.emit("t", "copy", {"x"});
  Module m = b.build();
  ModuleGaps gaps = gaps_at(3, 0, Gap::unknown);
  VerifyResult r = verify_module(m, {}, &gaps);
  // Only its read of t, before t is assigned.
  auto d = only_error(r, "register 't' is read before it is assigned");
  BOOST_TEST(d.instruction == 0);
  BOOST_TEST(r.result_types[1].empty());
  m.code[0].op = Opcode(999);  // whatever the opcode
  BOOST_TEST(verify_module(m, {}, &gaps).errors.size() == 1u);
}

BOOST_AUTO_TEST_CASE(an_unknown_flow_leaves_every_register_unknown) {
  ModuleBuilder b;
  b.input("x", T(DType::f32, {4}));
  b.input("i", T(DType::i32, {4}));
  b.output("y");
  b.emit(std::vector<std::string>{}, "copy", {});  // e.g. a broken `jmp`
  b.emit("y", "add", {"x", "i"});                 // x and i: unknown here
  ModuleGaps gaps = gaps_at(2, 0, Gap::flow);
  BOOST_TEST(verify_module(b.build(), {}, &gaps).ok());
  gaps.code[0] = Gap::unknown;
  only_error(verify_module(b.build(), {}, &gaps), "stub: dtype mismatch");
}

BOOST_AUTO_TEST_CASE(unresolved_attributes_are_not_checked) {
  ModuleBuilder b;
  b.input("x", T(DType::f32, {4}));
  b.output("y");
  b.emit("y", "cast", {"x", "x"}, {{"dtype", AttrValue::dtype(DType::f32)}});
  Module m = b.build();
  m.code[0].attrs.clear();
  ModuleGaps gaps = gaps_at(1, 0, Gap::attributes);
  // The arity is still checked; the attributes are not; y is of unknown type.
  only_error(verify_module(m, {}, &gaps), "cast takes 1 input (x) but 2 are given");
  m.code[0].args.pop_back();
  BOOST_TEST(verify_module(m, {}, &gaps).ok());
}

BOOST_AUTO_TEST_CASE(unresolved_operands_of_a_jump) {
  ModuleBuilder b;
  b.input("x", T(DType::f32, {4}));
  b.output("y");
  b.emit("y", "copy", {"x"});
  b.label("l").br("x", "l");
  Module m = b.build();
  m.code[1].args.clear();  // `br l` or `br x, l, l`: no condition
  m.code[1].target = -1;   // and no known target: falls through only
  ModuleGaps gaps = gaps_at(2, 1, Gap::operands);
  BOOST_TEST(verify_module(m, {}, &gaps).ok());
  m.code[1].results.push_back(0);  // results are still checked
  only_error(verify_module(m, {}, &gaps), "br gives no result; write it without 'x ='");
}

BOOST_AUTO_TEST_CASE(an_unknown_target_leads_nowhere) {
  ModuleBuilder b;
  b.input("x", T(DType::f32, {4}));
  b.input("c", T(DType::boolean, {4}));
  b.output("y");
  b.label("l").br("c", "l");
  b.emit("y", "copy", {"x"});
  Module m = b.build();
  m.code[0].target = -1;
  ModuleGaps gaps = gaps_at(2, 0, Gap::target);
  // Checked as usual (the condition's size), but no error for the target.
  only_error(verify_module(m, {}, &gaps), "br condition must have exactly one element");
  // A jmp to nowhere: what follows is unreachable, and no path leaves.
  m.code[0].op = Opcode::jmp;
  m.code[0].args.clear();
  VerifyResult r = verify_module(m, {}, &gaps);
  BOOST_TEST(r.ok());
  BOOST_TEST(r.result_types[1].empty());
  // Without the gap, -1 is a bad target.
  only_error(verify_module(m), "jmp target -1 is outside the code");
}

BOOST_AUTO_TEST_CASE(unknown_registers_are_declared_and_unknown) {
  ModuleBuilder b;
  b.input("x", T(DType::f32, {4}));
  b.output("y");
  b.output("w");
  b.emit("y", "add", {"x", "broken"});
  Module m = b.build();
  m.outputs[1].reg = m.code[0].args[1];  // an output that is the broken declaration itself
  m.outputs[1].name = "broken";
  ModuleGaps gaps;
  gaps.unknown_registers = {m.code[0].args[1]};
  BOOST_TEST(verify_module(m, {}, &gaps).ok());
  BOOST_TEST(!verify_module(m).ok());
}

BOOST_AUTO_TEST_SUITE_END()
