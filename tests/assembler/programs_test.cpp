// Whole programs through the verifier: one program per op (tests/data/asm/ops/, shared with
// the disassembler's round-trip tests), the example programs, every statement form, the
// Module the assembler builds, and verifier findings mapped back to line:col.
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <set>

#include "asm_test_util.hpp"
#include "ir/op_table.hpp"

using namespace mlvm;
using namespace mlvm::asm_test;
namespace fs = std::filesystem;

namespace {

AssembleResult run_file(const std::string& path, AssembleOptions o = {}) {
  AssembleResult r = assemble_file(path, o);
  BOOST_TEST(r.ok(), path << ":\n" << all_messages(r));
  return r;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(assembler_programs)

BOOST_AUTO_TEST_CASE(every_op_has_a_passing_program) {
  std::set<std::string> seen;
  for (auto& e : fs::directory_iterator(data_dir() + "/ops")) {
    if (e.path().extension() != ".mlasm") continue;
    seen.insert(e.path().stem().string());
    BOOST_TEST_CONTEXT(e.path().filename().string()) {
      AssembleResult r = run_file(e.path().string());
      if (!r.ok()) continue;
      // The file's op appears in the module.
      const OpInfo* op = find_op(e.path().stem().string());
      BOOST_REQUIRE(op);
      bool used = false;
      for (auto& ins : r.module->code) used |= ins.op == op->code;
      BOOST_TEST(used);
      BOOST_TEST(r.verify.result_types.size() == r.module->code.size());
    }
  }
  for (const OpInfo& op : all_ops())
    BOOST_TEST(seen.count(op.name) == 1u, "no program for op " << op.name);
}

BOOST_AUTO_TEST_CASE(language_md_examples) {
  AssembleResult mlp = run_file(data_dir() + "/digits_mlp.mlasm");
  if (mlp.ok()) {
    const Module& m = *mlp.module;
    BOOST_TEST(m.name == "digits_mlp");
    BOOST_TEST(m.inputs.size() == 1u);
    BOOST_TEST(m.constants.size() == 4u);
    BOOST_TEST((m.constants[3].value.mode() == ValueMode::constant));
    BOOST_TEST(m.outputs[0].has_type);
    BOOST_TEST(m.code.size() == 3u);
    BOOST_TEST(mlp.verify.output_types[0].to_string() == "f32[?, 10]");
  }
  AssembleResult lif = run_file(data_dir() + "/lif.mlasm");
  if (lif.ok()) {
    const Module& m = *lif.module;
    BOOST_TEST(m.labels.size() == 1u);
    BOOST_TEST(m.labels[0].second == "loop");
    BOOST_TEST(m.labels[0].first == 3);
    BOOST_TEST((m.code.back().op == Opcode::br));
    BOOST_TEST(m.code.back().target == 3);
    BOOST_TEST(lif.verify.output_types[0].to_string() == "f32[100]");
  }
  run_file(data_dir() + "/statements.mlasm");
}

BOOST_AUTO_TEST_CASE(module_layout) {
  AssembleResult r =
      run(".program p\n"            // 1
          ".output y\n"             // 2
          ".input x : f32[2, 4]\n"  // 3
          ".const w : f32[3, 4] = fill(1)\n"
          ".input k : i32[4] precision=5\n"
          "  h = dense x, w\n"  // 6
          "  h = relu h\n"      // 7
          "top:\n"
          "  y = copy h\n"  // 9
          "  print k\n");   // 10
  BOOST_REQUIRE_MESSAGE(r.ok(), all_messages(r));
  const Module& m = *r.module;
  BOOST_TEST(m.name == "p");
  BOOST_TEST(m.source_name == "t.mlasm");
  // Inputs, then constants, then other names in order of first assignment.
  std::vector<std::string> regs{"x", "k", "w", "h", "y"};
  BOOST_TEST(m.register_names == regs, boost::test_tools::per_element());
  BOOST_TEST(m.inputs[1].type.precision == 5);
  BOOST_TEST(m.constants[0].type.precision == 0);
  BOOST_TEST(m.outputs[0].reg == 4);
  BOOST_TEST(!m.outputs[0].has_type);
  BOOST_REQUIRE(m.code.size() == 4u);
  // The omitted bias is an explicit "no register".
  std::vector<int32_t> args{0, 2, kNoRegister};
  BOOST_TEST(m.code[0].args == args, boost::test_tools::per_element());
  BOOST_TEST(m.code[1].results[0] == 3);
  std::vector<uint32_t> lines{6, 7, 9, 10};
  BOOST_TEST(m.lines == lines, boost::test_tools::per_element());
  BOOST_TEST(m.labels.size() == 1u);
  BOOST_TEST(m.labels[0].first == 2);
  BOOST_TEST(r.verify.result_types[0][0].to_string() == "f32[2, 3]");
}

BOOST_AUTO_TEST_CASE(attributes_are_resolved_with_defaults) {
  AssembleResult r =
      run(".input x : f32[1, 2, 6, 6]\n.input w : f32[4, 2, 3, 3]\n.output y\n"
          "  y = conv2d x, w, groups=1, strides=2\n");
  BOOST_REQUIRE_MESSAGE(r.ok(), all_messages(r));
  BOOST_REQUIRE(r.module->code[0].attrs.size() == 4u);
  const auto& a = r.verify.attrs[0].get<conv2d_attrs>();
  BOOST_TEST(a.padding == (std::vector<int64_t>{0, 0}),
             boost::test_tools::per_element());  // default
  BOOST_TEST(a.strides == (std::vector<int64_t>{2}),
             boost::test_tools::per_element());  // bare int -> 1-tuple
  BOOST_TEST(a.groups == 1);
  BOOST_TEST((r.module->code[0].attrs[1] == AttrValue::int_tuple({2})));  // as the module stores it
}

BOOST_AUTO_TEST_CASE(outputs_may_be_inputs_and_constants) {
  AssembleResult r = run(".input x : f32[2]\n.const c : i8[1] = [3]\n.output x\n.output c\n");
  BOOST_TEST(r.ok(), all_messages(r));
}

BOOST_AUTO_TEST_CASE(assembly_is_deterministic) {
  std::string src = read_text(data_dir() + "/lif.mlasm");
  AssembleResult a = run(src), b = run(src);
  BOOST_REQUIRE(a.ok());
  BOOST_REQUIRE(b.ok());
  BOOST_TEST(a.module->register_names == b.module->register_names,
             boost::test_tools::per_element());
  for (std::size_t k = 0; k < a.module->code.size(); ++k) {
    BOOST_TEST(a.module->code[k].args == b.module->code[k].args, boost::test_tools::per_element());
    BOOST_TEST(a.module->code[k].results == b.module->code[k].results,
               boost::test_tools::per_element());
  }
}

// ---- verifier findings at the right line:col
// ------------------------------------------------------

BOOST_AUTO_TEST_CASE(verifier_errors_point_at_the_source) {
  // Broadcasting mismatch: the instruction's op.
  expect_error(".input a : f32[3, 4]\n.input b : f32[5]\n.output y\n  y = add a, b\n", 4, 7,
               "shape mismatch: f32[3, 4] and f32[5] cannot broadcast (dim 1: 4 vs 5)");
  // A declared output type that disagrees with the inferred one: the .output.
  expect_error(".input a : f32[3]\n.output y : f32[4]\n  y = relu a\n", 2, 9, "f32[4]");
  // Float-only op on ints.
  expect_error(".input a : i32[3]\n.output y\n  y = exp a\n", 3, 7, "");
  // A br condition with more than one element.
  expect_error(".input a : f32[3]\n.output y\nl:\n  y = relu a\n  br a, l\n", 5, 3,
               "br condition must have exactly one element");
  // Precision overflow (docs/ops.md, "Integer precision") and its switches.
  std::string prog = ".input a : i32[4] precision=32\n.output y\n  y = add a, a\n";
  expect_error(prog, 3, 3, "result precision 33 exceeds i32");  // at the result
  AssembleOptions off;
  off.verify.precision_check = false;
  BOOST_TEST(run(prog, off).ok(), all_messages(run(prog, off)));
  AssembleOptions strict;
  strict.verify.strict_precision = true;
  std::string unknown = ".input a : i32[4]\n.output y\n  y = add a, a\n";
  BOOST_TEST(run(unknown).ok(), all_messages(run(unknown)));
  BOOST_TEST(!run(unknown, strict).ok());
}

BOOST_AUTO_TEST_SUITE_END()
