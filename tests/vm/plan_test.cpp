// White-box checks of the execution plan (vm/plan.hpp): register lists in the shared pool,
// which arguments die and may donate, interned result types, and that a plan without static
// types still runs.
#include <boost/test/unit_test.hpp>

#include "vm/compiled.hpp"
#include "vm/interpreter.hpp"
#include "vm/vm_test_util.hpp"

using namespace mlvm;
using namespace mlvm::test;

namespace {

std::vector<int32_t> list(const int32_t* p, uint32_t n) {
  return std::vector<int32_t>(p, p + n);
}

Module module_from(std::string_view source) {
  return program_module(Program::assemble(source, "plan.mlasm"));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(vm_plan)

BOOST_AUTO_TEST_CASE(register_lists_dying_arguments_and_donation) {
  const Module m = module_from(R"(.input x : f32[3]
.const c : f32[3] = [1, 2, 3]
.output y : f32[3]
    a = add x, c
    b = mul a, a
    d = sub b, c
    y = maximum d, x
)");
  // x lives until the last instruction; c until `sub`; a dies at `mul a, a` but is read
  // twice there, so it cannot donate; b dies at `sub` and may donate.
  const VerifyResult v = verify_module(m);
  BOOST_REQUIRE(v.ok());
  const ExecPlan plan = build_plan(m, v);
  BOOST_REQUIRE_EQUAL(plan.code.size(), m.code.size());
  const int32_t* pool = plan.regs.data();
  for (std::size_t pc = 0; pc < m.code.size(); ++pc) {
    const PlannedInstruction& p = plan.code[pc];
    BOOST_TEST_CONTEXT("instruction " << pc) {
      BOOST_TEST(list(p.args(pool), p.num_args) == m.code[pc].args);
      BOOST_TEST(list(p.results(pool), p.num_results) == m.code[pc].results);
      // The last two write over a dying argument: small steps (vm/small_steps.cpp).
      BOOST_TEST((p.kind == (pc >= 2 ? StepKind::small : StepKind::kernel)));
      BOOST_TEST(p.line == pc + 4);
    }
  }
  const auto& code = m.code;
  BOOST_TEST(list(plan.code[0].dying(pool), plan.code[0].num_dying).empty());
  BOOST_TEST(plan.code[0].may_donate == 0u);
  BOOST_TEST(list(plan.code[1].dying(pool), plan.code[1].num_dying) ==
             std::vector<int32_t>{code[1].args[0]});
  BOOST_TEST(plan.code[1].may_donate == 0u);
  // The constant's register is released after its last use too (a constant's storage is
  // read-only, so at run time it never donates).
  BOOST_TEST(list(plan.code[2].dying(pool), plan.code[2].num_dying) ==
             (std::vector<int32_t>{code[2].args[0], code[2].args[1]}));
  BOOST_TEST(plan.code[2].may_donate == 3u);
  // The last instruction's arguments both die (d and x); either may donate.
  BOOST_TEST(plan.code[3].num_dying == 2u);
  BOOST_TEST(plan.code[3].may_donate == 3u);
  BOOST_TEST(plan.max_args == 2);
  BOOST_TEST(plan.max_results == 1);
  // Four results of one type: one entry, without precision.
  BOOST_REQUIRE_EQUAL(plan.types.size(), 1u);
  BOOST_TEST(plan.types[0].to_string() == "f32[3]");
  for (const PlannedInstruction& p : plan.code) BOOST_TEST(p.result_types(pool)[0] == 0);
}

BOOST_AUTO_TEST_CASE(result_types_are_interned_without_precision) {
  const Module m = module_from(R"(.input x : i32[2] precision=4
.input z : i32[?] precision=4
.output y : i32[2]
.output w : i32[?]
    a = add x, x
    y = mul a, a
    w = negative z
)");
  const VerifyResult v = verify_module(m);
  BOOST_REQUIRE(v.ok());
  const ExecPlan plan = build_plan(m, v);
  const int32_t* pool = plan.regs.data();
  // i32[2] at precision 5 and 10 is one type; i32[?] another.
  BOOST_REQUIRE_EQUAL(plan.types.size(), 2u);
  const int32_t t0 = plan.code[0].result_types(pool)[0];
  BOOST_TEST(plan.code[1].result_types(pool)[0] == t0);
  BOOST_TEST(plan.types[std::size_t(t0)].to_string() == "i32[2]");
  const int32_t t2 = plan.code[2].result_types(pool)[0];
  BOOST_TEST(t2 != t0);
  BOOST_TEST(plan.types[std::size_t(t2)].to_string() == "i32[?]");
}

BOOST_AUTO_TEST_CASE(a_plan_without_static_types_still_runs) {
  const Module m = module_from(R"(.input x : f32[2]
.output y : f32[2]
    a = abs x
    y = add a, x
)");
  VerifyResult v = verify_module(m);
  BOOST_REQUIRE(v.ok());
  v.result_types.clear();  // the plan then checks only that every result is defined
  auto program = CompiledProgram::from_verified(m, v);
  const int32_t* pool = program->plan.regs.data();
  for (const PlannedInstruction& p : program->plan.code)
    BOOST_TEST(p.result_types(pool)[0] == kNoType);
  Interpreter interp(program);
  ExecEnv env;
  Tensor x = Tensor::empty(DType::f32, Dims{2});
  x.data<float>()[0] = -1.5f;
  x.data<float>()[1] = 2;
  std::vector<Tensor> out = interp.run(std::span<const Tensor>(&x, 1), env, RunConfig{});
  BOOST_REQUIRE_EQUAL(out.size(), 1u);
  BOOST_TEST(out[0].data<float>()[0] == 0.0f);
  BOOST_TEST(out[0].data<float>()[1] == 4.0f);
}

BOOST_AUTO_TEST_SUITE_END()
