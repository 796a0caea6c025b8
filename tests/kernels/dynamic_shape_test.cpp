// The run-time shape-argument views (docs/ops.md, "Run-time shape arguments"): reshape_dyn,
// slice_dyn, broadcast_dyn, squeeze_dyn, expand_dims_dyn, against references written here from
// ONNX's definitions (Reshape's 0 and -1, Slice's clamping, Expand's two-way broadcast), on
// inputs seen through transposed, flipped and sliced views and with shape arguments of other
// integer dtypes and strides; which results share x's storage; every trap (naming the op and
// the values) and the static rules' `?` dims and errors.
#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/attr_values.hpp"
#include "common/checks.hpp"
#include "common/dynamic_args.hpp"
#include "common/layouts.hpp"
#include "common/one_result.hpp"
#include "common/tensors.hpp"
#include "tensor/views.hpp"

using namespace mlvm;
using namespace mlvm::testing;

namespace {

bool shares(const Tensor& a, const Tensor& b) { return a.storage() == b.storage(); }

// ONNX Slice on one dim of size n: the indices taken, by ONNX's clamping rules.
std::vector<int64_t> onnx_slice(int64_t n, int64_t start, int64_t end, int64_t step) {
  auto fix = [&](int64_t v) { return v < 0 ? (v < -n ? -n - 1 : v) + n : v; };  // no overflow
  int64_t s = fix(start), e = fix(end);
  std::vector<int64_t> out;
  if (step > 0) {
    s = std::clamp<int64_t>(s, 0, n), e = std::clamp<int64_t>(e, 0, n);
    for (__int128 i = s; i < e; i += step) out.push_back(int64_t(i));
  } else {
    s = std::clamp<int64_t>(s, -1, n - 1), e = std::clamp<int64_t>(e, -1, n - 1);
    for (__int128 i = s; i > e; i += step) out.push_back(int64_t(i));
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kernels_dynamic_shape)

BOOST_AUTO_TEST_CASE(reshape_dyn_copies_zeros_and_infers_minus_one) {
  for (Layout lay : kViewLayouts) {
    const Tensor base = iota(DType::f32, Dims{2, 3, 4});
    const Tensor x = guarded_copy(relayout(base, lay));
    const std::vector<double> want = values(base);
    struct Case {
      std::vector<int64_t> shape;
      Dims out;
    } cases[] = {{{0, -1}, Dims{2, 12}}, {{4, 0, 2}, Dims{4, 3, 2}}, {{-1}, Dims{24}},
                 {{2, -1, 3}, Dims{2, 4, 3}}, {{0, 0, 4, 1}, Dims{2, 3, 4, 1}}};
    for (const Case& c : cases) {
      for (DType sdt : {DType::i64, DType::i32, DType::i8}) {
        const Tensor y = run1(Opcode::reshape_dyn, {x, vec(c.shape, sdt, sdt == DType::i32)});
        BOOST_TEST(dims_to_string(y.shape()) == dims_to_string(c.out));
        BOOST_TEST(values(y) == want, boost::test_tools::per_element());
        if (lay == Layout::contiguous) BOOST_TEST(shares(y, x));  // a view when strides allow
      }
    }
  }
  // allowzero: a 0 is a 0-size dim.
  const Tensor empty = Tensor::empty(DType::f32, Dims{0, 3});
  BOOST_TEST(dims_to_string(run1(Opcode::reshape_dyn, {empty, vec({3, 0})}, {boolean(true)}).shape()) ==
             "[3, 0]");
}

BOOST_AUTO_TEST_CASE(reshape_dyn_traps_name_the_shape) {
  const Tensor x = iota(DType::f32, Dims{2, 3});
  expect_error([&] { run1(Opcode::reshape_dyn, {x, vec({4})}); }, ErrorKind::trap,
               {"reshape_dyn: cannot reshape f32[2, 3] (6 elements) to [4]", "(shape [4])"});
  expect_error([&] { run1(Opcode::reshape_dyn, {x, vec({-1, -1})}); }, ErrorKind::trap,
               {"reshape_dyn:", "more than one -1", "(shape [-1, -1])"});
  expect_error([&] { run1(Opcode::reshape_dyn, {x, vec({-2, -3})}); }, ErrorKind::trap,
               {"reshape_dyn:", "is -2", "(shape [-2, -3])"});
  expect_error([&] { run1(Opcode::reshape_dyn, {x, vec({3, 2, 0})}); }, ErrorKind::trap,
               {"reshape_dyn: shape entry 2 is 0", "has rank 2"});
  expect_error([&] { run1(Opcode::reshape_dyn, {x, vec({0, -1})}, {boolean(true)}); },
               ErrorKind::trap, {"reshape_dyn: cannot infer the -1"});
  expect_error([&] { run1(Opcode::reshape_dyn, {x, vec({kMax, kMax})}); }, ErrorKind::trap,
               {"reshape_dyn:", "int64"});
  const Tensor e = Tensor::empty(DType::f32, Dims{0, 3});
  expect_error([&] { run1(Opcode::reshape_dyn, {e, vec({3, 0})}); }, ErrorKind::trap,
               {"reshape_dyn: cannot reshape f32[0, 3]"});
}

BOOST_AUTO_TEST_CASE(reshape_dyn_static_rule) {
  const Attrs a = attrs_for(Opcode::reshape_dyn);
  BOOST_TEST(infer_op(Opcode::reshape_dyn, {tt(DType::f32, {2, 3, 4}), tt(DType::i64, {2})}, a)
                 .to_string() == "f32[?, ?]");
  BOOST_TEST(infer_op(Opcode::reshape_dyn, {tt(DType::f32, {2, 3, 4}), tt(DType::i32, {1})}, a)
                 .to_string() == "f32[24]");
  BOOST_TEST(infer_op(Opcode::reshape_dyn, {tt(DType::i32, {2, 3}, 9), tt(DType::i64, {1})}, a)
                 .to_string() == "i32[6] precision=9");
  expect_error([&] { infer_op(Opcode::reshape_dyn, {tt(DType::f32, {2}), tt(DType::i64, {kDynamic})}, a); },
               ErrorKind::invalid, {"reshape_dyn: shape i64[?] has a ? length"});
  expect_error([&] { infer_op(Opcode::reshape_dyn, {tt(DType::f32, {2}), tt(DType::i64, {0})}, a); },
               ErrorKind::invalid, {"reshape_dyn: shape i64[0] has 0 elements; expected 1 to 8"});
  expect_error([&] { infer_op(Opcode::reshape_dyn, {tt(DType::f32, {2}), tt(DType::f32, {1})}, a); },
               ErrorKind::invalid, {"reshape_dyn: shape has dtype f32"});
  expect_error([&] { infer_op(Opcode::reshape_dyn, {tt(DType::f32, {2}), tt(DType::i64, {1, 1})}, a); },
               ErrorKind::invalid, {"reshape_dyn: shape must be a vector (rank 1), got i64[1, 1]"});
}

BOOST_AUTO_TEST_CASE(slice_dyn_matches_onnx_clamping) {
  const std::vector<int64_t> points = {kMin, -100, -5, -4, -1, 0, 1, 2, 3, 4, 5, 100, kMax};
  const std::vector<int64_t> steps = {1, 2, 3, -1, -2, kMax, kMin};
  for (Layout lay : kViewLayouts) {
    const Tensor base = iota(DType::i32, Dims{4, 3});
    const Tensor x = guarded_copy(relayout(base, lay));
    int64_t bad = 0;
    for (int64_t axis : {0, 1, -1})
      for (int64_t s : points)
        for (int64_t e : points)
          for (int64_t st : steps) {
            const int d = int(axis < 0 ? axis + 2 : axis);
            const Tensor y = run1(Opcode::slice_dyn, {x, vec({s}), vec({e}, DType::i64, true),
                                                      vec({axis}, DType::i32), vec({st})});
            const std::vector<int64_t> take = onnx_slice(base.dim(d), s, e, st);
            Dims want_shape = base.shape();
            want_shape[d] = int64_t(take.size());
            if (!(y.shape() == want_shape)) {
              ++bad;
              continue;
            }
            for_each_index(want_shape, [&](const std::vector<int64_t>& idx) {
              std::vector<int64_t> src = idx;
              src[std::size_t(d)] = take[std::size_t(idx[std::size_t(d)])];
              if (!same_value(y, idx, base, src)) ++bad;
            });
            if (y.numel() > 0 && !shares(y, x)) ++bad;
          }
    BOOST_TEST(bad == 0, "slice_dyn on " << layout_name(lay));
  }
  // Defaults: axes 0, 1, ... and steps 1; the docs' examples.
  const Tensor v = iota(DType::f32, Dims{5});
  BOOST_TEST(values(run1(Opcode::slice_dyn, {v, vec({-1}), vec({-100}), Tensor(), vec({-2})})) ==
                 std::vector<double>({4, 2, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(values(run1(Opcode::slice_dyn, {v, vec({1}), vec({1000})})) ==
                 std::vector<double>({1, 2, 3, 4}),
             boost::test_tools::per_element());
  const Tensor m = iota(DType::f32, Dims{3, 4});
  const Tensor y = run1(Opcode::slice_dyn, {m, vec({1, 1}), vec({3, -1}), vec({1, 0})});
  BOOST_TEST(values(y) == std::vector<double>({5, 6}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(slice_dyn_traps_and_static_rule) {
  const Tensor x = iota(DType::f32, Dims{3, 4});
  expect_error([&] { run1(Opcode::slice_dyn, {x, vec({0}), vec({3}), Tensor(), vec({0})}); },
               ErrorKind::trap, {"slice_dyn: step 0 is 0; a step must be non-zero (starts [0], ends [3], steps [0])"});
  expect_error([&] { run1(Opcode::slice_dyn, {x, vec({0, 1}), vec({3})}); }, ErrorKind::trap,
               {"slice_dyn: ends i64[1] and starts i64[2] differ in length"});
  expect_error([&] { run1(Opcode::slice_dyn, {x, vec({0, 0}), vec({1, 1}), vec({1, -1})}); },
               ErrorKind::trap, {"slice_dyn:", "repeated", "axes [1, -1]"});
  expect_error([&] { run1(Opcode::slice_dyn, {x, vec({0}), vec({1}), vec({2})}); }, ErrorKind::trap,
               {"slice_dyn:", "out of range"});
  expect_error([&] { run1(Opcode::slice_dyn, {x, vec({0, 0, 0}), vec({1, 1, 1})}); }, ErrorKind::trap,
               {"slice_dyn:", "rank 2"});
  const Attrs none_attrs = attrs_for(Opcode::slice_dyn);
  auto infer = [&](std::vector<TensorType> in) {
    return infer_op(Opcode::slice_dyn, std::move(in), none_attrs).to_string();
  };
  const TensorType v2 = tt(DType::i64, {2});
  BOOST_TEST(infer({tt(DType::f32, {5, 4, 3}), v2, v2}) == "f32[?, ?, 3]");
  BOOST_TEST(infer({tt(DType::f32, {5, 0, 3}), v2, v2, v2}) == "f32[?, 0, ?]");
  BOOST_TEST(infer({tt(DType::f32, {5, 4, 3}), tt(DType::i32, {kDynamic}), v2}) == "f32[?, ?, 3]");
  BOOST_TEST(infer({tt(DType::f32, {5, 4, 3}), tt(DType::i32, {kDynamic}), tt(DType::i32, {kDynamic})}) ==
             "f32[?, ?, ?]");
  expect_error([&] { infer({tt(DType::f32, {5, 4}), v2, tt(DType::i64, {3})}); }, ErrorKind::invalid,
               {"slice_dyn: ends i64[3] and starts i64[2] differ in length"});
  expect_error([&] { infer({tt(DType::f32, {5}), v2, v2}); }, ErrorKind::invalid,
               {"slice_dyn: ends i64[2] names 2 axes but x f32[5] has rank 1"});
  expect_error([&] { infer({tt(DType::f32, {5}), tt(DType::f64, {1}), v2}); }, ErrorKind::invalid,
               {"slice_dyn: starts has dtype f64"});
}

BOOST_AUTO_TEST_CASE(broadcast_dyn_broadcasts_both_ways) {
  for (Layout lay : kViewLayouts) {
    const Tensor base = iota(DType::f32, Dims{3, 1});
    const Tensor x = guarded_copy(relayout(base, lay));
    const Tensor y = run1(Opcode::broadcast_dyn, {x, vec({2, 1, 6})});
    BOOST_REQUIRE(dims_to_string(y.shape()) == "[2, 3, 6]");
    int64_t bad = 0;
    for_each_index(y.shape(), [&](const std::vector<int64_t>& i) {
      if (y.get_double(i) != base.get_double(std::vector<int64_t>{i[1], 0})) ++bad;
    });
    BOOST_TEST(bad == 0);
    BOOST_TEST(shares(y, x));
  }
  const Tensor x = iota(DType::i16, Dims{3, 1});
  BOOST_TEST(dims_to_string(run1(Opcode::broadcast_dyn, {x, vec({1})}).shape()) == "[3, 1]");
  BOOST_TEST(dims_to_string(run1(Opcode::broadcast_dyn, {x, vec({})}).shape()) == "[3, 1]");
  BOOST_TEST(dims_to_string(run1(Opcode::broadcast_dyn, {x, vec({1, 0}, DType::u8)}).shape()) ==
             "[3, 0]");
  BOOST_TEST(dims_to_string(run1(Opcode::broadcast_dyn, {x, vec({3, 4})}).shape()) == "[3, 4]");
  expect_error([&] { run1(Opcode::broadcast_dyn, {iota(DType::f32, Dims{3}), vec({2, 4})}); },
               ErrorKind::trap,
               {"broadcast_dyn: x f32[3] and shape [2, 4] cannot broadcast (result dim 1: 3 vs 4"});
  expect_error([&] { run1(Opcode::broadcast_dyn, {x, vec({-1, 1})}); }, ErrorKind::trap,
               {"broadcast_dyn: shape entry -1 is negative (shape [-1, 1])"});
  expect_error([&] { run1(Opcode::broadcast_dyn, {x, vec({kMin, kMax})}); }, ErrorKind::trap,
               {"broadcast_dyn:"});
  const Attrs a = attrs_for(Opcode::broadcast_dyn);
  BOOST_TEST(infer_op(Opcode::broadcast_dyn, {tt(DType::f32, {3, 1}), tt(DType::i64, {3})}, a)
                 .to_string() == "f32[?, 3, ?]");
  BOOST_TEST(infer_op(Opcode::broadcast_dyn, {tt(DType::f32, {kDynamic, 5, 1}), tt(DType::i64, {1})}, a)
                 .to_string() == "f32[?, 5, ?]");
  expect_error([&] { infer_op(Opcode::broadcast_dyn, {tt(DType::f32, {3}), tt(DType::i64, {9})}, a); },
               ErrorKind::invalid, {"broadcast_dyn: shape i64[9] has 9 elements; expected 0 to 8"});
}

BOOST_AUTO_TEST_CASE(squeeze_dyn_and_expand_dims_dyn) {
  for (Layout lay : kViewLayouts) {
    const Tensor base = iota(DType::f64, Dims{1, 3, 1, 2});
    const Tensor x = guarded_copy(relayout(base, lay));
    const std::vector<double> want = values(base);
    Tensor y = run1(Opcode::squeeze_dyn, {x, vec({-2})});
    BOOST_TEST(dims_to_string(y.shape()) == "[1, 3, 2]");
    BOOST_TEST(values(y) == want, boost::test_tools::per_element());
    BOOST_TEST(shares(y, x));
    y = run1(Opcode::squeeze_dyn, {x, vec({2, 0}, DType::i32, true)});
    BOOST_TEST(dims_to_string(y.shape()) == "[3, 2]");
    BOOST_TEST(values(y) == want, boost::test_tools::per_element());
    y = run1(Opcode::expand_dims_dyn, {y, vec({2, 0})});
    BOOST_TEST(dims_to_string(y.shape()) == "[1, 3, 1, 2]");
    BOOST_TEST(values(y) == want, boost::test_tools::per_element());
    BOOST_TEST(shares(y, x));
    y = run1(Opcode::expand_dims_dyn, {x, vec({-1, 0, 5})});
    BOOST_TEST(dims_to_string(y.shape()) == "[1, 1, 3, 1, 2, 1, 1]");
    BOOST_TEST(values(y) == want, boost::test_tools::per_element());
  }
  const Tensor x = iota(DType::f32, Dims{1, 3});
  BOOST_TEST(dims_to_string(run1(Opcode::squeeze_dyn, {iota(DType::f32, Dims{1, 1}), vec({0, 1})})
                                .shape()) == "[1]");
  expect_error([&] { run1(Opcode::squeeze_dyn, {x, vec({1})}); }, ErrorKind::trap,
               {"squeeze_dyn: dim 1 has size 3, not 1", "(axes [1])"});
  expect_error([&] { run1(Opcode::squeeze_dyn, {iota(DType::f32, Dims{1, 1}), vec({0, -2})}); },
               ErrorKind::trap, {"squeeze_dyn:", "repeated", "(axes [0, -2])"});
  expect_error([&] { run1(Opcode::squeeze_dyn, {x, vec({kMin})}); }, ErrorKind::trap,
               {"squeeze_dyn:", "out of range"});
  expect_error([&] { run1(Opcode::expand_dims_dyn, {x, vec({3, -1})}); }, ErrorKind::trap,
               {"expand_dims_dyn: axis -1 is repeated (axes [3, -1])"});
  expect_error([&] { run1(Opcode::expand_dims_dyn, {x, vec({3})}); }, ErrorKind::trap,
               {"expand_dims_dyn: axis 3 is out of range for rank 3", "(axes [3])"});
  expect_error([&] { run1(Opcode::expand_dims_dyn, {x, vec({kMax})}); }, ErrorKind::trap,
               {"expand_dims_dyn:", "out of range"});
  const Attrs a;
  BOOST_TEST(infer_op(Opcode::squeeze_dyn, {tt(DType::f32, {1, 3, 1}), tt(DType::i64, {2})}, a)
                 .to_string() == "f32[3]");
  BOOST_TEST(infer_op(Opcode::squeeze_dyn, {tt(DType::f32, {1, 3, 1}), tt(DType::i64, {1})}, a)
                 .to_string() == "f32[?, ?]");
  BOOST_TEST(infer_op(Opcode::squeeze_dyn, {tt(DType::f32, {1, 1}), tt(DType::i64, {2})}, a)
                 .to_string() == "f32[1]");
  expect_error([&] { infer_op(Opcode::squeeze_dyn, {tt(DType::f32, {2, 3}), tt(DType::i64, {1})}, a); },
               ErrorKind::invalid, {"squeeze_dyn: axes i64[1] drops 1 dims but x f32[2, 3] has only 0"});
  BOOST_TEST(infer_op(Opcode::expand_dims_dyn, {tt(DType::f32, {2, 3}), tt(DType::i64, {2})}, a)
                 .to_string() == "f32[?, ?, ?, ?]");
  BOOST_TEST(infer_op(Opcode::expand_dims_dyn, {tt(DType::f32, {1}), tt(DType::i64, {2})}, a)
                 .to_string() == "f32[1, 1, 1]");
  expect_error([&] { infer_op(Opcode::expand_dims_dyn, {tt(DType::f32, {2, 3}), tt(DType::i64, {7})}, a); },
               ErrorKind::invalid, {"expand_dims_dyn: axes i64[7] has 7 elements; expected 1 to 6"});
}

BOOST_AUTO_TEST_SUITE_END()
