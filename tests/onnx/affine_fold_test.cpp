// Mul, Add and Sub by constants folded into the Conv or Gemm before them (onnx/lower_nn_fold.cpp),
// alone and after a BatchNormalization, as PP-OCRv4's LCNetV3 writes them: checked against a
// naive convolution with the steps applied one by one, and against the same model with the
// constants fed as inputs (which nothing folds). Where a constant would broadcast along another
// axis, or a link of the chain has a second reader, the fold stops there.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>

#include "common/onnx_nn_models.hpp"

using namespace mlvm;
using namespace mlvm::testing::onnx_nn;

namespace {

constexpr int64_t kC = 4, kH = 5, kW = 5;

// x (2, 3, 5, 5) through a 3x3 Conv with bias and padding 1 into "t".
void conv(Model& m) {
  m.input("x", {2, 3, kH, kW});
  std::vector<float> w;
  for (int64_t i = 0; i < kC * 3 * 9; ++i) w.push_back(noise(i * 5 + 2));
  m.init("w", {kC, 3, 3, 3}, w);
  m.init("cb", {kC}, {0.1f, -0.2f, 0.3f, 0});
  attr(m.node("Conv", {"x", "w", "cb"}, {"t"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
}

// The Conv's result, per element, and the channel of each.
std::vector<float> conv_result(const Tensor& x) {
  Tensor wt = f32({kC, 3, 3, 3}, [](int64_t i) { return noise(i * 5 + 2); });
  std::vector<float> y = naive_conv(x, wt, 1, 1, 1, 1, kH, kW);
  const float cb[] = {0.1f, -0.2f, 0.3f, 0};
  for (std::size_t i = 0; i < y.size(); ++i) y[i] += cb[i / (kH * kW) % kC];
  return y;
}
int channel(std::size_t i) { return int(i / (kH * kW) % kC); }

// A constant `name` of `dims` as an initializer, or as a graph input whose value is returned
// (appended to `fed`) so that the model cannot fold it.
void constant(Model& m, bool as_input, const std::string& name, const std::vector<int64_t>& dims,
              const std::vector<float>& v, std::vector<Tensor>& fed) {
  if (!as_input) return m.init(name, dims, v);
  m.input(name, dims);
  fed.push_back(f32(dims, [&](int64_t i) { return v[std::size_t(i)]; }));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(onnx_affine_fold)

BOOST_AUTO_TEST_CASE(batchnorm_then_scalar_mul_and_add_fold_into_the_conv) {
  // Conv -> BatchNormalization -> Mul(s, ·) -> Add(·, t) -> Relu: PP-OCRv4's learnable affine
  // block (one-element s and t, s the Mul's first operand).
  const float s = 1.3841065f, t = 0.58607715f;
  const float bs[] = {1, 2, 0.5f, -1}, bb[] = {0, 1, -1, 0.25f}, bm[] = {0.5f, -1, 2, 0}, bv[] = {4, 0.25f, 1, 2};
  Tensor x = f32({2, 3, kH, kW}, noise);
  std::vector<float> want = conv_result(x);
  for (std::size_t i = 0; i < want.size(); ++i) {
    const int c = channel(i);
    const float u = (want[i] - bm[c]) / std::sqrt(bv[c] + 1e-5f) * bs[c] + bb[c];
    want[i] = std::max(0.0f, s * u + t);
  }
  for (bool as_input : {false, true}) {
    Model m(15);
    conv(m);
    std::vector<Tensor> fed{x};
    m.init("bs", {kC}, {bs[0], bs[1], bs[2], bs[3]});
    m.init("bb", {kC}, {bb[0], bb[1], bb[2], bb[3]});
    m.init("bm", {kC}, {bm[0], bm[1], bm[2], bm[3]});
    m.init("bv", {kC}, {bv[0], bv[1], bv[2], bv[3]});
    constant(m, as_input, "s", {1}, {s}, fed);
    constant(m, as_input, "tt", {1}, {t}, fed);
    m.node("BatchNormalization", {"t", "bs", "bb", "bm", "bv"}, {"u"});
    m.node("Mul", {"s", "u"}, {"v"});
    m.node("Add", {"v", "tt"}, {"z"});
    m.node("Relu", {"z"}, {"y"});
    m.output("y", 4);
    Program p = m.program();
    // With s and t fed, the BatchNormalization still folds, and the chain ends there.
    BOOST_TEST(count_ops(p, "mul") == (as_input ? 1 : 0));
    BOOST_TEST(count_ops(p, "add") == (as_input ? 1 : 0));
    if (!as_input) BOOST_TEST(program_module(p).code.size() == 2u);  // conv2d, relu
    check_close(values(run(p, fed)[0]), want);
  }
}

BOOST_AUTO_TEST_CASE(per_channel_constants_and_both_subtractions_fold) {
  // Mul by (C, 1, 1), Sub of a (1, C, 1, 1) constant, then a one-element constant minus y (an
  // ONNX scalar, rank 0, in the Gemm case below).
  const std::vector<float> k = {2, -0.5f, 1.5f, 0.25f}, d = {1, 2, -3, 0.5f};
  const float r = 0.75f;
  Tensor x = f32({2, 3, kH, kW}, [](int64_t i) { return noise(i + 11); });
  std::vector<float> want = conv_result(x);
  for (std::size_t i = 0; i < want.size(); ++i) {
    const std::size_t c = std::size_t(channel(i));
    want[i] = r - (want[i] * k[c] - d[c]);
  }
  for (bool as_input : {false, true}) {
    Model m(15);
    conv(m);
    std::vector<Tensor> fed{x};
    constant(m, as_input, "k", {kC, 1, 1}, k, fed);
    constant(m, as_input, "d", {1, kC, 1, 1}, d, fed);
    constant(m, as_input, "r", {1}, {r}, fed);
    m.node("Mul", {"t", "k"}, {"u"});
    m.node("Sub", {"u", "d"}, {"v"});
    m.node("Sub", {"r", "v"}, {"y"});
    m.output("y", 4);
    Program p = m.program();
    BOOST_TEST(count_ops(p, "mul") == (as_input ? 1 : 0));
    BOOST_TEST(count_ops(p, "sub") == (as_input ? 2 : 0));
    BOOST_TEST(count_ops(p, "conv2d") == 1);
    check_close(values(run(p, fed)[0]), want);
  }
}

BOOST_AUTO_TEST_CASE(a_constant_along_another_axis_is_not_folded) {
  // A (4) constant broadcasts along W, here as wide as the channels: scaling the channels by it
  // would be wrong, so the Mul stays.
  Model m(15);
  m.input("x", {1, 3, 1, kC});
  std::vector<float> w;
  for (int64_t i = 0; i < kC * 3; ++i) w.push_back(noise(i + 3));
  m.init("w", {kC, 3, 1, 1}, w);
  m.init("k", {kC}, {1, 2, 3, 4});
  m.node("Conv", {"x", "w"}, {"t"});
  m.node("Mul", {"t", "k"}, {"y"});
  m.output("y", 4);
  Program p = m.program();
  BOOST_TEST(count_ops(p, "mul") == 1);
  Tensor x = f32({1, 3, 1, kC}, noise);
  Tensor wt = f32({kC, 3, 1, 1}, [](int64_t i) { return noise(i + 3); });
  std::vector<float> want = naive_conv(x, wt, 1, 1, 0, 0, 1, kC);
  for (std::size_t i = 0; i < want.size(); ++i) want[i] *= float(i % kC + 1);
  check_close(values(run(p, {x})[0]), want);
}

BOOST_AUTO_TEST_CASE(a_link_read_twice_ends_the_chain) {
  // Conv -> Mul -> Add: the Mul's result is also a graph output, so the Mul folds (its result
  // is the Conv's) and the Add stays.
  Model m(15);
  conv(m);
  m.init("k", {1}, {-2});
  m.init("a", {1}, {0.5f});
  m.node("Mul", {"t", "k"}, {"u"});
  m.node("Add", {"u", "a"}, {"y"});
  m.output("y", 4);
  m.output("u", 4);
  Program p = m.program();
  BOOST_TEST(count_ops(p, "mul") == 0);
  BOOST_TEST(count_ops(p, "add") == 1);
  Tensor x = f32({2, 3, kH, kW}, noise);
  std::vector<float> u = conv_result(x), y;
  for (float& v : u) v *= -2;
  for (float v : u) y.push_back(v + 0.5f);
  auto out = run(p, {x});
  check_close(values(out[0]), y);
  check_close(values(out[1]), u);
}

BOOST_AUTO_TEST_CASE(bias_add_and_batchnorm_fold_into_a_conv_transpose) {
  // PP-OCRv4 det's head: ConvTranspose (stride 2, no B) -> Add of a (C, 1, 1) bias ->
  // BatchNormalization -> Relu, W (C_in 3, C_out 2, 2, 2): the output channels on W's axis 1.
  // Against the same model with the bias fed (then the BatchNormalization is two steps).
  Tensor x = f32({1, 3, 4, 5}, noise);
  std::vector<Tensor> outs[2];
  for (bool as_input : {false, true}) {
    Model m(15);
    m.input("x", {1, 3, 4, 5});
    std::vector<float> w;
    for (int64_t i = 0; i < 3 * 2 * 2 * 2; ++i) w.push_back(noise(i * 3 + 1));
    m.init("w", {3, 2, 2, 2}, w);
    std::vector<Tensor> fed{x};
    constant(m, as_input, "bias", {2, 1, 1}, {0.5f, -1.5f}, fed);
    m.init("bs", {2}, {2, -0.5f});
    m.init("bb", {2}, {0.25f, 1});
    m.init("bm", {2}, {0.1f, -0.3f});
    m.init("bv", {2}, {1.5f, 0.5f});
    attr(m.node("ConvTranspose", {"x", "w"}, {"t"}), "strides", std::vector<int64_t>{2, 2});
    m.node("Add", {"t", "bias"}, {"u"});
    m.node("BatchNormalization", {"u", "bs", "bb", "bm", "bv"}, {"v"});
    m.node("Relu", {"v"}, {"y"});
    m.output("y", 4);
    Program p = m.program();
    // Stride = kernel: imported as a 1x1 conv2d and depth_to_space (onnx/lower_nn_tiles.cpp).
    BOOST_TEST(count_ops(p, "conv2d") == 1);
    BOOST_TEST(count_ops(p, "depth_to_space") == 1);
    BOOST_TEST(count_ops(p, "add") == (as_input ? 2 : 0));
    BOOST_TEST(count_ops(p, "mul") == (as_input ? 1 : 0));
    outs[as_input] = run(p, fed);
  }
  BOOST_TEST(outs[0][0].shape() == Dims({1, 2, 8, 10}));
  check_close(values(outs[0][0]), values(outs[1][0]));
  // And by hand at output (0, c, 0, 0): the one tap x(0, :, 0, 0) · W(:, c, 0, 0).
  const float bias[] = {0.5f, -1.5f}, bs[] = {2, -0.5f}, bb[] = {0.25f, 1}, bm[] = {0.1f, -0.3f},
              bv[] = {1.5f, 0.5f};
  for (int c = 0; c < 2; ++c) {
    float t = 0;
    for (int i = 0; i < 3; ++i) t += x.data<float>()[i * 20] * noise((i * 2 + c) * 4 * 3 + 1);
    const float want = std::max(0.0f, (t + bias[c] - bm[c]) / std::sqrt(bv[c] + 1e-5f) * bs[c] + bb[c]);
    check_close({values(outs[0][0])[std::size_t(c * 80)]}, {want});
  }
}

BOOST_AUTO_TEST_CASE(mul_and_add_fold_into_a_gemm_per_column) {
  // Gemm (transB) -> Mul by one element -> Add of a (N) row: one dense.
  Model m(15);
  m.input("a", {2, 3});
  m.init("w", {2, 3}, {1, 3, 5, 2, 4, 6});  // B = [[1, 2], [3, 4], [5, 6]]
  m.init("c", {2}, {10, 20});
  m.init("k", {}, {-0.5f});
  m.init("d", {2}, {1, 2});
  attr(m.node("Gemm", {"a", "w", "c"}, {"t"}), "transB", int64_t(1));
  m.node("Mul", {"t", "k"}, {"u"});
  m.node("Add", {"d", "u"}, {"y"});
  m.output("y", 2);
  Program p = m.program();
  BOOST_TEST(count_ops(p, "dense") == 1);
  BOOST_TEST(count_ops(p, "mul") == 0);
  BOOST_TEST(count_ops(p, "add") == 0);
  Tensor a = f32({2, 3}, [](int64_t i) { return float(i) - 2; });
  const float b[3][2] = {{1, 2}, {3, 4}, {5, 6}}, c[] = {10, 20}, d[] = {1, 2};
  std::vector<float> want;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      float t = c[j];
      for (int q = 0; q < 3; ++q) t += a.data<float>()[i * 3 + q] * b[q][j];
      want.push_back(d[j] + t * -0.5f);
    }
  check_close(values(run(p, {a})[0]), want);
}

BOOST_AUTO_TEST_CASE(subnormal_weights_are_made_zero) {
  // W (2, 2, 1, 1) holds 1e-40 (subnormal) and FLT_MIN (the least normal): at x = 1e30 the
  // first would add 1e-10, the second adds 1.18e-8. The Conv, MatMul and Gemm read W with
  // its subnormal made zero; an Add reading the same initializer still sees it.
  const float sub = 1e-40f, least = std::numeric_limits<float>::min();
  BOOST_REQUIRE(sub != 0.0f && sub < least);
  Model m(15);
  m.input("x", {1, 2, 1, 1});
  m.input("a", {1, 2});
  m.init("w", {2, 2, 1, 1}, {sub, 1, least, -sub});
  m.init("w2", {2, 2}, {sub, 1, least, -sub});
  m.init("zero", {1}, {0});
  m.node("Conv", {"x", "w"}, {"y"});
  m.node("MatMul", {"a", "w2"}, {"mm"});
  m.node("Gemm", {"a", "w2"}, {"gm"});
  m.node("Add", {"w2", "zero"}, {"kept"});
  m.output("y", 4);
  m.output("mm", 2);
  m.output("gm", 2);
  m.output("kept", 2);
  Program p = m.program();
  Tensor x = f32({1, 2, 1, 1}, [](int64_t i) { return i == 0 ? 1e30f : 0.0f; });
  Tensor a = f32({1, 2}, [](int64_t i) { return i == 0 ? 1e30f : 0.0f; });
  auto out = run(p, {x, a});
  const std::vector<float> y = values(out[0]), mm = values(out[1]), gm = values(out[2]), kept = values(out[3]);
  BOOST_TEST(y[0] == 0.0f);                 // 1e30 · 0 + 0 · 1
  BOOST_TEST(y[1] == 1e30f * least);        // the least normal weight stays
  BOOST_TEST(mm[0] == 0.0f);                // row (1e30, 0) times column (w2[0][0], w2[1][0])
  BOOST_TEST(mm[1] == 1e30f * 1.0f);
  BOOST_TEST(gm[0] == 0.0f);
  BOOST_TEST(kept[0] == sub);               // the initializer itself is not changed
  BOOST_TEST(std::signbit(values(out[3])[3]));
}

BOOST_AUTO_TEST_SUITE_END()
