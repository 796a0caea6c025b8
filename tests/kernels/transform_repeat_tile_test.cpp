// repeat and tile, whose kernels repeat x's elements (kernels/repeat_tile.cpp): every result
// is compared with a naive reference written from the formulas in docs/ops.md, "Transforms"
// (index by index over row-major values; it shares no code with the kernels), on the CVM
// formalization's (1, j, l, r) shape grid (corners + interior), on every dtype, and on
// transposed / flipped / sliced / broadcast input views; then the static rules and errors.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <vector>

#include "common/transform_test_support.hpp"

using namespace transform_test;

namespace {

std::vector<double> ref_repeat(const Tensor& x, int64_t repeats, int axis, Dims* out_shape) {
  std::vector<double> xv = values(x);
  Dims ys = x.shape();
  ys[axis] *= repeats;
  *out_shape = ys;
  std::vector<double> y;
  for_each_index(ys, [&](const std::vector<int64_t>& d) {
    std::vector<int64_t> s = d;
    s[std::size_t(axis)] = d[std::size_t(axis)] / repeats;  // floor(d_axis / repeats)
    y.push_back(xv[std::size_t(flat_index(x.shape(), s))]);
  });
  return y;
}

std::vector<double> ref_tile(const Tensor& x, const std::vector<int64_t>& reps, Dims* out_shape) {
  std::vector<double> xv = values(x);
  const int N = x.rank(), M = int(reps.size()), K = std::max(N, M);
  Dims ys = Dims::filled(K, 1);
  for (int i = 0; i < K; ++i) {
    int64_t sx = i >= K - N ? x.dim(i - K + N) : 1;
    int64_t sr = i >= K - M ? reps[std::size_t(i - K + M)] : 1;
    ys[i] = sx * sr;
  }
  *out_shape = ys;
  std::vector<double> y;
  for_each_index(ys, [&](const std::vector<int64_t>& k) {
    std::vector<int64_t> s(static_cast<std::size_t>(N));
    for (int i = 0; i < N; ++i) s[std::size_t(i)] = k[std::size_t(K - N + i)] % x.dim(i);
    y.push_back(xv[std::size_t(flat_index(x.shape(), s))]);
  });
  return y;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(transform_repeat_tile)

// ---- repeat -------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(repeat_shape_grid) {
  int k = 0;
  for (const Dims& shape : shape_grid()) {
    DType dt = kAllDTypes[k++ % 8];
    Tensor x = sample(dt, shape, k);
    for (int axis = 0; axis < 4; ++axis) {
      if (shape[1] * shape[2] * shape[3] > 100000 && axis != 3 && axis != 1)
        continue;  // keep it fast
      Dims ys;
      std::vector<double> expect = ref_repeat(x, 2, axis, &ys);
      check_values(run1(Opcode::repeat, {x}, {integer(2), integer(axis)}), dt, ys, expect);
    }
  }
}

BOOST_AUTO_TEST_CASE(repeat_dtypes_layouts_axes) {
  for (DType dt : kAllDTypes)
    for (Layout layout : kLayoutsNoBroadcast) {
      Tensor x = relayout(sample(dt, Dims{2, 3, 4}, 5), layout);
      for (int64_t axis : {0, 1, 2, -1, -3})
        for (int64_t repeats : {1, 3}) {
          Dims ys;
          std::vector<double> expect = ref_repeat(x, repeats, normalize_axis(axis, 3), &ys);
          check_values(run1(Opcode::repeat, {x}, {integer(repeats), integer(axis)}), dt, ys, expect);
        }
    }
}

BOOST_AUTO_TEST_CASE(repeat_broadcast_and_empty) {
  Tensor base = sample(DType::i32, Dims{1, 3});
  Tensor x = base.with_layout(Dims{4, 3}, Dims{0, 1}, 0);  // broadcast rows
  Dims ys;
  std::vector<double> expect = ref_repeat(x, 2, 0, &ys);
  check_values(run1(Opcode::repeat, {x}, {integer(2), integer(0)}), DType::i32, ys, expect);
  expect = ref_repeat(x, 3, 1, &ys);
  check_values(run1(Opcode::repeat, {x}, {integer(3), integer(1)}), DType::i32, ys, expect);
  Tensor e = sample(DType::f32, Dims{0, 3});
  check_values(run1(Opcode::repeat, {e}, {integer(2), integer(1)}), DType::f32, Dims{0, 6}, {});
  check_values(run1(Opcode::repeat, {e}, {integer(2), integer(0)}), DType::f32, Dims{0, 3}, {});
  // A rank-8 input (the engine folds size-1 dims).
  Tensor r8 = sample(DType::i16, Dims{2, 1, 2, 1, 3, 1, 2, 2});
  expect = ref_repeat(r8, 2, 5, &ys);
  check_values(run1(Opcode::repeat, {r8}, {integer(2), integer(5)}), DType::i16, ys, expect);
  expect = ref_repeat(r8, 3, 7, &ys);
  check_values(run1(Opcode::repeat, {relayout(r8, Layout::flipped)}, {integer(3), integer(7)}), DType::i16, ys,
               expect);
}

BOOST_AUTO_TEST_CASE(repeat_static_rule) {
  TensorType y = infer_op(Opcode::repeat, {tt(DType::i32, Dims{kDynamic, 3}, 9)}, {integer(2), integer(1)});
  BOOST_CHECK_EQUAL(y.to_string(), "i32[?, 6] precision=9");
  y = infer_op(Opcode::repeat, {tt(DType::f32, Dims{kDynamic, 3})}, {integer(4), integer(-2)});
  BOOST_CHECK_EQUAL(y.to_string(), "f32[?, 3]");
  expect_error(
      [] {
        infer_op(Opcode::repeat, {tt(DType::f32, Dims{2, 3})}, {integer(2), integer(2)});
      },
      ErrorKind::invalid, {"axis 2 is out of range for rank 2"});
  expect_error(
      [] {
        infer_op(Opcode::repeat, {tt(DType::f32, Dims{2, 3})}, {integer(0), integer(0)});
      },
      ErrorKind::invalid, {"attribute 'repeats' of repeat is 0", ">= 1"});
  expect_error(
      [] {
        infer_op(Opcode::repeat, {tt(DType::f32, Dims{INT64_MAX / 2, 1})}, {integer(3), integer(0)});
      },
      ErrorKind::invalid, {"overflows"});
  expect_error(
      [] {
        run1(Opcode::repeat, {sample(DType::f32, Dims{2})}, {integer(2), integer(-2)});
      },
      ErrorKind::invalid, {"axis -2 is out of range for rank 1"});
}

// ---- tile ---------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(tile_shape_grid) {
  int k = 0;
  for (const Dims& shape : shape_grid()) {
    DType dt = kAllDTypes[(k++ * 3) % 8];
    Tensor x = sample(dt, shape, k);
    Dims ys;
    std::vector<double> expect = ref_tile(x, {2, 2, 3}, &ys);
    check_values(run1(Opcode::tile, {x}, {ints({2, 2, 3})}), dt, ys, expect);
  }
}

BOOST_AUTO_TEST_CASE(tile_reps_longer_shorter_layouts) {
  const std::vector<std::vector<int64_t>> reps_list = {{2, 2, 3},    {3},    {},
                                                       {2, 1, 3, 2}, {1, 1}, {2, 1, 1, 1, 2}};
  for (DType dt : kAllDTypes)
    for (Layout layout : kLayoutsNoBroadcast) {
      Tensor x = relayout(sample(dt, Dims{2, 3}, 7), layout);
      for (const auto& reps : reps_list) {
        Dims ys;
        std::vector<double> expect = ref_tile(x, reps, &ys);
        check_values(run1(Opcode::tile, {x}, {ints(reps)}), dt, ys, expect);
      }
    }
  // Broadcast input and empty input.
  Tensor b = sample(DType::f64, Dims{3, 1}).with_layout(Dims{3, 4}, Dims{1, 0}, 0);
  Dims ys;
  std::vector<double> expect = ref_tile(b, {2, 3}, &ys);
  check_values(run1(Opcode::tile, {b}, {ints({2, 3})}), DType::f64, ys, expect);
  check_values(run1(Opcode::tile, {sample(DType::i8, Dims{2, 0})}, {ints({3, 2})}), DType::i8,
               Dims{6, 0}, {});
  // Rank 8 result from a rank-1 input.
  Tensor v = sample(DType::i32, Dims{3});
  expect = ref_tile(v, {2, 1, 1, 2, 1, 1, 2, 2}, &ys);
  check_values(run1(Opcode::tile, {v}, {ints({2, 1, 1, 2, 1, 1, 2, 2})}), DType::i32, ys, expect);
}

BOOST_AUTO_TEST_CASE(tile_static_rule) {
  TensorType y = infer_op(Opcode::tile, {tt(DType::i16, Dims{kDynamic, 2}, 5)}, {ints({2, 2, 3})});
  BOOST_CHECK_EQUAL(y.to_string(), "i16[2, ?, 6] precision=5");
  y = infer_op(Opcode::tile, {tt(DType::u8, Dims{2, 3, 4})}, {ints({2})});
  BOOST_CHECK_EQUAL(y.to_string(), "u8[2, 3, 8]");
  expect_error(
      [] {
        infer_op(Opcode::tile, {tt(DType::f32, Dims{2})}, {ints({2, 0})});
      },
      ErrorKind::invalid, {"reps element 0", ">= 1"});
  expect_error(
      [] {
        infer_op(Opcode::tile, {tt(DType::f32, Dims{2})}, {ints({1, 1, 1, 1, 1, 1, 1, 1, 2})});
      },
      ErrorKind::invalid, {"rank would exceed 8"});
  expect_error([] { run1(Opcode::tile, {sample(DType::f32, Dims{2})}, {ints({-1})}); },
               ErrorKind::invalid, {"reps element -1"});
}

BOOST_AUTO_TEST_CASE(cancelled_run_stops) {
  std::atomic<bool> stop{true};
  ExecEnv env;
  env.cancel = &stop;
  const Attrs a = testing::attrs_for(Opcode::tile, {ints({2, 3})});
  std::vector<Tensor> in = {sample(DType::f32, Dims{4, 5})}, out(1);
  KernelContext ctx{in, out, a, env};
  expect_error([&] { run_tile(ctx); }, ErrorKind::limit, {"cancelled"});
}

BOOST_AUTO_TEST_SUITE_END()
