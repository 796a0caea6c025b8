// The meaning of ops changed or added in opsets 18 to 23, on inputs whose results are known by
// hand, so they are checked where ONNX Runtime is not at hand (tests/onnx/opset_suite_test.py
// compares many more cases with ORT 1.30 when it is): Split's num_outputs, Pad's axes and wrap,
// GroupNormalization's scale per group (18) and per channel (21), RMSNormalization,
// RotaryEmbedding's rotation, Attention's uniform and causal weights, Resize's antialias.
#include <boost/test/unit_test.hpp>
#include <cmath>

#include "common/onnx_import.hpp"
#include "common/onnx_model_builder.hpp"
#include "mlvm/mlvm.hpp"

using namespace mlvm;
using mlvm::testing::OnnxModelBuilder;
using namespace mlvm::testing::onnx_types;

namespace {

// Each output of m run on x (dims) as a flat vector.
std::map<std::string, std::vector<float>> run(const OnnxModelBuilder& m, const Dims& dims,
                                              const std::vector<float>& x) {
  Program p = mlvm::testing::import_model(m);
  Session s(p);
  TensorMap inputs{{"x", make_tensor<float>(dims, std::span<const float>(x))}};
  std::map<std::string, std::vector<float>> out;
  for (const auto& [name, t] : s.run(inputs)) out[name] = to_vector<float>(t);
  return out;
}

void check_near(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-5f) {
  BOOST_TEST_REQUIRE(got.size() == want.size());
  for (std::size_t k = 0; k < got.size(); ++k)
    BOOST_TEST(std::abs(got[k] - want[k]) <= tol * (1 + std::abs(want[k])),
               "element " << k << ": " << got[k] << " vs " << want[k]);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(onnx_opset_ops)

BOOST_AUTO_TEST_CASE(split_18_num_outputs_leaves_the_last_piece_smaller) {
  OnnxModelBuilder m(18);
  m.input("x", F32, {7});
  OnnxModelBuilder::attr_int(m.node("Split", {"x"}, {"a", "b", "c"}), "num_outputs", 3);
  for (const char* o : {"a", "b", "c"}) m.output(o, F32, {-1});
  auto out = run(m, {7}, {0, 1, 2, 3, 4, 5, 6});
  BOOST_TEST(out["a"] == std::vector<float>({0, 1, 2}), boost::test_tools::per_element());
  BOOST_TEST(out["b"] == std::vector<float>({3, 4, 5}), boost::test_tools::per_element());
  BOOST_TEST(out["c"] == std::vector<float>({6}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(dynamic_quantize_linear_of_all_zeros_has_scale_1) {
  // ONNX Runtime's rule for max = min: scale 1, not 0 / 0 (which would make every y NaN cast
  // to u8). The outputs go through Cast to f32 for comparison.
  OnnxModelBuilder m(11);
  m.input("x", F32, {3});
  m.node("DynamicQuantizeLinear", {"x"}, {"q", "s", "z"});
  for (const char* o : {"q", "z"})
    OnnxModelBuilder::attr_int(m.node("Cast", {o}, {std::string(o) + "f"}), "to", F32);
  m.output("qf", F32, {3});
  m.output("s", F32, {});
  m.output("zf", F32, {});
  auto zeros = run(m, {3}, {0, 0, 0});
  BOOST_TEST(zeros["qf"] == std::vector<float>({0, 0, 0}), boost::test_tools::per_element());
  BOOST_TEST(zeros["s"] == std::vector<float>({1}), boost::test_tools::per_element());
  BOOST_TEST(zeros["zf"] == std::vector<float>({0}), boost::test_tools::per_element());
  // By hand: scale (1.55 + 1) / 255 = 0.01, zero point 1 / 0.01 = 100, y = x / 0.01 + 100.
  auto some = run(m, {3}, {-1, 0, 1.55f});
  BOOST_TEST(some["qf"] == std::vector<float>({0, 100, 255}), boost::test_tools::per_element());
  BOOST_TEST(some["zf"] == std::vector<float>({100}), boost::test_tools::per_element());
  check_near(some["s"], {0.01f});
}

BOOST_AUTO_TEST_CASE(pad_19_wraps_along_the_listed_axes_only) {
  OnnxModelBuilder m(19);
  m.input("x", F32, {2, 3});
  m.initializer_i64("pads", {2}, {2, 1});
  m.initializer_i64("axes", {1}, {1});
  OnnxModelBuilder::attr_string(m.node("Pad", {"x", "pads", "", "axes"}, {"y"}), "mode", "wrap");
  m.output("y", F32, {2, 6});
  BOOST_TEST(run(m, {2, 3}, {1, 2, 3, 4, 5, 6})["y"] ==
                 std::vector<float>({2, 3, 1, 2, 3, 1, 5, 6, 4, 5, 6, 4}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(group_normalization_scales_per_group_at_18_and_per_channel_at_21) {
  // Two groups of two channels of one value each: (x - mean) / std = -1, 1 in every group.
  const std::vector<float> x = {1, 3, 10, 30};
  for (int opset : {18, 21}) {
    BOOST_TEST_CONTEXT("opset " << opset) {
      OnnxModelBuilder m(opset);
      m.input("x", F32, {1, 4, 1});
      const int64_t n = opset == 18 ? 2 : 4;
      m.initializer("s", {n},
                    opset == 18 ? std::vector<float>{2, 3} : std::vector<float>{1, 2, 3, 4});
      m.initializer("b", {n}, std::vector<float>(std::size_t(n), 0.5f));
      auto& node = m.node("GroupNormalization", {"x", "s", "b"}, {"y"});
      OnnxModelBuilder::attr_int(node, "num_groups", 2);
      OnnxModelBuilder::attr_float(node, "epsilon", 0.0f);
      m.output("y", F32, {1, 4, 1});
      const std::vector<float> want = opset == 18 ? std::vector<float>{-1.5f, 2.5f, -2.5f, 3.5f}
                                                  : std::vector<float>{-0.5f, 2.5f, -2.5f, 4.5f};
      check_near(run(m, {1, 4, 1}, x)["y"], want);
    }
  }
}

BOOST_AUTO_TEST_CASE(rms_normalization_23_divides_by_the_root_mean_square) {
  OnnxModelBuilder m(23);
  m.input("x", F32, {2, 2});
  m.initializer("s", {2}, {1, 10});
  OnnxModelBuilder::attr_float(m.node("RMSNormalization", {"x", "s"}, {"y"}), "epsilon", 0.0f);
  m.output("y", F32, {2, 2});
  const float r1 = std::sqrt(12.5f), r2 = std::sqrt(0.5f);
  check_near(run(m, {2, 2}, {3, 4, 1, -0})["y"], {3 / r1, 40 / r1, 1 / r2, 0});
}

BOOST_AUTO_TEST_CASE(rotary_embedding_23_turns_each_pair_by_its_angle) {
  // One head of 4 features at 2 positions: cos 0 / sin 1 turns (a, b) by 90° into (-b, a);
  // cos 1 / sin 0 leaves it. Pairs are the halves: (x0, x2) and (x1, x3).
  OnnxModelBuilder m(23);
  m.input("x", F32, {1, 1, 2, 4});
  m.initializer("cos", {1, 2, 2}, {0, 0, 1, 1});
  m.initializer("sin", {1, 2, 2}, {1, 1, 0, 0});
  m.node("RotaryEmbedding", {"x", "cos", "sin"}, {"y"});
  m.output("y", F32, {1, 1, 2, 4});
  check_near(run(m, {1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})["y"], {-3, -4, 1, 2, 5, 6, 7, 8});
}

BOOST_AUTO_TEST_CASE(attention_23_weighs_values_uniformly_and_causally) {
  // Q = K = 0: every score is equal, so a row is the mean of the values it may see (causal:
  // values 0..i). V is x, one head, three steps of one feature.
  for (int causal : {0, 1}) {
    BOOST_TEST_CONTEXT("is_causal=" << causal) {
      OnnxModelBuilder m(23);
      m.input("x", F32, {1, 1, 3, 1});
      m.initializer("q", {1, 1, 3, 1}, {0, 0, 0});
      OnnxModelBuilder::attr_int(m.node("Attention", {"q", "q", "x"}, {"y"}), "is_causal", causal);
      m.output("y", F32, {1, 1, 3, 1});
      const std::vector<float> want =
          causal ? std::vector<float>{3, 4.5f, 6} : std::vector<float>{6, 6, 6};
      check_near(run(m, {1, 1, 3, 1}, {3, 6, 9})["y"], want);
    }
  }
}

BOOST_AUTO_TEST_CASE(resize_18_antialias_averages_when_halving) {
  // Linear with antialias, 4 -> 2 (half_pixel): centres 1 and 3, the triangle stretched to
  // half-width 2: weights (1, 3, 3, 1) / 8 around each centre, the edge read for taps beyond.
  OnnxModelBuilder m(18);
  m.input("x", F32, {1, 4});
  m.initializer("scales", {2}, {1, 0.5f});
  auto& node = m.node("Resize", {"x", "", "scales"}, {"y"});
  OnnxModelBuilder::attr_string(node, "mode", "linear");
  OnnxModelBuilder::attr_int(node, "antialias", 1);
  m.output("y", F32, {1, 2});
  // Output 0: taps -1..2 read x[0], x[0], x[1], x[2] with weights 1, 3, 3, 1 (/ 8).
  check_near(run(m, {1, 4}, {8, 16, 24, 32})["y"],
             {(8 + 3 * 8 + 3 * 16 + 24) / 8.0f, (16 + 3 * 24 + 3 * 32 + 32) / 8.0f});
}

BOOST_AUTO_TEST_CASE(resize_18_antialias_refuses_a_bool_input) {
  // The fuzzer's find: a bool x through antialias's filter matrix, built in x's dtype, had
  // four-byte floats written into one-byte elements. The import says what is wrong instead.
  for (const char* mode : {"linear", "cubic"}) {
    OnnxModelBuilder m(18);
    m.input("x", BOOL, {1, 2, 9, 11});
    m.initializer("scales", {2}, {0.4f, 0.6f});
    auto& node = m.node("Resize", {"x", "", "scales"}, {"y"});
    OnnxModelBuilder::attr_string(node, "mode", mode);
    OnnxModelBuilder::attr_int(node, "antialias", 1);
    OnnxModelBuilder::attr_ints(node, "axes", {2, 3});
    m.output("y", BOOL, {});
    const std::string e = mlvm::testing::import_error(m);
    BOOST_TEST(e.find("needs a float input, got bool") != std::string::npos, e);
    BOOST_TEST(e.find("Resize") != std::string::npos, e);
  }
}

BOOST_AUTO_TEST_CASE(affine_grid_refuses_a_grid_too_large_to_build) {
  // The base grid is a constant made at import: 2048 x 2048 points build, 4096 x 2048 are
  // refused (a fuzzer's size of 2^19 points had the import take seconds under ASan).
  for (int64_t h : {2048, 4096}) {
    OnnxModelBuilder m(20);
    m.input("theta", F32, {1, 2, 3});
    m.initializer_i64("size", {4}, {1, 1, h, 2048});
    m.node("AffineGrid", {"theta", "size"}, {"y"});
    m.output("y", F32, {});
    if (h == 2048) {
      BOOST_CHECK_NO_THROW(mlvm::testing::import_model(m));
      continue;
    }
    const std::string e = mlvm::testing::import_error(m);
    BOOST_TEST(e.find("too large to build at import") != std::string::npos, e);
  }
}

BOOST_AUTO_TEST_SUITE_END()
