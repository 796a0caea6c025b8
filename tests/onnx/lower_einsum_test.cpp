// Einsum (onnx/lower_einsum.cpp) with letters repeated within a term (diagonals), against
// results by hand: the diagonal, the trace, a batch of diagonals, a diagonal times a matrix,
// and the refusal of unequal dims.
#include <boost/test/unit_test.hpp>

#include "common/onnx_import.hpp"
#include "common/onnx_model_builder.hpp"
#include "mlvm/mlvm.hpp"

using namespace mlvm;
using mlvm::testing::OnnxModelBuilder;
using mlvm::testing::import_error;
using mlvm::testing::import_model;
using namespace mlvm::testing::onnx_types;

namespace {

OnnxModelBuilder einsum(const std::string& equation, const std::vector<std::vector<int64_t>>& dims) {
  OnnxModelBuilder m(12);
  std::vector<std::string> names;
  for (std::size_t k = 0; k < dims.size(); ++k) {
    names.push_back("x" + std::to_string(k));
    m.input(names.back(), F32, dims[k]);
  }
  OnnxModelBuilder::attr_string(m.node("Einsum", names, {"y"}, "einsum"), "equation", equation);
  m.output("y", F32, {});
  return m;
}

std::vector<float> run(const OnnxModelBuilder& m, const TensorMap& in) {
  Session s(import_model(m));
  return to_vector<float>(s.run(in).at("y"));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(onnx_lower_einsum)

BOOST_AUTO_TEST_CASE(repeated_letters_take_diagonals) {
  const Tensor a = make_tensor<float>({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  BOOST_TEST(run(einsum("ii->i", {{3, 3}}), {{"x0", a}}) == (std::vector<float>{1, 5, 9}), boost::test_tools::per_element());
  BOOST_TEST(run(einsum("ii", {{3, 3}}), {{"x0", a}}) == (std::vector<float>{15}), boost::test_tools::per_element());
  // Two 2x2 matrices: their diagonals.
  const Tensor b = make_tensor<float>({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  BOOST_TEST(run(einsum("bii->bi", {{2, 2, 2}}), {{"x0", b}}) == (std::vector<float>{1, 4, 5, 8}),
             boost::test_tools::per_element());
  // diag(a) scaling the rows of c: y[i][j] = a[i][i] * c[i][j].
  const Tensor c = make_tensor<float>({3, 2}, {1, 1, 2, 2, 3, 3});
  BOOST_TEST(run(einsum("ii,ij->ij", {{3, 3}, {3, 2}}), {{"x0", a}, {"x1", c}}) ==
                 (std::vector<float>{1, 1, 10, 10, 27, 27}), boost::test_tools::per_element());
  // A letter three times: the cube's main diagonal.
  std::vector<float> cube(27, 0.0f);
  for (int i = 0; i < 3; ++i) cube[std::size_t(i * 9 + i * 3 + i)] = float(i + 1);
  BOOST_TEST(run(einsum("iii->i", {{3, 3, 3}}), {{"x0", make_tensor<float>({3, 3, 3}, cube)}}) ==
                 (std::vector<float>{1, 2, 3}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_diagonal_of_unequal_dims_is_refused) {
  BOOST_TEST(import_error(einsum("ii->i", {{2, 3}})).find("needs two equal static dims") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
