// conv2d and pooling on the layer shapes of real networks, where the fast paths start (stems
// built in bands, column-shifted planes, Winograd, depthwise register blocks, 1x1 convolutions
// run transposed, B read in place, the i8 window packer, small planes stacked, pooling's
// shifted columns), with every
// input lent flush against a guard page (run_op, common/guard_pages.hpp), at every SIMD level
// and on 1 and 2 threads. The small cases of conv_test and pool_test stay below those
// thresholds. Values against direct loops over the definitions (docs/ops.md): floats within a
// bound on the rounding of the sum, integers exactly.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <array>

#include "kernels/simd/cpu_features.hpp"
#include "nn_test_util.hpp"
#include "simd_test_support.hpp"
#include "tensor/views.hpp"

using namespace mlvm;
using namespace nn_test;

namespace {

struct Layer {
  const char* what;
  Dims x;      // N, C, H, W
  int64_t oc, kh, kw;
  std::array<int64_t, 4> pad;  // top, left, bottom, right
  int64_t stride, dilation, groups;
  bool nhwc = false;  // x lent as a channels-last view (an NHWC export's input)
};

const Layer kLayers[] = {
    {"stem 3x3/2 in bands", {1, 3, 224, 224}, 32, 3, 3, {1, 1, 1, 1}, 2, 1, 1},
    {"stem 7x7/2", {1, 3, 112, 112}, 64, 7, 7, {3, 3, 3, 3}, 2, 1, 1},
    {"winograd 64ch", {1, 64, 28, 28}, 64, 3, 3, {1, 1, 1, 1}, 1, 1, 1},
    {"winograd 16ch odd plane", {2, 16, 13, 17}, 16, 3, 3, {1, 1, 1, 1}, 1, 1, 1},
    {"depthwise 3x3", {1, 32, 56, 56}, 32, 3, 3, {1, 1, 1, 1}, 1, 1, 32},
    {"depthwise 3x3/2 odd", {1, 24, 57, 57}, 24, 3, 3, {1, 1, 1, 1}, 2, 1, 24},
    {"depthwise 5x5/2", {1, 40, 28, 28}, 40, 5, 5, {2, 2, 2, 2}, 2, 1, 40},
    {"1x1 wide plane", {1, 16, 56, 56}, 96, 1, 1, {0, 0, 0, 0}, 1, 1, 1},
    {"1x1 7x7 transposed", {1, 320, 7, 7}, 128, 1, 1, {0, 0, 0, 0}, 1, 1, 1},
    {"1x1 one pixel", {2, 1152, 1, 1}, 48, 1, 1, {0, 0, 0, 0}, 1, 1, 1},
    {"1x1/2 downsample", {1, 64, 29, 29}, 128, 1, 1, {0, 0, 0, 0}, 2, 1, 1},
    {"embedding 1ch (0,1,0,1)", {28, 1, 76, 32}, 24, 3, 3, {0, 1, 0, 1}, 1, 1, 1},
    {"embedding 24ch (0,1,0,1)", {4, 24, 37, 32}, 24, 3, 3, {0, 1, 0, 1}, 1, 1, 1},
    {"embedding NHWC input", {4, 1, 76, 32}, 24, 3, 3, {0, 1, 0, 1}, 1, 1, 1, true},
    {"dilated 3x3 d2", {1, 32, 33, 33}, 32, 3, 3, {2, 2, 2, 2}, 1, 2, 1},
    {"asymmetric pads /2", {1, 8, 31, 30}, 16, 3, 3, {1, 0, 2, 1}, 2, 1, 1},
    {"grouped", {1, 32, 20, 20}, 32, 3, 3, {1, 1, 1, 1}, 1, 1, 4},
    {"last row panel partial", {3, 5, 11, 7}, 13, 3, 3, {0, 0, 0, 0}, 1, 1, 1},
    // Small planes stacked image under image (kernels/conv_stacked.hpp): the embedding's
    // 1x3 padded and 3x1 layers, in groups of images shared by the threads (67 images of 96
    // channels: 5 groups), dilation with padding on every side, an NHWC view, no channels.
    {"stacked 1x3 (0,1,0,1) 10x2", {67, 96, 10, 2}, 96, 1, 3, {0, 1, 0, 1}, 1, 1, 1},
    {"stacked 3x1 14x4", {5, 16, 14, 4}, 13, 3, 1, {0, 0, 0, 0}, 1, 1, 1},
    {"stacked 3x3 d2 pad 2 odd", {3, 5, 9, 7}, 11, 3, 3, {2, 2, 2, 2}, 1, 2, 1},
    {"stacked 2x3 asymmetric NHWC", {4, 6, 7, 5}, 9, 2, 3, {1, 0, 0, 2}, 1, 1, 1, true},
    {"stacked no channels", {3, 0, 6, 6}, 4, 3, 3, {1, 1, 1, 1}, 1, 1, 1},
    // Kernels wider than their input, some taps reading only padding: a recognizer's 3x3 over
    // one row, a dilated one over one column, a strided 5x5 over two rows, a depthwise one
    // over one row.
    {"3x3 over one row", {1, 64, 1, 40}, 16, 3, 3, {1, 1, 1, 1}, 1, 1, 1},
    {"3x3 d2 over one column", {2, 8, 9, 1}, 8, 3, 3, {2, 2, 2, 2}, 1, 2, 1},
    {"5x5/2 over two rows", {1, 8, 2, 11}, 8, 5, 5, {2, 2, 2, 2}, 2, 1, 1},
    {"depthwise 3x3 over one row", {1, 32, 1, 24}, 32, 3, 3, {1, 1, 1, 1}, 1, 1, 32},
};

int64_t out_dim(int64_t in, int64_t p0, int64_t p1, int64_t k, int64_t d, int64_t s) {
  return (in + p0 + p1 - d * (k - 1) - 1) / s + 1;
}

// Y[n, o, p, q] = sum over (c, i, j) of pad(X)[n, g·Cg + c, p·S - top + i·D, q·S - left + j·D]
// · W[o, c, i, j]; with each sum's magnitude bound (sum of |terms|) for the float tolerance.
void ref_conv(const Layer& l, const std::vector<double>& x, const std::vector<double>& w, int64_t oh, int64_t ow,
              std::vector<double>& y, std::vector<double>& bound) {
  const int64_t n = l.x[0], c = l.x[1], h = l.x[2], wd = l.x[3], cg = c / l.groups, ocg = l.oc / l.groups;
  y.assign(std::size_t(n * l.oc * oh * ow), 0.0);
  bound.assign(y.size(), 0.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < l.oc; ++o)
      for (int64_t ci = 0; ci < cg; ++ci)
        for (int64_t i = 0; i < l.kh; ++i)
          for (int64_t j = 0; j < l.kw; ++j) {
            const double wv = w[std::size_t(((o * cg + ci) * l.kh + i) * l.kw + j)];
            const int64_t ch = o / ocg * cg + ci;
            for (int64_t p = 0; p < oh; ++p) {
              const int64_t ih = p * l.stride - l.pad[0] + i * l.dilation;
              if (ih < 0 || ih >= h) continue;
              const double* xr = &x[std::size_t(((b * c + ch) * h + ih) * wd)];
              double* yr = &y[std::size_t(((b * l.oc + o) * oh + p) * ow)];
              double* br = &bound[std::size_t(((b * l.oc + o) * oh + p) * ow)];
              for (int64_t q = 0; q < ow; ++q) {
                const int64_t iw = q * l.stride - l.pad[1] + j * l.dilation;
                if (iw < 0 || iw >= wd) continue;
                yr[q] += xr[iw] * wv;
                br[q] += std::abs(xr[iw] * wv);
              }
            }
          }
}

// x in NCHW order seen through an NHWC buffer: the view an NHWC-exported model's transpose gives.
Tensor channels_last_view(const Tensor& x) {
  const std::vector<int64_t> to_nhwc{0, 2, 3, 1}, back{0, 3, 1, 2};
  return transpose(contiguous(transpose(x, to_nhwc)), back);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(conv_pool_sweep)

BOOST_AUTO_TEST_CASE(conv2d_layers_of_real_networks) {
  simd_test::LevelGuard guard;
  ThreadPool two(2);
  std::mt19937_64 rng(47);
  for (const Layer& l : kLayers)
    for (DType dt : {DType::f32, DType::i8}) {
      const int64_t cg = l.x[1] / l.groups;
      Tensor x = random_tensor(dt, l.x, rng, -100, 100), w = random_tensor(dt, Dims{l.oc, cg, l.kh, l.kw}, rng, -100, 100);
      if (l.nhwc) x = channels_last_view(x);
      const int64_t oh = out_dim(l.x[2], l.pad[0], l.pad[2], l.kh, l.dilation, l.stride);
      const int64_t ow = out_dim(l.x[3], l.pad[1], l.pad[3], l.kw, l.dilation, l.stride);
      std::vector<double> want, bound;
      ref_conv(l, values(x), values(w), oh, ow, want, bound);
      const std::vector<AttrValue> attrs{ints({l.pad[0], l.pad[1], l.pad[2], l.pad[3]}), ints({l.stride, l.stride}),
                                         ints({l.dilation, l.dilation}), integer(l.groups)};
      for (simd::Level level : simd_test::levels())
        for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), &two})
          BOOST_TEST_CONTEXT(l.what << ", " << dtype_name(dt) << ", " << simd::level_name(level) << ", "
                                    << (pool ? 2 : 1) << " threads") {
            simd::set_level_for_testing(level);
            const Tensor y = run_op(Opcode::conv2d, {x, w, Tensor()}, attrs_for(Opcode::conv2d, attrs), pool);
            BOOST_REQUIRE(y.shape() == Dims({l.x[0], l.oc, oh, ow}));
            const std::vector<double> got = values(y);
            int64_t bad = 0;
            for (std::size_t e = 0; e < got.size(); ++e)
              bad += dt == DType::f32 ? std::abs(got[e] - want[e]) > 1e-5 * bound[e] + 1e-6 : got[e] != want[e];
            BOOST_TEST(bad == 0);
          }
    }
}

struct PoolLayer {
  const char* what;
  Dims x;
  int64_t k, stride;
  std::array<int64_t, 4> pad;
  bool ceil_mode;
};

const PoolLayer kPools[] = {
    {"resnet 3x3/2 pad 1", {1, 64, 112, 112}, 3, 2, {1, 1, 1, 1}, false},
    {"squeezenet 3x3/2 ceil", {1, 64, 111, 111}, 3, 2, {0, 0, 0, 0}, true},
    {"2x2/2 odd plane", {2, 16, 57, 55}, 2, 2, {0, 0, 0, 0}, false},
    {"3x3/1 pad 1", {1, 24, 30, 29}, 3, 1, {1, 1, 1, 1}, false},
    {"7x7 global", {2, 96, 7, 7}, 7, 1, {0, 0, 0, 0}, false},
};

// Max (or the average over the window's positions inside the unpadded input) of each window.
std::vector<double> ref_pool(const PoolLayer& l, const std::vector<double>& x, bool is_max, int64_t oh, int64_t ow) {
  const int64_t n = l.x[0] * l.x[1], h = l.x[2], w = l.x[3];
  std::vector<double> y;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t p = 0; p < oh; ++p)
      for (int64_t q = 0; q < ow; ++q) {
        double acc = is_max ? -1e300 : 0.0;
        int64_t count = 0;
        for (int64_t i = 0; i < l.k; ++i)
          for (int64_t j = 0; j < l.k; ++j) {
            const int64_t ih = p * l.stride - l.pad[0] + i, iw = q * l.stride - l.pad[1] + j;
            if (ih < 0 || ih >= h || iw < 0 || iw >= w) continue;
            const double v = x[std::size_t((b * h + ih) * w + iw)];
            acc = is_max ? std::max(acc, v) : acc + v;
            ++count;
          }
        y.push_back(is_max ? acc : acc / double(count));
      }
  return y;
}

BOOST_AUTO_TEST_CASE(pooling_layers_of_real_networks) {
  simd_test::LevelGuard guard;
  ThreadPool two(2);
  std::mt19937_64 rng(48);
  for (const PoolLayer& l : kPools) {
    const Tensor x = random_tensor(DType::f32, l.x, rng);
    const int64_t span_h = l.x[2] + l.pad[0] + l.pad[2] - l.k, span_w = l.x[3] + l.pad[1] + l.pad[3] - l.k;
    const int64_t oh = (l.ceil_mode ? (span_h + l.stride - 1) : span_h) / l.stride + 1;
    const int64_t ow = (l.ceil_mode ? (span_w + l.stride - 1) : span_w) / l.stride + 1;
    const std::vector<double> xs = values(x);
    for (bool is_max : {true, false}) {
      const std::vector<double> want = ref_pool(l, xs, is_max, oh, ow);
      std::vector<AttrValue> attrs{ints({l.k, l.k}), ints({l.stride, l.stride}),
                                   ints({l.pad[0], l.pad[1], l.pad[2], l.pad[3]}), ints({1, 1}), boolean(l.ceil_mode)};
      const Opcode op = is_max ? Opcode::max_pool2d : Opcode::avg_pool2d;
      for (simd::Level level : simd_test::levels())
        for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), &two})
          BOOST_TEST_CONTEXT(l.what << (is_max ? ", max, " : ", avg, ") << simd::level_name(level) << ", "
                                    << (pool ? 2 : 1) << " threads") {
            simd::set_level_for_testing(level);
            const Tensor y = run_op(op, {x}, attrs_for(op, attrs), pool);
            BOOST_REQUIRE(y.shape() == Dims({l.x[0], l.x[1], oh, ow}));
            const std::vector<double> got = values(y);
            int64_t bad = 0;
            for (std::size_t e = 0; e < got.size(); ++e) bad += std::abs(got[e] - want[e]) > 1e-6;
            BOOST_TEST(bad == 0);
          }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
