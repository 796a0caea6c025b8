// Static rules of the elementwise binary ops: dtypes, shapes with `?` (broadcasting, and equal
// shapes for elemwise_*), the run-time shape checks, and result precision (docs/ops.md,
// "Elementwise binary, comparison, logical, where" and "Integer precision").
#include <array>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "binary_cases.hpp"

using namespace mlvm;
using namespace mlvm::testing;

BOOST_AUTO_TEST_SUITE(kernels_binary_rules)

BOOST_AUTO_TEST_CASE(static_rules_and_errors) {
  for (const BinaryCase& c : binary_cases()) {
    BOOST_TEST_CONTEXT(c.name) {
      expect_error(
          [&] {
            infer_op(c.op, {tt(DType::f32, {3}), tt(DType::f64, {3})});
          },
          ErrorKind::invalid, "operand dtypes differ (a is f32, b is f64)");
      if (c.dtypes.size() != kAllDTypes.size())
        expect_error(
            [&] {
              infer_op(c.op, {tt(DType::boolean, {3}), tt(DType::boolean, {3})});
            },
            ErrorKind::invalid, "has dtype bool");
      for (DType t : c.dtypes) {
        TensorType r = infer_op(c.op, {tt(t, {2, 3}), tt(t, {2, 3})});
        const bool cmp = c.name.find("less") == 0 || c.name.find("greater") == 0 ||
                         c.name.find("equal") != std::string::npos || c.name.find("logical") == 0;
        BOOST_TEST(r.dtype == (cmp ? DType::boolean : t));
      }
      if (c.equal_shapes) {
        expect_error(
            [&] {
              infer_op(c.op, {tt(DType::i32, {3, 4}), tt(DType::i32, {1, 4})});
            },
            ErrorKind::invalid, "needs equal shapes: i32[3, 4] and i32[1, 4] (dim 0: 3 vs 1)");
        expect_error(
            [&] {
              infer_op(c.op, {tt(DType::i32, {4}), tt(DType::i32, {1, 4})});
            },
            ErrorKind::invalid, "rank 1 vs 2");
        BOOST_TEST(dims_to_string(infer_op(c.op, {tt(DType::i32, {kDynamic, 4}),
                                                  tt(DType::i32, {3, kDynamic})})
                                      .dims) == "[3, 4]");
        expect_error(
            [&] {
              run_op(c.op, {filled(DType::i32, Dims{2, 1}, {1, 2}),
                            filled(DType::i32, Dims{2, 2}, {1, 2, 3, 4})});
            },
            ErrorKind::trap, "needs equal shapes at run time");
      } else {
        expect_error(
            [&] {
              infer_op(c.op, {tt(DType::f32, {3, 4}), tt(DType::f32, {5})});
            },
            ErrorKind::invalid,
            "shape mismatch: f32[3, 4] and f32[5] cannot broadcast (dim 1: 4 vs 5)");
        BOOST_TEST(dims_to_string(
                       infer_op(c.op, {tt(DType::f32, {kDynamic, 1, 3}), tt(DType::f32, {1, 4, 1})})
                           .dims) == "[?, 4, 3]");
        BOOST_TEST(dims_to_string(
                       infer_op(c.op, {tt(DType::f32, {kDynamic}), tt(DType::f32, {5})}).dims) ==
                   "[5]");
        BOOST_TEST(
            dims_to_string(infer_op(c.op, {tt(DType::f32, {0, 3}), tt(DType::f32, {1, 3})}).dims) ==
            "[0, 3]");
        // A `?` that turns out wrong at run time is a trap.
        expect_error(
            [&] {
              run_op(c.op,
                     {filled(DType::f32, Dims{3}, {1, 2, 3}), filled(DType::f32, Dims{2}, {1, 2})});
            },
            ErrorKind::trap, "cannot broadcast");
      }
      expect_error(
          [&] {
            run_op(c.op, {filled(DType::f32, Dims{1}, {1}), filled(DType::i32, Dims{1}, {1})});
          },
          ErrorKind::invalid, "operand dtypes differ");
    }
  }
}

BOOST_AUTO_TEST_CASE(precision_rules) {
  auto p = [](Opcode f, DType t, int pa, int pb) {
    return infer_op(f, {tt(t, {4}, pa), tt(t, {1}, pb)}).precision;
  };
  for (Opcode f : {Opcode::add, Opcode::sub, Opcode::elemwise_add, Opcode::elemwise_sub}) {
    if (f == Opcode::elemwise_add || f == Opcode::elemwise_sub) {
      BOOST_TEST(infer_op(f, {tt(DType::i32, {4}, 8), tt(DType::i32, {4}, 5)}).precision == 9);
      continue;
    }
    BOOST_TEST(p(f, DType::i32, 8, 5) == 9);
    BOOST_TEST(p(f, DType::i32, 8, 0) == 0);
    BOOST_TEST(p(f, DType::i8, 8, 8) == 9);  // past the dtype: the verifier reports it
  }
  BOOST_TEST(p(Opcode::mul, DType::i32, 8, 5) == 13);
  BOOST_TEST(p(Opcode::mul, DType::i64, 40, 40) == 80);
  BOOST_TEST(
      infer_op(Opcode::elemwise_mul, {tt(DType::i16, {4}, 3), tt(DType::i16, {4}, 4)}).precision ==
      7);
  BOOST_TEST(p(Opcode::div, DType::i32, 8, 5) == 8);
  BOOST_TEST(p(Opcode::div, DType::i32, 0, 5) == 0);
  BOOST_TEST(p(Opcode::maximum, DType::i16, 3, 11) == 11);
  BOOST_TEST(p(Opcode::minimum, DType::i16, 12, 11) == 12);
  BOOST_TEST(p(Opcode::minimum, DType::i16, 12, 0) == 0);
  BOOST_TEST(p(Opcode::add, DType::f32, 0, 0) == 0);
  BOOST_TEST(p(Opcode::add, DType::u8, 0, 0) == 0);
  BOOST_TEST(p(Opcode::less, DType::i32, 4, 4) == 0);
  BOOST_TEST(p(Opcode::logical_or, DType::i32, 4, 4) == 0);
}

BOOST_AUTO_TEST_SUITE_END()
