// conv2d's 1-D Winograd F(2, 3) path (kernels/conv_winograd_1d.hpp) against a naive
// long-double loop written from conv2d's definition: 1x3 windows through conv2d itself (odd
// channel counts, padding of 0, 1 and 2 on either side, rows of 2 to 40 outputs, batches of
// small planes that share a band and large planes split in bands, bias or none, strided
// views, an empty batch, every SIMD level, one and two threads giving the same bits), 3x1
// ones likewise, and both axes called directly, with a fused clamp and a fused leaky relu. Which shapes take the
// path is checked too (takes_winograd_1d).
//
// The bound: F(2, 3) sums the same products through transforms that add and halve, so each
// output's error is the direct sum's scaled by a small constant, plus the rounding of the
// tile's other inputs (Bᵀ mixes the 4 inputs of a tile into each output): within
// 4 (√K + 2) u (Σ|products| + Σ over channels of |tile|·max|w|), as for the 2-D tiles
// (tests/kernels/conv_winograd_test.cpp).
#include <boost/test/unit_test.hpp>

#include <array>
#include <cmath>

#include "kernels/conv_winograd_1d.hpp"
#include "kernels/fused_activation.hpp"
#include "kernels/op_api.hpp"
#include "kernels/simd/cpu_features.hpp"
#include "nn_test_util.hpp"
#include "simd_test_support.hpp"

using namespace mlvm;
using namespace nn_test;

namespace {

struct Wino1dCase {
  Dims x, w;                   // w: oc x c x 1 x 3 (or 3 x 1 for the direct calls)
  std::array<int64_t, 4> pad;  // top, left, bottom, right
};

// Windows conv2d sends to the path (1x3: C·OC >= 24·48; 3x1: C·OC >= 72·72).
const std::vector<Wino1dCase>& wino1d_cases() {
  static const std::vector<Wino1dCase> c = {
      {{2, 24, 9, 32}, {48, 24, 1, 3}, {0, 1, 0, 1}},    // the embedding CNN's padding, batch 2
      {{1, 33, 5, 14}, {40, 33, 1, 3}, {0, 0, 0, 0}},    // unpadded, odd channel counts
      {{3, 20, 4, 5}, {61, 20, 1, 3}, {0, 2, 0, 1}},     // asymmetric, odd input width: 6 outputs
      {{2, 17, 3, 1}, {70, 17, 1, 3}, {0, 2, 0, 1}},     // one input column: every tile mostly padding
      {{1, 16, 300, 40}, {80, 16, 1, 3}, {0, 1, 0, 1}},  // a large plane: bands inside the image
      {{5, 96, 2, 2}, {96, 96, 1, 3}, {0, 1, 0, 1}},     // small planes: images share a band
      {{3, 72, 6, 4}, {80, 72, 3, 1}, {0, 0, 0, 0}},     // 3x1, unpadded, small planes
      {{1, 73, 9, 5}, {75, 73, 3, 1}, {1, 0, 2, 0}},     // 3x1, padded unevenly: 10 rows
      {{1, 72, 130, 3}, {72, 72, 3, 1}, {1, 0, 1, 0}},   // 3x1, a tall plane in bands
  };
  return c;
}

int64_t out_len(int64_t in, int64_t p0, int64_t p1, int64_t k) { return in + p0 + p1 - k + 1; }

struct Wino1dRef {
  Dims shape;
  std::vector<long double> value, bound;
};

// y[n, o, p, q] = b[o] + Σ over (c, i, j) of x[n, c, p - top + i, q - left + j] · w[o, c, i, j],
// out-of-range input positions being 0.
Wino1dRef naive_1d(const Tensor& x, const Tensor& w, const Tensor* b, const Wino1dCase& c) {
  const int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3), OC = w.dim(0), KH = w.dim(2), KW = w.dim(3);
  const int64_t OH = out_len(H, c.pad[0], c.pad[2], KH), OW = out_len(W, c.pad[1], c.pad[3], KW);
  const bool along_h = KH == 3;
  Wino1dRef r;
  r.shape = Dims{N, OC, OH, OW};
  const long double u = 6e-8L, K = (long double)(C * 3);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < OC; ++o)
      for (int64_t p = 0; p < OH; ++p)
        for (int64_t q = 0; q < OW; ++q) {
          long double s = 0, mag = 0, tile = 0;
          for (int64_t ci = 0; ci < C; ++ci) {
            long double wmax = 0, xs = 0;
            for (int64_t t = 0; t < 3; ++t) {
              const int64_t i = along_h ? t : 0, j = along_h ? 0 : t;
              const std::array<int64_t, 4> wi{o, ci, i, j};
              wmax = std::max<long double>(wmax, std::fabs(w.get_double(wi)));
              const int64_t ih = p - c.pad[0] + i, iw = q - c.pad[1] + j;
              if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
              const std::array<int64_t, 4> xi{n, ci, ih, iw};
              const long double v = (long double)x.get_double(xi) * w.get_double(wi);
              s += v;
              mag += v < 0 ? -v : v;
            }
            // The 4 inputs of this output's tile (pairs of outputs along the axis).
            for (int64_t t = 0; t < 4; ++t) {
              const int64_t ih = along_h ? p / 2 * 2 - c.pad[0] + t : p, iw = along_h ? q : q / 2 * 2 - c.pad[1] + t;
              if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
              const std::array<int64_t, 4> xi{n, ci, ih, iw};
              xs += std::fabs(x.get_double(xi));
            }
            tile += wmax * xs;
          }
          if (b) {
            const std::array<int64_t, 1> bi{o};
            s += b->get_double(bi);
            mag += std::fabs(b->get_double(bi));
          }
          r.value.push_back(s);
          r.bound.push_back(4 * (std::sqrt(K) + 2) * u * (mag + tile) + 1e-30L);
        }
  return r;
}

// `act`: the fused activation applied to the reference (clamp or leaky), or null.
void expect_near_1d(const Tensor& y, const Wino1dRef& r, const FusedActivation* act = nullptr) {
  BOOST_REQUIRE(y.shape() == r.shape);
  std::size_t e = 0;
  int bad = 0;
  for_each_index(r.shape, [&](const std::vector<int64_t>& idx) {
    long double want = r.value[e], bound = r.bound[e];
    if (act && act->kind == FusedActivation::Kind::clamp) want = want < act->lo ? act->lo : want > act->hi ? act->hi : want;
    if (act && act->kind == FusedActivation::Kind::leaky) {
      if (want < 0) want *= act->alpha;
      if (want < act->floor) want = act->floor;
    }
    if (!(std::fabs((long double)y.get_double(idx) - want) <= bound) && bad++ < 3)
      BOOST_ERROR("element " << e << ": got " << y.get_double(idx) << ", want " << double(want) << " within "
                             << double(bound));
    ++e;
  });
  BOOST_TEST(bad == 0);
}

std::vector<AttrValue> attrs_1d(const Wino1dCase& c) {
  return {ints({c.pad[0], c.pad[1], c.pad[2], c.pad[3]}), ints({1, 1}), ints({1, 1}), integer(1)};
}

ConvParams params_1d(std::array<int64_t, 4> pad, int64_t stride = 1, int64_t dil = 1, int64_t groups = 1) {
  return ConvParams{pad[0], pad[1], pad[2], pad[3], stride, stride, dil, dil, groups};
}

// conv_winograd_1d called directly on contiguous x, w (either axis) with `act` fused.
Tensor run_direct_1d(const Tensor& x, const Tensor& w, const Tensor* b, const Wino1dCase& c,
                     const FusedActivation* act, ThreadPool* pool) {
  const bool along_h = w.dim(2) == 3;
  const int64_t oh = out_len(x.dim(2), c.pad[0], c.pad[2], w.dim(2)), ow = out_len(x.dim(3), c.pad[1], c.pad[3], w.dim(3));
  Tensor y = Tensor::empty(DType::f32, Dims{x.dim(0), w.dim(0), oh, ow});
  ExecEnv env;
  env.pool = pool;
  conv_winograd_1d({along_h, x.dim(0), x.dim(1), x.dim(2), x.dim(3), w.dim(0), oh, ow, along_h ? c.pad[0] : c.pad[1],
                    x.data<float>(), w.data<float>(), b ? b->data<float>() : nullptr, b ? b->strides()[0] : 0, act,
                    y.data<float>()},
                   env);
  return y;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(conv2d_winograd_1d)

BOOST_AUTO_TEST_CASE(which_shapes_apply) {
  for (const Wino1dCase& c : wino1d_cases()) {
    const int64_t oh = out_len(c.x[2], c.pad[0], c.pad[2], c.w[2]), ow = out_len(c.x[3], c.pad[1], c.pad[3], c.w[3]);
    BOOST_TEST(takes_winograd_1d(c.w[1], c.w[0], c.w[2], c.w[3], params_1d(c.pad), oh, ow));
  }
  const auto p1 = params_1d({0, 1, 0, 1});
  BOOST_TEST(takes_winograd_1d(48, 48, 1, 3, p1, 34, 16));
  BOOST_TEST(!takes_winograd_1d(24, 24, 1, 3, p1, 74, 32));                     // C·OC too small
  BOOST_TEST(!takes_winograd_1d(15, 96, 1, 3, p1, 74, 32));                     // too few input channels
  BOOST_TEST(!takes_winograd_1d(96, 15, 1, 3, p1, 74, 32));                     // too few output channels
  BOOST_TEST(!takes_winograd_1d(48, 48, 1, 3, params_1d({0, 1, 0, 0}), 34, 15));  // odd output width
  BOOST_TEST(!takes_winograd_1d(48, 48, 1, 3, params_1d({1, 1, 0, 1}), 35, 16));  // padded rows
  BOOST_TEST(takes_winograd_1d(72, 72, 3, 1, params_1d({0, 0, 0, 0}), 30, 8));
  BOOST_TEST(!takes_winograd_1d(48, 72, 3, 1, params_1d({0, 0, 0, 0}), 32, 16));  // 3x1: C·OC too small
  BOOST_TEST(!takes_winograd_1d(72, 72, 3, 1, params_1d({0, 0, 0, 0}), 31, 8));   // odd output height
  BOOST_TEST(!takes_winograd_1d(72, 72, 3, 1, params_1d({0, 1, 0, 1}), 30, 10));  // padded columns
  BOOST_TEST(!takes_winograd_1d(48, 48, 3, 3, p1, 32, 16));
  BOOST_TEST(!takes_winograd_1d(48, 48, 1, 3, params_1d({0, 1, 0, 1}, 2), 17, 8));     // strided
  BOOST_TEST(!takes_winograd_1d(48, 48, 1, 3, params_1d({0, 1, 0, 1}, 1, 2), 34, 14));  // dilated
  BOOST_TEST(!takes_winograd_1d(48, 48, 1, 3, params_1d({0, 1, 0, 1}, 1, 1, 2), 34, 16));  // grouped
}

BOOST_AUTO_TEST_CASE(every_level_every_case) {
  simd_test::LevelGuard guard;
  ThreadPool pool(2);
  for (simd::Level level : simd_test::levels()) {
    simd::set_level_for_testing(level);
    std::mt19937_64 rng(41);
    for (std::size_t ci = 0; ci < wino1d_cases().size(); ++ci) {
      const Wino1dCase& c = wino1d_cases()[ci];
      BOOST_TEST_CONTEXT(simd::level_name(simd::level()) << " case " << ci) {
        const Tensor x = random_tensor(DType::f32, c.x, rng), w = random_tensor(DType::f32, c.w, rng);
        const Tensor b = random_tensor(DType::f32, Dims{c.w[0]}, rng);
        const Tensor* bias = ci % 2 ? nullptr : &b;
        std::vector<Tensor> in{x, w};
        if (bias) in.push_back(b);
        const Tensor y1 = run_op(Opcode::conv2d, in, attrs_1d(c));
        expect_near_1d(y1, naive_1d(x, w, bias, c));
        BOOST_TEST(same_bits(y1, run_op(Opcode::conv2d, in, attrs_1d(c), &pool)));
      }
    }
  }
}

// Both axes through conv_winograd_1d itself (shapes conv2d sends elsewhere too), with a fused
// clamp and the embedding CNN's leaky relu and floor, and a silu (both the same bits as
// apply_fused_after's pass over the unfused result); one and two threads the same bits.
BOOST_AUTO_TEST_CASE(both_axes_fused) {
  simd_test::LevelGuard guard;
  ThreadPool pool(2);
  const std::vector<Wino1dCase> cases = {
      {{2, 24, 10, 7}, {20, 24, 3, 1}, {0, 0, 0, 0}},   // 3x1 unpadded: 8 rows, 7 columns
      {{3, 17, 9, 5}, {19, 17, 3, 1}, {2, 0, 1, 0}},    // 3x1 padded unevenly: 10 rows
      {{1, 16, 200, 3}, {18, 16, 3, 1}, {1, 0, 1, 0}},  // 3x1, a tall plane in bands
      {{2, 16, 3, 8}, {21, 16, 1, 3}, {0, 1, 0, 1}},    // 1x3
  };
  FusedActivation clamp;
  clamp.kind = FusedActivation::Kind::clamp;
  clamp.lo = -0.5;
  clamp.hi = 0.75;
  FusedActivation leaky;
  leaky.kind = FusedActivation::Kind::leaky;
  leaky.alpha = 0.25;  // exact in f32, as the reference applies it in long double
  leaky.floor = -0.4f;
  FusedActivation silu;
  silu.kind = FusedActivation::Kind::silu;
  for (simd::Level level : simd_test::levels()) {
    simd::set_level_for_testing(level);
    std::mt19937_64 rng(42);
    for (std::size_t ci = 0; ci < cases.size(); ++ci) {
      const Wino1dCase& c = cases[ci];
      const Tensor x = random_tensor(DType::f32, c.x, rng), w = random_tensor(DType::f32, c.w, rng);
      const Tensor b = random_tensor(DType::f32, Dims{c.w[0]}, rng);
      const Wino1dRef r = naive_1d(x, w, &b, c);
      // A silu is applied after each band's images: the same bits as after the whole result.
      Tensor ys = run_direct_1d(x, w, &b, c, nullptr, nullptr);
      apply_fused_after(&silu, ys.data<float>(), ys.numel());
      BOOST_TEST(same_bits(ys, run_direct_1d(x, w, &b, c, &silu, &pool)), "silu, case " << ci);
      for (const FusedActivation* act : std::array<const FusedActivation*, 3>{nullptr, &clamp, &leaky}) {
        BOOST_TEST_CONTEXT(simd::level_name(simd::level()) << " case " << ci << " act " << (act ? int(act->kind) : -1)) {
          const Tensor y1 = run_direct_1d(x, w, &b, c, act, nullptr);
          expect_near_1d(y1, r, act);
          BOOST_TEST(same_bits(y1, run_direct_1d(x, w, &b, c, act, &pool)));
          // Fused, the same bits as the unfused result with the activation's pass after it.
          if (act == &leaky) {
            Tensor y0 = run_direct_1d(x, w, &b, c, nullptr, nullptr);
            apply_fused_after(&leaky, y0.data<float>(), y0.numel());
            BOOST_TEST(same_bits(y1, y0));
          }
        }
      }
    }
  }
}

// Flipped x, transposed w, a sliced bias: the kernel reads contiguous copies. And an empty
// batch.
BOOST_AUTO_TEST_CASE(strided_and_empty_inputs) {
  std::mt19937_64 rng(43);
  ThreadPool pool(2);
  const Wino1dCase& c = wino1d_cases()[0];
  const Tensor x = random_tensor(DType::f32, c.x, rng), w = random_tensor(DType::f32, c.w, rng);
  const Tensor b = random_tensor(DType::f32, Dims{c.w[0]}, rng);
  expect_near_1d(run_op(Opcode::conv2d,
                        {relayout(x, Layout::flipped), relayout(w, Layout::transposed), relayout(b, Layout::sliced)},
                        attrs_1d(c), &pool),
                 naive_1d(x, w, &b, c));
  const Tensor none = random_tensor(DType::f32, Dims{0, 24, 9, 32}, rng);
  const Tensor y = run_op(Opcode::conv2d, {none, w, b}, attrs_1d(c));
  BOOST_TEST((y.shape() == Dims{0, 48, 9, 32}));
}

BOOST_AUTO_TEST_SUITE_END()
