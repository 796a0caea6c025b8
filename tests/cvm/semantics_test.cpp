// What the CVM format means, against hand-computed values: CVM's flatten, concatenate's and
// max_pool2d's defaults, tuple axes, postprocess, versions, int8 parameters, precisions
// checked at load and at run, and the strict precision proof.
#include <boost/test/unit_test.hpp>

#include "common/cvm_cases.hpp"

using namespace mlvm;
using namespace mlvm::cvm_test;

namespace {

std::vector<int64_t> run_ints(const CvmWriter& w, const std::vector<int64_t>& shape, int precision,
                              const std::vector<int32_t>& values, std::vector<int64_t>* out_shape = nullptr,
                              const std::string& postprocess = "", std::size_t output = 0) {
  CvmImport r = import_cvm(w.symbol("", postprocess), w.params());
  std::vector<Tensor> out = run_module(std::move(r.module), data_tensor(shape, precision, values));
  BOOST_TEST_REQUIRE(out.size() > output);
  BOOST_TEST(out[output].dtype() == DType::i32);
  if (out_shape) *out_shape = std::vector<int64_t>(out[output].shape().begin(), out[output].shape().end());
  return ints_of(out[output]);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cvm_semantics)

BOOST_AUTO_TEST_CASE(flatten_keeps_the_batch_dim) {
  CvmWriter w;
  const int d = w.data({2, 2, 2}, 8);
  w.head(w.op("flatten", "f", {{d}}, {}, {{2, 4}}));
  std::vector<int64_t> shape;
  BOOST_TEST(run_ints(w, {2, 2, 2}, 8, {1, 2, 3, 4, 5, 6, 7, 8}, &shape) == (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  BOOST_TEST(shape == (std::vector<int64_t>{2, 4}));
}

BOOST_AUTO_TEST_CASE(concatenate_defaults_to_axis_1) {
  CvmWriter w;
  const int d = w.data({1, 2}, 8);
  const int b = w.param("b", {1, 1}, {9}, 8);
  w.head(w.op("concatenate", "c", {{d}, {b}}, {}, {{1, 3}}));
  BOOST_TEST(run_ints(w, {1, 2}, 8, {1, 2}) == (std::vector<int64_t>{1, 2, 9}));
}

BOOST_AUTO_TEST_CASE(max_pool2d_defaults_to_stride_1) {
  CvmWriter w;
  const int d = w.data({1, 1, 3, 3}, 8);
  w.head(w.op("max_pool2d", "p", {{d}}, {{"pool_size", "(2, 2)"}}, {{1, 1, 2, 2}}));
  BOOST_TEST(run_ints(w, {1, 1, 3, 3}, 8, {1, 2, 3, 4, 5, 6, 7, 8, 9}) == (std::vector<int64_t>{5, 6, 8, 9}));
}

BOOST_AUTO_TEST_CASE(sum_over_a_tuple_axis_and_a_shift) {
  CvmWriter w;
  const int d = w.data({1, 2, 2}, 8);
  const int s = w.op("sum", "s", {{d}}, {{"axis", "(1, 2)"}}, {{1}}, {10});
  w.head(w.op("cvm_right_shift_7", "r", {{s}}, {{"precision", "8"}, {"shift_bit", "2"}}, {{1}}, {8}));
  // sum 1 + 2 + 3 + 6 = 12; round(12 / 4) = 3.
  BOOST_TEST(run_ints(w, {1, 2, 2}, 8, {1, 2, 3, 6}) == (std::vector<int64_t>{3}));
}

BOOST_AUTO_TEST_CASE(postprocess_argmax_gives_i32_classes) {
  CvmWriter w;
  const int d = w.data({2, 3}, 8);
  w.head(w.op("relu", "r", {{d}}, {}, {{2, 3}}));
  std::vector<int64_t> shape;
  BOOST_TEST(run_ints(w, {2, 3}, 8, {1, 5, 2, 7, 0, 3}, &shape, "argmax") == (std::vector<int64_t>{1, 0}));
  BOOST_TEST(shape == (std::vector<int64_t>{2}));
}

BOOST_AUTO_TEST_CASE(postprocess_detection_joins_rows) {
  CvmWriter w;
  const int d = w.data({2, 3}, 8);
  w.head(w.op("relu", "r", {{d}}, {}, {{2, 3}}));
  w.head(w.op("negative", "n", {{d}}, {}, {{2, 3}}));
  std::vector<int64_t> shape;
  BOOST_TEST(run_ints(w, {2, 3}, 8, {1, -2, 3, -4, 5, -6}, &shape, "detection") ==
             (std::vector<int64_t>{1, 0, 3, -1, 2, -3, 0, 5, 0, 4, -5, 6}));
  BOOST_TEST(shape == (std::vector<int64_t>{2, 6}));
  CvmImport r = import_cvm(w.symbol("", "detection"), w.params());
  BOOST_TEST(r.postprocess == "detection");
  BOOST_TEST(r.outputs.size() == 1u);
}

BOOST_AUTO_TEST_CASE(detection_outputs_with_different_rows_are_invalid) {
  CvmWriter w;
  const int d = w.data({2, 3}, 8);
  w.head(w.op("relu", "r", {{d}}, {}, {{2, 3}}));
  w.head(w.op("sum", "s", {{d}}, {}, {{1}}));
  expect_import_error(w.symbol("", "detection"), w.params(), ErrorKind::invalid, {"rows"}, "");
}

BOOST_AUTO_TEST_CASE(version_1_1_recomputes_row_pointers) {
  CvmWriter w;
  const int d = w.data({2}, 8);
  w.head(w.op("abs", "a", {{d}}, {}, {{2}}));
  json doc = w.document("cvm_1.1.0");
  doc["node_row_ptr"] = {0, 7, 9};
  doc["arg_nodes"] = {1};
  doc["attrs"].erase("dltype");
  CvmImport r = import_cvm(CvmWriter::bytes(doc), w.params());
  BOOST_TEST(r.version == "cvm_1.1.0");
  // cvm_1.0.0 (the default) checks them.
  doc.erase("version");
  doc["attrs"]["dltype"] = {"list_str", {"int32", "int32"}};
  expect_import_error(CvmWriter::bytes(doc), w.params(), ErrorKind::invalid, {"node_row_ptr", "[0, 1, 2]"}, "symbol");
}

BOOST_AUTO_TEST_CASE(int8_parameters_and_repeated_heads) {
  CvmWriter w;
  const int d = w.data({3}, 8);
  const int b = w.param("b", {3}, {-7, 0, 100}, 8, 8);
  const int s = w.op("broadcast_add", "s", {{d}, {b}}, {}, {{3}}, {9});
  w.head(s);
  w.head(s);
  w.head(b);
  CvmImport r = import_cvm(w.symbol(), w.params());
  BOOST_TEST(r.outputs.size() == 3u);
  std::vector<Tensor> out = run_module(std::move(r.module), data_tensor({3}, 8, {1, 2, -3}));
  BOOST_TEST(ints_of(out[0]) == (std::vector<int64_t>{-6, 2, 97}));
  BOOST_TEST(ints_of(out[1]) == (std::vector<int64_t>{-6, 2, 97}));
  BOOST_TEST(ints_of(out[2]) == (std::vector<int64_t>{-7, 0, 100}));
}

BOOST_AUTO_TEST_CASE(parameter_precision_is_checked_at_load) {
  CvmWriter w;
  const int d = w.data({2}, 8);
  const int b = w.param("bias", {2}, {7, -8}, 4);  // precision 4: +-7
  w.head(w.op("elemwise_add", "s", {{d}, {b}}, {}, {{2}}));
  expect_import_error(w.symbol(), w.params(), ErrorKind::invalid, {"parameter 'bias'", "element 1", "-8", "precision 4"},
                      "params byte");
}

BOOST_AUTO_TEST_CASE(input_precision_is_checked_on_every_run) {
  CvmWriter w;
  const int d = w.data({2}, 4);
  w.head(w.op("relu", "r", {{d}}, {}, {{2}}));
  CvmImport r = import_cvm(w.symbol(), w.params());
  BOOST_TEST(r.input_precision == 4);
  BOOST_TEST(r.module.inputs.at(0).type.dtype == DType::i8);
  BOOST_CHECK_THROW(run_module(r.module, data_tensor({2}, 4, {3, 9})), Error);
  BOOST_TEST(ints_of(run_module(r.module, data_tensor({2}, 4, {3, -7}))[0]) == (std::vector<int64_t>{3, 0}));
}

BOOST_AUTO_TEST_CASE(a_program_that_may_overflow_is_refused) {
  CvmWriter w;
  const int d = w.data({2}, 32);
  w.head(w.op("elemwise_mul", "square", {{d}, {d}}, {}, {{2}}));
  expect_import_error(w.symbol(), w.params(), ErrorKind::invalid, {"precision"}, "node 1");
  // Without a declared precision nothing is proven: strict precision refuses the arithmetic.
  CvmWriter u;
  const int x = u.data({2}, -1);
  u.head(u.op("elemwise_add", "twice", {{x}, {x}}, {}, {{2}}));
  expect_import_error(u.symbol(), u.params(), ErrorKind::invalid, {"unknown precision"}, "twice");
}

BOOST_AUTO_TEST_CASE(instructions_record_their_node) {
  CvmWriter w;
  const int d = w.data({2}, 8);
  w.head(w.op("negative", "neg", {{d}}, {}, {{2}}));
  CvmImport r = import_cvm(w.symbol(), w.params());
  BOOST_TEST_REQUIRE(r.module.origins.size() == r.module.code.size());
  BOOST_TEST(r.module.origins.back() == "negative 'neg' (node 1)");
}

BOOST_AUTO_TEST_SUITE_END()
