// sum, max, min and mean kernels against a naive reference that walks every input index and
// accumulates into its output slot: the four cases of docs/ops.md, "Reductions" (axes,
// keepdims, exclude), over the op tests' shapes and over transposed, flipped, sliced,
// broadcast and empty views of every dtype; NaN and float-sum accuracy.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "reduce_cases.hpp"

using namespace mlvm;
using namespace mlvm::testing;

BOOST_AUTO_TEST_SUITE(kernels_reduce)

BOOST_AUTO_TEST_CASE(seed_sum_examples) {
  Tensor data =
      filled(DType::f32, Dims{3, 3, 2}, {1, 2, 2, 3, 1, 3, 1, 4, 4, 3, 5, 2, 7, 1, 7, 2, 7, 3});
  Tensor a = run_op(Opcode::sum, {data}, reduce_attr_values({1}));
  BOOST_TEST(dims_to_string(a.shape()) == "[3, 2]");
  const float want_a[] = {4, 8, 10, 9, 21, 6};
  for (int k = 0; k < 6; ++k) BOOST_TEST(a.data<float>()[k] == want_a[k]);
  Tensor b = run_op(Opcode::sum, {data}, reduce_attr_values({1, 2}));
  BOOST_TEST(dims_to_string(b.shape()) == "[3]");
  const float want_b[] = {12, 19, 27};
  for (int k = 0; k < 3; ++k) BOOST_TEST(b.data<float>()[k] == want_b[k]);
  // The same with integers, and with keepdims.
  Tensor di =
      filled(DType::i32, Dims{3, 3, 2}, {1, 2, 2, 3, 1, 3, 1, 4, 4, 3, 5, 2, 7, 1, 7, 2, 7, 3});
  Tensor c = run_op(Opcode::sum, {di}, reduce_attr_values({1, 2}, true));
  BOOST_TEST(dims_to_string(c.shape()) == "[3, 1, 1]");
  for (int k = 0; k < 3; ++k) BOOST_TEST(c.data<int32_t>()[k] == int32_t(want_b[k]));
}

BOOST_AUTO_TEST_CASE(seed_test_parameters) {
  // sum / max: X.shape (1, j, l, r), j in {1, 34, 67}, l in {1, 58}, r in {1, 64}, axis (1,).
  uint64_t seed = 1;
  for (int64_t j : {1, 34, 67})
    for (int64_t l : {1, 58})
      for (int64_t r : {1, 64})
        for (Op op : {Op::sum, Op::max, Op::min, Op::mean}) {
          DType t = op == Op::mean || seed % 2 ? DType::f32 : DType::i32;
          Tensor x = make_input(t, Dims{1, j, l, r}, Layout::contiguous, Fill::full, seed++);
          check_reduce(op, x, {1}, false, false);
          if (op == Op::max || op == Op::sum) check_reduce(op, x, {}, false, false);
        }
  // The elementwise grid's corners, reducing other axes.
  for (const Dims& x : grid_sample()) {
    Tensor t = make_input(DType::f32, x, Layout::contiguous, Fill::full, seed++);
    check_reduce(Op::sum, t, {1, 3}, true, false);
    check_reduce(Op::max, t, {2}, false, true);
  }
}

BOOST_AUTO_TEST_CASE(the_four_cases) {
  Tensor x = make_input(DType::i32, Dims{2, 3, 4}, Layout::contiguous, Fill::small, 5);
  // 1. exclude and every axis named: nothing reduced, Y = X.
  for (Op op : {Op::sum, Op::max, Op::min}) {
    Tensor y = run_op(opcode_of(op), {x}, reduce_attr_values({0, 1, 2}, false, true));
    BOOST_TEST(dims_to_string(y.shape()) == "[2, 3, 4]");
    for (int k = 0; k < 24; ++k) BOOST_TEST(y.data<int32_t>()[k] == x.data<int32_t>()[k]);
    check_reduce(op, x, {0, -2, 2}, true, true);
  }
  // 2. axes=() reduces everything, whatever exclude says; shape [1] or all 1s.
  for (bool exclude : {false, true}) {
    BOOST_TEST(
        dims_to_string(run_op(Opcode::sum, {x}, reduce_attr_values({}, false, exclude)).shape()) ==
        "[1]");
    BOOST_TEST(
        dims_to_string(run_op(Opcode::sum, {x}, reduce_attr_values({}, true, exclude)).shape()) ==
        "[1, 1, 1]");
    for (bool keep : {false, true}) check_reduce(Op::sum, x, {}, keep, exclude);
  }
  // Reducing every axis by name gives [1] too.
  BOOST_TEST(dims_to_string(run_op(Opcode::max, {x}, reduce_attr_values({0, 1, 2})).shape()) ==
             "[1]");
  // 3 and 4: keepdims false / true, with exclude inverting the selection.
  BOOST_TEST(dims_to_string(run_op(Opcode::sum, {x}, reduce_attr_values({1})).shape()) == "[2, 4]");
  BOOST_TEST(dims_to_string(run_op(Opcode::sum, {x}, reduce_attr_values({1}, true)).shape()) ==
             "[2, 1, 4]");
  BOOST_TEST(dims_to_string(
                 run_op(Opcode::sum, {x}, reduce_attr_values({1}, false, true)).shape()) == "[3]");
  BOOST_TEST(
      dims_to_string(run_op(Opcode::sum, {x}, reduce_attr_values({-1}, true, true)).shape()) ==
      "[1, 1, 4]");
  // max of everything is the true maximum, even when every element is negative.
  Tensor neg = filled(DType::f32, Dims{2, 2}, {-5, -3, -9, -4});
  BOOST_TEST(run_op(Opcode::max, {neg}, reduce_attr_values({})).data<float>()[0] == -3.0f);
  Tensor negi = filled(DType::i8, Dims{3}, {-128, -7, -100});
  BOOST_TEST(run_op(Opcode::max, {negi}, reduce_attr_values({})).data<int8_t>()[0] == -7);
  BOOST_TEST(run_op(Opcode::min, {negi}, reduce_attr_values({})).data<int8_t>()[0] == -128);
}

BOOST_AUTO_TEST_CASE(every_dtype_axes_and_layout) {
  uint64_t seed = 100;
  const std::vector<std::vector<int64_t>> axes_set = {{},     {0},  {1},     {2},
                                                      {0, 2}, {-1}, {1, -3}, {0, 1, 2}};
  for (Op op : {Op::sum, Op::max, Op::min, Op::mean})
    for (DType t : dtypes_of(op))
      for (Layout lay : kLayouts)
        for (const Dims& shape : {Dims{3, 5, 7}, Dims{4, 1, 9}})
          for (std::size_t a = 0; a < axes_set.size(); ++a) {
            const bool keep = (seed & 1) != 0, exclude = (seed & 2) != 0;
            BOOST_TEST_CONTEXT(op_name(op) << " " << dtype_name(t) << " " << layout_name(lay)) {
              Fill f = seed % 3 == 0 ? Fill::specials : Fill::full;
              check_reduce(op, make_input(t, shape, lay, f, seed), axes_set[a], keep, exclude);
            }
            ++seed;
          }
  // Rank 1 and rank 8.
  for (Op op : {Op::sum, Op::max})
    for (DType t : {DType::f64, DType::i64, DType::u8}) {
      check_reduce(op, make_input(t, Dims{1001}, Layout::flipped, Fill::full, seed++), {}, false,
                   false);
      check_reduce(
          op, make_input(t, Dims{2, 3, 1, 2, 3, 1, 2, 3}, Layout::transposed, Fill::full, seed++),
          {1, 4, 6}, false, false);
      check_reduce(op,
                   make_input(t, Dims{2, 3, 1, 2, 3, 1, 2, 3}, Layout::sliced, Fill::full, seed++),
                   {0, 7}, true, true);
    }
}

BOOST_AUTO_TEST_CASE(nan_propagation) {
  Tensor x = filled(DType::f32, Dims{2, 3}, {1, NAN, 3, 4, 5, 6});
  Tensor mx = run_op(Opcode::max, {x}, reduce_attr_values({1}));
  BOOST_TEST(std::isnan(mx.data<float>()[0]));
  BOOST_TEST(mx.data<float>()[1] == 6.0f);
  Tensor mn = run_op(Opcode::min, {x}, reduce_attr_values({}));
  BOOST_TEST(std::isnan(mn.data<float>()[0]));
  Tensor sm = run_op(Opcode::sum, {x}, reduce_attr_values({0}));
  BOOST_TEST(std::isnan(sm.data<float>()[1]));
  BOOST_TEST(sm.data<float>()[2] == 9.0f);
  // NaN first in the run, then larger values: still NaN.
  Tensor y = filled(DType::f64, Dims{4}, {NAN, 1, 2, INFINITY});
  BOOST_TEST(std::isnan(run_op(Opcode::max, {y}, reduce_attr_values({})).data<double>()[0]));
  Tensor am = filled(DType::f64, Dims{6}, {1, 9, NAN, 9, NAN, 0});
  BOOST_TEST(run_op(Opcode::argmax, {am}, arg_attrs(0)).data<int64_t>()[0] == 2);
  BOOST_TEST(run_op(Opcode::argmin, {am}, arg_attrs(0)).data<int64_t>()[0] == 2);
  Tensor ties = filled(DType::i32, Dims{6}, {3, 9, 1, 9, 1, 0});
  BOOST_TEST(run_op(Opcode::argmax, {ties}, arg_attrs(0)).data<int64_t>()[0] == 1);
  Tensor ties2 = filled(DType::i32, Dims{6}, {3, 9, 1, 9, 1, 5});
  BOOST_TEST(run_op(Opcode::argmin, {ties2}, arg_attrs(-1)).data<int64_t>()[0] == 2);
}

BOOST_AUTO_TEST_CASE(float_sum_accuracy) {
  // 10^6 values of 0.1f: naive f32 accumulation drifts by ~1%; the pairwise sum stays within
  // a few ulps of the true sum of the stored values.
  const int64_t n = 1000000;
  Tensor x = Tensor::empty(DType::f32, Dims{n});
  for (int64_t k = 0; k < n; ++k) x.data<float>()[k] = 0.1f;
  const double exact = double(0.1f) * double(n);
  const float s = run_op(Opcode::sum, {x}, reduce_attr_values({})).data<float>()[0];
  BOOST_TEST(std::fabs(double(s) - exact) <= 1e-5 * exact);
  const float m = run_op(Opcode::mean, {x}, reduce_attr_values({})).data<float>()[0];
  BOOST_TEST(std::fabs(double(m) - double(0.1f)) <= 1e-6);
  // Integer sums wrap.
  Tensor i = filled(DType::i8, Dims{3}, {100, 100, 100});
  BOOST_TEST(run_op(Opcode::sum, {i}, reduce_attr_values({})).data<int8_t>()[0] == int8_t(44));
}

BOOST_AUTO_TEST_SUITE_END()
