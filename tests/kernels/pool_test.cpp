// max_pool2d, avg_pool2d and upsampling against references written from docs/ops.md ("max_pool2d",
// "avg_pool2d", "upsampling"), index by index: the CVM formalization's test grids (sampled;
// ../shared/seeds/README.md), padding, ceil_mode windows dropped and kept, dilation, every dtype,
// NaN, strided inputs, threads, empty batch, static rules, every error.
#include <boost/test/unit_test.hpp>

#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <tuple>

#include "nn_test_util.hpp"

using namespace mlvm;
using namespace nn_test;

namespace {

struct Pool {
  std::array<int64_t, 2> size, stride;
  std::array<int64_t, 4> pad;  // top, left, bottom, right
  std::array<int64_t, 2> dilation;
  bool ceil_mode = false;
  bool include_pad = false;
};

int64_t ref_out_dim(int64_t in, int64_t p0, int64_t p1, int64_t k, int64_t d, int64_t s, bool ceil_mode) {
  const double v = double(in + p0 + p1 - d * (k - 1) - 1) / double(s);
  int64_t out = int64_t(ceil_mode ? std::ceil(v) : std::floor(v)) + 1;
  if (ceil_mode && (out - 1) * s >= in + p0) out -= 1;  // window starting past input + leading pad
  return out;
}

// max: padded cells hold the lowest value; NaN wins. avg: mean over counted cells.
Expected ref_pool(const Tensor& x, const Pool& p, bool is_max, Dims* shape) {
  const int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3);
  const int64_t OH = ref_out_dim(H, p.pad[0], p.pad[2], p.size[0], p.dilation[0], p.stride[0], p.ceil_mode);
  const int64_t OW = ref_out_dim(W, p.pad[1], p.pad[3], p.size[1], p.dilation[1], p.stride[1], p.ceil_mode);
  *shape = Dims{N, C, OH, OW};
  Expected e;
  const bool fl = is_float(x.dtype());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < OH; ++i)
        for (int64_t j = 0; j < OW; ++j) {
          double best = -std::numeric_limits<double>::infinity();
          int64_t best_i = std::numeric_limits<int64_t>::min();
          bool nan = false;
          double sum = 0;
          int64_t counted = 0;
          for (int64_t a = 0; a < p.size[0]; ++a)
            for (int64_t b = 0; b < p.size[1]; ++b) {
              const int64_t h = i * p.stride[0] - p.pad[0] + a * p.dilation[0];
              const int64_t w = j * p.stride[1] - p.pad[1] + b * p.dilation[1];
              const bool inside = h >= 0 && h < H && w >= 0 && w < W;
              const bool in_padded = h >= -p.pad[0] && h < H + p.pad[2] && w >= -p.pad[1] && w < W + p.pad[3];
              if (!inside) {
                if (p.include_pad && in_padded) ++counted;
                continue;
              }
              std::array<int64_t, 4> xi{n, c, h, w};
              const double v = x.get_double(xi);
              if (std::isnan(v)) nan = true;
              best = std::max(best, v);
              best_i = std::max(best_i, x.get_int(xi));
              sum += v;
              ++counted;
            }
          if (is_max) {
            e.f.push_back(nan ? std::nan("") : best);
            int64_t lowest = 0;
            visit_dtype(x.dtype(), [&](auto tag) {
              using T = storage_t<typename decltype(tag)::type>;
              lowest = int64_t(std::numeric_limits<T>::lowest());
            });
            e.i.push_back(fl ? 0 : (best_i == std::numeric_limits<int64_t>::min() ? lowest : best_i));
          } else {
            e.f.push_back(sum / double(counted));
            e.i.push_back(0);
          }
        }
  return e;
}

std::vector<AttrValue> pool_attrs(const Pool& p, bool avg) {
  std::vector<AttrValue> a = {ints({p.size[0], p.size[1]}), ints({p.stride[0], p.stride[1]}),
                              ints({p.pad[0], p.pad[1], p.pad[2], p.pad[3]}), ints({p.dilation[0], p.dilation[1]}),
                              boolean(p.ceil_mode)};
  if (avg) a.push_back(boolean(p.include_pad));
  return a;
}

// Y[n, c, h, w] = X[n, c, floor(h / sh), floor(w / sw)]
Expected ref_upsampling(const Tensor& x, int64_t sh, int64_t sw, Dims* shape) {
  *shape = Dims{x.dim(0), x.dim(1), x.dim(2) * sh, x.dim(3) * sw};
  Expected e;
  for_each_index(*shape, [&](const std::vector<int64_t>& o) {
    std::array<int64_t, 4> xi{o[0], o[1], o[2] / sh, o[3] / sw};
    e.f.push_back(x.get_double(xi));
    e.i.push_back(x.get_int(xi));
  });
  return e;
}

const std::vector<Pool>& pool_cases() {
  static const std::vector<Pool> c = {
      {{2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}, false, false},
      {{3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, false, false},
      {{3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, true, false},
      {{3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, true, true},
      {{2, 3}, {1, 2}, {1, 0, 0, 2}, {1, 1}, false, true},   // 4-tuple padding
      {{2, 2}, {3, 3}, {1, 1, 1, 1}, {2, 2}, true, false},   // dilation, ceil
      {{3, 2}, {2, 3}, {2, 1, 2, 1}, {2, 1}, true, true},
      {{1, 2}, {1, 2}, {0, 0, 0, 0}, {1, 1}, true, false},   // the CVM grids' pool_size (1, 2)
      {{4, 4}, {1, 1}, {3, 3, 3, 3}, {1, 1}, false, true},   // windows mostly padding
      {{2, 2}, {2, 2}, {1, 1, 1, 1}, {1, 1}, true, false},
  };
  return c;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(pool_kernels)

BOOST_AUTO_TEST_CASE(max_pool_every_dtype_every_case) {
  std::mt19937_64 rng(21);
  for (DType dt : kNumericDTypes)
    for (std::size_t ci = 0; ci < pool_cases().size(); ++ci) {
      BOOST_TEST_CONTEXT(dtype_name(dt) << " case " << ci) {
        const Pool& p = pool_cases()[ci];
        Tensor x = random_tensor(dt, Dims{2, 3, 7, 8}, rng);
        Dims shape;
        Expected e = ref_pool(x, p, true, &shape);
        Tensor y = run_op(Opcode::max_pool2d, {x}, pool_attrs(p, false));
        BOOST_TEST(y.dtype() == dt);
        expect_values(y, shape, e);
        BOOST_TEST(infer_op(Opcode::max_pool2d, {type_of(x)}, pool_attrs(p, false)).dims == shape);
      }
    }
}

BOOST_AUTO_TEST_CASE(avg_pool_both_divisors) {
  std::mt19937_64 rng(22);
  for (DType dt : {DType::f32, DType::f64})
    for (std::size_t ci = 0; ci < pool_cases().size(); ++ci)
      for (bool inc : {false, true}) {
        BOOST_TEST_CONTEXT(dtype_name(dt) << " case " << ci << " include_pad " << inc) {
          Pool p = pool_cases()[ci];
          p.include_pad = inc;
          Tensor x = random_tensor(dt, Dims{2, 3, 7, 8}, rng);
          Dims shape;
          Expected e = ref_pool(x, p, false, &shape);
          expect_values(run_op(Opcode::avg_pool2d, {x}, pool_attrs(p, true)), shape, e);
        }
      }
}

BOOST_AUTO_TEST_CASE(hand_computed_ceil_mode) {
  // H = W = 5, pool 2, stride 2, no padding: floor gives 2, ceil 3 (the last window starts at
  // 4 < 5: kept, holding one real cell per row).
  std::vector<double> v(25);
  for (int k = 0; k < 25; ++k) v[k] = k;
  Tensor x = make(DType::f32, Dims{1, 1, 5, 5}, v);
  auto attrs = [](std::vector<int64_t> pad, bool ceil, bool inc, bool avg) {
    std::vector<AttrValue> a = {ints({2}), none(), ints(pad), ints({1}), boolean(ceil)};
    if (avg) a.push_back(boolean(inc));
    return a;
  };
  expect_close(run_op(Opcode::max_pool2d, {x}, attrs({0}, false, false, false)), Dims{1, 1, 2, 2}, {6, 8, 16, 18}, 0, 0);
  expect_close(run_op(Opcode::max_pool2d, {x}, attrs({0}, true, false, false)), Dims{1, 1, 3, 3},
               {6, 8, 9, 16, 18, 19, 21, 23, 24}, 0, 0);
  // ceil avg: the edge windows count only real cells, even with count_include_pad (no padding
  // exists here; the cells past the input are ceil_mode's, never counted)
  expect_close(run_op(Opcode::avg_pool2d, {x}, attrs({0}, true, true, true)), Dims{1, 1, 3, 3},
               {3, 5, 6.5, 13, 15, 16.5, 20.5, 22.5, 24}, 0, 0);
  // padding 1 and ceil: num = 5 + 2 - 2 = 5, ceil(5/2) + 1 = 4, but window 3 would start at
  // 6 - 1 = 5 = H (past the input and its leading padding): dropped, 3 remain.
  Tensor y = run_op(Opcode::max_pool2d, {x}, attrs({1}, true, false, false));
  expect_close(y, Dims{1, 1, 3, 3}, {0, 2, 4, 10, 12, 14, 20, 22, 24}, 0, 0);
  // avg with padding 1: corner window has 1 real cell of 4 padded ones
  expect_close(run_op(Opcode::avg_pool2d, {x}, attrs({1}, false, false, true)), Dims{1, 1, 3, 3},
               {0, 1.5, 3.5, 7.5, 9, 11, 17.5, 19, 21}, 0, 0);
  expect_close(run_op(Opcode::avg_pool2d, {x}, attrs({1}, false, true, true)), Dims{1, 1, 3, 3},
               {0, 0.75, 1.75, 3.75, 9, 11, 8.75, 19, 21}, 0, 0);
  // H = 6, pool 2, stride 2, padding 1, ceil: num = 6, ceil(6/2) + 1 = 4; window 3 starts at
  // 6 - 1 = 5 < 6: kept (it covers row 5 and the bottom padding).
  Tensor x6 = make(DType::f32, Dims{1, 1, 6, 1}, {1, 2, 3, 4, 5, 6});
  auto a6 = [](bool inc) {
    return std::vector<AttrValue>{ints({2, 1}), none(), ints({1, 0}), ints({1}), boolean(true), boolean(inc)};
  };
  expect_close(run_op(Opcode::max_pool2d, {x6}, {ints({2, 1}), none(), ints({1, 0}), ints({1}), boolean(true)}),
               Dims{1, 1, 4, 1}, {1, 3, 5, 6}, 0, 0);
  expect_close(run_op(Opcode::avg_pool2d, {x6}, a6(false)), Dims{1, 1, 4, 1}, {1, 2.5, 4.5, 6}, 0, 0);
  expect_close(run_op(Opcode::avg_pool2d, {x6}, a6(true)), Dims{1, 1, 4, 1}, {0.5, 2.5, 4.5, 3}, 0, 0);
}

BOOST_AUTO_TEST_CASE(padding_never_wins_and_nan_propagates) {
  // All-negative integers: the padded cells (lowest value, not 0) must not win.
  Tensor x = make(DType::i8, Dims{1, 1, 2, 2}, {-128, -100, -50, -128});
  std::vector<AttrValue> a = {ints({2}), ints({1}), ints({1}), ints({1}), boolean(false)};
  expect_ints(run_op(Opcode::max_pool2d, {x}, a), Dims{1, 1, 3, 3}, {-128, -100, -100, -50, -50, -100, -50, -50, -128});
  Tensor xf = make(DType::f64, Dims{1, 1, 2, 2}, {-1e300, -2e300, -3e300, -4e300});
  expect_close(run_op(Opcode::max_pool2d, {xf}, a), Dims{1, 1, 3, 3},
               {-1e300, -1e300, -2e300, -1e300, -1e300, -2e300, -3e300, -3e300, -4e300}, 0, 0);
  // A window whose dilated taps all fall in the padding holds the lowest value (-inf).
  Tensor x1 = make(DType::f32, Dims{1, 1, 1, 1}, {5});
  std::vector<AttrValue> d = {ints({2, 1}), ints({1}), ints({1, 0, 3, 0}), ints({3, 1}), boolean(false)};
  // taps at -1 and 2: both outside H = 1; then at 0 and 3
  expect_close(run_op(Opcode::max_pool2d, {x1}, d), Dims{1, 1, 2, 1}, {-INFINITY, 5}, 0, 0);
  // NaN anywhere in a window gives NaN, wherever it sits in the window
  const double nan = std::nan("");
  Tensor xn = make(DType::f32, Dims{1, 1, 2, 4}, {1, nan, 3, 4, nan, 0, 7, 8});
  std::vector<AttrValue> b = {ints({2}), none(), ints({0}), ints({1}), boolean(false)};
  expect_close(run_op(Opcode::max_pool2d, {xn}, b), Dims{1, 1, 1, 2}, {nan, 8}, 0, 0);
  expect_close(run_op(Opcode::avg_pool2d, {xn}, {ints({2}), none(), ints({0}), ints({1}), boolean(false), boolean(false)}),
               Dims{1, 1, 1, 2}, {nan, 5.5}, 0, 0);
}

// The CVM formalization's test parameters: X (1, j, l, r), j in {1, 14, ..., 92},
// l in {1, 18, ..., 86}, r in {1, 24, ..., 93}, pool_size (1, 2) — corners and an interior
// point of the grid. r = 1 is narrower than the window: an error (docs/ops.md, "max_pool2d"),
// not an empty result.
BOOST_AUTO_TEST_CASE(seed_grid_max_pool) {
  std::mt19937_64 rng(23);
  ThreadPool pool(2);
  Pool p{{1, 2}, {1, 2}, {0, 0, 0, 0}, {1, 1}, false, false};
  for (int64_t j : {1, 40, 92})
    for (int64_t l : {1, 52, 86})
      for (int64_t r : {1, 47, 93}) {
        BOOST_TEST_CONTEXT("X(1, " << j << ", " << l << ", " << r << ")") {
          DType dt = (j + l + r) % 2 ? DType::f32 : DType::i8;
          Tensor x = random_tensor(dt, Dims{1, j, l, r}, rng);
          std::vector<AttrValue> a = {ints({1, 2}), none(), ints({0, 0}), ints({1, 1}), boolean(false)};
          if (r == 1) {
            expect_error([&] { run_op(Opcode::max_pool2d, {x}, a, &pool); }, ErrorKind::trap,
                         "max_pool2d: the dilated window width 2 is larger than the padded input width 1");
            continue;
          }
          Dims shape;
          Expected e = ref_pool(x, p, true, &shape);
          expect_values(run_op(Opcode::max_pool2d, {x}, a, &pool), shape, e);
        }
      }
}

BOOST_AUTO_TEST_CASE(strided_inputs_and_empty) {
  std::mt19937_64 rng(24);
  ThreadPool pool(2);
  const Pool& p = pool_cases()[6];
  for (DType dt : {DType::f32, DType::i16})
    for (Layout l : {Layout::transposed, Layout::flipped, Layout::sliced, Layout::broadcast}) {
      BOOST_TEST_CONTEXT(dtype_name(dt) << " " << layout_name(l)) {
        // broadcast: N and H read through stride 0, C and W vary
        Tensor x = random_for(l, dt, Dims{2, 3, 9, 7}, rng);
        Dims shape;
        Expected e = ref_pool(x, p, true, &shape);
        expect_values(run_op(Opcode::max_pool2d, {relayout(x, l)}, pool_attrs(p, false), &pool), shape, e);
        if (is_float(dt)) {
          e = ref_pool(x, p, false, &shape);
          expect_values(run_op(Opcode::avg_pool2d, {relayout(x, l)}, pool_attrs(p, true), &pool), shape, e);
        }
      }
    }
  // Broadcast along C and W instead (the window slides over repeated columns), every case.
  for (std::size_t ci = 0; ci < pool_cases().size(); ++ci) {
    BOOST_TEST_CONTEXT("broadcast C and W, case " << ci) {
      const Pool& q = pool_cases()[ci];
      Tensor x = random_for(Layout::broadcast, DType::f64, Dims{2, 3, 7, 8}, rng, 0, 0, {1, 3});
      Dims shape;
      Expected e = ref_pool(x, q, true, &shape);
      expect_values(run_op(Opcode::max_pool2d, {relayout(x, Layout::broadcast)}, pool_attrs(q, false), &pool), shape, e);
      e = ref_pool(x, q, false, &shape);
      expect_values(run_op(Opcode::avg_pool2d, {relayout(x, Layout::broadcast)}, pool_attrs(q, true)), shape, e);
    }
  }
  Tensor x0 = Tensor::empty(DType::f32, Dims{0, 3, 9, 7});
  BOOST_TEST(run_op(Opcode::max_pool2d, {x0}, pool_attrs(p, false)).shape() == Dims({0, 3, 5, 3}));
  BOOST_TEST(run_op(Opcode::avg_pool2d, {x0}, pool_attrs(p, true)).shape() == Dims({0, 3, 5, 3}));
}

// H or W = 0. The CVM formalization bounds the window by the padded input (PSH <= H + 2·PH,
// likewise W) and docs/ops.md keeps empty tensors only where a shape rule allows them: without
// padding no window fits an empty plane, an error (invalid statically, a trap at run time) with
// the window-size message, pool_size 1 included. With padding the padded plane can hold a window:
// the output then has rows (or columns) whose windows are all padding — max gives the dtype's
// lowest value (-inf), avg divides by the cells counted: 0 of them without count_include_pad
// (0/0 = NaN), the padded cells with it (0 / n = 0).
BOOST_AUTO_TEST_CASE(empty_planes) {
  ThreadPool pool(2);
  auto attrs = [](std::vector<int64_t> size, std::vector<int64_t> pad, bool ceil, std::optional<bool> inc) {
    std::vector<AttrValue> a = {ints(size), none(), ints(pad), ints({1}), boolean(ceil)};
    if (inc) a.push_back(boolean(*inc));
    return a;
  };
  // without padding: no window fits
  const std::vector<std::tuple<Dims, std::vector<int64_t>, std::string>> bad = {
      {{1, 2, 0, 5}, {2}, "the dilated window height 2 is larger than the padded input height 0 (x f32[1, 2, 0, 5])"},
      {{1, 2, 0, 5}, {1}, "the dilated window height 1 is larger than the padded input height 0 (x f32[1, 2, 0, 5])"},
      {{1, 2, 4, 0}, {1, 2}, "the dilated window width 2 is larger than the padded input width 0 (x f32[1, 2, 4, 0])"},
      {{0, 2, 0, 0}, {1}, "the dilated window height 1 is larger than the padded input height 0 (x f32[0, 2, 0, 0])"},
  };
  for (const auto& [xd, size, msg] : bad) {
    BOOST_TEST_CONTEXT(dims_to_string(xd) << " pool_size " << size[0]) {
      Tensor x = Tensor::empty(DType::f32, xd);
      expect_error([&] { infer_op(Opcode::max_pool2d, {type_of(x)}, attrs(size, {0}, false, {})); }, ErrorKind::invalid,
                   "max_pool2d: " + msg);
      expect_error([&] { infer_op(Opcode::avg_pool2d, {type_of(x)}, attrs(size, {0}, true, false)); }, ErrorKind::invalid,
                   "avg_pool2d: " + msg);
      expect_error([&] { run_op(Opcode::max_pool2d, {x}, attrs(size, {0}, false, {})); }, ErrorKind::trap,
                   "max_pool2d: " + msg);
      expect_error([&] { run_op(Opcode::avg_pool2d, {x}, attrs(size, {0}, false, true)); }, ErrorKind::trap,
                   "avg_pool2d: " + msg);
    }
  }
  // padding too small for the window on an empty plane: still an error
  Tensor xs = Tensor::empty(DType::f32, Dims{1, 1, 0, 3});
  expect_error([&] { run_op(Opcode::max_pool2d, {xs}, attrs({3}, {1}, false, {})); }, ErrorKind::trap,
               "max_pool2d: the dilated window height 3 is larger than the padded input height 2");
  // hand values: H = 0, pool 2, padding 1: one row of all-padding windows
  Tensor xh = Tensor::empty(DType::f32, Dims{1, 1, 0, 3});
  expect_close(run_op(Opcode::max_pool2d, {xh}, attrs({2}, {1}, false, {})), Dims{1, 1, 1, 2}, {-INFINITY, -INFINITY}, 0, 0);
  expect_close(run_op(Opcode::avg_pool2d, {xh}, attrs({2}, {1}, false, false)), Dims{1, 1, 1, 2}, {NAN, NAN}, 0, 0);
  expect_close(run_op(Opcode::avg_pool2d, {xh}, attrs({2}, {1}, false, true)), Dims{1, 1, 1, 2}, {0, 0}, 0, 0);
  Tensor xi = Tensor::empty(DType::i8, Dims{1, 1, 3, 0});
  expect_ints(run_op(Opcode::max_pool2d, {xi}, attrs({2}, {1}, false, {})), Dims{1, 1, 2, 1}, {-128, -128});
  // against the reference: H = 0, W = 0 or both, padding on either side, strides, dilation,
  // ceil_mode, every dtype for max, both divisors for avg, with and without threads
  const std::vector<std::pair<Dims, Pool>> padded = {
      {{2, 3, 0, 5}, {{2, 2}, {1, 1}, {1, 0, 1, 0}, {1, 1}, false, false}},
      {{2, 3, 4, 0}, {{2, 3}, {2, 1}, {0, 1, 0, 2}, {1, 1}, true, false}},
      {{1, 2, 0, 0}, {{3, 3}, {1, 2}, {2, 1, 1, 2}, {1, 1}, true, false}},
      {{1, 2, 0, 6}, {{2, 2}, {1, 2}, {1, 1, 2, 1}, {2, 1}, false, false}},  // dilated: span 3 = padded 1 + 0 + 2
      {{2, 1, 0, 1}, {{3, 1}, {2, 1}, {2, 0, 2, 0}, {1, 1}, true, false}},
  };
  std::mt19937_64 rng(27);
  for (std::size_t k = 0; k < padded.size(); ++k) {
    const auto& [xd, p] = padded[k];
    for (DType dt : kNumericDTypes) {
      BOOST_TEST_CONTEXT("padded case " << k << " " << dtype_name(dt)) {
        Tensor x = random_tensor(dt, xd, rng);
        Dims shape;
        Expected e = ref_pool(x, p, true, &shape);
        BOOST_TEST(infer_op(Opcode::max_pool2d, {type_of(x)}, pool_attrs(p, false)).dims == shape);
        Tensor y = run_op(Opcode::max_pool2d, {x}, pool_attrs(p, false), k % 2 ? &pool : nullptr);
        BOOST_TEST(y.numel() > 0);
        expect_values(y, shape, e);
        if (!is_float(dt)) continue;
        for (bool inc : {false, true}) {
          Pool pa = p;
          pa.include_pad = inc;
          e = ref_pool(x, pa, false, &shape);
          expect_values(run_op(Opcode::avg_pool2d, {x}, pool_attrs(pa, true), k % 2 ? nullptr : &pool), shape, e);
        }
      }
    }
  }
  // upsampling has no window: an empty plane stays empty
  Tensor xu = Tensor::empty(DType::i16, Dims{1, 2, 0, 3});
  BOOST_TEST(run_op(Opcode::upsampling, {xu}, {ints({2, 3})}).shape() == Dims({1, 2, 0, 9}));
}

BOOST_AUTO_TEST_CASE(pool_static_rule_and_errors) {
  std::vector<AttrValue> a = {ints({3}), ints({2}), ints({1}), ints({1}), boolean(true)};
  TensorType t = infer_op(Opcode::max_pool2d, {tt(DType::i8, Dims{kDynamic, 3, kDynamic, 8}, 5)}, a);
  BOOST_TEST(t.dims == Dims({kDynamic, 3, kDynamic, 5}));
  BOOST_TEST(t.precision == 5);
  BOOST_TEST(t.dtype == DType::i8);
  auto mp = [](std::vector<AttrValue> at, TensorType x = tt(DType::f32, Dims{1, 1, 5, 5})) {
    return [=] { infer_op(Opcode::max_pool2d, {x}, at); };
  };
  expect_error(mp({ints({3}), none(), ints({3}), ints({1}), boolean(false)}), ErrorKind::invalid,
               "max_pool2d: padding (3) must be smaller than the dilated window (3, 3) on every side");
  expect_error(mp({ints({2, 2}), none(), ints({0, 0, 2, 0}), ints({1}), boolean(false)}), ErrorKind::invalid,
               "max_pool2d: padding (0, 0, 2, 0) must be smaller than the dilated window (2, 2)");
  // dilation widens the window, so padding 2 is fine with pool 2, dilation 2
  BOOST_CHECK_NO_THROW(mp({ints({2}), none(), ints({2}), ints({2}), boolean(false)})());
  expect_error(mp({ints({0, 2}), none(), ints({0}), ints({1}), boolean(false)}), ErrorKind::invalid,
               "max_pool2d: pool_size must be >= 1 (and at most 2^31), got (0, 2)");
  expect_error(mp({ints({2}), ints({0}), ints({0}), ints({1}), boolean(false)}), ErrorKind::invalid,
               "max_pool2d: strides must be >= 1 (and at most 2^31), got (0)");
  expect_error(mp({ints({2}), none(), ints({0}), ints({0, 1}), boolean(false)}), ErrorKind::invalid,
               "max_pool2d: dilation must be >= 1 (and at most 2^31), got (0, 1)");
  expect_error(mp({ints({2, 2, 2}), none(), ints({0}), ints({1}), boolean(false)}), ErrorKind::invalid,
               "max_pool2d: pool_size must be an int or a pair (h, w), got (2, 2, 2)");
  expect_error(mp({ints({2}), none(), ints({0, 0, 0}), ints({1}), boolean(false)}), ErrorKind::invalid,
               "max_pool2d: padding must be an int, (PH, PW) or (top, left, bottom, right), got (0, 0, 0)");
  expect_error(mp({ints({2}), none(), ints({-1}), ints({1}), boolean(false)}), ErrorKind::invalid,
               "max_pool2d: padding must be >= 0");
  expect_error(mp({ints({6}), none(), ints({0}), ints({1}), boolean(false)}), ErrorKind::invalid,
               "max_pool2d: the dilated window height 6 is larger than the padded input height 5 (x f32[1, 1, 5, 5])");
  expect_error(mp({ints({2}), none(), ints({0}), ints({1}), boolean(false)}, tt(DType::f32, Dims{1, 5, 5})),
               ErrorKind::invalid, "max_pool2d: x must have rank 4 (N, C, H, W), got f32[1, 5, 5]");
  expect_error(mp({ints({2}), none(), ints({0}), ints({1}), boolean(false)}, tt(DType::boolean, Dims{1, 1, 5, 5})),
               ErrorKind::invalid, "max_pool2d: bool input is not supported");
  expect_error(
      [] {
        infer_op(Opcode::avg_pool2d, {tt(DType::i32, Dims{1, 1, 4, 4})},
                 {ints({2}), none(), ints({0}), ints({1}), boolean(false), boolean(false)});
      },
      ErrorKind::invalid, "avg_pool2d: x must be f32 or f64, got i32[1, 1, 4, 4]");
  // run time: the window is checked against the concrete input
  Tensor x = Tensor::zeros_owned(DType::f32, Dims{1, 1, 2, 2});
  expect_error([&] { run_op(Opcode::avg_pool2d, {x}, {ints({3}), none(), ints({0}), ints({1}), boolean(false), boolean(true)}); },
               ErrorKind::trap, "avg_pool2d: the dilated window height 3 is larger than the padded input height 2");
}

// ---- upsampling ------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(upsampling_every_dtype) {
  std::mt19937_64 rng(25);
  for (DType dt : kNumericDTypes)
    for (auto sc : std::vector<std::vector<int64_t>>{{1}, {2}, {3, 1}, {2, 3}}) {
      BOOST_TEST_CONTEXT(dtype_name(dt) << " scale " << sc.size()) {
        Tensor x = random_tensor(dt, Dims{2, 3, 4, 5}, rng);
        const int64_t sh = sc[0], sw = sc.size() == 2 ? sc[1] : sc[0];
        Dims shape;
        Expected e = ref_upsampling(x, sh, sw, &shape);
        Tensor y = run_op(Opcode::upsampling, {relayout(x, Layout::flipped)}, {ints(sc)});
        BOOST_TEST(y.dtype() == dt);
        expect_values(y, shape, e);
      }
    }
  Tensor xb = make(DType::boolean, Dims{1, 1, 1, 2}, {1, 0});
  expect_ints(run_op(Opcode::upsampling, {xb}, {ints({2})}), Dims{1, 1, 2, 4}, {1, 1, 0, 0, 1, 1, 0, 0});
}

// The CVM formalization's test parameters for upsampling: X (1, j, l, r) grid, scale 2 — sampled:
// the corners of every axis (j 1 and 92, l 1 and 86, r 1 and 93) and an interior point of each.
BOOST_AUTO_TEST_CASE(seed_grid_upsampling) {
  std::mt19937_64 rng(26);
  ThreadPool pool(2);
  for (int64_t j : {1, 53, 92})
    for (int64_t l : {1, 18, 86})
      for (int64_t r : {1, 24, 93}) {
        BOOST_TEST_CONTEXT("X(1, " << j << ", " << l << ", " << r << ")") {
          Tensor x = random_tensor(DType::i32, Dims{1, j, l, r}, rng);
          Dims shape;
          Expected e = ref_upsampling(x, 2, 2, &shape);
          expect_values(run_op(Opcode::upsampling, {x}, {ints({2})}, &pool), shape, e);
        }
      }
}

BOOST_AUTO_TEST_CASE(upsampling_static_rule_and_errors) {
  TensorType t = infer_op(Opcode::upsampling, {tt(DType::i16, Dims{kDynamic, 2, kDynamic, 3}, 9)}, {ints({2, 4})});
  BOOST_TEST(t.dims == Dims({kDynamic, 2, kDynamic, 12}));
  BOOST_TEST(t.precision == 9);
  expect_error([] { infer_op(Opcode::upsampling, {tt(DType::f32, Dims{1, 1, 2, 2})}, {ints({0})}); }, ErrorKind::invalid,
               "upsampling: scale must be >= 1 (and at most 2^31), got (0)");
  expect_error([] { infer_op(Opcode::upsampling, {tt(DType::f32, Dims{1, 1, 2, 2})}, {ints({1, 2, 3})}); },
               ErrorKind::invalid, "upsampling: scale must be an int or a pair (h, w), got (1, 2, 3)");
  expect_error([] { infer_op(Opcode::upsampling, {tt(DType::f32, Dims{1, 2, 2})}, {ints({2})}); }, ErrorKind::invalid,
               "upsampling: x must have rank 4 (N, C, H, W), got f32[1, 2, 2]");
  expect_error([] { infer_op(Opcode::upsampling, {tt(DType::f32, Dims{1, 1, int64_t(1) << 40, int64_t(1) << 20})}, {ints({1 << 30})}); },
               ErrorKind::invalid, "upsampling:");
  Tensor x0 = Tensor::empty(DType::f32, Dims{0, 2, 3, 3});
  BOOST_TEST(run_op(Opcode::upsampling, {x0}, {ints({2})}).shape() == Dims({0, 2, 6, 6}));
}

BOOST_AUTO_TEST_SUITE_END()
