// TfIdfVectorizer (onnx/lower_text.cpp) beyond the backend suite's TF cases: IDF and TFIDF
// with weights, a batch, int32 tokens, skips, and the refusals; expected values by hand.
#include <boost/test/unit_test.hpp>

#include "common/onnx_import.hpp"
#include "common/onnx_model_builder.hpp"
#include "mlvm/mlvm.hpp"

using namespace mlvm;
using mlvm::testing::OnnxModelBuilder;
using mlvm::testing::import_error;
using mlvm::testing::import_model;

namespace {

// Pool: unigrams 3, 5 (columns 0, 1); bigrams (3, 5), (5, 3) (columns 2, 3); weights 0.5, 2, 3, 4.
OnnxModelBuilder tfidf(const std::string& mode, int32_t elem, const std::vector<int64_t>& dims, int64_t max_skip) {
  OnnxModelBuilder m(9);
  m.input("x", elem, dims);
  auto& n = m.node("TfIdfVectorizer", {"x"}, {"y"}, "tfidf");
  OnnxModelBuilder::attr_string(n, "mode", mode);
  OnnxModelBuilder::attr_int(n, "min_gram_length", 1);
  OnnxModelBuilder::attr_int(n, "max_gram_length", 2);
  OnnxModelBuilder::attr_int(n, "max_skip_count", max_skip);
  OnnxModelBuilder::attr_ints(n, "pool_int64s", {3, 5, 3, 5, 5, 3});
  OnnxModelBuilder::attr_ints(n, "ngram_counts", {0, 2});
  OnnxModelBuilder::attr_ints(n, "ngram_indexes", {0, 1, 2, 3});
  OnnxModelBuilder::attr_floats(n, "weights", {0.5f, 2.0f, 3.0f, 4.0f});
  m.output("y", onnx::TensorProto::FLOAT, {});
  return m;
}

std::vector<float> run(const OnnxModelBuilder& m, const Tensor& x) {
  Session s(import_model(m));
  return to_vector<float>(s.run({{"x", x}}).at("y"));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(onnx_lower_text)

BOOST_AUTO_TEST_CASE(tfidf_modes_weights_batches_and_skips) {
  // Row 0: 3 5 3 5 -> unigrams 3:2, 5:2; bigrams (3,5):2, (5,3):1.
  // Row 1: 5 7 7 7 -> 5:1; no bigram at skip 0.
  const Tensor x = make_tensor<int64_t>({2, 4}, {3, 5, 3, 5, 5, 7, 7, 7});
  BOOST_TEST(run(tfidf("TF", onnx::TensorProto::INT64, {2, 4}, 0), x) ==
                 (std::vector<float>{2, 2, 2, 1, 0, 1, 0, 0}), boost::test_tools::per_element());
  BOOST_TEST(run(tfidf("IDF", onnx::TensorProto::INT64, {2, 4}, 0), x) ==
                 (std::vector<float>{0.5f, 2, 3, 4, 0, 2, 0, 0}), boost::test_tools::per_element());
  BOOST_TEST(run(tfidf("TFIDF", onnx::TensorProto::INT64, {2, 4}, 0), x) ==
                 (std::vector<float>{1, 4, 6, 4, 0, 2, 0, 0}), boost::test_tools::per_element());
  // int32 tokens, one row, skips up to 2: (3,5) at (0,1), (0,3), (2,3) -> 3; (5,3) at (1,2) -> 1
  // (skip 1 would be (1,3): 5,5; skip 2 (0,3) counted above).
  const Tensor x1 = make_tensor<int32_t>({4}, {3, 5, 3, 5});
  BOOST_TEST(run(tfidf("TF", onnx::TensorProto::INT32, {4}, 2), x1) == (std::vector<float>{2, 2, 3, 1}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(tfidf_refusals_name_the_problem) {
  OnnxModelBuilder f = tfidf("TF", onnx::TensorProto::FLOAT, {4}, 0);
  BOOST_TEST(import_error(f).find("int32 or int64 tokens") != std::string::npos);
  OnnxModelBuilder dyn = tfidf("TF", onnx::TensorProto::INT64, {-1}, 0);
  BOOST_TEST(import_error(dyn).find("row length known at import") != std::string::npos);
  OnnxModelBuilder bad = tfidf("BM25", onnx::TensorProto::INT64, {4}, 0);
  BOOST_TEST(import_error(bad).find("mode BM25") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
