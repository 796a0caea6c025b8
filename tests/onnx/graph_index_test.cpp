// onnx/graph_index.hpp: the answers the affine fold asks of a graph, against graphs built by
// hand where each answer is known: initializers before Constant nodes, the first Constant of a
// name, writers before a node, and readers counted over nested graphs and the graph's outputs.
#include <boost/test/unit_test.hpp>

#include <onnx/onnx_pb.h>

#include "onnx/graph_index.hpp"

using mlvm::GraphIndex;

namespace {

onnx::NodeProto* add_node(onnx::GraphProto& g, const std::string& op, std::vector<std::string> in,
                          std::vector<std::string> out) {
  onnx::NodeProto* n = g.add_node();
  n->set_op_type(op);
  for (const auto& s : in) n->add_input(s);
  for (const auto& s : out) n->add_output(s);
  return n;
}

onnx::TensorProto* constant_value(onnx::NodeProto& n) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  return a->mutable_t();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(graph_index)

BOOST_AUTO_TEST_CASE(constants_initializers_first_then_the_first_constant_node) {
  onnx::GraphProto g;
  g.add_initializer()->set_name("w");
  onnx::NodeProto* shadow = add_node(g, "Constant", {}, {"w"});  // an initializer of the name wins
  constant_value(*shadow)->set_name("shadow");
  onnx::NodeProto* c1 = add_node(g, "Constant", {}, {"k"});
  constant_value(*c1)->set_name("first");
  onnx::NodeProto* c2 = add_node(g, "Constant", {}, {"k"});
  constant_value(*c2)->set_name("second");
  onnx::NodeProto* f = add_node(g, "Constant", {}, {"f"});  // a float attribute, not a tensor
  f->add_attribute()->set_name("value_float");
  onnx::NodeProto* custom = add_node(g, "Constant", {}, {"q"});  // another domain's Constant
  custom->set_domain("com.example");
  constant_value(*custom);
  const GraphIndex index(g);
  BOOST_TEST(index.constant("w") == &g.initializer(0));
  BOOST_REQUIRE(index.constant("k") != nullptr);
  BOOST_TEST(index.constant("k")->name() == "first");
  BOOST_TEST(index.constant("f") == nullptr);
  BOOST_TEST(index.constant("q") == nullptr);
  BOOST_TEST(index.constant("") == nullptr);
  BOOST_TEST(index.constant("absent") == nullptr);
}

BOOST_AUTO_TEST_CASE(writers_before_a_node) {
  onnx::GraphProto g;
  add_node(g, "Relu", {"x"}, {"a"});     // 0
  add_node(g, "Relu", {"a"}, {"b"});     // 1
  add_node(g, "Relu", {"b"}, {"a"});     // 2: writes a again (malformed, but asked)
  add_node(g, "Relu", {"a"}, {"c"});     // 3
  const GraphIndex index(g);
  BOOST_TEST(index.writer_before("a", g.node(1)) == &g.node(0));
  BOOST_TEST(index.writer_before("a", g.node(3)) == &g.node(2));
  BOOST_TEST(index.writer_before("a", g.node(0)) == nullptr);  // nothing before the first
  BOOST_TEST(index.writer_before("c", g.node(3)) == nullptr);  // written by the node itself
  BOOST_TEST(index.writer_before("x", g.node(3)) == nullptr);  // a graph input
  onnx::NodeProto outside;
  BOOST_TEST(index.writer_before("a", outside) == nullptr);    // not a node of the graph
}

BOOST_AUTO_TEST_CASE(only_reader_counts_nested_graphs_and_outputs) {
  onnx::GraphProto g;
  add_node(g, "Relu", {"x"}, {"a"});              // 0
  add_node(g, "Relu", {"a"}, {"b"});              // 1: a's only reader
  add_node(g, "Mul", {"b", "b"}, {"c"});          // 2: reads b twice
  onnx::NodeProto* iff = add_node(g, "If", {"cond"}, {"d"});  // 3: its branch reads c
  onnx::AttributeProto* branch = iff->add_attribute();
  branch->set_name("then_branch");
  branch->set_type(onnx::AttributeProto::GRAPH);
  onnx::NodeProto* inner = branch->mutable_g()->add_node();
  inner->set_op_type("Relu");
  inner->add_input("c");
  inner->add_output("e");
  add_node(g, "Relu", {"d"}, {"f"});              // 4: d's reader, and f is an output too
  g.add_output()->set_name("f");
  add_node(g, "Relu", {"f"}, {"h"});              // 5
  const GraphIndex index(g);
  BOOST_TEST(index.only_reader("a") == &g.node(1));
  BOOST_TEST(index.only_reader("b") == nullptr);  // two reads by one node
  BOOST_TEST(index.only_reader("c") == nullptr);  // read only inside the branch
  BOOST_TEST(index.only_reader("d") == &g.node(4));
  BOOST_TEST(index.only_reader("f") == nullptr);  // node 5 and the graph's output
  BOOST_TEST(index.only_reader("h") == nullptr);  // nobody
}

BOOST_AUTO_TEST_SUITE_END()
