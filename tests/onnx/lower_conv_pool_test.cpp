// ONNX Conv, ConvTranspose and the pools (1-D, 2-D, 3-D; auto_pad, groups, dilations, MaxPool's
// Indices, MaxUnpool, LpPool) on hand-built models against naive references.
#include <boost/test/unit_test.hpp>

#include "common/onnx_nn_models.hpp"

using namespace mlvm;
using namespace mlvm::testing::onnx_nn;

BOOST_AUTO_TEST_SUITE(onnx_lower_conv_pool)

BOOST_AUTO_TEST_CASE(conv_auto_pad_same_lower_and_upper_with_stride_2) {
  // H = 5, W = 6, kernel 3, stride 2: output 3 x 3; total padding 2 over H (1 + 1) and 1 over
  // W, which SAME_LOWER puts in front (left = 1, right = 0) and SAME_UPPER behind.
  for (const std::string mode : {"SAME_LOWER", "SAME_UPPER"}) {
    Model m(11);
    m.input("x", {1, 2, 5, 6});
    m.input("w", {3, 2, 3, 3});
    m.output("y", 4);
    auto* n = m.node("Conv", {"x", "w"}, {"y"});
    attr(n, "auto_pad", mode);
    attr(n, "strides", std::vector<int64_t>{2, 2});
    Tensor x = f32({1, 2, 5, 6}, noise), w = f32({3, 2, 3, 3}, [](int64_t i) { return noise(i * 3 + 1); });
    auto out = run(m.program(), {x, w});
    BOOST_TEST(out[0].shape() == Dims({1, 3, 3, 3}));
    int64_t left = mode == "SAME_LOWER" ? 1 : 0;
    check_close(values(out[0]), naive_conv(x, w, 2, 2, 1, left, 3, 3));
  }
}

BOOST_AUTO_TEST_CASE(conv_same_with_a_dynamic_spatial_dim_is_refused) {
  Model m(11);
  m.input("x", {1, 1, -1, 5});
  m.input("w", {1, 1, 3, 3});
  m.output("y", 4);
  attr(m.node("Conv", {"x", "w"}, {"y"}), "auto_pad", std::string("SAME_LOWER"));
  BOOST_TEST(import_error(m).find("auto_pad=SAME_LOWER with dynamic dims is not supported") != std::string::npos,
             import_error(m));
}

BOOST_AUTO_TEST_CASE(conv_1d_with_groups_pads_bias_and_dynamic_batch) {
  Model m(13);
  m.input("x", {-1, 4, 7});
  m.init("w", {4, 2, 3}, std::vector<float>(24, 0.5f));
  m.init("b", {4}, {1, 2, 3, 4});
  m.output("y", 3);
  auto* n = m.node("Conv", {"x", "w", "b"}, {"y"});
  attr(n, "group", int64_t(2));
  attr(n, "pads", std::vector<int64_t>{1, 0});
  Program p = m.program();
  Tensor x = f32({2, 4, 7}, [](int64_t) { return 1.0f; });
  auto out = run(p, {x});
  BOOST_TEST(out[0].shape() == Dims({2, 4, 6}));
  // Each output sums 2 channels x 3 taps of 0.5 (one tap in the padding at position 0).
  std::vector<float> v = values(out[0]);
  for (int64_t n2 = 0; n2 < 2; ++n2)
    for (int64_t o = 0; o < 4; ++o)
      for (int64_t q = 0; q < 6; ++q)
        BOOST_TEST(v[std::size_t((n2 * 4 + o) * 6 + q)] == float(o + 1) + (q == 0 ? 2.0f : 3.0f));
}

// Conv 3-D as 2-D convolutions of depth slices: groups, pads, strides, dilations, bias and a
// dynamic batch, against a naive 3-D convolution.
BOOST_AUTO_TEST_CASE(conv_3d_with_groups_pads_strides_dilations_and_a_dynamic_batch) {
  Model m(11);
  m.input("x", {-1, 4, 5, 4, 6});
  std::vector<float> wv;
  for (int64_t i = 0; i < 6 * 2 * 3 * 2 * 3; ++i) wv.push_back(noise(i * 3 + 5));
  m.init("w", {6, 2, 3, 2, 3}, wv);
  m.init("b", {6}, {1, 2, 3, 4, 5, 6});
  m.output("y", 5);
  auto* n = m.node("Conv", {"x", "w", "b"}, {"y"});
  attr(n, "group", int64_t(2));
  attr(n, "pads", std::vector<int64_t>{2, 0, 1, 1, 1, 0});
  attr(n, "strides", std::vector<int64_t>{2, 1, 2});
  attr(n, "dilations", std::vector<int64_t>{2, 1, 1});
  Tensor x = f32({2, 4, 5, 4, 6}, noise);
  auto out = run(m.program(), {x});
  // D: (5 + 3 - 5) / 2 + 1 = 2; H: (4 + 1 - 2) + 1 = 4; W: (6 + 1 - 3) / 2 + 1 = 3.
  BOOST_TEST(out[0].shape() == Dims({2, 6, 2, 4, 3}));
  std::vector<float> want;
  const float* xv = x.data<float>();
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t o = 0; o < 6; ++o)
      for (int64_t od = 0; od < 2; ++od)
        for (int64_t oh = 0; oh < 4; ++oh)
          for (int64_t ow = 0; ow < 3; ++ow) {
            double acc = o + 1;
            for (int64_t ci = 0; ci < 2; ++ci)
              for (int64_t kd = 0; kd < 3; ++kd)
                for (int64_t kh = 0; kh < 2; ++kh)
                  for (int64_t kw = 0; kw < 3; ++kw) {
                    int64_t d = od * 2 - 2 + kd * 2, h = oh - 0 + kh, w = ow * 2 - 1 + kw;
                    if (d < 0 || d >= 5 || h < 0 || h >= 4 || w < 0 || w >= 6) continue;
                    int64_t c = (o / 3) * 2 + ci;
                    acc += double(xv[(((b * 4 + c) * 5 + d) * 4 + h) * 6 + w]) *
                           wv[std::size_t((((o * 2 + ci) * 3 + kd) * 2 + kh) * 3 + kw)];
                  }
            want.push_back(float(acc));
          }
  check_close(values(out[0]), want);
}

BOOST_AUTO_TEST_CASE(conv_transpose_3d_with_strides_pads_dilations_groups_and_output_padding) {
  const int64_t n = 2, c = 4, d = 3, h = 2, w = 3, ocg = 2, g = 2, kd = 2, kh = 3, kw = 2;
  const int64_t sd = 2, sh = 1, sw = 2, dd = 2, pd0 = 1, pd1 = 0, ph0 = 1, ph1 = 1, pw0 = 0, pw1 = 1, opd = 1;
  Model m(11);
  m.input("x", {n, c, d, h, w});
  std::vector<float> wv;
  for (int64_t i = 0; i < c * ocg * kd * kh * kw; ++i) wv.push_back(noise(i * 7 + 3));
  m.init("w", {c, ocg, kd, kh, kw}, wv);
  m.init("b", {4}, {0.5f, -1, 2, 0});
  m.output("y", 5);
  auto* node = m.node("ConvTranspose", {"x", "w", "b"}, {"y"});
  attr(node, "group", g);
  attr(node, "strides", std::vector<int64_t>{sd, sh, sw});
  attr(node, "dilations", std::vector<int64_t>{dd, 1, 1});
  attr(node, "pads", std::vector<int64_t>{pd0, ph0, pw0, pd1, ph1, pw1});
  attr(node, "output_padding", std::vector<int64_t>{opd, 0, 1});
  Tensor x = f32({n, c, d, h, w}, noise);
  auto out = run(m.program(), {x});
  const int64_t od = (d - 1) * sd + opd + dd * (kd - 1) + 1 - pd0 - pd1;   // 7
  const int64_t oh = (h - 1) * sh + (kh - 1) + 1 - ph0 - ph1;               // 2
  const int64_t ow = (w - 1) * sw + 1 + (kw - 1) + 1 - pw0 - pw1;           // 6
  BOOST_TEST_REQUIRE(out[0].shape() == Dims({n, g * ocg, od, oh, ow}));
  std::vector<float> want(std::size_t(n * g * ocg * od * oh * ow), 0.0f);
  const float bias[] = {0.5f, -1, 2, 0};
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < g * ocg; ++o)
      for (int64_t i = 0; i < od * oh * ow; ++i) want[std::size_t((b * g * ocg + o) * od * oh * ow + i)] = bias[o];
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ci = 0; ci < c; ++ci)
      for (int64_t z = 0; z < d; ++z)
        for (int64_t y = 0; y < h; ++y)
          for (int64_t xx = 0; xx < w; ++xx)
            for (int64_t o = 0; o < ocg; ++o)
              for (int64_t a = 0; a < kd; ++a)
                for (int64_t p = 0; p < kh; ++p)
                  for (int64_t q = 0; q < kw; ++q) {
                    int64_t tz = z * sd - pd0 + a * dd, ty = y * sh - ph0 + p, tx = xx * sw - pw0 + q;
                    if (tz < 0 || tz >= od || ty < 0 || ty >= oh || tx < 0 || tx >= ow) continue;
                    int64_t oc = (ci / (c / g)) * ocg + o;
                    want[std::size_t((((b * g * ocg + oc) * od + tz) * oh + ty) * ow + tx)] +=
                        x.data<float>()[(((b * c + ci) * d + z) * h + y) * w + xx] *
                        wv[std::size_t((((ci * ocg + o) * kd + a) * kh + p) * kw + q)];
                  }
  check_close(values(out[0]), want);
}

// Pools 3-D with pads and ceil_mode: max, and average counting the padding or not.
BOOST_AUTO_TEST_CASE(pools_3d_with_pads_and_ceil_mode) {
  Tensor x = f32({1, 2, 4, 3, 5}, noise);
  const float* xv = x.data<float>();
  for (const std::string op : {"MaxPool", "AveragePool"})
    for (int64_t include : {0, 1}) {
      if (op == "MaxPool" && include) continue;
      Model m(11);
      m.input("x", {1, 2, 4, 3, 5});
      m.output("y", 5);
      auto* n = m.node(op, {"x"}, {"y"});
      attr(n, "kernel_shape", std::vector<int64_t>{3, 2, 2});
      attr(n, "pads", std::vector<int64_t>{1, 1, 0, 1, 0, 1});
      attr(n, "strides", std::vector<int64_t>{2, 2, 2});
      attr(n, "ceil_mode", int64_t(1));
      if (op == "AveragePool") attr(n, "count_include_pad", include);
      auto out = run(m.program(), {x});
      // D: ceil((4 + 2 - 3) / 2) + 1 = 3 (the last window starts at 3 < 4 + 1); H: ceil((3 + 1 - 2)
      // / 2) + 1 = 2; W: ceil((5 + 1 - 2) / 2) + 1 = 3.
      BOOST_TEST_REQUIRE(out[0].shape() == Dims({1, 2, 3, 2, 3}));
      std::vector<float> want;
      for (int64_t c = 0; c < 2; ++c)
        for (int64_t od = 0; od < 3; ++od)
          for (int64_t oh = 0; oh < 2; ++oh)
            for (int64_t ow = 0; ow < 3; ++ow) {
              double mx = -1e30, sum = 0;
              int64_t cnt = 0, cnt_pad = 0;
              for (int64_t kd = 0; kd < 3; ++kd)
                for (int64_t kh = 0; kh < 2; ++kh)
                  for (int64_t kw = 0; kw < 2; ++kw) {
                    int64_t d = od * 2 - 1 + kd, h = oh * 2 - 1 + kh, w = ow * 2 + kw;
                    // Inside input + padding: d in [-1, 5), h in [-1, 3), w in [0, 6).
                    if (d >= -1 && d < 5 && h >= -1 && h < 3 && w >= 0 && w < 6) ++cnt_pad;
                    if (d < 0 || d >= 4 || h < 0 || h >= 3 || w < 0 || w >= 5) continue;
                    double v = xv[((c * 4 + d) * 3 + h) * 5 + w];
                    mx = std::max(mx, v);
                    sum += v;
                    ++cnt;
                  }
              want.push_back(float(op == "MaxPool" ? mx : sum / double(include ? cnt_pad : cnt)));
            }
      check_close(values(out[0]), want);
    }
}

BOOST_AUTO_TEST_CASE(maxpool_indices_row_and_column_major_and_1d) {
  // x (2, 1, 3, 4), 2x2 windows, stride 2 over W, 1 over H: maxima at known cells.
  Tensor x = f32({2, 1, 3, 4}, [](int64_t i) { return float((i * 7) % 11); });
  for (int64_t order : {0, 1}) {
    Model m(12);
    m.input("x", {2, 1, 3, 4});
    m.output("y", 4);
    m.output("i", 4, onnx::TensorProto::INT64);
    auto* n = m.node("MaxPool", {"x"}, {"y", "i"});
    attr(n, "kernel_shape", std::vector<int64_t>{2, 2});
    attr(n, "strides", std::vector<int64_t>{1, 2});
    attr(n, "storage_order", order);
    Program p = m.program();
    BOOST_TEST(count_ops(p, "max_pool2d_indices") == 1);
    auto out = run(p, {x});
    BOOST_TEST(out[1].shape() == Dims({2, 1, 2, 2}));
    Tensor idx = contiguous(out[1]);
    std::vector<float> y = values(out[0]);
    for (int64_t k = 0; k < 8; ++k) {
      const int64_t n2 = k / 4, oh = k / 2 % 2, ow = k % 2;
      int64_t best = -1;
      for (int64_t dh = 0; dh < 2; ++dh)
        for (int64_t dw = 0; dw < 2; ++dw) {
          int64_t at = n2 * 12 + (oh + dh) * 4 + ow * 2 + dw;
          if (best < 0 || x.data<float>()[at] > x.data<float>()[best]) best = at;
        }
      BOOST_TEST(y[std::size_t(k)] == x.data<float>()[best]);
      const int64_t h = best % 12 / 4, w = best % 4;
      BOOST_TEST(idx.data<int64_t>()[k] == (order ? n2 * 12 + w * 3 + h : best));
    }
  }
  Model m(12);
  m.input("x", {1, 2, 5});
  m.output("y", 3);
  m.output("i", 3, onnx::TensorProto::INT64);
  attr(m.node("MaxPool", {"x"}, {"y", "i"}), "kernel_shape", std::vector<int64_t>{2});
  auto out = run(m.program(), {f32({1, 2, 5}, [](int64_t i) { return float((i * 3) % 7); })});
  // (0 3 6 2 5), (1 4 0 3 6): indices into the flat (1, 2, 5).
  Tensor idx = contiguous(out[1]);
  const int64_t want[] = {1, 2, 2, 4, 6, 6, 8, 9};
  for (int k = 0; k < 8; ++k) BOOST_TEST(idx.data<int64_t>()[k] == want[k]);
}

// MaxPool's values and indices back through MaxUnpool, to a constant output_shape one larger.
BOOST_AUTO_TEST_CASE(maxunpool_inverts_maxpool_with_a_constant_output_shape) {
  Model m(11);
  m.input("x", {1, 2, 5, 5});
  m.init_i64("shape", {1, 2, 5, 5});
  m.output("y", 4);
  auto* p = m.node("MaxPool", {"x"}, {"v", "i"});
  attr(p, "kernel_shape", std::vector<int64_t>{2, 2});
  attr(p, "strides", std::vector<int64_t>{2, 2});
  auto* u = m.node("MaxUnpool", {"v", "i", "shape"}, {"y"});
  attr(u, "kernel_shape", std::vector<int64_t>{2, 2});
  attr(u, "strides", std::vector<int64_t>{2, 2});
  Tensor x = f32({1, 2, 5, 5}, [](int64_t i) { return float((i * 13) % 17); });
  auto out = run(m.program(), {x});
  BOOST_TEST(out[0].shape() == Dims({1, 2, 5, 5}));
  std::vector<float> y = values(out[0]), want(50, 0.0f);
  for (int c = 0; c < 2; ++c)
    for (int oh = 0; oh < 2; ++oh)
      for (int ow = 0; ow < 2; ++ow) {
        int best = -1;
        for (int dh = 0; dh < 2; ++dh)
          for (int dw = 0; dw < 2; ++dw) {
            int at = c * 25 + (oh * 2 + dh) * 5 + ow * 2 + dw;
            if (best < 0 || x.data<float>()[at] > x.data<float>()[best]) best = at;
          }
        want[std::size_t(best)] = x.data<float>()[best];
      }
  check_close(y, want);
}

BOOST_AUTO_TEST_CASE(lp_pool_and_global_lp_pool) {
  Model m(11);
  m.input("x", {1, 2, 3, 3});
  m.output("y", 4);
  m.output("g", 4);
  m.output("g1", 3);
  auto* n = m.node("LpPool", {"x"}, {"y"});
  attr(n, "kernel_shape", std::vector<int64_t>{2, 2});
  attr(n, "pads", std::vector<int64_t>{1, 1, 0, 0});
  attr(n, "strides", std::vector<int64_t>{2, 2});
  attr(n, "p", int64_t(3));
  m.node("GlobalLpPool", {"x"}, {"g"});
  m.init_i64("shape3", {1, 2, 9});
  m.node("Reshape", {"x", "shape3"}, {"x1"});
  attr(m.node("GlobalLpPool", {"x1"}, {"g1"}), "p", int64_t(1));
  Program p = m.program();
  BOOST_TEST(count_ops(p, "lp_pool2d") == 3);
  Tensor x = f32({1, 2, 3, 3}, noise);
  auto out = run(p, {x});
  BOOST_TEST(out[0].shape() == Dims({1, 2, 2, 2}));
  const float* xv = x.data<float>();
  std::vector<float> want, g, g1;
  for (int c = 0; c < 2; ++c) {
    for (int oh = 0; oh < 2; ++oh)
      for (int ow = 0; ow < 2; ++ow) {
        double acc = 0;
        for (int dh = 0; dh < 2; ++dh)
          for (int dw = 0; dw < 2; ++dw) {
            int h = oh * 2 - 1 + dh, w = ow * 2 - 1 + dw;
            if (h < 0 || w < 0 || h >= 3 || w >= 3) continue;
            acc += std::pow(std::fabs(xv[c * 9 + h * 3 + w]), 3.0);
          }
        want.push_back(float(std::cbrt(acc)));
      }
    double s2 = 0, s1 = 0;
    for (int i = 0; i < 9; ++i) s2 += double(xv[c * 9 + i]) * xv[c * 9 + i], s1 += std::fabs(xv[c * 9 + i]);
    g.push_back(float(std::sqrt(s2)));
    g1.push_back(float(s1));
  }
  check_close(values(out[0]), want);
  BOOST_TEST(out[1].shape() == Dims({1, 2, 1, 1}));
  check_close(values(out[1]), g);
  BOOST_TEST(out[2].shape() == Dims({1, 2, 1}));
  check_close(values(out[2]), g1);
}

// Naive 2-D transposed convolution: (N, C, H, W) x (C, OCg, KH, KW), groups, output
// (OH, OW) with the given top/left padding.
std::vector<float> naive_conv_transpose(const Tensor& x, const Tensor& w, int64_t groups, int64_t sh,
                                        int64_t sw, int64_t top, int64_t left, int64_t oh, int64_t ow) {
  const auto& xd = x.shape();
  const auto& wd = w.shape();
  const int64_t cg = xd[1] / groups, ocg = wd[1], oc = ocg * groups;
  std::vector<float> out(std::size_t(xd[0] * oc * oh * ow), 0.0f);
  for (int64_t n = 0; n < xd[0]; ++n)
    for (int64_t c = 0; c < xd[1]; ++c)
      for (int64_t i = 0; i < xd[2]; ++i)
        for (int64_t j = 0; j < xd[3]; ++j)
          for (int64_t o = 0; o < ocg; ++o)
            for (int64_t p = 0; p < wd[2]; ++p)
              for (int64_t q = 0; q < wd[3]; ++q) {
                int64_t h = i * sh - top + p, v = j * sw - left + q, g = c / cg;
                if (h < 0 || h >= oh || v < 0 || v >= ow) continue;
                out[std::size_t(((n * oc + g * ocg + o) * oh + h) * ow + v)] +=
                    x.data<float>()[((n * xd[1] + c) * xd[2] + i) * xd[3] + j] *
                    w.data<float>()[((c * ocg + o) * wd[2] + p) * wd[3] + q];
              }
  return out;
}

BOOST_AUTO_TEST_CASE(conv_transpose_auto_pad_groups_output_shape_and_1d) {
  Tensor x = f32({1, 4, 3, 3}, noise), w = f32({4, 1, 2, 3}, [](int64_t i) { return noise(i * 3 + 7); });
  // Stride 2: natural size (3-1)*2 + (2, 3) = (6, 7); SAME asks for (6, 6): total padding
  // (0, 1), the odd one at the end for SAME_UPPER, at the beginning for SAME_LOWER.
  for (const std::string mode : {"SAME_UPPER", "SAME_LOWER"}) {
    Model m(11);
    m.input("x", {1, 4, 3, 3});
    m.input("w", {4, 1, 2, 3});
    m.output("y", 4);
    auto* n = m.node("ConvTranspose", {"x", "w"}, {"y"});
    attr(n, "auto_pad", mode);
    attr(n, "strides", std::vector<int64_t>{2, 2});
    attr(n, "group", int64_t(2));
    Program p = m.program();
    BOOST_TEST(count_ops(p, "conv_transpose2d") == 1);
    auto out = run(p, {x, w});
    BOOST_TEST(out[0].shape() == Dims({1, 2, 6, 6}));
    check_close(values(out[0]), naive_conv_transpose(x, w, 2, 2, 2, 0, mode == "SAME_UPPER" ? 0 : 1, 6, 6));
  }
  {
    // output_shape (8, 9) beyond the natural (6, 7): the extra cells hold the bias.
    Model m(11);
    m.input("x", {1, 4, 3, 3});
    m.input("w", {4, 1, 2, 3});
    m.init("b", {1}, {1.5f});
    m.output("y", 4);
    auto* n = m.node("ConvTranspose", {"x", "w", "b"}, {"y"});
    attr(n, "strides", std::vector<int64_t>{2, 2});
    attr(n, "output_shape", std::vector<int64_t>{1, 1, 8, 9});
    auto out = run(m.program(), {x, w});
    BOOST_TEST(out[0].shape() == Dims({1, 1, 8, 9}));
    std::vector<float> want = naive_conv_transpose(x, w, 1, 2, 2, 0, 0, 8, 9);
    for (float& v : want) v += 1.5f;
    check_close(values(out[0]), want);
  }
  {
    // 1-D with pads and output_padding: (5-1)*3 + 1 + 2 - 1 - 0 = 14.
    Model m(11);
    m.input("x", {2, 1, 5});
    m.init("w", {1, 2, 2}, {1, -1, 0.5f, 2});
    m.output("y", 3);
    auto* n = m.node("ConvTranspose", {"x", "w"}, {"y"});
    attr(n, "strides", std::vector<int64_t>{3});
    attr(n, "pads", std::vector<int64_t>{1, 0});
    attr(n, "output_padding", std::vector<int64_t>{1});
    Tensor x1 = f32({2, 1, 5}, noise);
    auto out = run(m.program(), {x1});
    BOOST_TEST(out[0].shape() == Dims({2, 2, 14}));
    Tensor x4 = f32({2, 1, 1, 5}, noise), w4 = f32({1, 2, 1, 2}, [](int64_t i) {
      const float v[] = {1, -1, 0.5f, 2};
      return v[i];
    });
    check_close(values(out[0]), naive_conv_transpose(x4, w4, 1, 1, 3, 0, 1, 1, 14));
  }
}

BOOST_AUTO_TEST_CASE(avgpool_same_lower_excludes_the_padding_from_the_count) {
  Model m(11);
  m.input("x", {1, 1, 3, 3});
  m.output("y", 4);
  auto* n = m.node("AveragePool", {"x"}, {"y"});
  attr(n, "kernel_shape", std::vector<int64_t>{2, 2});
  attr(n, "auto_pad", std::string("SAME_LOWER"));
  auto out = run(m.program(), {f32({1, 1, 3, 3}, [](int64_t i) { return float(i + 1); })});
  // Padding one row/column in front: windows [1], [1,2], [2,3], ... averaged over real cells.
  check_close(values(out[0]), {1, 1.5f, 2.5f, 2.5f, 3, 4, 5.5f, 6, 7});
}

BOOST_AUTO_TEST_SUITE_END()
