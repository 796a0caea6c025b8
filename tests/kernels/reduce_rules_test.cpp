// Static rules of the reductions: axes errors, dtypes, empty dims (a static error, or a trap
// when the dim was `?`), result precision and `?` dims (docs/ops.md, "Reductions" and "Integer
// precision").
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "reduce_cases.hpp"

using namespace mlvm;
using namespace mlvm::testing;

BOOST_AUTO_TEST_SUITE(kernels_reduce_rules)

BOOST_AUTO_TEST_CASE(empty_dims) {
  // sum over an empty dim is 0; mean is 0/0 = NaN; an empty kept dim gives an empty result.
  Tensor e = Tensor::empty(DType::i32, Dims{3, 0});
  Tensor s = run_op(Opcode::sum, {e}, reduce_attr_values({1}));
  BOOST_TEST(dims_to_string(s.shape()) == "[3]");
  for (int k = 0; k < 3; ++k) BOOST_TEST(s.data<int32_t>()[k] == 0);
  BOOST_TEST(run_op(Opcode::sum, {e}, reduce_attr_values({})).data<int32_t>()[0] == 0);
  Tensor ef = Tensor::empty(DType::f32, Dims{0, 2});
  BOOST_TEST(std::isnan(run_op(Opcode::mean, {ef}, reduce_attr_values({0})).data<float>()[1]));
  BOOST_TEST(dims_to_string(run_op(Opcode::max, {ef}, reduce_attr_values({1})).shape()) == "[0]");
  check_reduce(Op::sum, make_input(DType::f64, Dims{2, 0, 3}, Layout::transposed, Fill::full, 1),
               {1}, true, false);
  check_reduce(Op::min, make_input(DType::i16, Dims{2, 0, 3}, Layout::flipped, Fill::full, 1),
               {0, 2}, false, false);
  // max/min over an empty dim: a static error when it is known, a trap when it was `?`.
  for (Op op : {Op::max, Op::min}) {
    expect_error(
        [&] {
          infer_op(opcode_of(op), {tt(DType::f32, {3, 0})}, reduce_attr_values({1}));
        },
        ErrorKind::invalid, "cannot reduce dim 1 of f32[3, 0]: it is empty");
    expect_error(
        [&] {
          infer_op(opcode_of(op), {tt(DType::f32, {3, 0})}, reduce_attr_values({}));
        },
        ErrorKind::invalid, "it is empty");
    BOOST_CHECK_NO_THROW(
        infer_op(opcode_of(op), {tt(DType::f32, {3, kDynamic})}, reduce_attr_values({1})));
    BOOST_CHECK_NO_THROW(
        infer_op(opcode_of(op), {tt(DType::f32, {0, 3})}, reduce_attr_values({1})));
    expect_error([&] { run_op(opcode_of(op), {ef}, reduce_attr_values({0})); }, ErrorKind::trap,
                 "cannot reduce dim 0 of f32[0, 2]: it is empty");
  }
  BOOST_CHECK_NO_THROW(infer_op(Opcode::sum, {tt(DType::f32, {3, 0})}, reduce_attr_values({1})));
  expect_error(
      [&] {
        infer_op(Opcode::argmax, {tt(DType::f32, {3, 0})}, arg_attrs(1));
      },
      ErrorKind::invalid, "it is empty");
  expect_error([&] { run_op(Opcode::argmin, {ef}, arg_attrs(0)); }, ErrorKind::trap, "it is empty");
  BOOST_TEST(dims_to_string(run_op(Opcode::argmax, {ef}, arg_attrs(1)).shape()) == "[0]");
}

BOOST_AUTO_TEST_CASE(static_errors) {
  const TensorType x = tt(DType::f32, {2, 3, 4});
  for (Op op : {Op::sum, Op::max, Op::min, Op::mean}) {
    expect_error([&] { infer_op(opcode_of(op), {x}, reduce_attr_values({3})); }, ErrorKind::invalid,
                 "axis 3 is out of range for rank 3 (expected -3..2)");
    expect_error([&] { infer_op(opcode_of(op), {x}, reduce_attr_values({-4})); },
                 ErrorKind::invalid, "axis -4 is out of range");
    expect_error(
        [&] {
          infer_op(opcode_of(op), {x}, reduce_attr_values({1, -2}));
        },
        ErrorKind::invalid, "axis 1 is named twice");
    expect_error(
        [&] {
          run_op(opcode_of(op),
                 {make_input(DType::f32, Dims{2, 3}, Layout::contiguous, Fill::full, 1)},
                 reduce_attr_values({0, 0}));
        },
        ErrorKind::invalid, "named twice");
  }
  expect_error([&] { infer_op(Opcode::sum, {tt(DType::boolean, {3})}, reduce_attr_values({})); },
               ErrorKind::invalid, "sum: x has dtype bool");
  for (DType t : kIntDTypes)
    expect_error([&] { infer_op(Opcode::mean, {tt(t, {3})}, reduce_attr_values({})); },
                 ErrorKind::invalid, "floats only");
  expect_error(
      [&] {
        run_op(Opcode::mean, {make_input(DType::i32, Dims{3}, Layout::contiguous, Fill::full, 1)},
               reduce_attr_values({}));
      },
      ErrorKind::invalid, "mean: x has dtype i32");
  expect_error([&] { infer_op(Opcode::argmax, {x}, arg_attrs(3)); }, ErrorKind::invalid,
               "axis 3 is out of range");
  expect_error([&] { infer_op(Opcode::argmin, {x}, arg_attrs(-4)); }, ErrorKind::invalid,
               "axis -4 is out of range");
}

BOOST_AUTO_TEST_CASE(precision_and_dynamic_dims) {
  auto p = [](Opcode f, Dims d, int prec, std::vector<int64_t> axes, bool keep = false,
              bool ex = false) {
    return infer_op(f, {tt(DType::i32, d, prec)}, reduce_attr_values(axes, keep, ex));
  };
  BOOST_TEST(p(Opcode::sum, {3, 5}, 8, {}).precision == 8 + 4);  // 15 elements
  BOOST_TEST(p(Opcode::sum, {3, 5}, 8, {1}).precision == 8 + 3);
  BOOST_TEST(p(Opcode::sum, {3, 4}, 8, {1}).precision == 8 + 2);
  BOOST_TEST(p(Opcode::sum, {3, 1}, 8, {1}).precision == 8);
  BOOST_TEST(p(Opcode::sum, {3, 0}, 8, {1}).precision == 8);
  BOOST_TEST(p(Opcode::sum, {3, 5}, 8, {1}, false, true).precision == 8 + 2);  // exclude: axis 0
  BOOST_TEST(p(Opcode::sum, {3, 5}, 30, {}).precision == 34);  // past i32: the verifier reports it
  BOOST_TEST(p(Opcode::sum, {3, 5}, 0, {}).precision == 0);
  BOOST_TEST(p(Opcode::sum, {kDynamic, 5}, 8, {0}).precision == 0);  // dynamic reduced dim
  BOOST_TEST(p(Opcode::sum, {kDynamic, 5}, 8, {1}).precision == 8 + 3);
  BOOST_TEST(p(Opcode::max, {kDynamic, 5}, 8, {0}).precision == 8);
  BOOST_TEST(p(Opcode::min, {3, 5}, 9, {}).precision == 9);
  BOOST_TEST(p(Opcode::max, {3, 5}, 0, {}).precision == 0);
  BOOST_TEST(infer_op(Opcode::mean, {tt(DType::f32, {3})}, reduce_attr_values({})).precision == 0);
  BOOST_TEST(infer_op(Opcode::argmax, {tt(DType::i32, {3, 4}, 5)}, arg_attrs(1)).precision == 0);
  // `?` dims flow through.
  BOOST_TEST(dims_to_string(p(Opcode::sum, {kDynamic, 5, kDynamic}, 8, {1}).dims) == "[?, ?]");
  BOOST_TEST(dims_to_string(p(Opcode::sum, {kDynamic, 5, kDynamic}, 8, {1}, true).dims) ==
             "[?, 1, ?]");
  BOOST_TEST(dims_to_string(p(Opcode::max, {kDynamic, 5}, 8, {0}).dims) == "[5]");
  BOOST_TEST(
      dims_to_string(
          infer_op(Opcode::argmax, {tt(DType::f32, {kDynamic, 4, 2})}, arg_attrs(-2)).dims) ==
      "[?, 2]");
  BOOST_TEST(
      dims_to_string(
          infer_op(Opcode::argmax, {tt(DType::f32, {kDynamic, 4, 2})}, arg_attrs(1, true)).dims) ==
      "[?, 1, 2]");
  BOOST_TEST(dims_to_string(infer_op(Opcode::argmin, {tt(DType::f32, {7})}, arg_attrs(0)).dims) ==
             "[1]");
}

BOOST_AUTO_TEST_SUITE_END()
