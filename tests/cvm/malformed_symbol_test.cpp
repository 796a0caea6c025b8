// Broken graph JSON: every class of problem is an mlvm::Error — malformed for JSON that does
// not decode or breaks the format's types and keys, invalid for a well-formed graph that is
// wrong — naming the byte offset, the JSON path or the node (index and name).
#include <boost/test/unit_test.hpp>

#include "common/cvm_cases.hpp"

using namespace mlvm;
using namespace mlvm::cvm_test;

namespace {

// data (node 0) -> conv2d 'conv' (node 2, weight node 1) -> relu 'act' (node 3).
CvmWriter small_net(const std::string& strides = "(1, 1)") {
  CvmWriter w;
  const int d = w.data({1, 1, 3, 3}, 8);
  const int k = w.param("weight", {2, 1, 2, 2}, {1, -1, 2, 0, 3, 1, -2, 1}, 8);
  const int c = w.op("conv2d", "conv", {{d}, {k}},
                     {{"channels", "2"}, {"kernel_size", "(2, 2)"}, {"strides", strides}, {"use_bias", "False"}},
                     {{1, 2, 2, 2}});
  w.head(w.op("relu", "act", {{c}}, {}, {{1, 2, 2, 2}}));
  return w;
}

std::vector<uint8_t> text(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

void expect_symbol(const json& doc, ErrorKind kind, std::initializer_list<std::string> parts, const std::string& where) {
  expect_import_error(CvmWriter::bytes(doc), small_net().params(), kind, parts, where);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cvm_malformed_symbol)

BOOST_AUTO_TEST_CASE(the_fixture_imports) {
  CvmWriter w = small_net();
  BOOST_TEST(import_cvm(w.symbol(), w.params()).module.code.size() == 3u);
}

BOOST_AUTO_TEST_CASE(not_json) {
  const auto params = small_net().params();
  expect_import_error(text("{\"nodes\": [1, 2"), params, ErrorKind::malformed, {"not JSON"}, "symbol byte");
  expect_import_error(text(""), params, ErrorKind::malformed, {"not JSON"}, "symbol byte");
  expect_import_error(text(std::string(100, '[')), params, ErrorKind::malformed, {"nested"}, "symbol byte 32");
  expect_import_error(text("[]"), params, ErrorKind::malformed, {"expected an object"}, "top level");
}

BOOST_AUTO_TEST_CASE(unknown_keys) {
  json doc = small_net().document();
  doc["extra"] = 1;
  expect_symbol(doc, ErrorKind::malformed, {"unknown top-level key 'extra'"}, "extra");
  doc = small_net().document();
  doc["nodes"][2]["color"] = "red";
  expect_symbol(doc, ErrorKind::malformed, {"unknown node key 'color'"}, "nodes[2] 'conv'");
  doc = small_net().document();
  doc["nodes"][2]["attrs"]["speed"] = "1";
  expect_symbol(doc, ErrorKind::malformed, {"unknown node attribute 'speed'"}, "nodes[2] 'conv'.attrs");
  doc = small_net().document();
  doc["attrs"]["layout"] = {"list_str", {}};
  expect_symbol(doc, ErrorKind::malformed, {"unknown graph attribute 'layout'"}, "attrs.layout");
}

BOOST_AUTO_TEST_CASE(wrong_json_types) {
  json doc = small_net().document();
  doc["nodes"] = 5;
  expect_symbol(doc, ErrorKind::malformed, {"expected a list", "number"}, "nodes");
  doc = small_net().document();
  doc["nodes"][3]["inputs"][0][0] = "2";
  expect_symbol(doc, ErrorKind::malformed, {"expected an integer", "string"}, "nodes[3] 'act'.inputs[0][0]");
  doc = small_net().document();
  doc["nodes"][3]["inputs"][0][0] = 2.5;
  expect_symbol(doc, ErrorKind::malformed, {"expected an integer"}, "inputs[0][0]");
  doc = small_net().document();
  doc["nodes"][3]["inputs"][0][0] = -1;
  expect_symbol(doc, ErrorKind::malformed, {">= 0"}, "inputs[0][0]");
  doc = small_net().document();
  doc["heads"][0] = {3};
  expect_symbol(doc, ErrorKind::malformed, {"[node_id, output_index, version]"}, "heads[0]");
  doc = small_net().document();
  doc["attrs"]["shape"][1][2] = {1, "2"};
  expect_symbol(doc, ErrorKind::malformed, {"expected an integer"}, "attrs.shape[1][2][1]");
  doc = small_net().document();
  doc["attrs"]["precision"][0] = "list_str";
  expect_symbol(doc, ErrorKind::malformed, {"expected \"list_int\""}, "attrs.precision[0]");
  doc = small_net().document();
  doc["nodes"][2]["attrs"]["num_inputs"] = 2;
  expect_symbol(doc, ErrorKind::malformed, {"expected a string"}, "attrs.num_inputs");
  doc = small_net().document();
  doc["nodes"][2]["op"] = "tvm_op";
  expect_symbol(doc, ErrorKind::malformed, {"tvm_op"}, "nodes[2] 'conv'.op");
  doc = small_net().document();
  doc["version"] = "cvm_2.0";
  expect_symbol(doc, ErrorKind::malformed, {"cvm_2.0"}, "version");
  doc = small_net().document();
  doc["postprocess"] = "softmax";
  expect_symbol(doc, ErrorKind::malformed, {"softmax"}, "postprocess");
  doc = small_net().document();
  doc.erase("heads");
  expect_symbol(doc, ErrorKind::malformed, {"needs nodes, heads and attrs"}, "top level");
}

BOOST_AUTO_TEST_CASE(op_attrs_strings) {
  json doc = small_net().document();
  doc["attrs"]["op_attrs"][1][2] = "{\"channels\": ";
  expect_symbol(doc, ErrorKind::malformed, {"not JSON"}, "node 2 'conv' op_attrs byte");
  doc["attrs"]["op_attrs"][1][2] = "{\"channels\": 2}";
  expect_symbol(doc, ErrorKind::malformed, {"op_attrs.channels", "expected a string"}, "node 2 'conv'");
  // A value that is a string but not an attribute value names the node and the attribute.
  expect_import_error(small_net("(1, x)").symbol(), small_net().params(), ErrorKind::invalid,
                      {"strides=\"(1, x)\"", "tuple of integers"}, "node 2 'conv'");
  expect_import_error(small_net("(1, 1").symbol(), small_net().params(), ErrorKind::invalid, {"strides"}, "node 2 'conv'");
}

BOOST_AUTO_TEST_CASE(attributes_unknown_missing_or_unsupported) {
  CvmWriter w;
  const int d = w.data({2, 2}, 8);
  w.head(w.op("relu", "r", {{d}}, {{"alpha", "0.1"}}, {{2, 2}}));
  expect_import_error(w.symbol(), w.params(), ErrorKind::invalid, {"unknown attribute alpha"}, "node 1 'r'");
  CvmWriter m;
  const int x = m.data({2, 2}, 8);
  m.head(m.op("cvm_clip", "c", {{x}}, {}, {{2, 2}}));
  expect_import_error(m.symbol(), m.params(), ErrorKind::invalid, {"missing attribute precision"}, "node 1 'c'");
  CvmWriter u;
  const int y = u.data({1, 1, 2, 2}, 8);
  u.head(u.op("upsampling", "up", {{y}}, {{"scale", "2"}, {"method", "BILINEAR"}}, {{1, 1, 4, 4}}));
  expect_import_error(u.symbol(), u.params(), ErrorKind::invalid, {"method", "BILINEAR"}, "node 1 'up'");
  CvmWriter s;
  const int z = s.data({2, 2}, 8);
  s.head(s.op("cvm_clip", "c", {{z}}, {{"precision", "8"}, {"is_sign", "False"}}, {{2, 2}}));
  expect_import_error(s.symbol(), s.params(), ErrorKind::invalid, {"unsigned"}, "node 1 'c'");
  CvmWriter v;
  const int q = v.data({2, 2}, 8);
  v.head(v.op("cvm_clip", "c", {{q}}, {{"precision", "40"}}, {{2, 2}}));
  expect_import_error(v.symbol(), v.params(), ErrorKind::invalid, {"precision"}, "node 1 'c'");
}

BOOST_AUTO_TEST_CASE(unknown_ops_and_input_counts) {
  json doc = small_net().document();
  doc["nodes"][3]["attrs"]["func_name"] = "softmax_3";
  expect_symbol(doc, ErrorKind::invalid, {"unknown op 'softmax'", "softmax_3"}, "node 3 'act'");
  doc = small_net().document();
  doc["nodes"][3]["inputs"].push_back({0, 0, 0});
  expect_symbol(doc, ErrorKind::invalid, {"relu takes 1 inputs", "has 2"}, "node 3 'act'");
  doc = small_net().document();
  doc["nodes"][3]["attrs"]["num_outputs"] = "2";
  expect_symbol(doc, ErrorKind::invalid, {"num_outputs is 2"}, "node 3 'act'");
  // use_bias=True needs the bias.
  doc = small_net().document();
  doc["attrs"]["op_attrs"][1][2] = "{\"channels\": \"2\", \"kernel_size\": \"(2, 2)\"}";
  expect_symbol(doc, ErrorKind::invalid, {"use_bias=True takes 3 inputs"}, "node 2 'conv'");
}

BOOST_AUTO_TEST_CASE(ids_out_of_range) {
  json doc = small_net().document();
  doc["nodes"][3]["inputs"][0][0] = 9;
  expect_symbol(doc, ErrorKind::invalid, {"reads node 9", "4 nodes"}, "node 3 'act'");
  doc = small_net().document();
  doc["nodes"][3]["inputs"][0][1] = 1;
  expect_symbol(doc, ErrorKind::invalid, {"reads output 1 of node 2"}, "node 3 'act'");
  doc = small_net().document();
  doc["heads"][0][0] = 4;
  expect_symbol(doc, ErrorKind::invalid, {"heads[0] names node 4"}, "symbol");
  doc = small_net().document();
  doc["heads"] = json::array();
  expect_symbol(doc, ErrorKind::invalid, {"no output"}, "symbol");
}

BOOST_AUTO_TEST_CASE(cycles) {
  json doc = small_net().document();
  doc["nodes"][2]["inputs"][0] = {3, 0, 0};  // conv reads act, which reads conv
  doc["version"] = "cvm_1.1.0";
  expect_symbol(doc, ErrorKind::invalid, {"cycle", "2 'conv'", "3 'act'"}, "node");
  doc = small_net().document();
  doc["nodes"][3]["inputs"][0] = {3, 0, 0};  // act reads itself
  expect_symbol(doc, ErrorKind::invalid, {"cycle", "node 3 'act' <- 3 'act'"}, "node 3 'act'");
}

BOOST_AUTO_TEST_CASE(a_graph_out_of_order_but_acyclic_imports) {
  // Node order need not be topological: mlvm orders the nodes itself.
  CvmWriter w;
  const int d = w.data({2}, 8);
  w.op("abs", "first", {{2}}, {}, {{2}});  // node 1 reads node 2
  w.op("negative", "second", {{d}}, {}, {{2}});
  w.head(1);
  json doc = w.document("cvm_1.1.0");
  CvmImport r = import_cvm(CvmWriter::bytes(doc), w.params());
  BOOST_TEST(ints_of(run_module(r.module, data_tensor({2}, 8, {3, -4}))[0]) == (std::vector<int64_t>{3, 4}));
}

BOOST_AUTO_TEST_CASE(shapes_that_disagree_with_mlvm) {
  json doc = small_net().document();
  doc["attrs"]["shape"][1][2] = {1, 2, 3, 3};
  expect_symbol(doc, ErrorKind::invalid, {"(1, 2, 3, 3)", "mlvm infers i32[1, 2, 2, 2]"}, "node 2 'conv'");
  doc = small_net().document();
  doc["attrs"]["shape"][1][1] = {2, 1, 3, 3};
  expect_symbol(doc, ErrorKind::invalid, {"parameter 'weight'", "(2, 1, 2, 2)", "(2, 1, 3, 3)"}, "params byte");
  doc = small_net().document();
  doc["attrs"]["shape"][1][0] = {1, 2, 3, 3};  // data with 2 channels: the conv cannot read it
  expect_symbol(doc, ErrorKind::invalid, {"conv2d"}, "node 2 'conv'");
  doc = small_net().document();
  doc["attrs"]["shape"][1][3] = {1, 2, 0, 2};
  expect_symbol(doc, ErrorKind::invalid, {"[1, 2^24]"}, "node 3 'act'");
  doc = small_net().document();
  doc["attrs"]["shape"][1][3] = json::array();
  expect_symbol(doc, ErrorKind::invalid, {"rank 0"}, "node 3 'act'");
}

BOOST_AUTO_TEST_CASE(graph_attributes_that_do_not_fit) {
  json doc = small_net().document();
  doc["attrs"]["precision"][1].erase(0);
  expect_symbol(doc, ErrorKind::invalid, {"attrs.precision has 3 entries; expected 4"}, "symbol");
  doc = small_net().document();
  doc["attrs"]["precision"][1][3] = 33;
  expect_symbol(doc, ErrorKind::invalid, {"precision 33"}, "node 3 'act'");
  doc = small_net().document();
  doc["attrs"]["dltype"][1][0] = "int8";
  expect_symbol(doc, ErrorKind::invalid, {"int8"}, "symbol");
  doc = small_net().document();
  doc["attrs"].erase("dltype");
  expect_symbol(doc, ErrorKind::invalid, {"cvm_1.0.0 graph needs attrs.dltype"}, "symbol");
  doc = small_net().document();
  doc["arg_nodes"] = {0};
  expect_symbol(doc, ErrorKind::invalid, {"arg_nodes is [0]", "[0, 1]"}, "symbol");
}

BOOST_AUTO_TEST_CASE(variables_and_parameters) {
  json doc = small_net().document();
  doc["nodes"][0]["name"] = "input";
  expect_symbol(doc, ErrorKind::invalid, {"no variable named 'data'"}, "symbol");
  doc = small_net().document();
  doc["nodes"][1]["name"] = "data";
  expect_symbol(doc, ErrorKind::invalid, {"second variable named 'data'"}, "node 1");
  CvmWriter w = small_net();
  expect_import_error(w.symbol(), params_bytes({}), ErrorKind::invalid, {"'weight' is not in the params file"},
                      "node 1 'weight'");
  std::vector<ParamArray> extra = w.arrays();
  extra.push_back(ParamArray{"stray", {1}, {0}});
  expect_import_error(w.symbol(), params_bytes(extra), ErrorKind::invalid, {"'stray' is not a parameter"}, "params byte");
  std::vector<ParamArray> twice = w.arrays();
  twice.push_back(twice[0]);
  expect_import_error(w.symbol(), params_bytes(twice), ErrorKind::invalid, {"given twice"}, "params byte");
}

BOOST_AUTO_TEST_SUITE_END()
