// SoftmaxCrossEntropyLoss, GridSample and RoiAlign (against C++ ports of ONNX Runtime), the
// integer convolutions, MatMul of vectors and activations at their edges, on hand-built models.
#include <boost/test/unit_test.hpp>

#include "common/onnx_nn_models.hpp"

using namespace mlvm;
using namespace mlvm::testing::onnx_nn;

BOOST_AUTO_TEST_SUITE(onnx_lower_misc_nn)

BOOST_AUTO_TEST_CASE(softmax_cross_entropy_f64_with_int32_labels_and_ignore_index) {
  Model m(13);
  m.input("x", {3, 2}, onnx::TensorProto::DOUBLE);
  m.input("t", {3}, onnx::TensorProto::INT32);
  m.output("loss", 0, onnx::TensorProto::DOUBLE);
  m.output("logp", 2, onnx::TensorProto::DOUBLE);
  attr(m.node("SoftmaxCrossEntropyLoss", {"x", "t"}, {"loss", "logp"}), "ignore_index", int64_t(-1));
  Tensor x = Tensor::empty(DType::f64, Dims{3, 2}), t = Tensor::empty(DType::i32, Dims{3});
  const double xv[] = {1, 2, 0, 0, 5, -1};
  const int32_t tv[] = {1, -1, 0};
  for (int i = 0; i < 6; ++i) x.data<double>()[i] = xv[i];
  for (int i = 0; i < 3; ++i) t.data<int32_t>()[i] = tv[i];
  auto out = run(m.program(), {x, t});
  BOOST_TEST(out[0].dtype() == DType::f64);
  BOOST_TEST(out[0].shape() == Dims({1}));
  const double l0 = -(2 - std::log(std::exp(1.0) + std::exp(2.0)));
  const double l2 = -(5 - std::log(std::exp(5.0) + std::exp(-1.0)));
  BOOST_TEST(std::fabs(contiguous(out[0]).data<double>()[0] - (l0 + l2) / 2) < 1e-12);
  BOOST_TEST(out[1].shape() == Dims({3, 2}));
}

// ONNX Runtime 1.30's GridSample (onnxruntime/core/providers/cpu/tensor/grid_sample.cc), one
// output value, as the reference for every mode, padding mode and align_corners.
float ort_grid_sample(const float* img, int64_t h, int64_t w, float gx, float gy, const std::string& mode,
                      const std::string& padding, bool align) {
  auto denorm = [&](float g, int64_t len) {
    return align ? (g + 1) / 2 * float(len - 1) : ((g + 1) * float(len) - 1) / 2;
  };
  const float x_min = align ? 0.0f : -0.5f, x_max = align ? float(w - 1) : float(w) - 0.5f;
  const float y_min = align ? 0.0f : -0.5f, y_max = align ? float(h - 1) : float(h) - 0.5f;
  auto reflect = [](float x, float lo, float hi) {
    const float range = hi - lo;
    if (x < lo) {
      float dx = lo - x;
      int n = int(dx / range);
      float r = dx - float(n) * range;
      return n % 2 == 0 ? lo + r : hi - r;
    }
    if (x > hi) {
      float dx = x - hi;
      int n = int(dx / range);
      float r = dx - float(n) * range;
      return n % 2 == 0 ? hi - r : lo + r;
    }
    return x;
  };
  auto at = [&](int64_t r, int64_t c) -> float {
    if (padding == "zeros") return c >= 0 && c < w && r >= 0 && r < h ? img[r * w + c] : 0.0f;
    if (padding == "border") {
      c = std::clamp<int64_t>(c, 0, w - 1);
      r = std::clamp<int64_t>(r, 0, h - 1);
    } else {
      c = int64_t(reflect(float(c), x_min, x_max));
      r = int64_t(reflect(float(r), y_min, y_max));
    }
    return img[r * w + c];
  };
  float x = denorm(gx, w), y = denorm(gy, h);
  if (mode == "nearest") {
    x = std::nearbyint(x);
    y = std::nearbyint(y);
  }
  if (x < x_min || x > x_max || y < y_min || y > y_max) {
    // ONNX Runtime 1.30 (as PyTorch) leaves a bicubic point where it is and clamps its taps
    // only (checked against onnxruntime-node 1.30 by tests/onnx/opset_suite_test.py's cases).
    if (padding == "border" && mode != "bicubic") {
      x = std::clamp(x, 0.0f, float(w - 1));
      y = std::clamp(y, 0.0f, float(h - 1));
    } else if (padding == "reflection") {
      x = reflect(x, x_min, x_max);
      y = reflect(y, y_min, y_max);
    }
  }
  if (mode == "nearest") return at(int64_t(y), int64_t(x));
  if (mode == "bilinear") {
    int64_t x1 = int64_t(std::floor(x)), y1 = int64_t(std::floor(y)), x2 = x1 + 1, y2 = y1 + 1;
    float dx2 = float(x2) - x, dx1 = x - float(x1), dy2 = float(y2) - y, dy1 = y - float(y1);
    return dy2 * (dx2 * at(y1, x1) + dx1 * at(y1, x2)) + dy1 * (dx2 * at(y2, x1) + dx1 * at(y2, x2));
  }
  auto coeffs = [](float t, float* cf) {
    const float a = -0.75f;
    t = std::fabs(t);
    cf[0] = ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a;
    cf[1] = ((a + 2) * t - (a + 3)) * t * t + 1;
    cf[2] = ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1;
    cf[3] = ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a;
  };
  int64_t x0 = int64_t(std::floor(x)) - 1, y0 = int64_t(std::floor(y)) - 1;
  float cx[4], cy[4], v[4];
  coeffs(x - float(x0) - 1, cx);
  coeffs(y - float(y0) - 1, cy);
  for (int i = 0; i < 4; ++i) {
    v[i] = 0;
    for (int j = 0; j < 4; ++j) v[i] += cx[j] * at(y0 + i, x0 + j);
  }
  return cy[0] * v[0] + cy[1] * v[1] + cy[2] * v[2] + cy[3] * v[3];
}

BOOST_AUTO_TEST_CASE(grid_sample_every_mode_padding_and_align_corners) {
  const int64_t n = 2, ch = 2, h = 3, w = 4, oh = 3, ow = 5;
  Tensor x = f32({n, ch, h, w}, noise);
  // Grid points in [-1.9, 1.9): inside, near the edges and well outside.
  Tensor grid = f32({n, oh, ow, 2}, [](int64_t i) { return float((i * 37 + 11) % 76) / 20.0f - 1.9f; });
  for (const std::string mode : {"nearest", "bilinear", "bicubic"})
    for (const std::string padding : {"zeros", "border", "reflection"})
      for (int64_t align : {0, 1}) {
        Model m(16);
        m.input("x", {n, ch, h, w});
        m.input("grid", {n, oh, ow, 2});
        m.output("y", 4);
        auto* node = m.node("GridSample", {"x", "grid"}, {"y"});
        attr(node, "mode", mode);
        attr(node, "padding_mode", padding);
        attr(node, "align_corners", align);
        auto out = run(m.program(), {x, grid});
        BOOST_TEST_REQUIRE(out[0].shape() == Dims({n, ch, oh, ow}));
        std::vector<float> want;
        for (int64_t b = 0; b < n; ++b)
          for (int64_t c = 0; c < ch; ++c)
            for (int64_t i = 0; i < oh * ow; ++i) {
              const float* g = grid.data<float>() + (b * oh * ow + i) * 2;
              want.push_back(ort_grid_sample(x.data<float>() + (b * ch + c) * h * w, h, w, g[0], g[1], mode,
                                             padding, align != 0));
            }
        BOOST_TEST_CONTEXT(mode << ", " << padding << ", align_corners=" << align) {
          check_close(values(out[0]), want);
        }
      }
}

// ONNX Runtime's RoiAlign (onnxruntime/core/providers/cpu/object_detection/roialign.cc) for one
// region and channel.
std::vector<float> ort_roi_align(const float* img, int64_t h, int64_t w, const float* roi, int64_t oh,
                                 int64_t ow, int64_t sr, float scale, bool half_pixel, bool avg) {
  const float off = half_pixel ? 0.5f : 0.0f;
  float sw = roi[0] * scale - off, sh = roi[1] * scale - off, ew = roi[2] * scale - off, eh = roi[3] * scale - off;
  float rw = ew - sw, rh = eh - sh;
  if (!half_pixel) rw = std::max(rw, 1.0f), rh = std::max(rh, 1.0f);
  const float bh = rh / float(oh), bw = rw / float(ow);
  std::vector<float> out;
  for (int64_t ph = 0; ph < oh; ++ph)
    for (int64_t pw = 0; pw < ow; ++pw) {
      float acc = 0;
      bool first = true;
      for (int64_t iy = 0; iy < sr; ++iy)
        for (int64_t ix = 0; ix < sr; ++ix) {
          float y = sh + float(ph) * bh + (float(iy) + 0.5f) * bh / float(sr);
          float x = sw + float(pw) * bw + (float(ix) + 0.5f) * bw / float(sr);
          float w1 = 0, w2 = 0, w3 = 0, w4 = 0;
          int64_t p1 = 0, p2 = 0, p3 = 0, p4 = 0;
          if (!(y < -1.0f || y > float(h) || x < -1.0f || x > float(w))) {
            y = std::max(y, 0.0f);
            x = std::max(x, 0.0f);
            int64_t yl = int64_t(y), xl = int64_t(x), yh, xh;
            if (yl >= h - 1) yh = yl = h - 1, y = float(yl);
            else yh = yl + 1;
            if (xl >= w - 1) xh = xl = w - 1, x = float(xl);
            else xh = xl + 1;
            float ly = y - float(yl), lx = x - float(xl), hy = 1 - ly, hx = 1 - lx;
            w1 = hy * hx, w2 = hy * lx, w3 = ly * hx, w4 = ly * lx;
            p1 = yl * w + xl, p2 = yl * w + xh, p3 = yh * w + xl, p4 = yh * w + xh;
          }
          if (avg) {
            acc += w1 * img[p1] + w2 * img[p2] + w3 * img[p3] + w4 * img[p4];
          } else {
            float v = std::max(std::max(std::max(w1 * img[p1], w2 * img[p2]), w3 * img[p3]), w4 * img[p4]);
            acc = first ? v : std::max(acc, v);
            first = false;
          }
        }
      out.push_back(avg ? acc / float(sr * sr) : acc);
    }
  return out;
}

BOOST_AUTO_TEST_CASE(roi_align_avg_and_max_both_coordinate_modes) {
  const int64_t n = 2, ch = 2, h = 5, w = 6, r = 4;
  Tensor x = f32({n, ch, h, w}, noise);
  // Regions inside, crossing the edges, beyond them, and smaller than a pixel.
  const float rv[] = {0.5f, 1, 4, 3.5f, -2, -1, 3, 9, 5, 4, 13, 11, 2, 2, 2.3f, 2.2f};
  Tensor rois = f32({r, 4}, [&](int64_t i) { return rv[i]; });
  Tensor batch = Tensor::empty(DType::i64, Dims{r});
  const int64_t bv[] = {0, 1, 1, 0};
  for (int i = 0; i < r; ++i) batch.data<int64_t>()[i] = bv[i];
  for (const std::string mode : {"avg", "max"})
    for (const std::string coord : {"half_pixel", "output_half_pixel"}) {
      Model m(16);
      m.input("x", {n, ch, h, w});
      m.input("rois", {r, 4});
      m.input("b", {r}, onnx::TensorProto::INT64);
      m.output("y", 4);
      auto* node = m.node("RoiAlign", {"x", "rois", "b"}, {"y"});
      attr(node, "mode", mode);
      attr(node, "coordinate_transformation_mode", coord);
      attr(node, "output_height", int64_t(2));
      attr(node, "output_width", int64_t(3));
      attr(node, "sampling_ratio", int64_t(2));
      attr(node, "spatial_scale", 0.5f);
      auto out = run(m.program(), {x, rois, batch});
      BOOST_TEST_REQUIRE(out[0].shape() == Dims({r, ch, 2, 3}));
      std::vector<float> want;
      for (int64_t i = 0; i < r; ++i)
        for (int64_t c = 0; c < ch; ++c) {
          std::vector<float> v = ort_roi_align(x.data<float>() + (bv[i] * ch + c) * h * w, h, w, rv + i * 4, 2, 3, 2,
                                               0.5f, coord == "half_pixel", mode == "avg");
          want.insert(want.end(), v.begin(), v.end());
        }
      BOOST_TEST_CONTEXT(mode << ", " << coord) { check_close(values(out[0]), want); }
    }
}

// QLinearConv with per-channel weight scales and zero points, a bias, an int8 output that
// saturates, and ties rounded to even; MatMulInteger with per-row / per-column zero points.
BOOST_AUTO_TEST_CASE(qlinear_conv_per_channel_and_matmul_integer_per_row_zero_points) {
  auto u8 = [](const std::vector<int64_t>& dims, const std::function<int(int64_t)>& f) {
    Tensor t = Tensor::empty(DType::u8, Dims(std::span<const int64_t>(dims)));
    for (int64_t i = 0; i < t.numel(); ++i) t.data<uint8_t>()[i] = uint8_t(f(i));
    return t;
  };
  {
    Model m(13);
    m.input("x", {1, 1, 3, 3}, onnx::TensorProto::UINT8);
    m.input("w", {2, 1, 2, 2}, onnx::TensorProto::UINT8);
    m.init("xs", {}, {0.5f});
    m.init("ws", {2}, {0.25f, 1.0f});
    m.init("ys", {}, {1.0f});
    auto* xz = m.g->add_initializer();
    xz->set_name("xz"), xz->set_data_type(onnx::TensorProto::UINT8), xz->add_int32_data(10);
    auto* wz = m.g->add_initializer();
    wz->set_name("wz"), wz->set_data_type(onnx::TensorProto::UINT8), wz->add_dims(2), wz->add_int32_data(3), wz->add_int32_data(100);
    auto* yz = m.g->add_initializer();
    yz->set_name("yz"), yz->set_data_type(onnx::TensorProto::INT8), yz->add_int32_data(-5);
    auto* b = m.g->add_initializer();
    b->set_name("b"), b->set_data_type(onnx::TensorProto::INT32), b->add_dims(2), b->add_int32_data(1), b->add_int32_data(-7);
    m.output("y", 4, onnx::TensorProto::INT8);
    m.node("QLinearConv", {"x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"}, {"y"});
    Tensor x = u8({1, 1, 3, 3}, [](int64_t i) { return int(i * 29 % 256); });
    Tensor w = u8({2, 1, 2, 2}, [](int64_t i) { return int(i * 61 % 256); });
    auto out = run(m.program(), {x, w});
    BOOST_TEST_REQUIRE(out[0].shape() == Dims({1, 2, 2, 2}));
    BOOST_TEST(out[0].dtype() == DType::i8);
    const int wzv[] = {3, 100}, bv[] = {1, -7};
    const float wsv[] = {0.25f, 1.0f};
    for (int o = 0; o < 2; ++o)
      for (int p = 0; p < 2; ++p)
        for (int q = 0; q < 2; ++q) {
          int acc = bv[o];
          for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j)
              acc += (x.data<uint8_t>()[(p + i) * 3 + q + j] - 10) * (w.data<uint8_t>()[o * 4 + i * 2 + j] - wzv[o]);
          float v = std::nearbyint(float(acc) * (0.5f * wsv[o] / 1.0f)) - 5;
          int want = int(std::clamp(v, -128.0f, 127.0f));
          BOOST_TEST(int(contiguous(out[0]).data<int8_t>()[(o * 2 + p) * 2 + q]) == want, o << p << q);
        }
  }
  {
    Model m(13);
    m.input("a", {3, 2}, onnx::TensorProto::UINT8);
    m.input("b", {2, 2}, onnx::TensorProto::UINT8);
    auto* az = m.g->add_initializer();
    az->set_name("az"), az->set_data_type(onnx::TensorProto::UINT8), az->add_dims(3);
    for (int v : {1, 2, 3}) az->add_int32_data(v);
    auto* bz = m.g->add_initializer();
    bz->set_name("bz"), bz->set_data_type(onnx::TensorProto::UINT8), bz->add_dims(2);
    for (int v : {200, 0}) bz->add_int32_data(v);
    m.output("y", 2, onnx::TensorProto::INT32);
    m.node("MatMulInteger", {"a", "b", "az", "bz"}, {"y"});
    Tensor a = u8({3, 2}, [](int64_t i) { return int(i * 50); }), b = u8({2, 2}, [](int64_t i) { return int(255 - i); });
    auto out = run(m.program(), {a, b});
    Tensor y = contiguous(out[0]);
    const int azv[] = {1, 2, 3}, bzv[] = {200, 0};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 2; ++j) {
        int want = 0;
        for (int k = 0; k < 2; ++k)
          want += (a.data<uint8_t>()[i * 2 + k] - azv[i]) * (b.data<uint8_t>()[k * 2 + j] - bzv[j]);
        BOOST_TEST(y.data<int32_t>()[i * 2 + j] == want);
      }
  }
}

BOOST_AUTO_TEST_CASE(matmul_of_two_vectors_is_an_onnx_scalar) {
  Model m(13);
  m.input("a", {3});
  m.input("b", {3});
  m.output("y", 0);
  m.node("MatMul", {"a", "b"}, {"y"});
  auto out = run(m.program(), {f32({3}, [](int64_t i) { return float(i + 1); }),
                               f32({3}, [](int64_t) { return 2.0f; })});
  check_close(values(out[0]), {12});
}

BOOST_AUTO_TEST_CASE(activations_on_their_edges) {
  struct Case {
    std::string op;
    std::function<float(float)> f;
  };
  std::vector<Case> cases = {
      {"Softplus", [](float v) { return float(std::log1p(std::exp(double(v)))); }},
      {"Ceil", [](float v) { return std::ceil(v); }},
      {"HardSwish", [](float v) { return v * std::clamp(v / 6 + 0.5f, 0.0f, 1.0f); }},
      {"Softsign", [](float v) { return v / (1 + std::fabs(v)); }},
  };
  const std::vector<float> xs = {-100, -3.5f, -0.5f, 0, 0.5f, 2.5f, 3, 100};
  for (const Case& cs : cases) {
    Model m(14);
    m.input("x", {int64_t(xs.size())});
    m.output("y", 1);
    m.node(cs.op, {"x"}, {"y"});
    auto out = run(m.program(), {f32({int64_t(xs.size())}, [&](int64_t i) { return xs[std::size_t(i)]; })});
    std::vector<float> want;
    for (float v : xs) want.push_back(cs.f(v));
    BOOST_TEST_CONTEXT(cs.op) { check_close(values(out[0]), want); }
  }
}

BOOST_AUTO_TEST_SUITE_END()
