// concatenate (kernels/concatenate.cpp): every result is compared with a naive reference
// written from the formula in docs/ops.md, "Transforms" (index by index over row-major values;
// it shares no code with the kernel), on the CVM formalization's (1, j, l, r) shape grid, on
// every dtype, with variadic, empty and strided inputs; then the static rule and its errors.
#include <boost/test/unit_test.hpp>

#include <vector>

#include "common/transform_test_support.hpp"
#include "kernels/thread_pool.hpp"

using namespace transform_test;

namespace {

std::vector<double> ref_concatenate(const std::vector<Tensor>& in, int axis, Dims* out_shape) {
  Dims ys = in[0].shape();
  ys[axis] = 0;
  for (const Tensor& t : in) ys[axis] += t.dim(axis);
  *out_shape = ys;
  std::vector<double> y(std::size_t(checked_numel(ys)));
  int64_t before = 0;  // sum of n^j_axis for j < i
  for (const Tensor& t : in) {
    for_each_index(t.shape(), [&](const std::vector<int64_t>& d) {
      std::vector<int64_t> o = d;
      o[std::size_t(axis)] = before + d[std::size_t(axis)];  // new_idx
      y[std::size_t(flat_index(ys, o))] = t.get_double(d);
    });
    before += t.dim(axis);
  }
  return y;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(transform_concatenate)

// ---- concatenate --------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(concatenate_shape_grid) {
  int k = 0;
  for (const Dims& shape : shape_grid()) {
    DType dt = kAllDTypes[(k++ * 5) % 8];
    Tensor x = sample(dt, shape, k), y = sample(dt, shape, k + 1000);
    for (int axis = 0; axis < 4; ++axis) {
      if (shape[1] * shape[2] * shape[3] > 100000 && axis != 0 && axis != 3) continue;
      Dims ys;
      std::vector<double> expect = ref_concatenate({x, y}, axis, &ys);
      check_values(run1(Opcode::concatenate, {x, y}, {integer(axis)}), dt, ys, expect);
    }
  }
}

BOOST_AUTO_TEST_CASE(concatenate_variadic_layouts_empty) {
  for (DType dt : kAllDTypes)
    for (int64_t axis : {0, 1, 2, -1}) {
      const int a = normalize_axis(axis, 3);
      std::vector<Tensor> in;
      for (int i = 0; i < 4; ++i) {
        Dims s{2, 3, 2};
        s[a] = i == 2 ? 0 : i + 1;  // one input empty along the axis
        in.push_back(relayout(sample(dt, s, 11 * i + 1), kLayoutsNoBroadcast[i % 4]));
      }
      Dims ys;
      std::vector<double> expect = ref_concatenate(in, a, &ys);
      check_values(run1(Opcode::concatenate, in, {integer(axis)}), dt, ys, expect);
    }
  // One input; a broadcast input.
  Tensor x = sample(DType::i64, Dims{2, 2});
  check_values(run1(Opcode::concatenate, {x}, {integer(0)}), DType::i64, Dims{2, 2}, values(x));
  Tensor b = sample(DType::i64, Dims{1, 2}).with_layout(Dims{3, 2}, Dims{0, 1}, 0);
  Dims ys;
  std::vector<double> expect = ref_concatenate({x, b}, 0, &ys);
  check_values(run1(Opcode::concatenate, {x, b}, {integer(0)}), DType::i64, ys, expect);
  // All empty.
  check_values(run1(Opcode::concatenate,
                    {sample(DType::f32, Dims{0, 2}), sample(DType::f32, Dims{0, 2})}, {integer(1)}),
               DType::f32, Dims{0, 4}, {});
}

// Results of 128 KiB or more are copied by the pool's threads: a few long rows split into
// 64 KiB pieces (a channel concat of two feature maps, an input of 1 MB), and many short rows
// in groups; against the reference and the single-threaded run.
BOOST_AUTO_TEST_CASE(concatenate_large_with_a_pool) {
  ThreadPool pool(2);
  struct Case {
    Dims a, b;
    int axis;
  };
  for (const Case& c : {Case{{1, 64, 55, 55}, {1, 80, 55, 55}, 1}, Case{{2, 3, 300, 50}, {2, 3, 300, 70}, 3},
                        Case{{3, 2, 90, 90}, {3, 5, 90, 90}, 1}})
    BOOST_TEST_CONTEXT("axis " << c.axis) {
      Tensor x = sample(DType::f32, c.a, 1), y = sample(DType::f32, c.b, 2);
      Dims ys;
      std::vector<double> expect = ref_concatenate({x, y}, c.axis, &ys);
      check_values(run_op(Opcode::concatenate, {x, y}, {integer(c.axis)}, &pool), DType::f32, ys, expect);
    }
}

BOOST_AUTO_TEST_CASE(concatenate_static_rule_and_errors) {
  TensorType y =
      infer_op(Opcode::concatenate,
             {tt(DType::i32, Dims{kDynamic, 3}, 8), tt(DType::i32, Dims{2, kDynamic}, 12)}, {integer(0)});
  BOOST_CHECK_EQUAL(y.to_string(), "i32[?, 3] precision=12");
  y = infer_op(Opcode::concatenate, {tt(DType::i32, Dims{2, 3}, 8), tt(DType::i32, Dims{2, 4})},
             {integer(-1)});
  BOOST_CHECK_EQUAL(y.to_string(), "i32[2, 7]");
  expect_error(
      [] {
        infer_op(Opcode::concatenate, {tt(DType::f32, Dims{2, 3}), tt(DType::f32, Dims{2, 4})}, {integer(0)});
      },
      ErrorKind::invalid, {"input 1 f32[2, 4]", "dim 1 (4 vs 3)", "only axis 0 may differ"});
  expect_error(
      [] {
        infer_op(Opcode::concatenate, {tt(DType::f32, Dims{2, 3}), tt(DType::i32, Dims{2, 3})}, {integer(0)});
      },
      ErrorKind::invalid, {"input 1 is i32[2, 3]", "dtypes must be equal"});
  expect_error(
      [] {
        infer_op(Opcode::concatenate, {tt(DType::f32, Dims{2, 3}), tt(DType::f32, Dims{6})}, {integer(0)});
      },
      ErrorKind::invalid, {"has rank 1", "has rank 2"});
  expect_error(
      [] {
        infer_op(Opcode::concatenate, {tt(DType::f32, Dims{2, 3})}, {integer(2)});
      },
      ErrorKind::invalid, {"axis 2 is out of range for rank 2"});
  // A `?` dim that turns out different at run time traps.
  expect_error(
      [] {
        run1(Opcode::concatenate, {sample(DType::f32, Dims{2, 3}), sample(DType::f32, Dims{2, 4})},
             {integer(0)});
      },
      ErrorKind::trap, {"dim 1 (4 vs 3)"});
  expect_error(
      [] {
        run1(Opcode::concatenate, {sample(DType::f32, Dims{2}), sample(DType::u8, Dims{2})}, {integer(0)});
      },
      ErrorKind::invalid, {"dtypes must be equal"});
}

BOOST_AUTO_TEST_SUITE_END()
