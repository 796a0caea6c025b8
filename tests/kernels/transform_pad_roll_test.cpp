// pad and roll (kernels/pad.cpp, kernels/roll.cpp): every result is compared with a naive
// reference written from the formulas in docs/ops.md, "Transforms" (index by index over
// row-major values; it shares no code with the kernels), on every dtype and on transposed /
// flipped / sliced / broadcast input views; a few pad results are NumPy's, pasted as literals.
// Then the static rules and their errors.
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/transform_test_support.hpp"

using namespace transform_test;

namespace {

int64_t ref_pad_source(int64_t j, int64_t n, const std::string& mode) {
  if (j >= 0 && j < n) return j;
  if (mode == "constant") return -1;
  if (mode == "edge") return j < 0 ? 0 : n - 1;
  if (n == 1) return 0;
  while (j < 0 || j >= n) {
    if (j < 0) j = -j;
    if (j >= n) j = 2 * (n - 1) - j;
  }
  return j;
}

std::vector<double> ref_pad(const Tensor& x, const std::vector<std::pair<int64_t, int64_t>>& pw,
                            double value, const std::string& mode, Dims* out_shape) {
  std::vector<double> xv = values(x);
  Dims ys = x.shape();
  for (int d = 0; d < ys.size(); ++d) ys[d] += pw[std::size_t(d)].first + pw[std::size_t(d)].second;
  *out_shape = ys;
  std::vector<double> y;
  for_each_index(ys, [&](const std::vector<int64_t>& k) {
    std::vector<int64_t> s(k.size());
    bool constant = false;
    for (int d = 0; d < ys.size(); ++d) {
      int64_t src = ref_pad_source(k[std::size_t(d)] - pw[std::size_t(d)].first, x.dim(d), mode);
      if (src < 0) constant = true;
      s[std::size_t(d)] = src;
    }
    y.push_back(constant ? value : xv[std::size_t(flat_index(x.shape(), s))]);
  });
  return y;
}

std::vector<double> ref_roll(const Tensor& x, const std::vector<int64_t>& shift,
                             const std::vector<int64_t>& axis) {
  std::vector<double> xv = values(x);
  std::vector<double> y;
  for_each_index(x.shape(), [&](const std::vector<int64_t>& k) {
    std::vector<int64_t> s = k;
    for (std::size_t i = 0; i < axis.size(); ++i) {
      int a = int(axis[i] < 0 ? axis[i] + x.rank() : axis[i]);
      int64_t n = x.dim(a);
      s[std::size_t(a)] = (((k[std::size_t(a)] - shift[i]) % n) + n) % n;
    }
    y.push_back(xv[std::size_t(flat_index(x.shape(), s))]);
  });
  return y;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(transform_pad_roll)

// ---- pad ----------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(pad_numpy_literals) {
  // np.pad([1,2,3], (7,8), mode='reflect'), np.pad([5], (2,3), 'reflect'), np.pad([1,2], (5,5),
  // 'reflect')
  check_values(
      run1(Opcode::pad, {make(DType::i32, Dims{3}, {1, 2, 3})}, {pairs({{7, 8}}), integer(0), str("reflect")}),
      DType::i32, Dims{18}, {2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3});
  check_values(
      run1(Opcode::pad, {make(DType::i32, Dims{1}, {5})}, {pairs({{2, 3}}), integer(0), str("reflect")}),
      DType::i32, Dims{6}, {5, 5, 5, 5, 5, 5});
  check_values(
      run1(Opcode::pad, {make(DType::f32, Dims{2}, {1, 2})}, {pairs({{5, 5}}), integer(0), str("reflect")}),
      DType::f32, Dims{12}, {2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1});
  // np.pad([[1,2],[3,4]], ((1,0),(0,2)), 'edge') and constant 9.
  Tensor m = make(DType::i8, Dims{2, 2}, {1, 2, 3, 4});
  check_values(run1(Opcode::pad, {m}, {pairs({{1, 0}, {0, 2}}), integer(0), str("edge")}), DType::i8,
               Dims{3, 4}, {1, 2, 2, 2, 1, 2, 2, 2, 3, 4, 4, 4});
  check_values(run1(Opcode::pad, {m}, {pairs({{1, 0}, {0, 2}}), integer(9), str("constant")}), DType::i8,
               Dims{3, 4}, {9, 9, 9, 9, 1, 2, 9, 9, 3, 4, 9, 9});
}

BOOST_AUTO_TEST_CASE(pad_modes_dtypes_layouts) {
  const std::vector<std::vector<std::pair<int64_t, int64_t>>> widths = {{{0, 0}, {0, 0}, {0, 0}},
                                                                        {{1, 2}, {0, 3}, {2, 0}},
                                                                        {{5, 4}, {7, 9}, {1, 1}},
                                                                        {{0, 1}, {11, 0}, {3, 4}}};
  for (DType dt : kAllDTypes)
    for (Layout layout : kLayoutsNoBroadcast) {
      Tensor x = relayout(sample(dt, Dims{2, 3, 1}, 13), layout);
      for (const auto& pw : widths)
        for (const char* mode : {"constant", "edge", "reflect"}) {
          const double value = dt == DType::boolean ? 1 : (dt == DType::u8 ? 200 : -7);
          Dims ys;
          std::vector<double> expect = ref_pad(x, pw, value, mode, &ys);
          check_values(run1(Opcode::pad,
                            {
                                x,
                            },
                            {pairs(pw), integer(int64_t(value)), str(mode)}),
                       dt, ys, expect);
        }
    }
  // A float value on a float tensor; a broadcast input.
  Tensor f = sample(DType::f64, Dims{3, 2});
  Dims ys;
  std::vector<double> expect = ref_pad(f, {{2, 1}, {1, 1}}, 0.25, "constant", &ys);
  check_values(run1(Opcode::pad, {f}, {pairs({{2, 1}, {1, 1}}), floating(0.25), str("constant")}), DType::f64,
               ys, expect);
  Tensor b = sample(DType::i16, Dims{1, 4}).with_layout(Dims{3, 4}, Dims{0, 1}, 0);
  for (const char* mode : {"constant", "edge", "reflect"}) {
    expect = ref_pad(b, {{4, 5}, {6, 2}}, 3, mode, &ys);
    check_values(run1(Opcode::pad, {b}, {pairs({{4, 5}, {6, 2}}), integer(3), str(mode)}), DType::i16, ys,
                 expect);
  }
}

BOOST_AUTO_TEST_CASE(pad_empty_dims) {
  // Constant mode may pad an empty dim; edge/reflect may not (but may leave it alone).
  Tensor e = sample(DType::f32, Dims{0, 2});
  check_values(run1(Opcode::pad, {e}, {pairs({{1, 1}, {0, 1}}), floating(1.5), str("constant")}), DType::f32,
               Dims{2, 3}, {1.5, 1.5, 1.5, 1.5, 1.5, 1.5});
  check_values(run1(Opcode::pad, {e}, {pairs({{0, 0}, {2, 1}}), integer(0), str("reflect")}), DType::f32,
               Dims{0, 5}, {});
  for (const char* mode : {"edge", "reflect"}) {
    expect_error(
        [&] {
          run1(Opcode::pad, {e}, {pairs({{1, 0}, {0, 0}}), integer(0), str(mode)});
        },
        ErrorKind::trap, {"cannot extend dim 0 of f32[0, 2], which is empty", mode});
    expect_error(
        [&] {
          infer_op(Opcode::pad, {tt(DType::f32, Dims{0, 2})}, {pairs({{0, 1}, {0, 0}}), integer(0), str(mode)});
        },
        ErrorKind::invalid, {"cannot extend dim 0"});
  }
}

BOOST_AUTO_TEST_CASE(pad_static_rule_and_errors) {
  TensorType y = infer_op(Opcode::pad, {tt(DType::i32, Dims{kDynamic, 3}, 3)},
                        {pairs({{1, 2}, {0, 1}}), integer(100), str("constant")});
  BOOST_CHECK_EQUAL(y.to_string(), "i32[?, 4] precision=8");  // max(3, precision of 100)
  y = infer_op(Opcode::pad, {tt(DType::i32, Dims{2, 3}, 9)},
             {pairs({{1, 2}, {0, 1}}), integer(-3), str("edge")});
  BOOST_CHECK_EQUAL(y.to_string(), "i32[5, 4] precision=9");
  y = infer_op(Opcode::pad, {tt(DType::f32, Dims{kDynamic})}, {pairs({{1, 2}}), floating(0.5), str("reflect")});
  BOOST_CHECK_EQUAL(y.to_string(), "f32[?]");
  expect_error(
      [] {
        infer_op(Opcode::pad, {tt(DType::f32, Dims{2, 3})}, {pairs({{1, 1}}), integer(0), str("constant")});
      },
      ErrorKind::invalid, {"pad_width has 1 (before, after) pairs; expected 2"});
  expect_error(
      [] {
        infer_op(Opcode::pad, {tt(DType::f32, Dims{2})}, {pairs({{1, -1}}), integer(0), str("constant")});
      },
      ErrorKind::invalid, {"pad_width element -1 is negative"});
  expect_error(
      [] {
        infer_op(Opcode::pad, {tt(DType::i32, Dims{2})}, {pairs({{1, 1}}), floating(0.5), str("constant")});
      },
      ErrorKind::invalid, {"value 0.5 is not representable in i32"});
  expect_error(
      [] {
        infer_op(Opcode::pad, {tt(DType::u8, Dims{2})}, {pairs({{1, 1}}), integer(-1), str("constant")});
      },
      ErrorKind::invalid, {"value -1 is not representable in u8"});
  expect_error(
      [] {
        infer_op(Opcode::pad, {tt(DType::boolean, Dims{2})}, {pairs({{1, 1}}), integer(2), str("constant")});
      },
      ErrorKind::invalid, {"value 2 is not representable in bool"});
  expect_error(
      [] {
        run1(Opcode::pad, {sample(DType::i8, Dims{2})}, {pairs({{1, 1}}), integer(300), str("constant")});
      },
      ErrorKind::invalid, {"value 300 is not representable in i8"});
}

// ---- roll ---------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(roll_shifts_axes_layouts) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {{1}, {0}},    {{-1}, {1}},       {{7}, {2}},
      {{-11}, {-1}}, {{2, -3}, {0, 2}}, {{100, 5, -4}, {2, 0, 1}},
      {{0}, {1}},    {{}, {}}};
  for (DType dt : kAllDTypes)
    for (Layout layout : kLayoutsNoBroadcast) {
      Tensor x = relayout(sample(dt, Dims{3, 4, 5}, 17), layout);
      for (const auto& [shift, axis] : cases)
        check_values(run1(Opcode::roll, {x}, {ints(shift), ints(axis)}), dt, x.shape(),
                     ref_roll(x, shift, axis));
    }
  check_values(run1(Opcode::roll, {make(DType::i32, Dims{5}, {1, 2, 3, 4, 5})}, {ints({2}), ints({0})}),
               DType::i32, Dims{5}, {4, 5, 1, 2, 3});
  check_values(
      run1(Opcode::roll, {make(DType::i32, Dims{5}, {1, 2, 3, 4, 5})}, {ints({INT64_MIN}), ints({0})}),
      DType::i32, Dims{5}, {4, 5, 1, 2, 3});  // INT64_MIN ≡ 2 (mod 5)
  Tensor b = sample(DType::f32, Dims{1, 3}).with_layout(Dims{2, 3}, Dims{0, 1}, 0);
  check_values(run1(Opcode::roll, {b}, {ints({1, 1}), ints({0, 1})}), DType::f32, Dims{2, 3},
               ref_roll(b, {1, 1}, {0, 1}));
  check_values(run1(Opcode::roll, {sample(DType::u8, Dims{0, 3})}, {ints({5}), ints({0})}), DType::u8,
               Dims{0, 3}, {});
}

BOOST_AUTO_TEST_CASE(roll_static_rule) {
  TensorType y =
      infer_op(Opcode::roll, {tt(DType::i64, Dims{kDynamic, 3}, 20)}, {ints({1}), ints({0})});
  BOOST_CHECK_EQUAL(y.to_string(), "i64[?, 3] precision=20");
  expect_error(
      [] {
        infer_op(Opcode::roll, {tt(DType::f32, Dims{2, 3})}, {ints({1, 2}), ints({0})});
      },
      ErrorKind::invalid, {"shift has 2 elements but axis has 1"});
  expect_error(
      [] {
        infer_op(Opcode::roll, {tt(DType::f32, Dims{2, 3})}, {ints({1, 2}), ints({0, -2})});
      },
      ErrorKind::invalid, {"axis -2 is repeated"});
  expect_error(
      [] {
        infer_op(Opcode::roll, {tt(DType::f32, Dims{2, 3})}, {ints({1}), ints({2})});
      },
      ErrorKind::invalid, {"axis 2 is out of range for rank 2"});
  expect_error(
      [] {
        run1(Opcode::roll, {sample(DType::f32, Dims{2})}, {ints({1}), ints({3})});
      },
      ErrorKind::invalid, {"axis 3 is out of range"});
}

BOOST_AUTO_TEST_SUITE_END()
