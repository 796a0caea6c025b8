// If, Loop and Scan become branches and loops in bytecode: hand-built models run with several
// trip counts (a graph input, so the loop is not unrolled at import) and compared with
// hand-computed results.
#include <boost/test/unit_test.hpp>

#include "common/onnx_import.hpp"
#include "common/onnx_model_builder.hpp"
#include "mlvm/mlvm.hpp"
#include "tensor/copy.hpp"
#include "tensor/storage.hpp"
#include "vm/program_access.hpp"

using namespace mlvm;
using mlvm::testing::OnnxModelBuilder;
using namespace mlvm::testing::onnx_types;
using mlvm::testing::import_error;
using mlvm::testing::import_model;

namespace {


// Loop(M, cond=true, x): x' = x + 1 (carried), y = 2 x' (scan output); also stops early when
// the body's condition (x'[0] < limit) turns false.
OnnxModelBuilder loop_model() {
  onnx::GraphProto body;
  body.set_name("body");
  OnnxModelBuilder::value_info(body.add_input(), "i", I64, {});
  OnnxModelBuilder::value_info(body.add_input(), "c", BOOL, {});
  OnnxModelBuilder::value_info(body.add_input(), "x", F32, {2});
  auto node = [&](const std::string& op, std::vector<std::string> in, std::string out) {
    auto* n = body.add_node();
    n->set_op_type(op);
    for (auto& s : in) n->add_input(s);
    n->add_output(out);
    return n;
  };
  auto* one = body.add_initializer();
  one->set_name("one");
  one->set_data_type(F32);
  one->add_float_data(1.0f);
  auto* two = body.add_initializer();
  two->set_name("two");
  two->set_data_type(F32);
  two->add_float_data(2.0f);
  auto* idx0 = body.add_initializer();
  idx0->set_name("idx0");
  idx0->set_data_type(I64);
  idx0->add_int64_data(0);
  node("Add", {"x", "one"}, "x_out");
  node("Mul", {"x_out", "two"}, "y");
  node("Gather", {"x_out", "idx0"}, "first");
  node("Less", {"first", "limit"}, "c_out");  // `limit` is an outer-scope value
  OnnxModelBuilder::value_info(body.add_output(), "c_out", BOOL, {});
  OnnxModelBuilder::value_info(body.add_output(), "x_out", F32, {2});
  OnnxModelBuilder::value_info(body.add_output(), "y", F32, {2});

  OnnxModelBuilder m(13);
  m.input("M", I64, {});
  m.input("x0", F32, {2});
  m.input("limit", F32, {});
  auto& loop = m.node("Loop", {"M", "", "x0"}, {"x_final", "ys"}, "loop");
  OnnxModelBuilder::attr_graph(loop, "body", body);
  m.output("x_final", F32, {2});
  m.output("ys", F32, {-1, 2});
  return m;
}

// Scan-8 (batched): per batch element, sum += x[t] (a state) and the running sums stacked (a
// scan output); x read backwards when `reverse`. sequence_lens given as a constant when `lens`.
OnnxModelBuilder scan8_model(bool reverse, const std::vector<int64_t>& lens) {
  onnx::GraphProto body;
  body.set_name("scan_body");
  OnnxModelBuilder::value_info(body.add_input(), "sum_in", F32, {2});
  OnnxModelBuilder::value_info(body.add_input(), "next", F32, {2});
  auto* add = body.add_node();
  add->set_op_type("Add");
  add->add_input("sum_in");
  add->add_input("next");
  add->add_output("sum_out");
  auto* id = body.add_node();
  id->set_op_type("Identity");
  id->add_input("sum_out");
  id->add_output("scan_out");
  OnnxModelBuilder::value_info(body.add_output(), "sum_out", F32, {2});
  OnnxModelBuilder::value_info(body.add_output(), "scan_out", F32, {2});
  OnnxModelBuilder m(8);
  m.input("initial", F32, {2, 2});
  m.input("x", F32, {2, 3, 2});
  if (!lens.empty()) m.initializer_i64("lens", {int64_t(lens.size())}, lens);
  auto& scan = m.node("Scan", {lens.empty() ? "" : "lens", "initial", "x"}, {"y", "z"}, "scan");
  OnnxModelBuilder::attr_graph(scan, "body", body);
  OnnxModelBuilder::attr_int(scan, "num_scan_inputs", 1);
  if (reverse) OnnxModelBuilder::attr_ints(scan, "directions", {1});
  m.output("y", F32, {2, 2});
  m.output("z", F32, {2, 3, 2});
  return m;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(onnx_control_flow)

BOOST_AUTO_TEST_CASE(scan_8_scans_each_batch_element) {
  const std::vector<float> init = {0, 0, 10, 20};
  const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  for (bool reverse : {false, true})
    BOOST_TEST_CONTEXT((reverse ? "backwards" : "forwards")) {
      Session s(import_model(scan8_model(reverse, reverse ? std::vector<int64_t>{3, 3} : std::vector<int64_t>{})));
      TensorMap out = s.run({{"initial", make_tensor<float>({2, 2}, init)}, {"x", make_tensor<float>({2, 3, 2}, x)}});
      // Batch 0 sums (1,2), (3,4), (5,6) from (0,0); batch 1 sums (7,8) .. (11,12) from (10,20).
      const std::vector<float> z = reverse ? std::vector<float>{5, 6, 8, 10, 9, 12, 21, 32, 30, 42, 37, 50}
                                           : std::vector<float>{1, 2, 4, 6, 9, 12, 17, 28, 26, 38, 37, 50};
      BOOST_TEST(to_vector<float>(out.at("y")) == (std::vector<float>{9, 12, 37, 50}), boost::test_tools::per_element());
      BOOST_TEST(out.at("z").shape() == (Dims{2, 3, 2}));
      BOOST_TEST(to_vector<float>(out.at("z")) == z, boost::test_tools::per_element());
    }
  // A sequence shorter than the input is refused at import, saying so.
  const std::string e = import_error(scan8_model(false, {3, 2}));
  BOOST_TEST(e.find("sequence_lens 2 shorter than the sequence (3)") != std::string::npos, e);
}

BOOST_AUTO_TEST_CASE(loop_runs_its_trip_count_and_stacks_scan_outputs) {
  Program p = import_model(loop_model());
  Session s(p);
  for (int64_t trips : {0, 1, 3, 7}) {
    TensorMap out = s.run({{"M", make_tensor<int64_t>({1}, {trips})},
                           {"x0", make_tensor<float>({2}, {10.0f, 20.0f})},
                           {"limit", make_tensor<float>({1}, {1000.0f})}});
    std::vector<float> x = to_vector<float>(out.at("x_final"));
    BOOST_TEST(x[0] == 10.0f + float(trips));
    BOOST_TEST(x[1] == 20.0f + float(trips));
    const Tensor& ys = out.at("ys");
    BOOST_TEST_REQUIRE(ys.rank() == 2);
    BOOST_TEST(ys.dim(0) == trips);
    std::vector<float> y = to_vector<float>(ys);
    for (int64_t k = 0; k < trips; ++k) {
      BOOST_TEST(y[std::size_t(2 * k)] == 2 * (10.0f + float(k + 1)));
      BOOST_TEST(y[std::size_t(2 * k + 1)] == 2 * (20.0f + float(k + 1)));
    }
  }
  // The body's condition stops the loop early: x'[0] < 13 holds after steps 1 and 2 only,
  // so the third step runs and then the loop stops.
  TensorMap out = s.run({{"M", make_tensor<int64_t>({1}, {100})},
                         {"x0", make_tensor<float>({2}, {10.0f, 0.0f})},
                         {"limit", make_tensor<float>({1}, {13.0f})}});
  BOOST_TEST(to_vector<float>(out.at("x_final"))[0] == 13.0f);
  BOOST_TEST(out.at("ys").dim(0) == 3);
}

// A loop-carried value whose shape changes by iteration (a TorchScript greedy decode appends
// a token each step): x' = Concat(x, [i]) grows by one each trip, from x0 of any length.
BOOST_AUTO_TEST_CASE(loop_carried_value_grows_each_iteration) {
  onnx::GraphProto body;
  body.set_name("append");
  OnnxModelBuilder::value_info(body.add_input(), "i", I64, {});
  OnnxModelBuilder::value_info(body.add_input(), "c", BOOL, {});
  OnnxModelBuilder::value_info(body.add_input(), "x", F32, {-1});
  auto* axes = body.add_initializer();
  axes->set_name("axes");
  axes->set_data_type(I64);
  axes->add_dims(1);
  axes->add_int64_data(0);
  auto node = [&](const std::string& op, std::vector<std::string> in, std::string out) {
    auto* n = body.add_node();
    n->set_op_type(op);
    for (auto& name : in) n->add_input(name);
    n->add_output(out);
    return n;
  };
  OnnxModelBuilder::attr_int(*node("Cast", {"i"}, "fi"), "to", F32);
  node("Unsqueeze", {"fi", "axes"}, "u");
  OnnxModelBuilder::attr_int(*node("Concat", {"x", "u"}, "x_out"), "axis", 0);
  node("Identity", {"c"}, "c_out");
  OnnxModelBuilder::value_info(body.add_output(), "c_out", BOOL, {});
  OnnxModelBuilder::value_info(body.add_output(), "x_out", F32, {-1});
  OnnxModelBuilder m(13);
  m.input("M", I64, {});
  m.input("x0", F32, {-1});
  auto& loop = m.node("Loop", {"M", "", "x0"}, {"x_final"}, "loop");
  OnnxModelBuilder::attr_graph(loop, "body", body);
  m.output("x_final", F32, {-1});
  Session s(import_model(m));
  for (int64_t trips : {0, 1, 4}) {
    TensorMap out = s.run({{"M", make_tensor<int64_t>({1}, {trips})}, {"x0", make_tensor<float>({2}, {7, 8})}});
    std::vector<float> want{7, 8};
    for (int64_t i = 0; i < trips; ++i) want.push_back(float(i));
    BOOST_TEST(to_vector<float>(out.at("x_final")) == want, boost::test_tools::per_element());
  }
}

BOOST_AUTO_TEST_CASE(if_takes_the_branch_chosen_at_run_time) {
  auto branch = [](const std::string& name, const std::string& op) {
    onnx::GraphProto g;
    g.set_name(name);
    auto* n = g.add_node();
    n->set_op_type(op);
    n->add_input("a");
    n->add_input("b");
    n->add_output(name + "_out");
    OnnxModelBuilder::value_info(g.add_output(), name + "_out", F32, {3});
    return g;
  };
  OnnxModelBuilder m(13);
  m.input("c", BOOL, {});
  m.input("a", F32, {3});
  m.input("b", F32, {3});
  auto& n = m.node("If", {"c"}, {"y"}, "choose");
  OnnxModelBuilder::attr_graph(n, "then_branch", branch("then", "Add"));
  OnnxModelBuilder::attr_graph(n, "else_branch", branch("else", "Sub"));
  m.output("y", F32, {3});
  Program p = import_model(m);
  Session s(p);
  for (bool c : {true, false}) {
    Tensor ct = Tensor::empty(DType::boolean, Dims{1});
    ct.data<uint8_t>()[0] = c;
    TensorMap out = s.run({{"c", ct}, {"a", make_tensor<float>({3}, {1, 2, 3})},
                           {"b", make_tensor<float>({3}, {10, 20, 30})}});
    std::vector<float> y = to_vector<float>(out.at("y"));
    BOOST_TEST(y[2] == (c ? 33.0f : -27.0f));
  }
}

BOOST_AUTO_TEST_SUITE_END()
