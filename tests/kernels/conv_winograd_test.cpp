// conv2d's Winograd F(4x4, 3x3) and F(2x2, 3x3) paths (kernels/conv_winograd.hpp) against a
// naive long-double loop written from conv2d's definition: partial edge tiles, asymmetric
// and wide padding, tile rows wider than a register, batches, bias, strided views, every SIMD
// level; one and two threads (on cores near or far apart: ThreadPool::far_apart) give the
// same bits (tests/vm/conv_plan_test.cpp: filters prepared at plan time, a fused clamp).
// Which shapes take the path is checked too (winograd_tile), since a wrong rule would
// silently send them elsewhere.
//
// The bound: Winograd sums the same products as the direct convolution, but through the
// transforms, whose coefficients (up to 8 in Aᵀ, 5 in Bᵀ, sixths in G) scale the rounding
// errors, and which mix the whole input patch of a tile into each of its outputs. On
// these random inputs the error stays within 4 (√K + 2) u (Σ|products| + Σ over channels of
// |patch|·max|w|), about 13 times the worst seen at any level (rounding errors of random
// signs grow like √K), while one coefficient of Aᵀ off by 1e-4 already fails it.
#include <boost/test/unit_test.hpp>

#include <array>
#include <atomic>
#include <cstring>

#include "kernels/cancel.hpp"
#include "kernels/conv_winograd.hpp"
#include "kernels/simd/cpu_features.hpp"
#include "nn_test_util.hpp"
#include "simd_test_support.hpp"

using namespace mlvm;
using namespace nn_test;

namespace {

struct WinoCase {
  Dims x, w;
  std::array<int64_t, 4> pad;  // top, left, bottom, right
  int tile;                    // the one winograd_tile must pick
};

const std::vector<WinoCase>& wino_cases() {
  static const std::vector<WinoCase> c = {
      {{1, 16, 16, 32}, {16, 16, 3, 3}, {1, 1, 1, 1}, 4},   // 4 x 4 tiles exactly: the fewest 4 x 4 ones (32)
      {{2, 17, 19, 27}, {20, 17, 3, 3}, {1, 1, 1, 1}, 4},   // partial tiles on both edges, batch 2
      {{1, 24, 30, 22}, {33, 24, 3, 3}, {0, 0, 0, 0}, 4},   // no padding, odd channel counts
      {{1, 16, 15, 29}, {16, 16, 3, 3}, {2, 0, 1, 3}, 4},   // asymmetric padding
      {{1, 16, 14, 70}, {18, 16, 3, 3}, {1, 1, 1, 1}, 4},   // 18 tiles a row: more than one register
      {{1, 16, 12, 28}, {16, 16, 3, 3}, {3, 3, 3, 3}, 4},   // padding wider than the window
      {{1, 64, 27, 25}, {40, 64, 3, 3}, {1, 1, 1, 1}, 4},   // deeper K
      {{1, 16, 14, 32}, {16, 16, 3, 3}, {1, 1, 1, 1}, 4},   // rows of whole registers of tiles only
      {{1, 16, 13, 66}, {17, 16, 3, 3}, {0, 0, 0, 0}, 4},   // whole registers, then a partial one
      {{1, 16, 7, 7}, {16, 16, 3, 3}, {1, 1, 1, 1}, 2},     // ResNet's 7 x 7: 2 x 2 tiles
      {{1, 20, 9, 10}, {17, 20, 3, 3}, {0, 0, 0, 0}, 2},    // 7 x 8: a partial tile row
      {{2, 32, 8, 8}, {24, 32, 3, 3}, {1, 0, 1, 2}, 2},     // asymmetric padding, batch 2
      {{1, 16, 11, 11}, {16, 16, 3, 3}, {1, 1, 1, 1}, 2},   // 9 4 x 4 tiles, 36 2 x 2 ones
      {{1, 48, 4, 40}, {16, 48, 3, 3}, {1, 1, 1, 1}, 2},    // 20 tiles a row: whole registers, then partial
      {{1, 16, 13, 13}, {16, 16, 3, 3}, {1, 1, 1, 1}, 2},   // 16 4 x 4 tiles (too few), 49 2 x 2 ones
      // Tile rows filling at most half a register at every level (the output transform then
      // takes registers of tiles across rows):
      {{1, 16, 16, 4}, {24, 16, 3, 3}, {1, 1, 1, 1}, 2},    // 2 x 2 tiles, 2 a row, 8 rows
      {{1, 16, 64, 8}, {16, 16, 3, 3}, {1, 1, 1, 1}, 4},    // 4 x 4 tiles, 2 a row, 16 rows
      // GEMMs transposed at AVX-512 (tiles as the 8-row side, channels as the 32-column one):
      {{1, 24, 7, 7}, {64, 24, 3, 3}, {1, 1, 1, 1}, 2},     // 16 tiles, 64 output channels
      {{2, 20, 9, 7}, {96, 20, 3, 3}, {1, 1, 1, 1}, 2},     // 20 tiles (a partial row panel), batch 2
      // Too few tile rows to split between 2 threads: far apart, they split the output
      // channels in whole register panels at every level (40 = 5 panels of 8, 6 2/3 of 6, 10 of 4).
      {{1, 16, 6, 34}, {40, 16, 3, 3}, {1, 1, 1, 1}, 2},   // 3 tile rows of 17
      // 400 tiles of 1.8 MB of V and M: bands of tile rows at 1 thread too (2 at AVX-512, 4 at
      // AVX2), each through the whole pipeline.
      {{1, 16, 80, 80}, {16, 16, 3, 3}, {1, 1, 1, 1}, 4},
  };
  return c;
}

std::vector<AttrValue> attrs_of(const WinoCase& c) {
  return {ints({c.pad[0], c.pad[1], c.pad[2], c.pad[3]}), ints({1, 1}), ints({1, 1}), integer(1)};
}

struct Ref {
  Dims shape;
  std::vector<long double> value, bound;
};

// y[n, o, p, q] = b[o] + Σ over (c, i, j) of x[n, c, p - top + i, q - left + j] · w[o, c, i, j],
// out-of-range input positions being 0.
Ref naive(const Tensor& x, const Tensor& w, const Tensor* b, const WinoCase& c) {
  const int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3), OC = w.dim(0);
  const int64_t OH = H + c.pad[0] + c.pad[2] - 2, OW = W + c.pad[1] + c.pad[3] - 2;
  Ref r;
  r.shape = Dims{N, OC, OH, OW};
  const long double u = 6e-8L, K = (long double)(C * 9);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < OC; ++o)
      for (int64_t p = 0; p < OH; ++p)
        for (int64_t q = 0; q < OW; ++q) {
          long double s = 0, mag = 0;
          for (int64_t ci = 0; ci < C; ++ci)
            for (int64_t i = 0; i < 3; ++i)
              for (int64_t j = 0; j < 3; ++j) {
                const int64_t ih = p - c.pad[0] + i, iw = q - c.pad[1] + j;
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                const std::array<int64_t, 4> xi{n, ci, ih, iw}, wi{o, ci, i, j};
                const long double t = (long double)x.get_double(xi) * w.get_double(wi);
                s += t;
                mag += t < 0 ? -t : t;
              }
          if (b) {
            const std::array<int64_t, 1> bi{o};
            s += b->get_double(bi);
            mag += std::fabs(b->get_double(bi));
          }
          // The tile's whole patch against the filter's largest tap: Winograd mixes every
          // input of the patch into each output of the tile, so an output whose own window is
          // all padding still carries the rounding of its neighbours'.
          long double patch = 0;
          const int64_t m = c.tile, p0 = p / m * m - c.pad[0], q0 = q / m * m - c.pad[1];
          for (int64_t ci = 0; ci < C; ++ci) {
            long double wmax = 0, xs = 0;
            for (int64_t i = 0; i < 3; ++i)
              for (int64_t j = 0; j < 3; ++j) {
                const std::array<int64_t, 4> wi{o, ci, i, j};
                wmax = std::max<long double>(wmax, std::fabs(w.get_double(wi)));
              }
            for (int64_t i = 0; i < m + 2; ++i)
              for (int64_t j = 0; j < m + 2; ++j) {
                const int64_t ih = p0 + i, iw = q0 + j;
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                const std::array<int64_t, 4> xi{n, ci, ih, iw};
                xs += std::fabs(x.get_double(xi));
              }
            patch += wmax * xs;
          }
          r.value.push_back(s);
          r.bound.push_back(4 * (std::sqrt(K) + 2) * u * (mag + patch) + 1e-30L);
        }
  return r;
}

// lo/hi: the fused clamp applied to the reference (none when lo > hi).
void expect_near(const Tensor& y, const Ref& r, double lo = 1, double hi = 0) {
  BOOST_REQUIRE(y.shape() == r.shape);
  std::size_t e = 0;
  int bad = 0;
  for_each_index(r.shape, [&](const std::vector<int64_t>& idx) {
    long double want = r.value[e];
    if (lo <= hi) want = want < lo ? lo : want > hi ? hi : want;
    if (!(std::fabs((long double)y.get_double(idx) - want) <= r.bound[e]) && bad++ < 3)
      BOOST_ERROR("element " << e << ": got " << y.get_double(idx) << ", want " << double(want) << " within "
                             << double(r.bound[e]));
    ++e;
  });
  BOOST_TEST(bad == 0);
}

using simd_test::LevelGuard;

ConvParams params(std::array<int64_t, 4> pad, int64_t stride = 1, int64_t dil = 1, int64_t groups = 1) {
  return ConvParams{pad[0], pad[1], pad[2], pad[3], stride, stride, dil, dil, groups};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(conv2d_winograd)

BOOST_AUTO_TEST_CASE(which_shapes_apply) {
  for (const WinoCase& c : wino_cases()) {
    const int64_t oh = c.x[2] + c.pad[0] + c.pad[2] - 2, ow = c.x[3] + c.pad[1] + c.pad[3] - 2;
    BOOST_TEST(winograd_tile(c.w[1], c.w[0], 3, 3, params(c.pad), oh, ow) == c.tile);
  }
  const auto p1 = params({1, 1, 1, 1});
  BOOST_TEST(winograd_tile(16, 16, 3, 3, p1, 13, 29) == 4);                  // 32 tiles, the last partial
  BOOST_TEST(winograd_tile(16, 16, 3, 3, p1, 13, 13) == 2);                  // 16 of 4 x 4, 49 of 2 x 2
  BOOST_TEST(winograd_tile(16, 16, 3, 3, p1, 12, 12) == 2);                  // 9 of 4 x 4, 36 of 2 x 2
  BOOST_TEST(winograd_tile(16, 16, 3, 3, p1, 7, 7) == 2);                    // 16 of 2 x 2
  BOOST_TEST(winograd_tile(16, 16, 3, 3, p1, 6, 7) == 0);                    // 12 of 2 x 2
  BOOST_TEST(winograd_tile(15, 16, 3, 3, p1, 56, 56) == 0);                  // too few input channels
  BOOST_TEST(winograd_tile(16, 15, 3, 3, p1, 56, 56) == 0);                  // too few output channels
  BOOST_TEST(winograd_tile(64, 64, 5, 5, p1, 56, 56) == 0);                  // not 3x3
  BOOST_TEST(winograd_tile(64, 64, 3, 1, p1, 56, 56) == 0);
  BOOST_TEST(winograd_tile(64, 64, 3, 3, params({1, 1, 1, 1}, 2), 28, 28) == 0);     // strided
  BOOST_TEST(winograd_tile(64, 64, 3, 3, params({1, 1, 1, 1}, 1, 2), 54, 54) == 0);  // dilated
  BOOST_TEST(winograd_tile(64, 64, 3, 3, params({1, 1, 1, 1}, 1, 1, 2), 56, 56) == 0);  // grouped
}

BOOST_AUTO_TEST_CASE(every_level_every_case) {
  LevelGuard guard;
  ThreadPool pool(2);
  for (simd::Level level : simd_test::levels()) {
    simd::set_level_for_testing(level);
    std::mt19937_64 rng(31);
    for (std::size_t ci = 0; ci < wino_cases().size(); ++ci) {
      const WinoCase& c = wino_cases()[ci];
      BOOST_TEST_CONTEXT(simd::level_name(simd::level()) << " case " << ci) {
        const Tensor x = random_tensor(DType::f32, c.x, rng), w = random_tensor(DType::f32, c.w, rng);
        const Tensor b = random_tensor(DType::f32, Dims{c.w[0]}, rng);
        const Tensor* bias = ci % 2 ? nullptr : &b;
        std::vector<Tensor> in{x, w};
        if (bias) in.push_back(b);
        const Tensor y1 = run_op(Opcode::conv2d, in, attrs_of(c));
        expect_near(y1, naive(x, w, bias, c));
        // 2 threads on cores near and far apart (the positions or the output channels split).
        for (int far : {0, 1}) {
          ThreadPool::assume_far_apart_for_testing(far);
          BOOST_TEST(same_bits(y1, run_op(Opcode::conv2d, in, attrs_of(c), &pool)), "far apart " << far);
        }
        ThreadPool::assume_far_apart_for_testing(-1);
      }
    }
  }
}

// Flipped x, transposed w, a sliced bias: the kernel reads contiguous copies.
BOOST_AUTO_TEST_CASE(strided_inputs) {
  std::mt19937_64 rng(32);
  ThreadPool pool(2);
  const WinoCase& c = wino_cases()[1];
  const Tensor x = random_tensor(DType::f32, c.x, rng), w = random_tensor(DType::f32, c.w, rng);
  const Tensor b = random_tensor(DType::f32, Dims{c.w[0]}, rng);
  expect_near(run_op(Opcode::conv2d,
                     {relayout(x, Layout::flipped), relayout(w, Layout::transposed), relayout(b, Layout::sliced)},
                     attrs_of(c), &pool),
              naive(x, w, &b, c));
}

// A host's cancel reaches inside the convolution on each of its three splits (1 thread; 2
// threads by tile rows; 2 far apart by output channels) through the polls between channels'
// transforms and the GEMM's panels, not only between images: the run raises limit
// "cancelled", and uncancelled the same call gives the same bits.
BOOST_AUTO_TEST_CASE(cancel_is_seen_inside) {
  ThreadPool pool(2);
  std::mt19937_64 rng(5);
  const WinoCase c{{1, 16, 64, 64}, {16, 16, 3, 3}, {1, 1, 1, 1}, 4};
  const std::vector<Tensor> in{random_tensor(DType::f32, c.x, rng), random_tensor(DType::f32, c.w, rng)};
  const Tensor want = run_op(Opcode::conv2d, in, attrs_of(c));
  for (int split = 0; split < 3; ++split) {
    BOOST_TEST_CONTEXT("split " << split) {
      ThreadPool::assume_far_apart_for_testing(split == 2 ? 1 : 0);
      ThreadPool* p = split ? &pool : nullptr;
      std::atomic<bool> flag{true};
      const CancelScope scope(&flag);
      BOOST_CHECK_EXCEPTION(run_op(Opcode::conv2d, in, attrs_of(c), p), Error, [](const Error& e) {
        return e.kind() == ErrorKind::limit && std::string(e.what()).find("cancelled") != std::string::npos;
      });
      flag = false;
      BOOST_TEST(same_bits(want, run_op(Opcode::conv2d, in, attrs_of(c), p)));
    }
  }
  ThreadPool::assume_far_apart_for_testing(-1);
}

BOOST_AUTO_TEST_SUITE_END()
