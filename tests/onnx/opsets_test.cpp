// Opsets 18 to 23 at the importer's edges (the ops themselves are checked against ONNX Runtime
// by tests/onnx/opset_suite_test.py): a model above opset 23 is refused naming its opset; an
// opset-18+ model is imported without ONNX 1.12's checker (which knows no opset above 17 and
// would refuse every such node) while the structure check still runs; what a node's opset
// means is read (ReduceMean's axes an input from 18, an attribute before); a node that cannot
// be imported is listed with its op and opset, all at once.
#include <boost/test/unit_test.hpp>

#include "common/onnx_import.hpp"
#include "common/onnx_model_builder.hpp"
#include "common/tool_runner.hpp"
#include "mlvm/mlvm.hpp"
#include "tensor/error.hpp"

using namespace mlvm;
using mlvm::testing::OnnxModelBuilder;
using namespace mlvm::testing::onnx_types;
using mlvm::testing::import_error;
using mlvm::testing::import_model;
using mlvm::tool_test::contains;

namespace {


std::vector<float> run_x(const Program& p, const Dims& dims, const std::vector<float>& x) {
  Session s(p);
  TensorMap inputs{{"x", make_tensor<float>(dims, std::span<const float>(x))}};
  return to_vector<float>(s.run(inputs).at("y"));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(onnx_opsets)

BOOST_AUTO_TEST_CASE(an_opset_above_23_is_refused_naming_it) {
  OnnxModelBuilder m(24);
  m.input("x", F32, {2});
  m.node("Relu", {"x"}, {"y"});
  m.output("y", F32, {2});
  const std::string e = import_error(m);
  BOOST_TEST(contains(e, "opset 24"));
  BOOST_TEST(contains(e, "(23)"));
}

BOOST_AUTO_TEST_CASE(reduce_axes_are_an_input_from_opset_18_and_an_attribute_before) {
  for (int opset : {17, 18, 23}) {
    BOOST_TEST_CONTEXT("opset " << opset) {
      OnnxModelBuilder m(opset);
      m.input("x", F32, {2, 3});
      if (opset >= 18) {
        m.initializer_i64("axes", {1}, {1});
        m.node("ReduceMean", {"x", "axes"}, {"y"});
      } else {
        OnnxModelBuilder::attr_ints(m.node("ReduceMean", {"x"}, {"y"}), "axes", {1});
      }
      m.output("y", F32, {2, 1});
      BOOST_TEST(run_x(import_model(m), {2, 3}, {1, 2, 3, 4, 5, 9}) == std::vector<float>({2, 6}),
                 boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_CASE(an_opset_20_gelu_imports_without_the_onnx_1_12_checker) {
  OnnxModelBuilder m(20);
  m.input("x", F32, {3});
  m.node("Gelu", {"x"}, {"y"});
  m.output("y", F32, {3});
  std::vector<float> y = run_x(import_model(m), {3}, {-1, 0, 2});
  BOOST_TEST(std::abs(y[0] - -0.15865525f) < 1e-6f);
  BOOST_TEST(y[1] == 0.0f);
  BOOST_TEST(std::abs(y[2] - 1.9544997f) < 1e-6f);
}

BOOST_AUTO_TEST_CASE(the_structure_check_still_runs_above_opset_17) {
  OnnxModelBuilder m(21);
  m.input("x", F32, {3});
  m.node("Relu", {"nowhere"}, {"y"});
  m.output("y", F32, {3});
  BOOST_TEST(contains(import_error(m, ErrorKind::malformed), "nowhere"));
}

BOOST_AUTO_TEST_CASE(nodes_that_cannot_be_imported_are_listed_with_op_and_opset) {
  OnnxModelBuilder m(19);
  m.input("x", F32, {1, 1, 4, 4});
  m.node("Bernoulli", {"x"}, {"d"}, "coin");
  auto& pad = m.node("Pad", {"x", "pads"}, {"p"}, "odd_pad");
  OnnxModelBuilder::attr_string(pad, "mode", "mirror");
  m.initializer_i64("pads", {8}, {0, 0, 1, 1, 0, 0, 1, 1});
  m.node("Relu", {"x"}, {"y"});
  m.output("y", F32, {1, 1, 4, 4});
  m.output("d", F32, {1, 1, 4, 4});
  m.output("p", F32, {1, 1, 6, 6});
  const std::string e = import_error(m);
  BOOST_TEST(contains(e, "2 nodes cannot be imported"));
  BOOST_TEST(contains(e, "Bernoulli 'coin' (domain 'ai.onnx', opset 19): unsupported op"));
  BOOST_TEST(
      contains(e, "Pad 'odd_pad' (domain 'ai.onnx', opset 19): mode 'mirror' is not supported"));
}

BOOST_AUTO_TEST_CASE(float8_and_int4_are_refused_by_name) {
  // ONNX 1.12 knows neither type (codes 17 and 22); the refusal still names them.
  OnnxModelBuilder m(21);
  m.input("x", F32, {2});
  OnnxModelBuilder::attr_int(m.node("Cast", {"x"}, {"a"}, "to_f8"), "to", 17);
  OnnxModelBuilder::attr_int(m.node("Cast", {"x"}, {"b"}, "to_i4"), "to", 22);
  m.output("a", F32, {2});
  m.output("b", F32, {2});
  const std::string e = import_error(m);
  BOOST_TEST(contains(
      e, "Cast 'to_f8' (domain 'ai.onnx', opset 21): cast to float8e4m3fn is not supported"));
  BOOST_TEST(
      contains(e, "Cast 'to_i4' (domain 'ai.onnx', opset 21): cast to int4 is not supported"));
}

BOOST_AUTO_TEST_SUITE_END()
