// resize against a reference written from ONNX's (onnx/backend/test/case/node/resize.py):
// every output element interpolated recursively over the dims (1-D interpolation of the
// interpolations of the inner dims), each 1-D step taking the n input positions nearest to
// x_original from the edge-padded data with ONNX's coefficient functions — a different
// algorithm from the kernel's separable passes. Coordinates are f32 with the coordinate
// transformation formulas of the ONNX spec (pytorch_half_pixel and align_corners on the
// output length), as ONNX Runtime computes them. Plus ONNX's documented examples, every mode,
// dtype and layout, threads, empty tensors, static rules and every error.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <tuple>

#include "nn_test_util.hpp"

using namespace mlvm;
using namespace nn_test;

namespace {

struct Opts {
  std::string mode = "nearest", coord = "half_pixel", nearest = "round_prefer_floor";
  double a = -0.75;
  bool exclude = false;
  double extrapolation = 0;
};

Attrs resize_attrs_of(const Dims& sizes, const Opts& o) {
  return attrs_named(Opcode::resize, {{"sizes", ints(std::vector<int64_t>(sizes.begin(), sizes.end()))},
                                      {"mode", str(o.mode.c_str())},
                                      {"coordinate_transformation_mode", str(o.coord.c_str())},
                                      {"nearest_mode", str(o.nearest.c_str())},
                                      {"cubic_coeff_a", floating(o.a)},
                                      {"exclude_outside", boolean(o.exclude)},
                                      {"extrapolation_value", floating(o.extrapolation)}});
}

// x_original (f32), per the ONNX spec's coordinate_transformation_mode formulas.
float coordinate(const std::string& m, float x, float scale, float out, float in, float start, float end) {
  if (m == "half_pixel") return (x + 0.5f) / scale - 0.5f;
  if (m == "pytorch_half_pixel") return out > 1 ? (x + 0.5f) / scale - 0.5f : 0.0f;
  if (m == "align_corners") return out == 1 ? 0.0f : x * (in - 1) / (out - 1);
  if (m == "asymmetric") return x / scale;
  if (m == "tf_half_pixel_for_nn") return (x + 0.5f) / scale;
  if (m == "tf_crop_and_resize")
    return out > 1 ? start * (in - 1) + (x * (end - start) * (in - 1)) / (out - 1) : float(0.5 * (start + end) * (in - 1));
  // half_pixel_symmetric (ONNX 1.16)
  const float adj = out / (scale * in);
  return float(in / 2 * (1 - adj) + (x + 0.5) / scale - 0.5);
}

// ONNX's coefficient functions.
std::vector<double> coeffs(const Opts& o, double ratio, float scale, float x) {
  if (o.mode == "linear") return {1 - ratio, ratio};
  if (o.mode == "cubic") {
    const double A = o.a, r = ratio;
    return {((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A, ((A + 2) * r - (A + 3)) * r * r + 1,
            ((A + 2) * (1 - r) - (A + 3)) * (1 - r) * (1 - r) + 1,
            ((A * ((1 - r) + 1) - 5 * A) * ((1 - r) + 1) + 8 * A) * ((1 - r) + 1) - 4 * A};
  }
  if (ratio == 1) return {0, 1};
  if (o.nearest == "round_prefer_floor") return {double(ratio <= 0.5), double(ratio > 0.5)};
  if (o.nearest == "round_prefer_ceil") return {double(ratio < 0.5), double(ratio >= 0.5)};
  if (o.nearest == "floor") return {1, 0};
  if (o.nearest == "ceil") return {0, 1};
  // simple (ONNX Runtime's Resize-10 / Upsample rounding): ceil when downsampling, else truncate
  const bool up = scale < 1 ? true : (std::trunc(x) != std::floor(x));
  return up ? std::vector<double>{0, 1} : std::vector<double>{1, 0};
}

// The n indexes nearest to x among [lo, hi), ties to the smaller (ONNX's get_neighbor_idxes on
// the padded array), in ascending order.
std::vector<int64_t> neighbours(double x, int n, int64_t lo, int64_t hi) {
  std::vector<int64_t> all;
  for (int64_t i = lo; i < hi; ++i) all.push_back(i);
  std::sort(all.begin(), all.end(), [&](int64_t a, int64_t b) {
    const double da = std::fabs(x - double(a)), db = std::fabs(x - double(b));
    return da != db ? da < db : a < b;
  });
  all.resize(std::size_t(n));
  std::sort(all.begin(), all.end());
  return all;
}

struct Ref {
  const Tensor& x;
  const Dims& out;
  const Opts& o;
  std::vector<float> scales, roi;

  double value(const std::vector<int64_t>& oi) const {
    std::vector<int64_t> ii(oi.size());
    return interp(0, oi, ii);
  }
  double interp(int d, const std::vector<int64_t>& oi, std::vector<int64_t>& ii) const {
    if (d == int(oi.size())) return x.get_double(ii);
    const int64_t in = x.dim(d);
    const float scale = scales[std::size_t(d)];
    if (scale == 1.0f && in == out[d]) {  // unchanged dims are copied (ONNX Runtime)
      ii[std::size_t(d)] = oi[std::size_t(d)];
      return interp(d + 1, oi, ii);
    }
    const float xo = coordinate(o.coord, float(oi[std::size_t(d)]), scale, float(out[d]), float(in),
                                roi.empty() ? 0.0f : roi[std::size_t(d)],
                                roi.empty() ? 1.0f : roi[std::size_t(x.rank() + d)]);
    if (o.coord == "tf_crop_and_resize" && (xo < 0 || xo > float(in - 1))) return o.extrapolation;
    const double fl = std::floor(double(xo));
    const double ratio = double(xo) == fl ? 1.0 : double(xo) - fl;
    std::vector<double> c = coeffs(o, ratio, scale, xo);
    const int n = int(c.size()), pad = (n + 1) / 2;
    const std::vector<int64_t> idx = neighbours(double(xo), n, -pad, in + pad);
    if (o.exclude && o.mode == "cubic") {  // exclude_outside applies to cubic only
      double s = 0;
      for (int k = 0; k < n; ++k) {
        if (idx[std::size_t(k)] < 0 || idx[std::size_t(k)] >= in) c[std::size_t(k)] = 0;
        s += c[std::size_t(k)];
      }
      for (double& v : c) v /= s;
    }
    double sum = 0;
    for (int k = 0; k < n; ++k) {
      if (c[std::size_t(k)] == 0) continue;
      ii[std::size_t(d)] = std::clamp<int64_t>(idx[std::size_t(k)], 0, in - 1);  // edge padding
      sum += c[std::size_t(k)] * interp(d + 1, oi, ii);
    }
    return sum;
  }
};

std::vector<double> ref_resize(const Tensor& x, const Dims& out, const Opts& o, const std::vector<float>& given_scales,
                               const std::vector<float>& roi) {
  Ref r{x, out, o, given_scales, roi};
  if (r.scales.empty())
    for (int d = 0; d < x.rank(); ++d) r.scales.push_back(float(out[d]) / float(x.dim(d)));
  std::vector<double> v;
  for_each_index(out, [&](const std::vector<int64_t>& oi) { v.push_back(r.value(oi)); });
  return v;
}

Tensor f32_vector(const std::vector<float>& v) {
  std::vector<double> d(v.begin(), v.end());
  return make(DType::f32, Dims{int64_t(v.size())}, d);
}

std::vector<double> iota(int n) {
  std::vector<double> v;
  for (int k = 1; k <= n; ++k) v.push_back(k);
  return v;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(resize_kernel)

// onnx/backend/test/case/node/resize.py and upsample.py examples (outputs as documented there,
// sizes as the importer computes them: floor(input · scale)).
BOOST_AUTO_TEST_CASE(onnx_examples) {
  Tensor x22 = make(DType::f32, Dims{1, 1, 2, 2}, {1, 2, 3, 4});
  Tensor x24 = make(DType::f32, Dims{1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  Tensor x44 = make(DType::f32, Dims{1, 1, 4, 4}, iota(16));
  auto run = [](const Tensor& x, const Dims& sizes, const Opts& o, std::vector<float> scales = {}, std::vector<float> roi = {}) {
    std::vector<Tensor> in = {x, roi.empty() ? Tensor() : f32_vector(roi)};
    if (!scales.empty()) in.push_back(f32_vector(scales));
    return run_op(Opcode::resize, in, resize_attrs_of(sizes, o));
  };
  Opts nearest, linear, cubic;
  linear.mode = "linear";
  cubic.mode = "cubic";
  // resize_upsample_scales_nearest (and Upsample's nearest example)
  expect_close(run(x22, {1, 1, 4, 6}, nearest, {1, 1, 2, 3}), Dims{1, 1, 4, 6},
               {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4}, 0, 0);
  Opts upsample;
  upsample.coord = "asymmetric";
  upsample.nearest = "simple";
  expect_close(run(x22, {1, 1, 4, 6}, upsample, {1, 1, 2, 3}), Dims{1, 1, 4, 6},
               {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4}, 0, 0);
  // resize_downsample_scales_nearest
  expect_close(run(x24, {1, 1, 1, 2}, nearest, {1, 1, 0.6f, 0.6f}), Dims{1, 1, 1, 2}, {1, 3}, 0, 0);
  // resize_upsample_sizes_nearest
  std::vector<double> want;
  for (int r = 0; r < 7; ++r)
    for (int c = 0; c < 8; ++c) want.push_back((r < 4 ? 1 : 3) + (c < 4 ? 0 : 1));
  expect_close(run(x22, {1, 1, 7, 8}, nearest), Dims{1, 1, 7, 8}, want, 0, 0);
  // resize_downsample_sizes_nearest
  expect_close(run(x24, {1, 1, 1, 3}, nearest), Dims{1, 1, 1, 3}, {1, 2, 4}, 0, 0);
  // resize_upsample_scales_linear
  expect_close(run(x22, {1, 1, 4, 4}, linear, {1, 1, 2, 2}), Dims{1, 1, 4, 4},
               {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4}, 1e-6, 0);
  // resize_upsample_scales_linear_align_corners
  Opts lac = linear;
  lac.coord = "align_corners";
  const double t = 1.0 / 3;
  expect_close(run(x22, {1, 1, 4, 4}, lac, {1, 1, 2, 2}), Dims{1, 1, 4, 4},
               {1, 1 + t, 1 + 2 * t, 2, 1 + 2 * t, 2, 2 + t, 2 + 2 * t, 2 + t, 2 + 2 * t, 3, 3 + t, 3, 3 + t, 3 + 2 * t, 4},
               1e-6, 0);
  // resize_downsample_scales_linear
  expect_close(run(x24, {1, 1, 1, 2}, linear, {1, 1, 0.6f, 0.6f}), Dims{1, 1, 1, 2}, {2.6666665, 4.3333331}, 1e-6, 0);
  // resize_downsample_scales_linear_align_corners: ONNX's reference divides by the fractional
  // output length scale · in (2.4), giving [1, 3.142857]; the spec's formula and ONNX Runtime
  // use the output length (2): x_original = 1 · 3 / 1 = 3.
  expect_close(run(x24, {1, 1, 1, 2}, lac, {1, 1, 0.6f, 0.6f}), Dims{1, 1, 1, 2}, {1, 4}, 1e-6, 0);
  // resize_downsample_sizes_linear_pytorch_half_pixel
  Opts lpt = linear;
  lpt.coord = "pytorch_half_pixel";
  expect_close(run(x44, {1, 1, 3, 1}, lpt), Dims{1, 1, 3, 1}, {1.6666666, 7, 12.333333}, 1e-6, 0);
  // resize_upsample_scales_cubic (first row)
  Tensor yc = run(x44, {1, 1, 8, 8}, cubic, {1, 1, 2, 2});
  std::vector<double> row = values(yc);
  row.resize(8);
  expect_close(make(DType::f64, Dims{8}, row), Dims{8},
               {0.47265625, 0.76953125, 1.24609375, 1.875, 2.28125, 2.91015625, 3.38671875, 3.68359375}, 1e-6, 0);
  // resize_tf_crop_and_resize, and with extrapolation_value = 10
  Opts crop = linear;
  crop.coord = "tf_crop_and_resize";
  expect_close(run(x44, {1, 1, 3, 3}, crop, {}, {0, 0, 0.4f, 0.6f, 1, 1, 0.6f, 0.8f}), Dims{1, 1, 3, 3},
               {7.6000004, 7.9, 8.2, 8.8, 9.1, 9.400001, 10, 10.3, 10.6}, 1e-6, 0);
  crop.extrapolation = 10;
  expect_close(run(x44, {1, 1, 3, 3}, crop, {}, {0, 0, 0.4f, 0.6f, 1, 1, 1.2f, 1.7f}), Dims{1, 1, 3, 3},
               {7.6000004, 10, 10, 12.400001, 10, 10, 10, 10, 10}, 1e-6, 0);
  // resize_upsample_sizes_nearest_floor_align_corners, _round_prefer_ceil_asymmetric,
  // _ceil_half_pixel (first rows)
  const std::vector<std::pair<Opts, std::vector<double>>> near = {
      {{"nearest", "align_corners", "floor"}, {1, 1, 1, 2, 2, 3, 3, 4}},
      {{"nearest", "asymmetric", "round_prefer_ceil"}, {1, 2, 2, 3, 3, 4, 4, 4}},
      {{"nearest", "half_pixel", "ceil"}, {1, 2, 2, 3, 3, 4, 4, 4}},
  };
  for (const auto& [o, first] : near) {
    std::vector<double> v = values(run(x44, {1, 1, 8, 8}, o));
    v.resize(8);
    expect_close(make(DType::f64, Dims{8}, v), Dims{8}, first, 0, 0);
  }
}

BOOST_AUTO_TEST_CASE(every_mode_against_reference) {
  std::mt19937_64 rng(91);
  ThreadPool pool(2);
  const std::vector<std::string> coords = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                           "tf_half_pixel_for_nn", "tf_crop_and_resize", "half_pixel_symmetric"};
  const std::vector<std::pair<Dims, Dims>> shapes = {
      {{1, 2, 4, 5}, {1, 2, 7, 3}}, {{2, 3, 5}, {2, 3, 9}}, {{6}, {1}}, {{3, 1, 4}, {5, 2, 4}}, {{2, 2, 3, 3}, {2, 2, 3, 8}}};
  int count = 0;
  for (const std::string mode : {"nearest", "linear", "cubic"})
    for (const std::string& coord : coords)
      for (const auto& [in, out] : shapes)
        for (int variant = 0; variant < 3; ++variant) {
          Opts o;
          o.mode = mode;
          o.coord = coord;
          o.nearest = std::vector<std::string>{"round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple"}[count % 5];
          o.a = variant == 1 ? -0.5 : -0.75;
          o.exclude = variant == 2;
          o.extrapolation = variant == 1 ? 7.5 : 0;
          const DType dt = count % 2 ? DType::f32 : DType::f64;
          const Layout l = kLayoutsNoBroadcast[count % 4];
          ++count;
          BOOST_TEST_CONTEXT(mode << " " << coord << " " << o.nearest << " " << dims_to_string(in) << " -> "
                                  << dims_to_string(out) << " variant " << variant << " " << dtype_name(dt) << " "
                                  << layout_name(l)) {
            Tensor x = random_tensor(dt, in, rng);
            std::vector<float> scales, roi;
            if (variant == 1)  // given scales that differ from out / in
              for (int d = 0; d < in.size(); ++d) scales.push_back(float(out[d]) / float(in[d]) * (out[d] == in[d] ? 1.0f : 1.1f));
            if (coord == "tf_crop_and_resize" && variant != 0) {
              for (int d = 0; d < in.size(); ++d) roi.push_back(variant == 1 ? -0.2f : 0.1f);
              for (int d = 0; d < in.size(); ++d) roi.push_back(variant == 1 ? 1.3f : 0.7f);
            }
            std::vector<Tensor> args = {relayout(x, l), roi.empty() ? Tensor() : f32_vector(roi)};
            if (!scales.empty()) args.push_back(f32_vector(scales));
            Tensor y = run_op(Opcode::resize, args, resize_attrs_of(out, o), &pool);
            BOOST_TEST(y.dtype() == dt);
            expect_close(y, out, ref_resize(x, out, o, scales, roi), dt == DType::f32 ? 1e-5 : 1e-12, 1e-5);
          }
        }
}

BOOST_AUTO_TEST_CASE(nearest_every_dtype_exact) {
  std::mt19937_64 rng(92);
  ThreadPool pool(2);
  for (DType dt : kAllDTypes)
    for (const std::string nm : {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple"}) {
      BOOST_TEST_CONTEXT(dtype_name(dt) << " " << nm) {
        Opts o;
        o.nearest = nm;
        Tensor x = random_tensor(dt, Dims{2, 3, 5, 4}, rng);
        if (dt == DType::boolean) x = make(dt, Dims{2, 3, 5, 4}, std::vector<double>(120, 1.0));
        const Dims out{2, 2, 9, 3};
        Tensor y = run_op(Opcode::resize, {relayout(x, Layout::flipped)}, resize_attrs_of(out, o), &pool);
        BOOST_TEST(y.dtype() == dt);
        const std::vector<double> want = ref_resize(x, out, o, {}, {});
        if (is_float(dt)) {
          expect_close(y, out, want, 0, 0);
        } else {
          // the reference's values are the exact integers (one tap of weight 1)
          std::vector<int64_t> wi;
          Ref r{x, out, o, {}, {}};
          for (int d = 0; d < 4; ++d) r.scales.push_back(float(out[d]) / float(x.dim(d)));
          for_each_index(out, [&](const std::vector<int64_t>& oi) {
            std::vector<int64_t> ii(4);
            // the nearest tap: the reference's interpolation with integer reads
            (void)r.interp(0, oi, ii);
            wi.push_back(x.get_int(ii));
          });
          expect_ints(y, out, wi);
        }
      }
    }
  // the integer precision of nearest is kept
  BOOST_TEST(infer_op(Opcode::resize, {tt(DType::i16, Dims{1, 4}, 9)}, resize_attrs_of({1, 8}, Opts{})).precision == 9);
}

BOOST_AUTO_TEST_CASE(identity_empty_nan_and_large) {
  ThreadPool pool(2);
  std::mt19937_64 rng(93);
  // same sizes: a copy, for every mode
  Tensor x = random_tensor(DType::f32, Dims{2, 3, 4}, rng);
  for (const std::string mode : {"nearest", "linear", "cubic"}) {
    Opts o;
    o.mode = mode;
    expect_close(run_op(Opcode::resize, {relayout(x, Layout::transposed)}, resize_attrs_of({2, 3, 4}, o)), Dims{2, 3, 4},
                 values(x), 0, 0);
  }
  // empty input dims stay empty; any zero output size gives an empty result
  BOOST_TEST(run_op(Opcode::resize, {Tensor::empty(DType::f32, Dims{0, 3})}, resize_attrs_of({0, 6}, Opts{})).shape() ==
             Dims({0, 6}));
  BOOST_TEST(run_op(Opcode::resize, {x}, resize_attrs_of({2, 0, 9}, Opts{})).shape() == Dims({2, 0, 9}));
  // NaN spreads to the outputs interpolating it
  const double nan = std::nan("");
  Opts lin;
  lin.mode = "linear";
  lin.coord = "align_corners";
  expect_close(run_op(Opcode::resize, {make(DType::f64, Dims{3}, {0, nan, 4})}, resize_attrs_of({5}, lin)), Dims{5},
               {0, nan, nan, nan, 4}, 0, 0);
  // extreme coordinates: a denormal scale sends them to +inf in f32, a NaN roi makes them NaN
  // (tf_crop_and_resize: extrapolated); nothing breaks
  for (const std::string mode : {"nearest", "linear", "cubic"}) {
    Opts o;
    o.mode = mode;
    o.coord = "asymmetric";
    o.exclude = mode == "cubic";
    Tensor y = run_op(Opcode::resize, {make(DType::f32, Dims{3}, {1, 2, 3}), Tensor(), f32_vector({1e-45f})},
                      resize_attrs_of({4}, o));
    if (mode == "cubic") expect_close(y, Dims{4}, {1, nan, nan, nan}, 0, 0);  // x = 0 is exact; the rest have no tap inside
    else expect_close(y, Dims{4}, {1, 3, 3, 3}, 0, 0);
    o.coord = "tf_crop_and_resize";
    o.extrapolation = -1;
    o.exclude = false;
    expect_close(run_op(Opcode::resize, {make(DType::f32, Dims{3}, {1, 2, 3}), f32_vector({nan, 1})}, resize_attrs_of({4}, o)),
                 Dims{4}, {-1, -1, -1, -1}, 0, 0);
  }
  // a large bilinear resize with threads equals the reference
  Tensor big = random_tensor(DType::f32, Dims{1, 3, 40, 50}, rng);
  lin.coord = "half_pixel";
  const Dims out{1, 3, 97, 33};
  expect_close(run_op(Opcode::resize, {big}, resize_attrs_of(out, lin), &pool), out, ref_resize(big, out, lin, {}, {}), 1e-5,
               1e-5);
}

// ONNX Runtime's bilinear resize (onnxruntime/core/providers/cpu/tensor/upsample.h,
// SetupUpsampleBilinear and UpsampleBilinear), restated per element: f32 distances to the two
// rows (0.5 each at the clamped edge), four products summed in ORT's order. Dynamically
// quantized models need these bits, not just these values to a tolerance.
float ort_bilinear_at(const Tensor& x, std::vector<int64_t> idx, int dy, int dx, const Dims& out,
                      const std::string& coord) {
  float w[2][2];
  int64_t rows[2][2];
  for (int k = 0; k < 2; ++k) {
    const int d = k == 0 ? dy : dx;
    const int64_t in = x.dim(d);
    const float scale = float(out[d]) / float(in);
    float c = scale == 1 ? float(idx[d]) : coordinate(coord, float(idx[d]), scale, float(out[d]), float(in), 0, 1);
    c = std::max(0.0f, std::min(c, float(in - 1)));
    const int64_t lo = std::min<int64_t>(int64_t(c), in - 1), hi = std::min<int64_t>(lo + 1, in - 1);
    rows[k][0] = lo, rows[k][1] = hi;
    w[k][0] = lo == hi ? 0.5f : std::fabs(c - float(hi));  // dx2: the weight of row lo
    w[k][1] = lo == hi ? 0.5f : std::fabs(c - float(lo));  // dx1
  }
  float sum = 0;
  bool first = true;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b) {
      const float wt = w[1][b] * w[0][a];
      if (wt == 0) continue;  // ONNX: a weight-0 tap is not read (0 * NaN stays out)
      idx[dy] = rows[0][a];
      idx[dx] = rows[1][b];
      const float term = wt * float(x.get_double(idx));
      sum = first ? term : sum + term;
      first = false;
    }
  return sum;
}

BOOST_AUTO_TEST_CASE(bilinear_f32_is_onnx_runtimes_to_the_bit) {
  std::mt19937_64 rng(94);
  ThreadPool pool(2);
  // NCHW up and down, NHWC (dims 1 and 2 of 4), rank 2 and 3, one side shrinking, the other growing
  const std::vector<std::tuple<Dims, Dims, int>> cases = {
      {{1, 3, 17, 23}, {1, 3, 40, 61}, 2}, {{2, 2, 30, 28}, {2, 2, 11, 9}, 2}, {{1, 9, 7, 5}, {1, 19, 12, 5}, 1},
      {{13, 8}, {29, 5}, 0},               {{3, 6, 10}, {3, 15, 4}, 1},      {{1, 1, 1, 4}, {1, 1, 3, 8}, 2},
      // planes of many tasks each: rows gathered once per task, the first of a task gathered afresh
      {{1, 2, 70, 301}, {1, 2, 141, 602}, 2}};
  int n = 0;
  for (const auto& [in, out, dy] : cases)
    for (const std::string coord : {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"}) {
      Opts o;
      o.mode = "linear";
      o.coord = coord;
      const Layout l = kLayoutsNoBroadcast[n++ % 4];
      BOOST_TEST_CONTEXT(dims_to_string(in) << " -> " << dims_to_string(out) << " " << coord << " " << layout_name(l)) {
        Tensor x = random_tensor(DType::f32, in, rng);
        for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
          Tensor y = run_op(Opcode::resize, {relayout(x, l)}, resize_attrs_of(out, o), p);
          int bad = 0;
          for_each_index(out, [&](const std::vector<int64_t>& oi) {
            const float want = ort_bilinear_at(x, oi, dy, dy + 1, out, coord);
            const float got = float(y.get_double(oi));
            if (std::memcmp(&want, &got, 4) != 0 && ++bad <= 3)
              BOOST_ERROR("at " << dims_to_string(Dims(oi)) << ": " << got << ", ORT gives " << want);
          });
          BOOST_TEST(bad == 0);
        }
      }
    }
  // A NaN read with weight 0 (an exact coordinate) stays out; one read with weight > 0 spreads.
  Opts o;
  o.mode = "linear";
  o.coord = "align_corners";
  const double nan = std::nan("");
  Tensor x = make(DType::f32, Dims{1, 1, 2, 3}, {1, 2, 3, 4, 5, nan});
  expect_close(run_op(Opcode::resize, {x}, resize_attrs_of({1, 1, 3, 5}, o)), Dims{1, 1, 3, 5},
               {1, 1.5, 2, 2.5, 3, 2.5, 3, 3.5, nan, nan, 4, 4.5, 5, nan, nan}, 0, 0);
}

BOOST_AUTO_TEST_CASE(static_rule_and_errors) {
  Opts o;
  TensorType t = infer_op(Opcode::resize, {tt(DType::f32, Dims{kDynamic, 3, 4, 4}), absent(), tt(DType::f32, Dims{4})},
                          resize_attrs_of({1, 3, 8, 8}, o));
  BOOST_TEST(t.dims == Dims({1, 3, 8, 8}));
  o.mode = "linear";
  expect_error([&] { infer_op(Opcode::resize, {tt(DType::i32, Dims{4})}, resize_attrs_of({8}, o)); }, ErrorKind::invalid,
               "resize: linear and cubic modes need f32 or f64 x, got i32[4]");
  expect_error([&] { infer_op(Opcode::resize, {tt(DType::f32, Dims{4, 4})}, resize_attrs_of({8}, o)); }, ErrorKind::invalid,
               "resize: sizes (8) must have one entry per dim of x f32[4, 4]");
  expect_error([&] { infer_op(Opcode::resize, {tt(DType::f32, Dims{0, 4})}, resize_attrs_of({2, 8}, o)); }, ErrorKind::invalid,
               "resize: dim 0 of x f32[0, 4] is empty and cannot be resized to 2");
  expect_error([&] { infer_op(Opcode::resize, {tt(DType::f32, Dims{4}), tt(DType::f32, Dims{3})}, resize_attrs_of({8}, o)); },
               ErrorKind::invalid, "resize: roi must be f32 or f64[2], got f32[3]");
  expect_error([&] { infer_op(Opcode::resize, {tt(DType::f32, Dims{4}), absent(), tt(DType::f64, Dims{1})}, resize_attrs_of({8}, o)); },
               ErrorKind::invalid, "resize: scales must be f32[1], got f64[1]");
  expect_error([&] { infer_op(Opcode::resize, {tt(DType::f32, Dims{4})}, resize_attrs_of({-1}, o)); }, ErrorKind::invalid,
               "attribute 'sizes' of resize");
  Opts crop;
  crop.coord = "tf_crop_and_resize";
  crop.extrapolation = 0.5;
  expect_error([&] { infer_op(Opcode::resize, {tt(DType::i32, Dims{4})}, resize_attrs_of({8}, crop)); }, ErrorKind::invalid,
               "resize: extrapolation_value 0.5 does not fit x's dtype");
  // scales are data: a non-positive one traps at run time
  expect_error([&] {
    run_op(Opcode::resize, {make(DType::f32, Dims{2}, {1, 2}), Tensor(), f32_vector({0})}, resize_attrs_of({4}, o));
  }, ErrorKind::trap, "resize: scales[0] is 0.000000; expected a finite value > 0");
  expect_error([&] { run_op(Opcode::resize, {make(DType::f32, Dims{2}, {1, 2})}, attrs_named(Opcode::resize, {{"sizes", ints({4})}, {"mode", str("bilinear")}})); },
               ErrorKind::invalid, "attribute 'mode' of resize must be one of");
}

BOOST_AUTO_TEST_SUITE_END()
