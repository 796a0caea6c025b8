// The verifier's rules, one module breaking each. The ops' type rules are replaced by small
// stand-ins written here (elementwise broadcasting with ops.md §2 precision), so these tests
// check the verifier's own logic whatever state the kernel families are in.
#include "bytecode/verifier.hpp"

#include <algorithm>
#include <boost/test/unit_test.hpp>

#include "bytecode/builder.hpp"
#include "bytecode/verifier_testing.hpp"

using namespace mlvm;

namespace {

TensorType T(DType dt, std::initializer_list<int64_t> d, int p = 0) {
  return tensor_type(dt, d, p);
}
constexpr int64_t Q = kDynamic;

Dims stub_broadcast(const Dims& a, const Dims& b) {
  if (a.size() != b.size()) fail_invalid("stub: rank mismatch");
  Dims out = a;
  for (int k = 0; k < a.size(); ++k) {
    int64_t x = a[k], y = b[k];
    if (x == y)
      out[k] = x;
    else if (x == 1)
      out[k] = y;
    else if (y == 1)
      out[k] = x;
    else if (x == Q)
      out[k] = y;
    else if (y == Q)
      out[k] = x;
    else
      fail_invalid("stub: shape mismatch " + dims_to_string(a) + " vs " + dims_to_string(b));
  }
  return out;
}

TensorType stub_binary_type(InferContext& c) {
  if (c.in[0].dtype != c.in[1].dtype)
    fail_invalid("stub: dtype mismatch " + c.in[0].to_string() + " and " + c.in[1].to_string());
  TensorType t = c.in[0];
  t.dims = stub_broadcast(c.in[0].dims, c.in[1].dims);
  return t;
}

void stub_add(InferContext& c) {
  TensorType t = stub_binary_type(c);
  int pa = c.in[0].precision, pb = c.in[1].precision;
  t.precision = pa && pb ? std::max(pa, pb) + 1 : 0;
  c.out = {t};
}
void stub_mul(InferContext& c) {
  TensorType t = stub_binary_type(c);
  int pa = c.in[0].precision, pb = c.in[1].precision;
  t.precision = pa && pb ? pa + pb : 0;
  c.out = {t};
}
void stub_less(InferContext& c) {
  TensorType t = stub_binary_type(c);
  t.dtype = DType::boolean;
  t.precision = 0;
  c.out = {t};
}
void stub_same(InferContext& c) {
  c.out = {c.in[0]};
}
void stub_cast(InferContext& c) {
  TensorType t = c.in[0];
  t.dtype = c.attrs.dtype(0);
  if (!is_signed_int(t.dtype) || !is_signed_int(c.in[0].dtype)) t.precision = 0;
  c.out = {t};
}
void stub_cvm_clip(InferContext& c) {
  TensorType t = c.in[0];
  t.precision = int(c.attrs.i(0));
  c.out = {t};
}
void stub_always_fails(InferContext&) {
  fail_invalid("stub rule refuses");
}
void stub_optional_bias(InferContext& c) {  // dense-shaped: x, w, optional b
  BOOST_REQUIRE(c.in.size() == 3);
  if (c.in[2].present) BOOST_TEST(c.in[2].dtype == c.in[0].dtype);
  c.out = {c.in[0]};
}
void stub_two_results(InferContext& c) {
  c.out = {T(DType::i32, {1}), c.in[0]};
}

InferFn stub_rules(Opcode op) {
  switch (op) {
    case Opcode::add:
    case Opcode::sub:
      return &stub_add;
    case Opcode::mul:
      return &stub_mul;
    case Opcode::less:
      return &stub_less;
    case Opcode::copy:
    case Opcode::relu:
      return &stub_same;
    case Opcode::cast:
      return &stub_cast;
    case Opcode::cvm_clip:
      return &stub_cvm_clip;
    case Opcode::exp:
      return &stub_always_fails;
    case Opcode::dense:
      return &stub_optional_bias;
    case Opcode::get_valid_count:
      return &stub_two_results;
    default:
      return nullptr;
  }
}

struct StubRules {
  StubRules() { set_infer_override_for_testing(&stub_rules); }
  ~StubRules() { set_infer_override_for_testing(nullptr); }
};

Tensor i32_tensor(std::vector<int32_t> v) {
  Tensor t = Tensor::empty(DType::i32, Dims{int64_t(v.size())});
  std::copy(v.begin(), v.end(), t.data<int32_t>());
  return t;
}

// The only error, with its message containing `needle`.
VerifyDiagnostic only_error(const VerifyResult& r, const std::string& needle) {
  BOOST_REQUIRE_EQUAL(r.errors.size(), 1u);
  BOOST_TEST_INFO("message: " << r.errors[0].message);
  BOOST_TEST(r.errors[0].message.find(needle) != std::string::npos);
  return r.errors[0];
}

// A small valid program: y = add x, c with x declared precision 8.
ModuleBuilder basic() {
  ModuleBuilder b("basic");
  b.input("x", T(DType::i32, {4}, 8));
  b.constant("c", i32_tensor({1, -2, 3, 4}));
  b.output("y", T(DType::i32, {4}));
  b.at_line(3).emit("y", "add", {"x", "c"});
  return b;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(verifier, StubRules)

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
  only_error(verify_module(m), "add takes 2 inputs (a, b), got 1");

  m = basic().build();
  m.code[0].args[1] = kNoRegister;
  auto d = only_error(verify_module(m), "input 'b' of add cannot be omitted");
  BOOST_TEST(d.operand == 1);

  m = basic().build();
  m.code[0].results.push_back(0);
  only_error(verify_module(m), "add has 1 result, got 2");

  ModuleBuilder b;
  b.input("x", T(DType::f32, {2}));
  b.output("y");
  b.emit("y", "concatenate", {"x"});
  m = b.build();
  m.code[0].args.clear();
  only_error(verify_module(m), "concatenate takes at least 1 input");
}

BOOST_AUTO_TEST_CASE(arguments_to_an_op_without_inputs) {
  // Found by the fuzzer: an omitted argument on an op that takes none.
  ModuleBuilder b;
  b.halt();
  Module m = b.build();
  m.code[0].args = {kNoRegister, 5};
  VerifyResult r = verify_module(m);
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.errors[0].message == "halt takes 0 inputs, got 2");
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
  auto d = only_error(verify_module(b.build()), "assigns to constant 'c'; constants are read-only");
  BOOST_TEST(d.instruction == 1);
  BOOST_TEST(d.result == 0);
}

BOOST_AUTO_TEST_CASE(duplicate_results) {
  ModuleBuilder b;
  b.input("x", T(DType::f32, {1, 4, 6}));
  b.output("v");
  b.emit(std::vector<std::string>{"v", "v"}, "get_valid_count", {"x"});
  auto d = only_error(verify_module(b.build()), "assigns 'v' twice");
  BOOST_TEST(d.result == 1);
}

BOOST_AUTO_TEST_CASE(attributes_rechecked) {
  ModuleBuilder b;
  b.input("x", T(DType::i32, {4}));
  b.output("y");
  b.emit("y", "cast", {"x"}, {{"dtype", AttrValue::dtype(DType::f32)}});
  Module m = b.build();
  m.code[0].attrs = Attrs({AttrValue::integer(3)});
  auto d = only_error(verify_module(m), "attribute 'dtype' of cast must be a dtype");
  BOOST_TEST(d.attribute == 0);

  m.code[0].attrs = Attrs(std::vector<AttrValue>{});
  only_error(verify_module(m), "cast takes 1 attributes, got 0");

  ModuleBuilder c;
  c.input("x", T(DType::i32, {4}));
  c.output("y");
  c.emit("y", "cvm_clip", {"x"}, {{"precision", AttrValue::integer(8)}});
  m = c.build();
  m.code[0].attrs = Attrs({AttrValue::integer(40)});
  d = only_error(verify_module(m), "expected a value in [1, 32]");
  BOOST_TEST(d.attribute == 0);
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

BOOST_AUTO_TEST_CASE(read_before_assignment) {
  ModuleBuilder b;
  b.input("x", T(DType::f32, {4}));
  b.output("y");
  b.emit("y", "copy", {"t"});
  auto d = only_error(verify_module(b.build()),
                      "'t' (operand 0 of copy) is read before it is assigned on every path");
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
                 "'t' (operand 0 of copy) is read before it is assigned on every path");
  BOOST_TEST(d.instruction == 2);
}

// if cond: t = a else: t = b; y = copy t
ModuleBuilder diamond(TensorType ta, TensorType tb) {
  ModuleBuilder b;
  b.input("a", ta);
  b.input("b", tb);
  b.input("cond", T(DType::boolean, {1}));
  b.output("y");
  b.br("cond", "other");
  b.emit("t", "copy", {"a"});
  b.jmp("join");
  b.label("other");
  b.emit("t", "copy", {"b"});
  b.label("join");
  b.emit("y", "copy", {"t"});
  return b;
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

  // A program that can never halt has no outputs to check.
  ModuleBuilder d2;
  d2.output("y");
  d2.label("spin").jmp("spin");
  BOOST_TEST(verify_module(d2.build()).ok());
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

BOOST_AUTO_TEST_CASE(declarations) {
  auto one = [](auto edit, const std::string& needle) {
    Module m = basic().build();
    edit(m);
    BOOST_TEST_CONTEXT(needle) {
      only_error(verify_module(m), needle);
    }
  };
  one([](Module& m) { m.inputs[0].name = m.register_names[0] = "9x"; },
      "input name '9x' is not an identifier");
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
  // -128 in i8 needs precision 9: valid data, but no provable precision (ops.md §2).
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

BOOST_AUTO_TEST_CASE(empty_program_returns_inputs) {
  ModuleBuilder b;
  b.input("x", T(DType::u8, {2, Q}));
  b.output("x");
  VerifyResult r = verify_module(b.build());
  BOOST_REQUIRE(r.ok());
  BOOST_TEST(r.output_types[0].to_string() == "u8[2, ?]");
}

BOOST_AUTO_TEST_SUITE_END()
