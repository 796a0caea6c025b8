// The run-time shape-argument ops that run a static op with attributes read from tensors
// (docs/ops.md, "Run-time shape arguments"): tile_dyn, pad_dyn, reduce_dyn. Hand-computed references (ONNX's examples and docs/ops.md's),
// agreement with the static op given the same values as attributes on strided inputs, what the
// static ops do not take (0 repeats, negative pads, noop reductions), every trap naming the
// values, and the static rules' `?` dims, dtypes and precision.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/attr_values.hpp"
#include "common/checks.hpp"
#include "common/dynamic_args.hpp"
#include "common/layouts.hpp"
#include "common/one_result.hpp"
#include "common/tensors.hpp"

using namespace mlvm;
using namespace mlvm::testing;

namespace {

void same(const Tensor& got, const Tensor& want, const std::string& what) {
  BOOST_TEST_CONTEXT(what) {
    BOOST_TEST(got.type_string() == want.type_string());
    if (got.shape() == want.shape()) {
      int64_t bad = 0;
      for_each_index(want.shape(), [&](const std::vector<int64_t>& i) {
        if (!same_value(got, i, want, i)) ++bad;
      });
      BOOST_TEST(bad == 0);
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kernels_dynamic_attrs)

BOOST_AUTO_TEST_CASE(tile_dyn_as_tile_and_with_zero_repeats) {
  for (Layout lay : kViewLayouts) {
    const Tensor base = iota(DType::i32, Dims{2, 3});
    const Tensor x = relayout(base, lay);
    for (std::vector<int64_t> reps : {std::vector<int64_t>{1, 2}, {3, 1}, {2, 2}, {1, 1}}) {
      const Tensor y = run1(Opcode::tile_dyn, {x, vec(reps, DType::i32)});
      BOOST_REQUIRE(y.dim(0) == 2 * reps[0] && y.dim(1) == 3 * reps[1]);
      int64_t bad = 0;
      for_each_index(y.shape(), [&](const std::vector<int64_t>& i) {
        if (y.get_int(i) != base.get_int(std::vector<int64_t>{i[0] % 2, i[1] % 3})) ++bad;
      });
      BOOST_TEST(bad == 0, layout_name(lay));
    }
  }
  const Tensor x = iota(DType::f32, Dims{2, 2}, 1);
  BOOST_TEST(values(run1(Opcode::tile_dyn, {x, vec({1, 2})})) ==
                 std::vector<double>({1, 2, 1, 2, 3, 4, 3, 4}),
             boost::test_tools::per_element());
  BOOST_TEST(run1(Opcode::tile_dyn, {x, vec({0, 1})}).type_string() == "f32[0, 2]");
  expect_error([&] { run1(Opcode::tile_dyn, {x, vec({2, -1})}); }, ErrorKind::trap,
               {"tile_dyn: repeat -1 is negative (repeats [2, -1])"});
  expect_error([&] { run1(Opcode::tile_dyn, {x, vec({2})}); }, ErrorKind::trap,
               {"tile_dyn: repeats i64[1] must have one entry per dim of x f32[2, 2]"});
  expect_error([&] { run1(Opcode::tile_dyn, {x, vec({kMax, 1})}); }, ErrorKind::trap,
               {"tile_dyn: result dim 0 overflows int64"});
  expect_error([&] { run1(Opcode::tile_dyn, {x, vec({kMax / 2, kMax / 2})}); }, ErrorKind::trap,
               {"tile_dyn:"});
  const Attrs a;
  BOOST_TEST(infer_op(Opcode::tile_dyn, {tt(DType::i32, {2, 0}, 5), tt(DType::i64, {2})}, a)
                 .to_string() == "i32[?, 0] precision=5");
  expect_error([&] { infer_op(Opcode::tile_dyn, {tt(DType::f32, {2}), tt(DType::i64, {2})}, a); },
               ErrorKind::invalid, {"tile_dyn: repeats i64[2] must have one entry per dim of x f32[2]"});
}

BOOST_AUTO_TEST_CASE(pad_dyn_pads_crops_and_fills) {
  const Tensor row = iota(DType::f32, Dims{1, 3}, 1);  // [[1, 2, 3]]
  BOOST_TEST(values(run1(Opcode::pad_dyn, {row, vec({0, 1, 0, 2})})) ==
                 std::vector<double>({0, 1, 2, 3, 0, 0}),
             boost::test_tools::per_element());
  const Tensor y = run1(Opcode::pad_dyn, {row, vec({1, 0, 0, 1}), make(DType::f32, Dims{1}, {-1})});
  BOOST_TEST(y.type_string() == "f32[2, 4]");
  BOOST_TEST(values(y) == std::vector<double>({-1, -1, -1, -1, 1, 2, 3, -1}),
             boost::test_tools::per_element());
  BOOST_TEST(values(run1(Opcode::pad_dyn, {row, vec({0, -1, 0, 1})}, {str("edge")})) ==
                 std::vector<double>({2, 3, 3}),
             boost::test_tools::per_element());
  BOOST_TEST(values(run1(Opcode::pad_dyn, {iota(DType::i8, Dims{3}, 1), vec({4, 4})}, {str("reflect")})) ==
                 std::vector<double>({1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3}),
             boost::test_tools::per_element());
  // Only crops: a view of x.
  const Tensor m = guarded_copy(iota(DType::i64, Dims{3, 4}));
  const Tensor c = run1(Opcode::pad_dyn, {m, vec({-1, 0, -1, -2})});
  BOOST_TEST(c.storage() == m.storage());
  BOOST_TEST(values(c) == std::vector<double>({4, 5}), boost::test_tools::per_element());
  // As pad with the same widths, on strided inputs.
  for (Layout lay : kViewLayouts) {
    const Tensor x = relayout(iota(DType::i16, Dims{3, 2}), lay);
    for (const char* mode : {"constant", "edge", "reflect"}) {
      const Tensor got = run1(Opcode::pad_dyn, {x, vec({2, 0, 1, 3}), make(DType::i16, Dims{1, 1}, {7})},
                              {str(mode)});
      const Tensor want = run1(Opcode::pad, {x}, {pairs({{2, 1}, {0, 3}}), integer(7), str(mode)});
      same(got, want, std::string("pad_dyn ") + mode + " " + layout_name(lay));
    }
  }
  expect_error([&] { run1(Opcode::pad_dyn, {iota(DType::f32, Dims{2, 3}), vec({-3, 0, -1, 0})}); },
               ErrorKind::trap,
               {"pad_dyn: pads remove 3 + 1 elements from dim 0 of x f32[2, 3], which has 2 (pads "
                "[-3, 0, -1, 0])"});
  expect_error([&] { run1(Opcode::pad_dyn, {row, vec({kMin, 0, 0, 0})}); }, ErrorKind::trap,
               {"pad_dyn: pads remove"});
  expect_error([&] { run1(Opcode::pad_dyn, {row, vec({0, 1})}); }, ErrorKind::trap,
               {"pad_dyn: pads i64[2] must have two entries (begin, end) per dim of x f32[1, 3]"});
  expect_error([&] { run1(Opcode::pad_dyn, {row, vec({0, -3, 0, 1})}, {str("edge")}); },
               ErrorKind::trap, {"pad_dyn:", "empty"});
  expect_error([&] { run1(Opcode::pad_dyn, {row, vec({0, kMax, 0, kMax})}); }, ErrorKind::trap,
               {"pad_dyn:"});
  const Attrs a = attrs_for(Opcode::pad_dyn);
  BOOST_TEST(infer_op(Opcode::pad_dyn, {tt(DType::i32, {2, 3}, 4), tt(DType::i64, {4}),
                                        tt(DType::i32, {1}, 9)}, a)
                 .to_string() == "i32[?, ?] precision=9");
  BOOST_TEST(infer_op(Opcode::pad_dyn, {tt(DType::i32, {2, 3}, 4), tt(DType::i64, {4}), absent()}, a)
                 .to_string() == "i32[?, ?] precision=4");
  expect_error([&] { infer_op(Opcode::pad_dyn, {tt(DType::f32, {2, 3}), tt(DType::i64, {4}),
                                                tt(DType::f64, {1})}, a); },
               ErrorKind::invalid, {"pad_dyn: value f64[1] must have x's dtype (x is f32[2, 3])"});
  expect_error([&] { infer_op(Opcode::pad_dyn, {tt(DType::f32, {2, 3}), tt(DType::i64, {3}), absent()}, a); },
               ErrorKind::invalid, {"pad_dyn: pads i64[3] must have two entries"});
}

BOOST_AUTO_TEST_CASE(reduce_dyn_agrees_with_the_static_reductions) {
  const char* ops[] = {"sum", "mean", "max", "min", "prod", "sum_square", "l1", "l2", "log_sum",
                       "logsumexp"};
  const Opcode codes[] = {Opcode::sum, Opcode::mean, Opcode::max, Opcode::min, Opcode::prod,
                          Opcode::sum_square, Opcode::l1, Opcode::l2, Opcode::log_sum,
                          Opcode::logsumexp};
  const std::vector<std::vector<int64_t>> axes_sets = {{0}, {2}, {-1, 0}, {1, 2}, {0, 1, 2}, {}};
  for (Layout lay : kViewLayouts) {
    const Tensor x = relayout(iota(DType::f64, Dims{2, 3, 4}, 1), lay);
    for (std::size_t k = 0; k < std::size(ops); ++k)
      for (const auto& axes : axes_sets)
        for (bool keep : {false, true}) {
          const Tensor got = run1(Opcode::reduce_dyn, {x, vec(axes, DType::i32)},
                                  {str(ops[k]), boolean(keep)});
          const Tensor want = run1(codes[k], {x}, {ints(axes), boolean(keep)});
          same(got, want, std::string(ops[k]) + " " + layout_name(lay));
        }
  }
  const Tensor m = guarded_copy(iota(DType::i32, Dims{2, 2}, 1));  // [[1, 2], [3, 4]]
  BOOST_TEST(values(run1(Opcode::reduce_dyn, {m, vec({1})})) == std::vector<double>({3, 7}),
             boost::test_tools::per_element());
  BOOST_TEST(run1(Opcode::reduce_dyn, {m, vec({1})}, {str("sum"), boolean(true)}).type_string() ==
             "i32[2, 1]");
  const Tensor same_x = run1(Opcode::reduce_dyn, {m, vec({})}, {str("sum"), boolean(false), boolean(true)});
  BOOST_TEST(same_x.storage() == m.storage());
  BOOST_TEST(values(run1(Opcode::reduce_dyn, {m, vec({})})) == std::vector<double>({10}),
             boost::test_tools::per_element());
  expect_error([&] { run1(Opcode::reduce_dyn, {m, vec({1, 1})}, {str("sum"), boolean(true)}); },
               ErrorKind::trap, {"reduce_dyn: axis 1 is named twice in axes (axes [1, 1])"});
  expect_error([&] { run1(Opcode::reduce_dyn, {m, vec({kMin})}, {str("max"), boolean(true)}); },
               ErrorKind::trap, {"reduce_dyn:", "out of range"});
  expect_error([&] { run1(Opcode::reduce_dyn, {Tensor::empty(DType::f32, Dims{0, 2}), vec({0})},
                          {str("max")}); },
               ErrorKind::trap, {"reduce_dyn:"});
  auto type = [](std::vector<TensorType> in, std::vector<AttrValue> attrs) {
    return infer_op(Opcode::reduce_dyn, std::move(in), attrs_for(Opcode::reduce_dyn, std::move(attrs)))
        .to_string();
  };
  BOOST_TEST(type({tt(DType::f32, {2, 1, 4}), tt(DType::i64, {2})}, {}) == "f32[?]");
  BOOST_TEST(type({tt(DType::f32, {2, 1, 4}), tt(DType::i64, {3})}, {}) == "f32[1]");
  BOOST_TEST(type({tt(DType::f32, {2, 1, 4}), tt(DType::i64, {kDynamic})}, {str("max"), boolean(true)}) ==
             "f32[?, 1, ?]");
  BOOST_TEST(type({tt(DType::i32, {2, 4}, 8), tt(DType::i64, {0})}, {str("sum"), boolean(false), boolean(true)}) ==
             "i32[2, 4] precision=8");
  BOOST_TEST(type({tt(DType::i32, {2, 4}, 8), tt(DType::i64, {1})}, {}) == "i32[?] precision=11");
  expect_error([&] { type({tt(DType::f32, {2}), tt(DType::i64, {kDynamic})}, {}); }, ErrorKind::invalid,
               {"reduce_dyn: axes i64[?] has a ? length; with keepdims=false"});
  expect_error([&] { type({tt(DType::i32, {2}), tt(DType::i64, {1})}, {str("l2")}); }, ErrorKind::invalid,
               {"reduce_dyn: x has dtype i32"});
  expect_error([&] { type({tt(DType::f32, {2}), tt(DType::i64, {2})}, {}); }, ErrorKind::invalid,
               {"reduce_dyn: axes i64[2] names more axes than x f32[2] has"});
}

BOOST_AUTO_TEST_SUITE_END()
