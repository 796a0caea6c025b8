// The verifier's structural rules (every instruction and declaration on its own), one module
// breaking each.
#include <boost/test/unit_test.hpp>

#include "bytecode/verifier_test_util.hpp"

using namespace mlvm;
using namespace mlvm::verifier_test;

BOOST_FIXTURE_TEST_SUITE(verifier_structure, StubRules)

BOOST_AUTO_TEST_CASE(valid_program_types_and_precision) {
  Module m = basic().build();
  VerifyResult r = verify_module(m);
  BOOST_REQUIRE(r.ok());
  BOOST_REQUIRE_EQUAL(r.result_types.size(), 1u);
  BOOST_TEST(r.result_types[0][0].to_string() == "i32[4] precision=9");  // max(8, 4) + 1
  BOOST_TEST(r.arg_types[0][1].to_string() == "i32[4] precision=4");     // computed from data
  BOOST_TEST(r.output_types[0].to_string() == "i32[4] precision=9");
  BOOST_TEST(r.release_after[0] == (std::vector<int32_t>{0, 1}));  // x and c die; y is an output
}

BOOST_AUTO_TEST_CASE(unknown_opcode) {
  Module m = basic().build();
  m.code[0].op = Opcode(200);
  auto d = only_error(verify_module(m), "unknown opcode 200");
  BOOST_TEST(d.instruction == 0);
}

BOOST_AUTO_TEST_CASE(arity) {
  Module m = basic().build();
  m.code[0].args.pop_back();
  only_error(verify_module(m), "add needs 2 inputs (a, b) but 1 is given");

  m = basic().build();
  m.code[0].args[1] = kNoRegister;
  auto d = only_error(verify_module(m), "input 'b' of add cannot be none");
  BOOST_TEST(d.operand == 1);

  m = basic().build();
  m.code[0].results.push_back(0);
  only_error(verify_module(m), "add gives 1 result but 2 names are assigned");

  ModuleBuilder b;
  b.input("x", T(DType::f32, {2}));
  b.output("y");
  b.emit("y", "concatenate", {"x"});
  m = b.build();
  m.code[0].args.clear();
  only_error(verify_module(m), "concatenate needs at least 1 input");
}

BOOST_AUTO_TEST_CASE(arguments_to_an_op_without_inputs) {
  // Found by the fuzzer: an omitted argument on an op that takes none.
  ModuleBuilder b;
  b.halt();
  Module m = b.build();
  m.code[0].args = {kNoRegister, 5};
  VerifyResult r = verify_module(m);
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.errors[0].message == "halt takes 0 inputs but 2 are given");
}

BOOST_AUTO_TEST_CASE(optional_inputs_are_padded_as_absent) {
  for (bool give_bias : {false, true}) {
    ModuleBuilder b;
    b.input("x", T(DType::f32, {2, 3}));
    b.input("w", T(DType::f32, {4, 3}));
    b.input("bias", T(DType::f32, {4}));
    b.output("y");
    b.emit("y", "dense", {"x", "w", give_bias ? "bias" : "none"});
    Module m = b.build();
    VerifyResult r = verify_module(m);
    BOOST_TEST(r.ok());
    BOOST_REQUIRE_EQUAL(r.arg_types[0].size(), 3u);
    BOOST_TEST(r.arg_types[0][2].present == give_bias);
    // The short form (trailing optional left out) is accepted too.
    if (!give_bias) {
      m.code[0].args.pop_back();
      BOOST_TEST(verify_module(m).ok());
    }
  }
}

BOOST_AUTO_TEST_CASE(registers_in_range) {
  Module m = basic().build();
  m.code[0].args[0] = 99;
  auto d = only_error(verify_module(m), "operand 0 is register 99, but the module has 3 registers");
  BOOST_TEST(d.operand == 0);

  m = basic().build();
  m.code[0].results[0] = -5;
  d = only_error(verify_module(m), "result 0 is register -5");
  BOOST_TEST(d.result == 0);
}

BOOST_AUTO_TEST_CASE(constants_are_read_only_inputs_are_not) {
  ModuleBuilder b;
  b.input("x", T(DType::i32, {4}));
  b.constant("c", i32_tensor({1, 2, 3, 4}));
  b.output("x");
  b.emit("x", "copy", {"c"});  // reassigning an input is fine
  b.emit("c", "copy", {"x"});
  auto d = only_error(verify_module(b.build()),
                      "'c' is a .const and cannot be assigned; constants are read-only");
  BOOST_TEST(d.instruction == 1);
  BOOST_TEST(d.result == 0);
}

BOOST_AUTO_TEST_CASE(duplicate_results) {
  ModuleBuilder b;
  b.input("x", T(DType::f32, {1, 4, 6}));
  b.output("v");
  b.emit(std::vector<std::string>{"v", "v"}, "get_valid_count", {"x"});
  auto d = only_error(verify_module(b.build()), "result 'v' is assigned twice");
  BOOST_TEST(d.result == 1);
}

BOOST_AUTO_TEST_CASE(attributes_rechecked) {
  ModuleBuilder b;
  b.input("x", T(DType::i32, {4}));
  b.output("y");
  b.emit("y", "cast", {"x"}, {{"dtype", AttrValue::dtype(DType::f32)}});
  Module m = b.build();
  m.code[0].attrs = {AttrValue::integer(3)};
  auto d = only_error(verify_module(m), "attribute 'dtype' of cast must be a dtype");
  BOOST_TEST(d.attribute == 0);

  m.code[0].attrs.clear();
  only_error(verify_module(m), "cast takes 1 attributes, got 0");

  ModuleBuilder c;
  c.input("x", T(DType::i32, {4}));
  c.output("y");
  c.emit("y", "cvm_clip", {"x"}, {{"precision", AttrValue::integer(8)}});
  m = c.build();
  m.code[0].attrs = {AttrValue::integer(40)};
  d = only_error(verify_module(m), "expected a value in [1, 32]");
  BOOST_TEST(d.attribute == 0);
}

// A module written before an attribute was appended to a set (argmax's select_last_index) stores
// fewer: the missing trailing ones take their defaults; a missing required one is still an error.
BOOST_AUTO_TEST_CASE(missing_trailing_attributes_take_their_defaults) {
  ModuleBuilder b;
  b.input("x", T(DType::f32, {2, 3}));
  b.output("y");
  b.emit("y", "argmax", {"x"}, {{"axis", AttrValue::integer(1)}});
  Module m = b.build();
  BOOST_TEST(m.code[0].attrs.size() == 3u);
  m.code[0].attrs = {AttrValue::integer(1), AttrValue::boolean(true)};
  VerifyResult r = verify_module(m);
  BOOST_REQUIRE(r.errors.empty());
  const auto& a = r.attrs[0].get<arg_reduce_attrs>();
  BOOST_TEST(a.axis == 1);
  BOOST_TEST(a.keepdims);
  BOOST_TEST(!a.select_last_index);
  BOOST_TEST(r.attrs[0].values().size() == 3u);

  m.code[0].attrs.clear();
  only_error(verify_module(m), "argmax takes 3 attributes, got 0");
}

BOOST_AUTO_TEST_CASE(jump_targets) {
  ModuleBuilder b;
  b.label("top").jmp("top");
  Module m = b.build();
  BOOST_TEST(verify_module(m).ok());
  m.code[0].target = 1;  // == size(): the end, a halt
  BOOST_TEST(verify_module(m).ok());
  m.code[0].target = 2;
  only_error(verify_module(m), "jmp target 2 is outside the code (expected 0..1)");
  m.code[0].target = -1;
  only_error(verify_module(m), "jmp target -1 is outside the code");
}

BOOST_AUTO_TEST_CASE(declarations) {
  auto one = [](auto edit, const std::string& needle) {
    Module m = basic().build();
    edit(m);
    BOOST_TEST_CONTEXT(needle) {
      only_error(verify_module(m), needle);
    }
  };
  one([](Module& m) { m.inputs[0].name = m.register_names[0] = "9\nx"; },
      "input name \"9\nx\" is not a valid name");
  one([](Module& m) { m.inputs[0].name = "q"; }, "input 'q' is bound to register 0 named 'x'");
  one([](Module& m) { m.inputs[0].type.precision = 40; }, "precision 40 is outside 1..32 for i32");
  one([](Module& m) { m.inputs[0].type = T(DType::f32, {4}, 3); },
      "precision is only tracked for signed integers");
  one([](Module& m) { m.inputs[0].type.dims = Dims{4, -3}; }, "dimension -3 is negative");
  one([](Module& m) { m.inputs[0].type.dims = Dims{}; }, "rank 0 is outside 1..8");
  {
    // The program then also reads x unassigned: a second, real error.
    Module m = basic().build();
    m.inputs[0].reg = 7;
    VerifyResult r = verify_module(m);
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(r.errors[0].message == "input 'x' uses register 7, but the module has 3 registers");
    BOOST_TEST(r.errors[0].input == 0);
  }
  one([](Module& m) { m.constants[0].type.dims = Dims{5}; },
      "constant 'c' is invalid: its data is i32[4], not i32[5]");
  one([](Module& m) { m.constants[0].type.dims = Dims{Q}; },
      "constant 'c' is invalid: dimension -1 is negative");
  one([](Module& m) { m.constants[0].value = Tensor(); },
      "constant 'c' is invalid: it has no data");
  one([](Module& m) { m.outputs.push_back(m.outputs[0]); }, "output 'y' is declared twice");
  one([](Module& m) { m.outputs[0].type.precision = 99; }, "output 'y' has an invalid type");
  one(
      [](Module& m) {
        m.register_names.push_back("x2");
        m.inputs.push_back(InputDecl{"x2", 1, T(DType::i32, {4})});
        m.inputs.back().name = "c";
        m.register_names.back() = "c";
        m.inputs.back().reg = 1;
      },
      "constant name 'c' is declared twice");
}

BOOST_AUTO_TEST_CASE(diagnostic_locations) {
  Module m = basic().build();
  VerifyDiagnostic d;
  d.instruction = 0;
  BOOST_TEST(diagnostic_location(m, d) == "instruction 0 (line 3)");
  d.instruction = -1;
  d.constant = 0;
  BOOST_TEST(diagnostic_location(m, d) == "constant 'c'");
  d.constant = -1;
  d.output = 0;
  BOOST_TEST(diagnostic_location(m, d) == "output 'y'");
  d.output = -1;
  BOOST_TEST(diagnostic_location(m, d) == "module");
  m.inputs[0].name = "9";
  try {
    verify_or_throw(m);
    BOOST_FAIL("no throw");
  } catch (const Error& e) {
    BOOST_TEST(e.location() == "input '9'");
  }
}

BOOST_AUTO_TEST_CASE(attributes_are_returned_checked) {
  ModuleBuilder b;
  b.input("x", T(DType::i32, {4}));
  b.output("y");
  b.emit("y", "cast", {"x"}, {{"dtype", AttrValue::dtype(DType::f32)}});
  b.emit("z", "sum", {"x"});
  Module m = b.build();
  m.code[1].attrs[0] = AttrValue::integer(0);  // a bare int for `axes`, as a module may store it
  VerifyResult r = verify_module(m);
  BOOST_REQUIRE(r.ok());
  BOOST_REQUIRE_EQUAL(r.attrs.size(), 2u);
  BOOST_TEST((r.attrs[0].get<cast_attrs>().dtype == DType::f32));
  BOOST_TEST(r.attrs[1].get<reduce_attrs>().axes == (std::vector<int64_t>{0}));
  BOOST_TEST((m.code[1].attrs[0] == AttrValue::integer(0)));  // the module is left as it is
}

BOOST_AUTO_TEST_CASE(results_and_their_names) {
  ModuleBuilder b;
  b.input("x", T(DType::f32, {4}));
  b.emit("y", "print", {"x"});
  VerifyDiagnostic d =
      only_error(verify_module(b.build()), "print gives no result; write it without 'y ='");
  BOOST_TEST(d.result == 0);
  Module m = b.build();
  m.register_names.assign(m.register_names.size(), "");  // no debug names
  m.inputs[0].name = "x";
  only_error(verify_module(m), "print gives no result but 1 name is assigned");
  ModuleBuilder c;
  c.input("x", T(DType::f32, {4}));
  c.emit(std::vector<std::string>{}, "relu", {"x"});
  d = only_error(verify_module(c.build()),
                 "relu gives 1 result but 0 names are assigned; write NAME = relu ...");
  BOOST_TEST(d.result == -1);
}

BOOST_AUTO_TEST_CASE(registers_nothing_assigns) {
  // Reported at every read, reachable or not, with the closest assigned name as a hint.
  ModuleBuilder b;
  b.input("count", T(DType::f32, {4}));
  b.output("y");
  b.emit("y", "add", {"count", "cuont"});
  b.halt();
  b.emit("z", "copy", {"cuont"});
  VerifyResult r = verify_module(b.build());
  BOOST_REQUIRE_EQUAL(r.errors.size(), 2u);
  for (const VerifyDiagnostic& d : r.errors)
    BOOST_TEST(d.message == "register 'cuont' is read before it is assigned (nothing assigns it); "
                            "did you mean 'count'?");
  BOOST_TEST(r.errors[0].instruction == 0);
  BOOST_TEST(r.errors[0].operand == 1);
  BOOST_TEST(r.errors[1].instruction == 2);
  // Without register names: by number, no hint.
  Module m = b.build();
  m.register_names.assign(m.register_names.size(), "");
  m.inputs[0].name = "count";
  m.outputs[0].name = "y";
  r = verify_module(m);
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.errors[0].message ==
             "register 2 is read before it is assigned (nothing assigns it)");
}

BOOST_AUTO_TEST_SUITE_END()
