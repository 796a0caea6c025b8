// If as ONNX defines it, where TorchScript exports lean on it: a branch that cannot be built
// for the shapes at hand runs only if taken (a trap in its place), a branch holding an op
// mlvm lacks still refuses the model, and branches of different ranks chosen by a dim the
// inputs leave open make the model be imported per run's input shapes. Expected values are
// computed by hand from the graphs.
#include <boost/test/unit_test.hpp>

#include "common/onnx_import.hpp"
#include "common/onnx_model_builder.hpp"
#include "mlvm/mlvm.hpp"
#include "onnx/importer.hpp"
#include "tensor/copy.hpp"

using namespace mlvm;
using mlvm::testing::OnnxModelBuilder;
using namespace mlvm::testing::onnx_types;
using mlvm::testing::bytes_span;

namespace {


// A one-node branch `op(inputs) -> NAME_out`, its output declared without a shape.
onnx::GraphProto branch(const std::string& name, const std::string& op,
                        const std::vector<std::string>& inputs, const std::vector<int64_t>& axes = {}) {
  onnx::GraphProto g;
  g.set_name(name);
  if (!axes.empty()) {
    auto* t = g.add_initializer();
    t->set_name(name + "_axes");
    t->set_data_type(I64);
    t->add_dims(int64_t(axes.size()));
    for (int64_t a : axes) t->add_int64_data(a);
  }
  auto* n = g.add_node();
  n->set_op_type(op);
  n->set_name(name + "_" + op);
  for (const auto& i : inputs) n->add_input(i);
  if (!axes.empty()) n->add_input(name + "_axes");
  n->add_output(name + "_out");
  auto* o = g.add_output();
  o->set_name(name + "_out");
  o->mutable_type()->mutable_tensor_type()->set_elem_type(F32);
  return g;
}

Tensor flag(bool v) {
  Tensor t = Tensor::empty(DType::boolean, Dims{1});
  t.data<uint8_t>()[0] = v;
  return t;
}

// If(c): then a [2,3] x w [4,5] (cannot be built: 3 != 4), else a + a.
std::string broken_then_model(const std::string& then_op) {
  OnnxModelBuilder m(13);
  m.input("c", BOOL, {});
  m.input("a", F32, {2, 3});
  m.initializer("w", {4, 5}, std::vector<float>(20, 1.0f));
  auto& n = m.node("If", {"c"}, {"y"}, "choose");
  OnnxModelBuilder::attr_graph(n, "then_branch", branch("then", then_op, {"a", "w"}));
  OnnxModelBuilder::attr_graph(n, "else_branch", branch("else", "Add", {"a", "a"}));
  m.output("y", F32, {2, 3});
  return m.bytes();
}

// TorchScript's squeeze(0): If (x.shape[0] == 1) Squeeze(x, 0) else Identity(x), x: f32[?, 4].
std::string squeeze_if_model() {
  OnnxModelBuilder m(13);
  m.input("x", F32, {-1, 4});
  m.initializer_i64("zero", {1}, {0});
  m.initializer_i64("one", {}, {1});
  m.node("Shape", {"x"}, {"shape"});
  m.node("Gather", {"shape", "zero"}, {"dim0"});
  m.node("Equal", {"dim0", "one"}, {"is_one"});
  auto& n = m.node("If", {"is_one"}, {"y"}, "squeeze_0");
  OnnxModelBuilder::attr_graph(n, "then_branch", branch("then", "Squeeze", {"x"}, {0}));
  OnnxModelBuilder::attr_graph(n, "else_branch", branch("else", "Identity", {"x"}));
  auto* o = m.proto().mutable_graph()->add_output();
  o->set_name("y");
  o->mutable_type()->mutable_tensor_type()->set_elem_type(F32);
  return m.bytes();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(if_branches)

BOOST_AUTO_TEST_CASE(a_branch_that_cannot_be_built_runs_only_if_taken) {
  const std::string model = broken_then_model("MatMul");
  Program p = Program::from_onnx_bytes(bytes_span(model));
  Session s(p);
  Tensor a = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  TensorMap out = s.run({{"c", flag(false)}, {"a", a}});
  BOOST_TEST(to_vector<float>(out.at("y")) == (std::vector<float>{2, 4, 6, 8, 10, 12}),
             boost::test_tools::per_element());
  BOOST_CHECK_EXCEPTION(s.run({{"c", flag(true)}, {"a", a}}), Error, [](const Error& e) {
    const std::string all = e.location() + " " + e.what();
    return e.kind() == ErrorKind::trap && all.find("If 'choose' then_branch cannot run") != std::string::npos &&
           all.find("MatMul 'then_MatMul'") != std::string::npos &&
           all.find("the program reached a path it cannot run") != std::string::npos;
  });
  // The session runs on afterwards.
  out = s.run({{"c", flag(false)}, {"a", a}});
  BOOST_TEST(to_vector<float>(out.at("y"))[5] == 12.0f);
}

BOOST_AUTO_TEST_CASE(an_op_mlvm_lacks_still_refuses_the_model) {
  const std::string model = broken_then_model("NoSuchOp");
  BOOST_CHECK_EXCEPTION(Program::from_onnx_bytes(bytes_span(model)), Error, [](const Error& e) {
    return e.kind() == ErrorKind::invalid &&
           std::string(e.what()).find("NoSuchOp 'then_NoSuchOp'") != std::string::npos &&
           std::string(e.what()).find("unsupported op") != std::string::npos;
  });
}

BOOST_AUTO_TEST_CASE(branches_of_different_ranks_are_chosen_per_run) {
  const std::string model = squeeze_if_model();
  // Imported alone, the model cannot be one module: the import says why and what to fix.
  BOOST_CHECK_EXCEPTION(import_onnx(bytes_span(model)), OnnxShapeDependent, [](const OnnxShapeDependent& e) {
    return std::string(e.what()).find("f32[4] on one path, f32[?, 4] on the other") != std::string::npos &&
           e.inputs.size() == 1 && e.outputs.size() == 1;
  });
  Program p = Program::from_onnx_bytes(bytes_span(model));
  BOOST_TEST(p.inputs()[0].type_string() == "f32[?, 4]");
  BOOST_CHECK_EXCEPTION(p.to_bytes(), Error, [](const Error& e) {
    return e.kind() == ErrorKind::usage && std::string(e.what()).find("input shapes") != std::string::npos;
  });
  Session s(p);
  for (int rep = 0; rep < 2; ++rep) {  // the second time from the kept programs
    TensorMap one = s.run({{"x", make_tensor<float>({1, 4}, {1, 2, 3, 4})}});
    BOOST_TEST(one.at("y").shape() == (Dims{4}));
    BOOST_TEST(to_vector<float>(one.at("y")) == (std::vector<float>{1, 2, 3, 4}),
               boost::test_tools::per_element());
    TensorMap three = s.run({{"x", make_tensor<float>({3, 4}, std::vector<float>(12, 7.0f))}});
    BOOST_TEST(three.at("y").shape() == (Dims{3, 4}));
  }
  // A wrong input is refused before any import.
  BOOST_CHECK_EXCEPTION(s.run({{"x", make_tensor<float>({3, 5}, std::vector<float>(15, 0.0f))}}), Error,
                        [](const Error& e) {
                          return e.kind() == ErrorKind::usage &&
                                 std::string(e.what()).find("input x is declared f32[?, 4]") != std::string::npos;
                        });
  // Fixing the dim makes it one module again.
  LoadOptions fixed;
  fixed.input_shapes["x"] = {1, 4};
  Program one = Program::from_onnx_bytes(bytes_span(model), fixed);
  BOOST_TEST(one.outputs()[0].type_string() == "f32[4]");
  BOOST_TEST(!one.to_bytes().empty());
}

BOOST_AUTO_TEST_SUITE_END()
