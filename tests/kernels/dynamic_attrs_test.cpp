// The run-time shape-argument ops that run a static op with attributes read from tensors
// (docs/ops.md, "Run-time shape arguments"): tile_dyn, pad_dyn, reduce_dyn, topk_dyn,
// one_hot_dyn, cumsum_dyn, trilu_dyn. Hand-computed references (ONNX's examples and docs/ops.md's),
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
#include "common/layouts.hpp"
#include "common/one_result.hpp"
#include "common/tensors.hpp"

using namespace mlvm;
using namespace mlvm::testing;

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr Layout kViewLayouts[] = {Layout::contiguous, Layout::transposed, Layout::flipped,
                                   Layout::sliced};

Tensor iota(DType dt, const Dims& shape, double from = 0) {
  std::vector<double> v(std::size_t(checked_numel(shape)));
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = from + double(k);
  return make(dt, shape, v);
}

Tensor vec(const std::vector<int64_t>& v, DType dt = DType::i64) {
  if (dt == DType::i64) return make_i64(Dims{int64_t(v.size())}, v);
  return make(dt, Dims{int64_t(v.size())}, std::vector<double>(v.begin(), v.end()));
}

Tensor run1(Opcode op, std::vector<Tensor> in, std::vector<AttrValue> attrs = {}) {
  return run_op(op, std::move(in), std::move(attrs));
}

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
  const Tensor m = iota(DType::i64, Dims{3, 4});
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
  const Tensor m = iota(DType::i32, Dims{2, 2}, 1);  // [[1, 2], [3, 4]]
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

BOOST_AUTO_TEST_CASE(topk_one_hot_cumsum_trilu_with_run_time_scalars) {
  const Tensor x = make(DType::f32, Dims{2, 3}, {1, 0, 3, -1, 5, 2});
  std::vector<Tensor> r = run_all(Opcode::topk_dyn, {x, vec({2})}, attrs_for(Opcode::topk_dyn));
  BOOST_TEST(values(r[0]) == std::vector<double>({3, 1, 5, 2}), boost::test_tools::per_element());
  BOOST_TEST(int_values(r[1]) == std::vector<int64_t>({2, 0, 1, 2}), boost::test_tools::per_element());
  r = run_all(Opcode::topk_dyn, {relayout(x, Layout::flipped), make(DType::i8, Dims{1, 1}, {1})},
              attrs_for(Opcode::topk_dyn, {integer(0), boolean(false)}));
  const std::vector<Tensor> want =
      run_all(Opcode::topk, {relayout(x, Layout::flipped)},
              attrs_for(Opcode::topk, {integer(1), integer(0), boolean(false)}));
  same(r[0], want[0], "topk_dyn values");
  same(r[1], want[1], "topk_dyn indices");
  expect_error([&] { run_all(Opcode::topk_dyn, {x, vec({-1})}, attrs_for(Opcode::topk_dyn)); },
               ErrorKind::trap, {"topk_dyn: k -1 is negative"});
  expect_error([&] { run_all(Opcode::topk_dyn, {x, vec({4})}, attrs_for(Opcode::topk_dyn)); },
               ErrorKind::trap, {"topk_dyn: k 4 is larger than dim 1 of f32[2, 3] (3 elements) (k 4)"});
  expect_error([&] { run_all(Opcode::topk_dyn, {x, vec({1, 2})}, attrs_for(Opcode::topk_dyn)); },
               ErrorKind::trap, {"topk_dyn: k must have one element, got i64[2]"});

  const Tensor idx = make_i64(Dims{3}, {0, -1, 5});
  const Tensor onoff = make(DType::f32, Dims{2}, {0, 1});
  for (Tensor depth : {vec({3}), make(DType::f32, Dims{1}, {3.7}), make(DType::u8, Dims{1}, {3})}) {
    const Tensor y = run1(Opcode::one_hot_dyn, {idx, depth, onoff});
    BOOST_TEST(values(y) == std::vector<double>({1, 0, 0, 0, 0, 1, 0, 0, 0}),
               boost::test_tools::per_element());
  }
  BOOST_TEST(run1(Opcode::one_hot_dyn, {idx, vec({4}), onoff}, {integer(0)}).type_string() == "f32[4, 3]");
  for (double bad : {0.0, -2.0, std::nan(""), double(INFINITY), 0.5})
    expect_error([&] { run1(Opcode::one_hot_dyn, {idx, make(DType::f64, Dims{1}, {bad}), onoff}); },
                 ErrorKind::trap, {"one_hot_dyn: depth"});

  const Tensor m = iota(DType::i32, Dims{2, 2}, 1);
  BOOST_TEST(values(run1(Opcode::cumsum_dyn, {m, vec({0})})) == std::vector<double>({1, 2, 4, 6}),
             boost::test_tools::per_element());
  for (Layout lay : kViewLayouts)
    for (int64_t axis : {0, 1, 2, -1, -3})
      for (bool excl : {false, true})
        same(run1(Opcode::cumsum_dyn, {relayout(iota(DType::f32, Dims{2, 3, 2}), lay),
                                       vec({axis}, DType::i16)},
                  {boolean(excl), boolean(!excl)}),
             run1(Opcode::cumsum, {relayout(iota(DType::f32, Dims{2, 3, 2}), lay)},
                  {integer(axis), boolean(excl), boolean(!excl)}),
             "cumsum_dyn");
  expect_error([&] { run1(Opcode::cumsum_dyn, {m, vec({2})}); }, ErrorKind::trap,
               {"cumsum_dyn: axis 2 is out of range for rank 2", "(axis 2)"});

  const Tensor t = iota(DType::f32, Dims{2, 3}, 1);
  BOOST_TEST(values(run1(Opcode::trilu_dyn, {t, vec({1})})) == std::vector<double>({0, 2, 3, 0, 0, 6}),
             boost::test_tools::per_element());
  for (int64_t k : {kMin, int64_t(-2), int64_t(-1), int64_t(0), int64_t(1), int64_t(3), kMax})
    for (bool upper : {false, true})
      same(run1(Opcode::trilu_dyn, {relayout(t, Layout::transposed), vec({k})}, {boolean(upper)}),
           run1(Opcode::trilu, {relayout(t, Layout::transposed)}, {boolean(upper), integer(k)}),
           "trilu_dyn");

  const Attrs none_set;
  BOOST_TEST(infer_all(Opcode::topk_dyn, {tt(DType::f32, {2, 3}), tt(DType::i64, {1})},
                       attrs_for(Opcode::topk_dyn))[1].to_string() == "i64[2, ?]");
  expect_error([&] { infer_all(Opcode::topk_dyn, {tt(DType::boolean, {2}), tt(DType::i64, {1})},
                               attrs_for(Opcode::topk_dyn)); },
               ErrorKind::invalid, {"topk_dyn: x has dtype bool"});
  expect_error([&] { infer_all(Opcode::topk_dyn, {tt(DType::f32, {2}), tt(DType::i64, {2})},
                               attrs_for(Opcode::topk_dyn)); },
               ErrorKind::invalid, {"topk_dyn: k must have one element, got i64[2]"});
  BOOST_TEST(infer_op(Opcode::one_hot_dyn, {tt(DType::i64, {2, 3}), tt(DType::f32, {1}), tt(DType::u8, {2})},
                      attrs_for(Opcode::one_hot_dyn, {integer(1)}))
                 .to_string() == "u8[2, ?, 3]");
  BOOST_TEST(infer_op(Opcode::cumsum_dyn, {tt(DType::i32, {4, 8}, 5), tt(DType::i64, {1})},
                      attrs_for(Opcode::cumsum_dyn))
                 .to_string() == "i32[4, 8] precision=8");
  BOOST_TEST(infer_op(Opcode::trilu_dyn, {tt(DType::i8, {2, 2}, 3), tt(DType::i32, {1, 1})},
                      attrs_for(Opcode::trilu_dyn))
                 .to_string() == "i8[2, 2] precision=3");
  expect_error([&] { infer_op(Opcode::trilu_dyn, {tt(DType::f32, {2}), tt(DType::i64, {1})},
                              attrs_for(Opcode::trilu_dyn)); },
               ErrorKind::invalid, {"trilu_dyn: x must have rank >= 2"});
  expect_error([&] { infer_op(Opcode::cumsum_dyn, {tt(DType::f32, {2}), tt(DType::f32, {1})},
                              attrs_for(Opcode::cumsum_dyn)); },
               ErrorKind::invalid, {"cumsum_dyn: axis has dtype f32"});
  (void)none_set;
}

BOOST_AUTO_TEST_SUITE_END()
