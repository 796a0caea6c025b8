// The fast paths of kernels/pool.cpp against a brute-force reference written here from docs/ops.md
// ("max_pool2d", "upsampling"): max_pool2d without dilation (the separable row path; dilated
// windows keep the general path) and upsampling with a width scale of 2. Parameters are drawn at
// random so that odd sizes, widths below and above a vector length, every stride/padding/ceil_mode
// combination, NaNs at window edges, integer lowest values and strided input views all meet the
// same reference.
#include <boost/test/unit_test.hpp>

#include <array>
#include <cfloat>
#include <cmath>
#include <limits>
#include <random>

#include "nn_test_util.hpp"
#include "simd_test_support.hpp"

using namespace mlvm;
using namespace nn_test;

namespace {

struct MaxPool {
  int64_t kh, kw, sh, sw, top, left, bottom, right;
  bool ceil_mode;
};

int64_t out_dim(int64_t in, int64_t p0, int64_t p1, int64_t k, int64_t s, bool ceil_mode) {
  const int64_t num = in + p0 + p1 - k;
  int64_t out = (ceil_mode ? (num + s - 1) / s : num / s) + 1;
  if (ceil_mode && (out - 1) * s >= in + p0) --out;
  return out;
}

// Cell by cell: the largest real cell of each window, NaN if any is NaN, the dtype's lowest
// value (-inf for floats) if none is real.
Expected ref_max_pool(const Tensor& x, const MaxPool& p, Dims* shape) {
  const int64_t H = x.dim(2), W = x.dim(3);
  const int64_t OH = out_dim(H, p.top, p.bottom, p.kh, p.sh, p.ceil_mode);
  const int64_t OW = out_dim(W, p.left, p.right, p.kw, p.sw, p.ceil_mode);
  *shape = Dims{x.dim(0), x.dim(1), OH, OW};
  int64_t lowest = 0;
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    lowest = is_float(x.dtype()) ? 0 : int64_t(std::numeric_limits<T>::lowest());
  });
  Expected e;
  for_each_index(*shape, [&](const std::vector<int64_t>& o) {
    double best = -INFINITY;
    int64_t best_i = lowest;
    bool nan = false;
    for (int64_t a = 0; a < p.kh; ++a)
      for (int64_t b = 0; b < p.kw; ++b) {
        const int64_t h = o[2] * p.sh - p.top + a, w = o[3] * p.sw - p.left + b;
        if (h < 0 || h >= H || w < 0 || w >= W) continue;
        std::array<int64_t, 4> xi{o[0], o[1], h, w};
        const double v = x.get_double(xi);
        nan = nan || std::isnan(v);
        best = std::max(best, v);
        best_i = std::max(best_i, x.get_int(xi));
      }
    e.f.push_back(nan ? NAN : best);
    e.i.push_back(is_float(x.dtype()) ? 0 : best_i);
  });
  return e;
}

std::vector<AttrValue> attrs_of(const MaxPool& p) {
  return {ints({p.kh, p.kw}), ints({p.sh, p.sw}), ints({p.top, p.left, p.bottom, p.right}), ints({1, 1}),
          boolean(p.ceil_mode)};
}

// A random valid configuration for an input of H x W: padding below the window on every side
// and a window that fits the padded input.
MaxPool random_pool(std::mt19937_64& rng, int64_t H, int64_t W) {
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  MaxPool p{};
  p.kh = pick(1, std::min<int64_t>(5, H + 1));
  p.kw = pick(1, std::min<int64_t>(5, W + 1));
  p.sh = pick(1, 4);
  p.sw = pick(1, 4);
  p.top = pick(0, p.kh - 1);
  p.bottom = pick(0, p.kh - 1);
  p.left = pick(0, p.kw - 1);
  p.right = pick(0, p.kw - 1);
  // The window must fit the padded input; widen the padding if a 1-wide input needs it.
  while (H + p.top + p.bottom < p.kh) ++p.bottom;
  while (W + p.left + p.right < p.kw) ++p.right;
  p.ceil_mode = pick(0, 1) == 1;
  return p;
}

void sprinkle_nans(Tensor& x, std::mt19937_64& rng) {
  if (!is_float(x.dtype()) || x.numel() == 0) return;
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    if constexpr (std::is_floating_point_v<T>) {
      T* p = x.template data<T>();
      for (int k = 0; k < 3; ++k) p[std::uniform_int_distribution<int64_t>(0, x.numel() - 1)(rng)] = NAN;
    }
  });
}

// +inf, -inf and the largest finite values (whose sums overflow to +-inf) in f32 x: the
// 3-wide rows' NaN check sums the values it reads, and must not take their NaN for an input's.
void sprinkle_infinities(Tensor& x, std::mt19937_64& rng) {
  if (x.dtype() != DType::f32 || x.numel() == 0) return;
  float* p = x.template data<float>();
  const float values[] = {INFINITY, -INFINITY, FLT_MAX, -FLT_MAX};
  for (int k = 0; k < 8; ++k) p[std::uniform_int_distribution<int64_t>(0, x.numel() - 1)(rng)] = values[k % 4];
}

}  // namespace

BOOST_AUTO_TEST_SUITE(pool_fast_paths)

// At every SIMD level: the rows run on the level's maximum and stride-2 split.
BOOST_AUTO_TEST_CASE(max_pool_random_configurations_match_the_reference) {
  simd_test::LevelGuard guard;
  ThreadPool pool(2);
  const DType dtypes[] = {DType::f32, DType::f64, DType::i8, DType::u8, DType::i16, DType::i32, DType::i64};
  for (const simd::Level level : simd_test::levels()) {
  simd::set_level_for_testing(level);
  std::mt19937_64 rng(71);
  for (int trial = 0; trial < 300; ++trial) {
    const int64_t H = std::uniform_int_distribution<int64_t>(1, 23)(rng);
    const int64_t W = std::uniform_int_distribution<int64_t>(1, 41)(rng);
    const MaxPool p = random_pool(rng, H, W);
    const DType dt = dtypes[trial % 7];
    const Layout layout = Layout(trial % 4);
    BOOST_TEST_CONTEXT("level " << int(level) << " trial " << trial << " " << dtype_name(dt) << " " << layout_name(layout) << " H " << H
                                << " W " << W << " k " << p.kh << "x" << p.kw << " s " << p.sh << "x" << p.sw
                                << " pad " << p.top << "," << p.left << "," << p.bottom << "," << p.right
                                << " ceil " << p.ceil_mode) {
      Tensor x = random_tensor(dt, Dims{2, 3, H, W}, rng);
      if (trial % 3 == 0) sprinkle_nans(x, rng);
      Dims shape;
      const Expected want = ref_max_pool(x, p, &shape);
      expect_values(run_op(Opcode::max_pool2d, {relayout(x, layout)}, attrs_of(p), trial % 2 ? &pool : nullptr), shape,
                    want, 0);
    }
  }
  }
}

// f32 windows 3 wide at strides 1 and 2 run on the level's registers (simd::ConvRowTable's
// max3_rows_f32): widths below, at and past a register of any level, partial last
// registers, padding, ceil_mode and NaNs, at every level.
BOOST_AUTO_TEST_CASE(max_pool_f32_3_wide_rows_at_every_level) {
  simd_test::LevelGuard guard;
  for (const simd::Level level : simd_test::levels()) {
    simd::set_level_for_testing(level);
    std::mt19937_64 rng(5);
    for (int trial = 0; trial < 120; ++trial) {
      const int64_t H = std::uniform_int_distribution<int64_t>(1, 9)(rng);
      const int64_t W = std::uniform_int_distribution<int64_t>(1, 70)(rng);
      MaxPool p = random_pool(rng, H, std::max<int64_t>(W, 2));
      p.kw = 3;
      p.sw = 1 + trial % 2;
      p.left = std::min<int64_t>(p.left, 2);
      p.right = std::min<int64_t>(p.right, 2);
      while (W + p.left + p.right < p.kw) ++p.right;
      BOOST_TEST_CONTEXT("level " << int(level) << " trial " << trial << " H " << H << " W " << W << " k " << p.kh
                                  << "x3 s " << p.sh << "x" << p.sw << " pad " << p.top << "," << p.left << ","
                                  << p.bottom << "," << p.right << " ceil " << p.ceil_mode) {
        Tensor x = random_tensor(DType::f32, Dims{1, 2, H, W}, rng);
        if (trial % 2 == 0) sprinkle_nans(x, rng);
        if (trial % 3 == 0) sprinkle_infinities(x, rng);
        Dims shape;
        const Expected want = ref_max_pool(x, p, &shape);
        expect_values(run_op(Opcode::max_pool2d, {x}, attrs_of(p)), shape, want, 0);
      }
    }
  }
}

// f32 planes whose output rows are at most a register wide go a register of channels at a
// time (simd::MaxPoolBlocked): whole and partial channel blocks, every window size up to 5,
// strides, padding, ceil_mode, NaNs, at every level and on two threads, against the reference.
BOOST_AUTO_TEST_CASE(max_pool_f32_channel_blocks_at_every_level) {
  simd_test::LevelGuard guard;
  ThreadPool pool(2);
  for (const simd::Level level : simd_test::levels()) {
    simd::set_level_for_testing(level);
    std::mt19937_64 rng(9);
    for (int trial = 0; trial < 60; ++trial) {
      const int64_t C = trial % 3 == 0 ? 19 : trial % 3 == 1 ? 16 : 5;
      const int64_t H = std::uniform_int_distribution<int64_t>(1, 27)(rng);
      const int64_t W = std::uniform_int_distribution<int64_t>(1, 27)(rng);
      const MaxPool p = random_pool(rng, H, W);
      BOOST_TEST_CONTEXT("level " << int(level) << " trial " << trial << " C " << C << " H " << H << " W " << W << " k "
                                  << p.kh << "x" << p.kw << " s " << p.sh << "x" << p.sw << " pad " << p.top << ","
                                  << p.left << "," << p.bottom << "," << p.right << " ceil " << p.ceil_mode) {
        Tensor x = random_tensor(DType::f32, Dims{1, C, H, W}, rng);
        if (trial % 2 == 0) sprinkle_nans(x, rng);
        Dims shape;
        const Expected want = ref_max_pool(x, p, &shape);
        expect_values(run_op(Opcode::max_pool2d, {x}, attrs_of(p), trial % 4 < 2 ? &pool : nullptr), shape, want, 0);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(max_pool_nan_at_every_window_edge) {
  // 1x1x5x7 f32, pool 3 stride 2 pad 1: a single NaN placed at each cell must reach exactly
  // the outputs whose window holds that cell (first/last row and column of a window included).
  const MaxPool p{3, 3, 2, 2, 1, 1, 1, 1, false};
  for (int64_t cell = 0; cell < 35; ++cell) {
    BOOST_TEST_CONTEXT("NaN at " << cell) {
      std::vector<double> v(35);
      for (int k = 0; k < 35; ++k) v[std::size_t(k)] = k;
      v[std::size_t(cell)] = NAN;
      Tensor x = make(DType::f32, Dims{1, 1, 5, 7}, v);
      Dims shape;
      const Expected want = ref_max_pool(x, p, &shape);
      expect_close(run_op(Opcode::max_pool2d, {x}, attrs_of(p)), shape, want.f, 0, 0);
    }
  }
}

BOOST_AUTO_TEST_CASE(max_pool_lowest_values_and_all_padding_windows) {
  // Every input cell is the dtype's lowest value: padding (also the lowest) can tie but the
  // result must still be exactly that value, never 0.
  for (DType dt : {DType::i8, DType::i16, DType::i64, DType::u8}) {
    BOOST_TEST_CONTEXT(dtype_name(dt)) {
      Tensor x = Tensor::empty(dt, Dims{1, 2, 3, 4});
      visit_dtype(dt, [&](auto tag) {
        using T = storage_t<typename decltype(tag)::type>;
        std::fill(x.template data<T>(), x.template data<T>() + x.numel(), std::numeric_limits<T>::lowest());
      });
      const MaxPool p{2, 3, 1, 2, 1, 2, 1, 2, true};
      Dims shape;
      const Expected want = ref_max_pool(x, p, &shape);
      expect_ints(run_op(Opcode::max_pool2d, {x}, attrs_of(p)), shape, want.i);
    }
  }
  // A window wider than the input with ceil_mode: the extra output column's window starts
  // inside the right padding only if the start rule allows it; the reference decides.
  Tensor x = make(DType::f32, Dims{1, 1, 1, 3}, {-5, -7, -6});
  const MaxPool p{1, 4, 1, 3, 0, 3, 0, 3, true};
  Dims shape;
  const Expected want = ref_max_pool(x, p, &shape);
  expect_close(run_op(Opcode::max_pool2d, {x}, attrs_of(p)), shape, want.f, 0, 0);
}

BOOST_AUTO_TEST_CASE(max_pool_long_rows_and_many_planes) {
  // Rows much longer than a vector register and enough planes to be split across threads.
  std::mt19937_64 rng(72);
  ThreadPool pool(2);
  for (const MaxPool& p : {MaxPool{3, 3, 2, 2, 1, 1, 1, 1, false}, MaxPool{2, 2, 2, 2, 0, 0, 0, 0, true},
                           MaxPool{3, 3, 1, 1, 1, 1, 1, 1, false}, MaxPool{5, 1, 3, 1, 2, 0, 2, 0, true}}) {
    Tensor x = random_tensor(DType::f32, Dims{1, 37, 19, 131}, rng);
    Dims shape;
    const Expected want = ref_max_pool(x, p, &shape);
    expect_close(run_op(Opcode::max_pool2d, {x}, attrs_of(p), &pool), shape, want.f, 0, 0);
  }
}

BOOST_AUTO_TEST_CASE(upsampling_width_two_fast_path) {
  std::mt19937_64 rng(73);
  for (DType dt : {DType::f32, DType::f64, DType::i8, DType::i16, DType::i64, DType::boolean})
    for (int64_t sh : {1, 2, 3})
      for (int64_t w : {1, 2, 7, 33}) {
        // bool holds 0/1 only: random bits
        const int64_t lo = 0, hi = dt == DType::boolean ? 1 : 0;
        for (Layout l : {Layout::contiguous, Layout::sliced, Layout::broadcast}) {
          BOOST_TEST_CONTEXT(dtype_name(dt) << " scale (" << sh << ", 2) W " << w << " " << layout_name(l)) {
            // broadcast: N and H through stride 0 (C and W vary); for W = 1 also W
            Tensor x = random_for(l, dt, Dims{2, 3, 5, w}, rng, lo, hi);
            const Dims shape{2, 3, 5 * sh, 2 * w};
            Expected want;
            for_each_index(shape, [&](const std::vector<int64_t>& o) {
              std::array<int64_t, 4> xi{o[0], o[1], o[2] / sh, o[3] / 2};
              want.f.push_back(x.get_double(xi));
              want.i.push_back(x.get_int(xi));
            });
            expect_values(run_op(Opcode::upsampling, {relayout(x, l)}, {ints({sh, 2})}), shape, want, 0);
          }
        }
      }
}

BOOST_AUTO_TEST_SUITE_END()
