// Static rules of the elementwise unary ops: accepted dtypes, attribute errors (clip's bounds,
// the CVM ops' ranges) and result precision (docs/ops.md, "Elementwise unary" and "Integer
// precision").
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "unary_cases.hpp"

using namespace mlvm;
using namespace mlvm::testing;

BOOST_AUTO_TEST_SUITE(kernels_unary_rules)

BOOST_AUTO_TEST_CASE(dtype_rules) {
  for (DType t : kAllDTypes) {
    const bool fl = t == DType::f32 || t == DType::f64;
    for (Opcode f : {Opcode::exp, Opcode::log, Opcode::sqrt, Opcode::floor, Opcode::tanh, Opcode::sigmoid}) {
      if (fl)
        BOOST_CHECK_NO_THROW(infer_op(f, {tt(t, {2})}, attrs_for(f)));
      else
        expect_error([&] { infer_op(f, {tt(t, {2})}, attrs_for(f)); }, ErrorKind::invalid,
                     "floats only");
    }
    for (Opcode f : {Opcode::exp, Opcode::sigmoid})
      if (!fl) {
        Tensor x = make_input(t, Dims{2}, Layout::contiguous, Fill::small, 1);
        expect_error([&] { run_op(f, {x}, attrs_for(f)); }, ErrorKind::invalid,
                     "expected one of f32, f64");
      }
    for (Opcode f : {Opcode::abs, Opcode::negative, Opcode::relu, Opcode::sign}) {
      if (t == DType::boolean)
        expect_error([&] { infer_op(f, {tt(t, {2})}, attrs_for(f)); }, ErrorKind::invalid,
                     "has dtype bool");
      else
        BOOST_CHECK_NO_THROW(infer_op(f, {tt(t, {2})}, attrs_for(f)));
    }
    const bool sgn = t == DType::i8 || t == DType::i16 || t == DType::i32 || t == DType::i64;
    auto cvm = [&](Opcode f, Attrs a) {
      if (sgn)
        BOOST_CHECK_NO_THROW(infer_op(f, {tt(t, {2})}, a));
      else
        expect_error([&] { infer_op(f, {tt(t, {2})}, a); }, ErrorKind::invalid, "signed integers");
    };
    cvm(Opcode::cvm_clip, cvm_attrs(Opcode::cvm_clip, {8}));
    cvm(Opcode::cvm_right_shift, cvm_attrs(Opcode::cvm_right_shift, {8, 3}));
    cvm(Opcode::cvm_left_shift, cvm_attrs(Opcode::cvm_left_shift, {8, 3}));
    if (sgn || t == DType::u8)
      BOOST_CHECK_NO_THROW(
          infer_op(Opcode::cvm_precision, {tt(t, {2})}, attrs_for(Opcode::cvm_precision)));
    else
      expect_error(
          [&] { infer_op(Opcode::cvm_precision, {tt(t, {2})}, attrs_for(Opcode::cvm_precision)); },
          ErrorKind::invalid, "integers only");
    BOOST_TEST(infer_op(Opcode::logical_not, {tt(t, {2})}, attrs_for(Opcode::logical_not)).dtype ==
               DType::boolean);
    if (t == DType::boolean)
      expect_error(
          [&] {
            infer_op(Opcode::clip, {tt(t, {2})},
                     clip_attr_values(AttrValue::integer(0), AttrValue::integer(1)));
          },
          ErrorKind::invalid, "clip: x has dtype bool");
  }
  // Attribute ranges (ir/attrs.def) are checked with the attributes, which is the only way to
  // make the Attrs a rule or a kernel reads (a module's attributes may come from anywhere).
  expect_error([&] { cvm_attrs(Opcode::cvm_clip, {0}); }, ErrorKind::invalid,
               "attribute 'precision' of cvm_clip is 0; expected a value in [1, 32]");
  expect_error(
      [&] {
        cvm_attrs(Opcode::cvm_right_shift, {8, 33});
      },
      ErrorKind::invalid,
      "attribute 'shift_bit' of cvm_right_shift is 33; expected a value in [1, 32]");
  expect_error(
      [&] {
        cvm_attrs(Opcode::cvm_left_shift, {33, 1});
      },
      ErrorKind::invalid, "attribute 'precision' of cvm_left_shift is 33");
}

BOOST_AUTO_TEST_CASE(clip_attribute_rules) {
  const TensorType i8 = tt(DType::i8, {3});
  expect_error(
      [&] {
        infer_op(Opcode::clip, {i8},
                 clip_attr_values(AttrValue::integer(5), AttrValue::integer(4)));
      },
      ErrorKind::invalid, "a_min 5 is greater than a_max 4");
  expect_error(
      [&] {
        infer_op(Opcode::clip, {tt(DType::f32, {3})},
                 clip_attr_values(AttrValue::floating(0.5), AttrValue::floating(0.25)));
      },
      ErrorKind::invalid, "greater than a_max");
  expect_error(
      [&] {
        infer_op(Opcode::clip, {i8},
                 clip_attr_values(AttrValue::floating(1.5), AttrValue::integer(4)));
      },
      ErrorKind::invalid, "a_min 1.5 is fractional");
  expect_error(
      [&] {
        infer_op(Opcode::clip, {tt(DType::i32, {3})},
                 clip_attr_values(AttrValue::integer(0), AttrValue::floating(2.25)));
      },
      ErrorKind::invalid, "a_max 2.25 is fractional");
  expect_error(
      [&] {
        infer_op(Opcode::clip, {tt(DType::f32, {3})},
                 clip_attr_values(AttrValue::floating(NAN), AttrValue::integer(1)));
      },
      ErrorKind::invalid, "a_min is NaN");
  Tensor x = make_input(DType::i8, Dims{3}, Layout::contiguous, Fill::small, 3);
  expect_error(
      [&] {
        run_op(Opcode::clip, {x}, clip_attr_values(AttrValue::integer(2), AttrValue::integer(1)));
      },
      ErrorKind::invalid, "greater than a_max");
  // Integral floats are fine on ints; bounds beyond the dtype are clamped to it.
  BOOST_CHECK_NO_THROW(infer_op(
      Opcode::clip, {i8}, clip_attr_values(AttrValue::floating(-3.0), AttrValue::floating(4.0))));
  Tensor e = Tensor::empty(DType::i8, Dims{4});
  const int8_t v[] = {-128, 127, -5, 9};
  std::memcpy(e.raw_data(), v, 4);
  Tensor wide = run_op(Opcode::clip, {e},
                       clip_attr_values(AttrValue::integer(-1000), AttrValue::integer(1000)));
  for (int k = 0; k < 4; ++k) BOOST_TEST(wide.data<int8_t>()[k] == v[k]);
  Tensor inf = run_op(Opcode::clip, {e},
                      clip_attr_values(AttrValue::floating(-INFINITY), AttrValue::floating(3.0)));
  BOOST_TEST(inf.data<int8_t>()[0] == -128);
  BOOST_TEST(inf.data<int8_t>()[1] == 3);
  Tensor above =
      run_op(Opcode::clip, {e}, clip_attr_values(AttrValue::integer(200), AttrValue::integer(300)));
  for (int k = 0; k < 4; ++k)
    BOOST_TEST(above.data<int8_t>()[k] == 127);  // clamped bounds [127, 127]
  Tensor i64 = Tensor::empty(DType::i64, Dims{2});
  i64.data<int64_t>()[0] = INT64_MIN;
  i64.data<int64_t>()[1] = INT64_MAX;
  Tensor big = run_op(Opcode::clip, {i64},
                      clip_attr_values(AttrValue::floating(-1e30), AttrValue::floating(1e30)));
  BOOST_TEST(big.data<int64_t>()[0] == INT64_MIN);
  BOOST_TEST(big.data<int64_t>()[1] == INT64_MAX);
}

BOOST_AUTO_TEST_CASE(precision_rules) {
  const Dims d{4, kDynamic};
  for (Opcode f : {Opcode::abs, Opcode::negative, Opcode::relu}) {
    BOOST_TEST(infer_op(f, {tt(DType::i16, d, 9)}, attrs_for(f)).precision == 9);
    BOOST_TEST(infer_op(f, {tt(DType::i16, d, 0)}, attrs_for(f)).precision == 0);
    BOOST_TEST(infer_op(f, {tt(DType::f32, d)}, attrs_for(f)).precision == 0);
    BOOST_TEST(infer_op(f, {tt(DType::u8, d)}, attrs_for(f)).precision == 0);
  }
  BOOST_TEST(infer_op(Opcode::sign, {tt(DType::i32, d, 20)}, attrs_for(Opcode::sign)).precision ==
             2);
  BOOST_TEST(infer_op(Opcode::sign, {tt(DType::i32, d, 0)}, attrs_for(Opcode::sign)).precision ==
             2);
  auto clip = [&](DType t, int p, int64_t lo, int64_t hi) {
    return infer_op(Opcode::clip, {tt(t, d, p)},
                    clip_attr_values(AttrValue::integer(lo), AttrValue::integer(hi)))
        .precision;
  };
  BOOST_TEST(clip(DType::i32, 0, -19, 10) == 6);  // |-19| needs 6 bits
  BOOST_TEST(clip(DType::i32, 4, -19, 10) == 4);  // p is smaller
  BOOST_TEST(clip(DType::i32, 12, -19, 10) == 6);
  BOOST_TEST(clip(DType::i8, 0, -127, 127) == 8);
  BOOST_TEST(clip(DType::i8, 0, -128, 127) == 0);  // wider than i8: unknown
  BOOST_TEST(clip(DType::i8, 5, -128, 127) == 5);  // ... unless p is known
  BOOST_TEST(clip(DType::i8, 0, -1000, 1000) == 0);
  BOOST_TEST(clip(DType::i32, 0, 0, 0) == 1);
  BOOST_TEST(clip(DType::u8, 0, 0, 10) == 0);
  BOOST_TEST(infer_op(Opcode::cvm_clip, {tt(DType::i32, d, 0)}, cvm_attrs(Opcode::cvm_clip, {8}))
                 .precision == 8);
  BOOST_TEST(infer_op(Opcode::cvm_clip, {tt(DType::i8, d, 0)}, cvm_attrs(Opcode::cvm_clip, {16}))
                 .precision == 0);
  BOOST_TEST(infer_op(Opcode::cvm_right_shift, {tt(DType::i32, d, 30)},
                      cvm_attrs(Opcode::cvm_right_shift, {8, 4}))
                 .precision == 8);
  BOOST_TEST(infer_op(Opcode::cvm_left_shift, {tt(DType::i32, d, 0)},
                      cvm_attrs(Opcode::cvm_left_shift, {24, 4}))
                 .precision == 24);
  // ARITH: past the dtype it stays, for the verifier to report.
  BOOST_TEST(infer_op(Opcode::cvm_left_shift, {tt(DType::i8, d, 0)},
                      cvm_attrs(Opcode::cvm_left_shift, {12, 4}))
                 .precision == 12);
  BOOST_TEST(
      infer_op(Opcode::cvm_precision, {tt(DType::i32, d, 0)}, attrs_for(Opcode::cvm_precision))
          .precision == 7);
  BOOST_TEST(
      infer_op(Opcode::cvm_precision, {tt(DType::i64, d, 40)}, attrs_for(Opcode::cvm_precision))
          .precision == 7);
  BOOST_TEST(
      infer_op(Opcode::cvm_precision, {tt(DType::i64, d, 0)}, attrs_for(Opcode::cvm_precision))
          .precision == 8);
  BOOST_TEST(
      infer_op(Opcode::cvm_precision, {tt(DType::i64, d, 0)}, attrs_for(Opcode::cvm_precision))
          .dtype == DType::i64);
  auto cast = [&](DType from, int p, DType to, InferOptions o = {}) {
    return infer_op(Opcode::cast, {tt(from, d, p)}, attrs_for(Opcode::cast, {AttrValue::dtype(to)}),
                    o)
        .precision;
  };
  BOOST_TEST(cast(DType::i32, 7, DType::i8) == 7);
  BOOST_TEST(cast(DType::i8, 7, DType::i64) == 7);
  BOOST_TEST(cast(DType::i32, 0, DType::i8) == 0);
  BOOST_TEST(cast(DType::u8, 0, DType::i16) == 9);
  BOOST_TEST(cast(DType::u8, 0, DType::i8) == 0);
  BOOST_TEST(cast(DType::boolean, 0, DType::i8) == 2);
  BOOST_TEST(cast(DType::f32, 0, DType::i32) == 0);
  BOOST_TEST(cast(DType::i32, 7, DType::f32) == 0);
  expect_error([&] { cast(DType::i32, 20, DType::i8); }, ErrorKind::invalid,
               "input precision 20 exceeds i8");
  InferOptions off;
  off.precision_check = false;
  BOOST_TEST(cast(DType::i32, 20, DType::i8, off) == 0);
  // `?` dims flow through every unary rule.
  BOOST_TEST(
      dims_to_string(infer_op(Opcode::exp, {tt(DType::f32, d)}, attrs_for(Opcode::exp)).dims) ==
      "[4, ?]");
  BOOST_TEST(
      dims_to_string(
          infer_op(Opcode::logical_not, {tt(DType::i8, d)}, attrs_for(Opcode::logical_not)).dims) ==
      "[4, ?]");
}

BOOST_AUTO_TEST_SUITE_END()
