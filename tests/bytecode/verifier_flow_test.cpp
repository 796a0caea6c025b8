// The verifier's dataflow: registers assigned before use, types where paths meet, outputs at
// every halt, liveness.
#include <boost/test/unit_test.hpp>

#include "bytecode/verifier_test_util.hpp"

using namespace mlvm;
using namespace mlvm::verifier_test;

BOOST_FIXTURE_TEST_SUITE(verifier_flow, StubRules)

BOOST_AUTO_TEST_CASE(read_before_assignment) {
  ModuleBuilder b;
  b.input("x", T(DType::f32, {4}));
  b.output("y");
  b.emit("y", "copy", {"t"});
  auto d = only_error(verify_module(b.build()),
                      "register 't' is read before it is assigned (nothing assigns it)");
  BOOST_TEST(d.operand == 0);

  // Assigned on one path only.
  ModuleBuilder c;
  c.input("x", T(DType::f32, {4}));
  c.input("cond", T(DType::boolean, {1}));
  c.output("y");
  c.br("cond", "skip");
  c.emit("t", "copy", {"x"});
  c.label("skip");
  c.emit("y", "copy", {"t"});
  d = only_error(verify_module(c.build()),
                 "register 't' is read before it is assigned on some path to here");
  BOOST_TEST(d.instruction == 2);
}

BOOST_AUTO_TEST_CASE(join_makes_differing_dims_dynamic) {
  VerifyResult r = verify_module(diamond(T(DType::f32, {3, 2}), T(DType::f32, {5, 2})).build());
  BOOST_REQUIRE(r.ok());
  BOOST_TEST(r.result_types[4][0].to_string() == "f32[?, 2]");
  BOOST_TEST(r.output_types[0].to_string() == "f32[?, 2]");
}

BOOST_AUTO_TEST_CASE(join_drops_differing_precision) {
  VerifyResult r = verify_module(diamond(T(DType::i32, {3}, 8), T(DType::i32, {3}, 9)).build());
  BOOST_REQUIRE(r.ok());
  BOOST_TEST(r.output_types[0].to_string() == "i32[3]");
  r = verify_module(diamond(T(DType::i32, {3}, 8), T(DType::i32, {3}, 8)).build());
  BOOST_TEST(r.output_types[0].to_string() == "i32[3] precision=8");
}

BOOST_AUTO_TEST_CASE(join_conflicts_are_errors_when_read) {
  VerifyResult r = verify_module(diamond(T(DType::f32, {3}), T(DType::i32, {3})).build());
  auto d = only_error(r,
                      "'t' (operand 0 of copy) is f32[3] on one path and i32[3] on another where "
                      "they meet at instruction 4");
  BOOST_TEST(d.instruction == 4);
  r = verify_module(diamond(T(DType::f32, {3}), T(DType::f32, {3, 1})).build());
  only_error(r, "f32[3] on one path and f32[3, 1] on another");

  // A conflicting register that is never read again is harmless.
  ModuleBuilder b = diamond(T(DType::f32, {3}), T(DType::i32, {3}));
  Module m = b.build();
  m.code.pop_back();
  m.lines.pop_back();
  m.outputs[0].reg = 0;
  m.outputs[0].name = "a";
  BOOST_TEST(verify_module(m).ok());
}

BOOST_AUTO_TEST_CASE(output_conflict) {
  ModuleBuilder b;
  b.input("a", T(DType::f32, {3}));
  b.input("i", T(DType::i32, {3}));
  b.input("cond", T(DType::boolean, {1}));
  b.output("y");
  b.emit("y", "copy", {"a"});
  b.br("cond", "end");
  b.emit("y", "copy", {"i"});
  b.label("end");
  auto d = only_error(verify_module(b.build()),
                      "output 'y' is f32[3] on one path and i32[3] on another");
  BOOST_TEST(d.output == 0);
  BOOST_TEST(d.instruction == -1);
}

BOOST_AUTO_TEST_CASE(infer_errors_and_no_cascade) {
  ModuleBuilder b;
  b.input("a", T(DType::f32, {3}));
  b.input("i", T(DType::i32, {3}));
  b.output("z");
  b.emit("y", "add", {"a", "i"});
  b.emit("z", "copy", {"y"});
  b.emit("z", "relu", {"z"});
  auto d = only_error(verify_module(b.build()), "stub: dtype mismatch f32[3] and i32[3]");
  BOOST_TEST(d.instruction == 0);

  // A rule that throws (like a placeholder) is reported like any other type error.
  ModuleBuilder c;
  c.input("a", T(DType::f32, {3}));
  c.output("y");
  c.emit("y", "exp", {"a"});
  VerifyResult r = verify_module(c.build());
  only_error(r, "stub rule refuses");
  BOOST_TEST(r.result_types[0].empty());
}

BOOST_AUTO_TEST_CASE(independent_errors_are_all_reported) {
  ModuleBuilder b;
  b.input("a", T(DType::f32, {3}));
  b.input("i", T(DType::i32, {3}));
  b.output("y");
  for (int k = 0; k < 10; ++k) b.emit("t" + std::to_string(k), "add", {"a", "i"});
  b.emit("y", "copy", {"a"});
  BOOST_TEST(verify_module(b.build()).errors.size() == 10u);
  VerifyOptions o;
  o.max_errors = 3;
  BOOST_TEST(verify_module(b.build(), o).errors.size() == 3u);
  o.max_errors = 0;  // still at least one: a module must never pass for lack of room
  BOOST_TEST(verify_module(b.build(), o).errors.size() == 1u);
}

BOOST_AUTO_TEST_CASE(loop_reaches_fixed_point) {
  ModuleBuilder b;
  b.constant("start", i32_tensor({0}));
  b.constant("one", i32_tensor({1}));
  b.constant("steps", i32_tensor({16}));
  b.input("v", T(DType::f32, {100}));
  b.output("v");
  b.emit("t", "copy", {"start"});
  b.label("loop");
  b.emit("v", "relu", {"v"});
  b.emit("t", "add", {"t", "one"});
  b.emit("more", "less", {"t", "steps"});
  b.br("more", "loop");
  Module m = b.build();
  VerifyResult r = verify_module(m);
  BOOST_REQUIRE(r.ok());
  // The counter's precision differs around the loop: unknown, and so no overflow error.
  BOOST_TEST(r.arg_types[2][0].to_string() == "i32[1]");
  BOOST_TEST(r.result_types[2][0].to_string() == "i32[1]");
  // Liveness: t, one, steps, v stay live around the loop; `more` dies at the br.
  BOOST_TEST(r.release_after[4] == (std::vector<int32_t>{m.code[3].results[0]}));
  BOOST_TEST(r.release_after[2].empty());
  BOOST_TEST(r.release_after[0] == (std::vector<int32_t>{0}));  // start: read once, before the loop
}

BOOST_AUTO_TEST_CASE(release_after_straight_line) {
  ModuleBuilder b;
  b.input("x", T(DType::f32, {4}));
  b.output("y");
  b.output("z");
  b.emit("t", "copy", {"x"});  // 0: x dies
  b.emit("y", "copy", {"t"});  // 1
  b.emit("u", "copy", {"t"});  // 2: t dies, u is written and never read: dies at once
  b.emit("z", "copy", {"y"});  // 3
  Module m = b.build();
  VerifyResult r = verify_module(m);
  BOOST_REQUIRE(r.ok());
  int32_t x = 0, y = 1, z = 2, t = 3, u = 4;
  BOOST_TEST(m.register_names[std::size_t(t)] == "t");
  BOOST_TEST(r.release_after[0] == (std::vector<int32_t>{x}));
  BOOST_TEST(r.release_after[1].empty());
  BOOST_TEST(r.release_after[2] == (std::vector<int32_t>{t, u}));
  BOOST_TEST(r.release_after[3].empty());  // y and z are outputs
  (void)y;
  (void)z;
}

BOOST_AUTO_TEST_CASE(outputs_assigned_on_every_path) {
  ModuleBuilder b;
  b.input("x", T(DType::f32, {4}));
  b.input("cond", T(DType::boolean, {1}));
  b.output("y");
  b.br("cond", "done");
  b.emit("y", "copy", {"x"});
  b.label("done");
  b.halt();
  auto d = only_error(verify_module(b.build()), "output 'y' is not assigned on every path to halt");
  BOOST_TEST(d.output == 0);

  ModuleBuilder c;
  c.input("x", T(DType::f32, {4}));
  c.output("y");
  c.halt();
  c.emit("y", "copy", {"x"});  // unreachable
  only_error(verify_module(c.build()), "output 'y' is not assigned on every path to halt");

  // A program that can never halt has no paths to check its outputs on (but an output that
  // no instruction assigns is an error even there).
  ModuleBuilder d2;
  d2.input("x", T(DType::f32, {4}));
  d2.output("y");
  d2.label("spin").jmp("spin");
  d2.emit("y", "copy", {"x"});  // unreachable
  BOOST_TEST(verify_module(d2.build()).ok());
  ModuleBuilder d3;
  d3.output("y");
  d3.label("spin").jmp("spin");
  only_error(verify_module(d3.build()), "output 'y' is never assigned; no instruction writes it");
}

BOOST_AUTO_TEST_CASE(output_types_checked) {
  auto with_output = [](TensorType declared, TensorType input) {
    ModuleBuilder b;
    b.input("x", input);
    b.output("y", declared);
    b.emit("y", "copy", {"x"});
    return verify_module(b.build());
  };
  BOOST_TEST(with_output(T(DType::f32, {Q, 10}), T(DType::f32, {8, 10})).ok());
  BOOST_TEST(with_output(T(DType::f32, {8, 10}), T(DType::f32, {Q, 10})).ok());
  only_error(with_output(T(DType::i32, {8, 10}), T(DType::f32, {8, 10})),
             "output 'y' is declared i32[8, 10] but the program computes f32[8, 10]");
  only_error(with_output(T(DType::f32, {8, 10}), T(DType::f32, {8, 11})), "declared f32[8, 10]");
  only_error(with_output(T(DType::f32, {80}), T(DType::f32, {8, 10})), "declared f32[80]");
}

BOOST_AUTO_TEST_CASE(branch_condition_is_one_element) {
  ModuleBuilder b;
  b.input("c", T(DType::boolean, {4}));
  b.label("l").br("c", "l");
  only_error(verify_module(b.build()), "br condition must have exactly one element");
}

BOOST_AUTO_TEST_CASE(unreachable_code_is_not_typed_but_is_checked) {
  ModuleBuilder b;
  b.input("a", T(DType::f32, {3}));
  b.input("i", T(DType::i32, {3}));
  b.halt();
  b.emit("y", "add", {"a", "i"});  // would be a type error, but never runs
  Module m = b.build();
  VerifyResult r = verify_module(m);
  BOOST_TEST(r.ok());
  BOOST_TEST(r.result_types[1].empty());
  m.code[1].args[0] = 77;
  only_error(verify_module(m), "operand 0 is register 77");
}

BOOST_AUTO_TEST_CASE(empty_program_returns_inputs) {
  ModuleBuilder b;
  b.input("x", T(DType::u8, {2, Q}));
  b.output("x");
  VerifyResult r = verify_module(b.build());
  BOOST_REQUIRE(r.ok());
  BOOST_TEST(r.output_types[0].to_string() == "u8[2, ?]");
}

BOOST_AUTO_TEST_CASE(an_output_error_names_the_exit_it_misses) {
  auto one = [](bool at_halt) {
    ModuleBuilder b;
    b.input("x", T(DType::f32, {4}));
    b.input("cond", T(DType::boolean, {1}));
    b.output("y");
    b.at_line(5).br("cond", "skip");
    b.at_line(6).emit("y", "copy", {"x"});
    b.at_line(7).jmp("end");
    b.label("skip");
    if (at_halt) b.at_line(9).halt();
    b.label("end");
    return b.build();
  };
  only_error(verify_module(one(true)),
             "output 'y' is not assigned on every path to halt (not on a path to the halt at "
             "line 9)");
  Module m = one(false);
  only_error(verify_module(m),
             "output 'y' is not assigned on every path to halt (not on a path to the end of the "
             "program)");
  m = one(true);
  m.lines.clear();
  only_error(verify_module(m), "(not on a path to the halt at instruction 3)");
}

BOOST_AUTO_TEST_CASE(an_output_nothing_assigns) {
  ModuleBuilder b;
  b.input("x", T(DType::f32, {4}));
  b.output("y");
  b.emit("z", "copy", {"x"});
  auto d = only_error(verify_module(b.build()),
                      "output 'y' is never assigned; no instruction writes it");
  BOOST_TEST(d.output == 0);
}

BOOST_AUTO_TEST_CASE(every_read_before_assignment_is_reported) {
  ModuleBuilder b;
  b.input("x", T(DType::f32, {4}));
  b.output("y");
  b.emit("a", "copy", {"t"});
  b.emit("y", "add", {"t", "t"});
  b.emit("t", "copy", {"x"});
  VerifyResult r = verify_module(b.build());
  BOOST_REQUIRE_EQUAL(r.errors.size(), 3u);
  BOOST_TEST(r.errors[2].instruction == 1);
  BOOST_TEST(r.errors[2].operand == 1);
  // A structurally broken instruction still reads its arguments.
  ModuleBuilder c;
  c.input("x", T(DType::f32, {4}));
  c.output("y");
  c.emit("y", "add", {"t"});
  c.emit("t", "copy", {"x"});
  r = verify_module(c.build());
  BOOST_REQUIRE_EQUAL(r.errors.size(), 2u);
  BOOST_TEST(r.errors[0].message.find("add needs 2 inputs") != std::string::npos);
  BOOST_TEST(r.errors[1].message == "register 't' is read before it is assigned");
}

BOOST_AUTO_TEST_SUITE_END()
