// Graphs as they come: nodes in any order are sorted as ONNX Runtime sorts them
// (onnx/node_order.hpp), an If branch reading an outer value waits for its producer, a true
// cycle and a value defined nowhere stay errors that say which, a graph output with a type but
// no shape imports (ONNX 1.12's checker alone would refuse it), and half-precision models
// compute in f32: f16/bf16 weights widened exactly at import (onnx/tensor_proto.hpp).
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "common/onnx_import.hpp"
#include "common/onnx_model_builder.hpp"
#include "mlvm/mlvm.hpp"
#include "tensor/error.hpp"

using namespace mlvm;
using mlvm::testing::OnnxModelBuilder;
using namespace mlvm::testing::onnx_types;
using mlvm::testing::import_error;
using mlvm::testing::import_model;

namespace {


std::vector<float> run_x(const Program& p, const std::vector<float>& x, const std::string& out = "y") {
  Session s(p);
  TensorMap inputs{{"x", make_tensor<float>({int64_t(x.size())}, x)}};
  return to_vector<float>(s.run(inputs).at(out));
}


}  // namespace

BOOST_AUTO_TEST_SUITE(onnx_graphs_as_they_come)

BOOST_AUTO_TEST_CASE(nodes_in_reverse_order_are_sorted) {
  // y = Relu(Neg(x) + x * 2): the nodes listed last to first.
  OnnxModelBuilder m(13);
  m.input("x", F32, {4});
  m.initializer("two", {1}, {2.0f});
  m.node("Relu", {"s"}, {"y"}, "relu");
  m.node("Add", {"n", "d"}, {"s"}, "add");
  m.node("Mul", {"x", "two"}, {"d"}, "mul");
  m.node("Neg", {"x"}, {"n"}, "neg");
  m.output("y", F32, {4});
  BOOST_TEST(run_x(import_model(m), {-3, -1, 0.5f, 4}) == std::vector<float>({0, 0, 0.5f, 4}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_branch_reading_an_outer_value_waits_for_it) {
  // If (c) then y = t + 1 else y = t, where t = 3x comes from a node listed after the If.
  auto branch = [](const std::string& name, bool add) {
    onnx::GraphProto g;
    g.set_name(name);
    auto* n = g.add_node();
    n->set_op_type(add ? "Add" : "Identity");
    n->add_input("t");
    if (add) n->add_input("one");
    n->add_output(name + "_out");
    OnnxModelBuilder::value_info(g.add_output(), name + "_out", F32, {2});
    return g;
  };
  OnnxModelBuilder m(13);
  m.input("x", F32, {2});
  m.input("c", BOOL, {});
  m.initializer("one", {1}, {1.0f});
  m.initializer("three", {1}, {3.0f});
  onnx::NodeProto& cond = m.node("If", {"c"}, {"y"}, "if");
  OnnxModelBuilder::attr_graph(cond, "then_branch", branch("then", true));
  OnnxModelBuilder::attr_graph(cond, "else_branch", branch("else", false));
  m.node("Mul", {"x", "three"}, {"t"}, "triple");
  m.output("y", F32, {2});
  Program p = import_model(m);
  Session s(p);
  for (bool c : {true, false}) {
    Tensor ct = Tensor::empty(DType::boolean, Dims{1});  // an ONNX scalar is [1] at the interface
    ct.data<uint8_t>()[0] = c;
    TensorMap out = s.run({{"x", make_tensor<float>({2}, {1.0f, 2.0f})}, {"c", ct}});
    BOOST_TEST(to_vector<float>(out.at("y")) == (c ? std::vector<float>{4, 7} : std::vector<float>{3, 6}),
               boost::test_tools::per_element());
  }
}

BOOST_AUTO_TEST_CASE(a_cycle_and_an_undefined_value_are_named) {
  OnnxModelBuilder cycle(13);
  cycle.input("x", F32, {2});
  cycle.node("Add", {"x", "b"}, {"a"}, "first");
  cycle.node("Add", {"a", "x"}, {"b"}, "second");
  cycle.output("b", F32, {2});
  const std::string c = import_error(cycle, ErrorKind::malformed);
  BOOST_TEST(c.find("node 0 (Add 'first')") != std::string::npos, c);
  BOOST_TEST(c.find("input 'b' is produced by a node that depends on this one (a cycle)") != std::string::npos, c);

  OnnxModelBuilder undefined(13);
  undefined.input("x", F32, {2});
  undefined.node("Add", {"x", "nowhere"}, {"y"}, "add");
  undefined.output("y", F32, {2});
  const std::string u = import_error(undefined, ErrorKind::malformed);
  BOOST_TEST(u.find("input 'nowhere' is not defined") != std::string::npos, u);
}

BOOST_AUTO_TEST_CASE(an_output_with_a_type_and_no_shape_imports) {
  OnnxModelBuilder m(13);
  m.input("x", F32, {3});
  m.node("Abs", {"x"}, {"y"}, "abs");
  auto* out = m.proto().mutable_graph()->add_output();
  out->set_name("y");
  out->mutable_type()->mutable_tensor_type()->set_elem_type(F32);
  BOOST_TEST(run_x(import_model(m), {-1, 2, -3}) == std::vector<float>({1, 2, 3}), boost::test_tools::per_element());
}

// y = x + Cast(w): w held as f16 (raw little-endian halves) or bf16 (in int32_data), the
// values picked so that the f16 ones include a subnormal, -0 and the largest half.
BOOST_AUTO_TEST_CASE(half_weights_feeding_casts_are_widened) {
  const std::vector<uint16_t> halves{0x3c00, 0xc000, 0x0001, 0x8000, 0x7bff};  // 1, -2, 2^-24, -0, 65504
  const std::vector<float> want_half{1.0f, -2.0f, 5.9604645e-08f, -0.0f, 65504.0f};
  const std::vector<uint16_t> bfloats{0x3f80, 0xc040, 0x4049, 0x0000, 0xff80};  // 1, -3, 3.140625, 0, -inf
  const std::vector<float> want_bf{1.0f, -3.0f, 3.140625f, 0.0f, -INFINITY};
  for (bool bf : {false, true}) {
    OnnxModelBuilder m(13);
    m.input("x", F32, {5});
    auto* w = m.proto().mutable_graph()->add_initializer();
    w->set_name("w");
    w->add_dims(5);
    const std::vector<uint16_t>& v = bf ? bfloats : halves;
    if (bf) {
      w->set_data_type(onnx::TensorProto::BFLOAT16);
      for (uint16_t b : v) w->add_int32_data(b);
    } else {
      w->set_data_type(onnx::TensorProto::FLOAT16);
      std::string raw;
      for (uint16_t h : v) raw += {char(h & 0xff), char(h >> 8)};
      w->set_raw_data(raw);
    }
    OnnxModelBuilder::attr_int(m.node("Cast", {"w"}, {"wf"}, "widen"), "to", onnx::TensorProto::FLOAT);
    m.node("Add", {"x", "wf"}, {"y"}, "add");
    m.output("y", F32, {5});
    const std::vector<float> got = run_x(import_model(m), {0, 0, 0, 0, 0});
    const std::vector<float>& want = bf ? want_bf : want_half;
    for (std::size_t k = 0; k < want.size(); ++k) BOOST_TEST(got[k] == want[k], (bf ? "bf16 " : "f16 ") << k);
  }
}

// A model in half precision throughout (f16 input, weights read directly, a Constant node, a
// Cast to f16, an f16 output) computes in f32: its f16 values are f32 at the interface.
BOOST_AUTO_TEST_CASE(a_half_precision_graph_computes_in_f32) {
  constexpr int32_t F16 = onnx::TensorProto::FLOAT16;
  OnnxModelBuilder m(13);
  m.input("x", F16, {3});
  auto* w = m.proto().mutable_graph()->add_initializer();
  w->set_name("w");
  w->add_dims(3);
  w->set_data_type(F16);
  for (uint16_t h : {0x3c00, 0x4200, 0xbc00}) w->add_int32_data(h);  // 1, 3, -1
  auto& k = m.node("Constant", {}, {"k"}, "k");
  auto* kt = k.add_attribute();
  kt->set_name("value");
  kt->set_type(onnx::AttributeProto::TENSOR);
  kt->mutable_t()->set_data_type(F16);
  kt->mutable_t()->set_raw_data(std::string("\x00\x38", 2));  // 0.5, a scalar
  m.node("Mul", {"x", "w"}, {"p"}, "mul");
  m.node("Add", {"p", "k"}, {"s"}, "add");
  OnnxModelBuilder::attr_int(m.node("Cast", {"s"}, {"y"}, "to_half"), "to", F16);
  m.output("y", F16, {3});
  Program p = import_model(m);
  BOOST_TEST(p.inputs()[0].type_string() == "f32[3]");
  BOOST_TEST(p.outputs()[0].type_string() == "f32[3]");
  BOOST_TEST(run_x(p, {2, 0.25f, 4}) == std::vector<float>({2.5f, 1.25f, -3.5f}), boost::test_tools::per_element());
  // Out of range half data is still checked: two bytes per value.
  w->clear_int32_data();
  w->set_raw_data(std::string(5, '\0'));
  const std::string e = import_error(m, ErrorKind::malformed);
  BOOST_TEST(e.find("initializer 'w': raw_data has 5 bytes") != std::string::npos, e);
  // Dims asking for 2^50 halves with two bytes of data (the fuzzer's find: the widening
  // allocated the dims' count before it looked at the data): refused, nothing allocated.
  for (bool raw : {true, false}) {
    w->clear_dims();
    w->add_dims(int64_t(1) << 25);
    w->add_dims(int64_t(1) << 25);
    w->clear_int32_data();
    w->clear_raw_data();
    if (raw) w->set_raw_data(std::string("\x00\x3c", 2));
    else w->add_int32_data(0x3c00);
    const std::string huge = import_error(m, ErrorKind::malformed);
    BOOST_TEST(huge.find(raw ? "raw_data has 2 bytes" : "int32_data holds 1 values") != std::string::npos, huge);
  }
}

BOOST_AUTO_TEST_SUITE_END()
