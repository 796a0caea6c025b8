// A ConvTranspose whose stride equals its square kernel imported as a 1x1 conv2d and
// depth_to_space (onnx/lower_nn_tiles.cpp): against the definition summed by hand, and bit for
// bit against the same model with W fed as an input (which keeps conv_transpose2d), with and
// without a bias, 2x2 and 3x3 kernels, and after a fold of the BatchNormalization reading it.
// Any other geometry (padding, output padding, a stride unlike the kernel, two groups) keeps
// conv_transpose2d.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstring>

#include "common/onnx_nn_models.hpp"

using namespace mlvm;
using namespace mlvm::testing::onnx_nn;

namespace {

constexpr int64_t kTileCin = 5, kTileCout = 3, kTileH = 4, kTileW = 6;

// y[n, o, h·k + i, w·k + j] = b[o] + sum_c x[n, c, h, w] · W[c, o, i, j].
std::vector<float> tiles_by_hand(const Tensor& x, const Tensor& w, const std::vector<float>& b, int64_t k) {
  const float* xv = x.data<float>();
  const float* wv = w.data<float>();
  const int64_t n = x.dim(0), oh = kTileH * k, ow = kTileW * k;
  std::vector<float> y(std::size_t(n * kTileCout * oh * ow));
  for (int64_t in = 0; in < n; ++in)
    for (int64_t o = 0; o < kTileCout; ++o)
      for (int64_t r = 0; r < oh; ++r)
        for (int64_t q = 0; q < ow; ++q) {
          double s = b.empty() ? 0 : b[std::size_t(o)];
          for (int64_t c = 0; c < kTileCin; ++c)
            s += double(xv[((in * kTileCin + c) * kTileH + r / k) * kTileW + q / k]) *
                 double(wv[((c * kTileCout + o) * k + r % k) * k + q % k]);
          y[std::size_t(((in * kTileCout + o) * oh + r) * ow + q)] = float(s);
        }
  return y;
}

struct TilesCase {
  int64_t k;
  bool bias;
  bool w_as_input;
};

Program tiles_model(const TilesCase& t, const std::vector<float>& w, const std::vector<float>& b) {
  Model m(17);
  m.input("x", {2, kTileCin, kTileH, kTileW});
  if (t.w_as_input) m.input("w", {kTileCin, kTileCout, t.k, t.k});
  else m.init("w", {kTileCin, kTileCout, t.k, t.k}, w);
  std::vector<std::string> in{"x", "w"};
  if (t.bias) {
    m.init("b", {kTileCout}, b);
    in.push_back("b");
  }
  attr(m.node("ConvTranspose", in, {"y"}), "strides", std::vector<int64_t>{t.k, t.k});
  m.output("y", 4);
  return m.program();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(onnx_conv_transpose_tiles)

BOOST_AUTO_TEST_CASE(stride_equal_to_the_kernel_is_a_1x1_conv_and_depth_to_space) {
  for (int64_t k : {2, 3})
    for (bool bias : {false, true}) {
      BOOST_TEST_CONTEXT("k " << k << " bias " << bias) {
        Tensor x = f32({2, kTileCin, kTileH, kTileW}, noise);
        Tensor wt = f32({kTileCin, kTileCout, k, k}, [](int64_t i) { return noise(3 * i + 1); });
        const std::vector<float> w = values(wt), b = bias ? std::vector<float>{0.5f, -1.25f, 2} : std::vector<float>{};
        Program tiles = tiles_model({k, bias, false}, w, b);
        BOOST_TEST(count_ops(tiles, "conv_transpose2d") == 0);
        BOOST_TEST(count_ops(tiles, "conv2d") == 1);
        BOOST_TEST(count_ops(tiles, "depth_to_space") == 1);
        Program general = tiles_model({k, bias, true}, w, b);
        BOOST_TEST(count_ops(general, "conv_transpose2d") == 1);
        const std::vector<float> got = values(run(tiles, {x})[0]);
        check_close(got, tiles_by_hand(x, wt, b, k));
        const std::vector<float> same = values(run(general, {x, wt})[0]);
        BOOST_REQUIRE_EQUAL(got.size(), same.size());
        BOOST_TEST(std::memcmp(got.data(), same.data(), got.size() * sizeof(float)) == 0);  // the same bits
      }
    }
}

BOOST_AUTO_TEST_CASE(a_folded_batch_norm_goes_into_the_tiles) {
  Model m(17);
  m.input("x", {1, kTileCin, kTileH, kTileW});
  Tensor wt = f32({kTileCin, kTileCout, 2, 2}, [](int64_t i) { return noise(5 * i + 2); });
  m.init("w", {kTileCin, kTileCout, 2, 2}, values(wt));
  attr(m.node("ConvTranspose", {"x", "w"}, {"t"}), "strides", std::vector<int64_t>{2, 2});
  m.init("s", {kTileCout}, {2, 0.5f, -1});
  m.init("bb", {kTileCout}, {1, 0, -2});
  m.init("mu", {kTileCout}, {0.25f, -1, 0});
  m.init("var", {kTileCout}, {1, 4, 0.25f});
  m.node("BatchNormalization", {"t", "s", "bb", "mu", "var"}, {"y"});
  m.output("y", 4);
  Program p = m.program();
  BOOST_TEST(count_ops(p, "conv2d") == 1);
  BOOST_TEST(count_ops(p, "depth_to_space") == 1);
  Tensor x = f32({1, kTileCin, kTileH, kTileW}, noise);
  std::vector<float> want = tiles_by_hand(x, wt, {}, 2);
  const float s[] = {2, 0.5f, -1}, bb[] = {1, 0, -2}, mu[] = {0.25f, -1, 0}, var[] = {1, 4, 0.25f};
  for (std::size_t i = 0; i < want.size(); ++i) {
    const std::size_t o = i / std::size_t(4 * kTileH * kTileW) % kTileCout;
    want[i] = (want[i] - mu[o]) / std::sqrt(var[o] + 1e-5f) * s[o] + bb[o];
  }
  check_close(values(run(p, {x})[0]), want);
}

BOOST_AUTO_TEST_CASE(other_geometries_keep_conv_transpose) {
  const std::vector<float> w = values(f32({kTileCin, kTileCout, 2, 2}, noise));
  auto with = [&](const std::string& name, const std::vector<int64_t>& v, int64_t group = 1) {
    Model m(17);
    m.input("x", {1, kTileCin * group, kTileH, kTileW});
    std::vector<float> wg;
    for (int64_t g = 0; g < group; ++g) wg.insert(wg.end(), w.begin(), w.end());
    m.init("w", {kTileCin * group, kTileCout, 2, 2}, wg);
    onnx::NodeProto* n = m.node("ConvTranspose", {"x", "w"}, {"y"});
    attr(n, "strides", name == "strides" ? v : std::vector<int64_t>{2, 2});
    if (name != "strides" && !name.empty()) attr(n, name, v);
    if (group > 1) attr(n, "group", group);
    m.output("y", 4);
    return count_ops(m.program(), "conv_transpose2d");
  };
  BOOST_TEST(with("", {}) == 0);
  BOOST_TEST(with("pads", {1, 0, 1, 0}) == 1);
  BOOST_TEST(with("output_padding", {1, 1}) == 1);
  BOOST_TEST(with("strides", {1, 1}) == 1);
  BOOST_TEST(with("dilations", {2, 2}) == 1);
  BOOST_TEST(with("", {}, 2) == 1);
}

BOOST_AUTO_TEST_SUITE_END()
