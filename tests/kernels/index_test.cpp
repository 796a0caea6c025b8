// one_hot, trilu, nonzero, range, compress (ONNX OneHot, Trilu, NonZero, Range, Compress)
// against references written here from docs/ops.md ("Indexing"), element by element over
// every accepted dtype and layout, with the edge cases each op has (fractional, NaN and
// out-of-range one_hot indices, diagonals beyond the matrix, NaN and -0 for nonzero, integer
// extremes and float lengths for range, condition shorter or longer than x for compress, empty
// tensors), every static error and trap, and results unchanged by threads and SIMD levels.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "common/attr_values.hpp"
#include "common/tensor_helpers.hpp"
#include "simd_test_support.hpp"

using namespace mlvm;
using namespace mlvm::testing;

namespace {

Attrs one_hot_of(int64_t depth, int64_t axis = -1) {
  return attrs_for(Opcode::one_hot, {integer(depth), integer(axis)});
}
Attrs trilu_of(bool upper, int64_t k) {
  return attrs_for(Opcode::trilu, {boolean(upper), integer(k)});
}
Attrs compress_of(std::optional<int64_t> axis) {
  return attrs_for(Opcode::compress, {axis ? integer(*axis) : none()});
}

void check_one_hot(const Tensor& indices, const Tensor& values, int64_t depth, int64_t axis_attr,
                   ThreadPool* pool = nullptr) {
  const Tensor y = run_op(Opcode::one_hot, {indices, values}, one_hot_of(depth, axis_attr), pool);
  const int r = indices.rank();
  const int axis = int(axis_attr < 0 ? axis_attr + r + 1 : axis_attr);
  Dims want_shape = indices.shape();
  want_shape.insert(axis, depth);
  BOOST_REQUIRE(dims_to_string(y.shape()) == dims_to_string(want_shape));
  BOOST_REQUIRE(y.dtype() == values.dtype());
  const Val off = at(values, std::vector<int64_t>{0}), on = at(values, std::vector<int64_t>{1});
  int64_t bad = 0;
  for_each_index(want_shape, [&](const std::vector<int64_t>& o) {
    std::vector<int64_t> src = o;
    src.erase(src.begin() + axis);
    const Val v = at(indices, src);
    // ONNX: the index as an integer (floats truncated toward 0), then [-depth, depth).
    bool hit = false;
    if (!v.is_float || std::fabs(v.f) < 1e18) {
      int64_t i = v.is_float ? int64_t(std::trunc(v.f)) : v.i;
      if (i >= -depth && i < depth) hit = (i < 0 ? i + depth : i) == o[std::size_t(axis)];
    }
    if (!close(hit ? on : off, at(y, o), 0)) ++bad;
  });
  BOOST_TEST(bad == 0, "one_hot " << indices.type_string() << " " << values.type_string() << " depth "
                                  << depth << " axis " << axis_attr);
}

void check_trilu(const Tensor& x, bool upper, int64_t k) {
  const Tensor y = run_op(Opcode::trilu, {x}, trilu_of(upper, k));
  BOOST_REQUIRE(dims_to_string(y.shape()) == dims_to_string(x.shape()));
  const int r = x.rank();
  int64_t bad = 0;
  for_each_index(x.shape(), [&](const std::vector<int64_t>& idx) {
    const __int128 d = __int128(idx[std::size_t(r - 1)]) - idx[std::size_t(r - 2)];
    const bool keep = upper ? d >= k : d <= k;
    const Val want = keep ? at(x, idx) : (is_float(x.dtype()) ? fv(0) : iv(0));
    if (!close(want, at(y, idx), 0)) ++bad;
  });
  BOOST_TEST(bad == 0, "trilu " << x.type_string() << " upper " << upper << " k " << k);
}

void check_nonzero(const Tensor& x, ThreadPool* pool = nullptr) {
  const Tensor y = run_op(Opcode::nonzero, {x}, Attrs{}, pool);
  std::vector<std::vector<int64_t>> want;
  for_each_index(x.shape(), [&](const std::vector<int64_t>& idx) {
    const Val v = at(x, idx);
    if (v.is_float ? v.f != 0 || std::isnan(v.f) : v.i != 0) want.push_back(idx);
  });
  BOOST_REQUIRE(y.dtype() == DType::i64);
  BOOST_REQUIRE(dims_to_string(y.shape()) ==
                dims_to_string(Dims{int64_t(x.rank()), int64_t(want.size())}));
  int64_t bad = 0;
  for (std::size_t j = 0; j < want.size(); ++j)
    for (int d = 0; d < x.rank(); ++d)
      if (y.get_int(std::vector<int64_t>{d, int64_t(j)}) != want[j][std::size_t(d)]) ++bad;
  BOOST_TEST(bad == 0, "nonzero " << x.type_string());
}

void check_compress(const Tensor& x, const Tensor& cond, std::optional<int64_t> axis_attr) {
  const Tensor y = run_op(Opcode::compress, {x, cond}, compress_of(axis_attr));
  const std::vector<int64_t> c = int_values(cond);
  if (!axis_attr) {
    std::vector<Val> want;
    int64_t k = 0;
    for_each_index(x.shape(), [&](const std::vector<int64_t>& idx) {
      if (k < int64_t(c.size()) && c[std::size_t(k)]) want.push_back(at(x, idx));
      ++k;
    });
    BOOST_REQUIRE(dims_to_string(y.shape()) == dims_to_string(Dims{int64_t(want.size())}));
    int64_t bad = 0;
    for (std::size_t j = 0; j < want.size(); ++j)
      if (!close(want[j], at(y, std::vector<int64_t>{int64_t(j)}), 0)) ++bad;
    BOOST_TEST(bad == 0, "compress " << x.type_string() << " flat");
    return;
  }
  const int axis = int(*axis_attr < 0 ? *axis_attr + x.rank() : *axis_attr);
  std::vector<int64_t> picked;
  for (int64_t k = 0; k < std::min<int64_t>(x.dim(axis), int64_t(c.size())); ++k)
    if (c[std::size_t(k)]) picked.push_back(k);
  Dims ws = x.shape();
  ws[axis] = int64_t(picked.size());
  BOOST_REQUIRE(dims_to_string(y.shape()) == dims_to_string(ws));
  int64_t bad = 0;
  for_each_index(ws, [&](const std::vector<int64_t>& o) {
    std::vector<int64_t> src = o;
    src[std::size_t(axis)] = picked[std::size_t(o[std::size_t(axis)])];
    if (!close(at(x, src), at(y, o), 0)) ++bad;
  });
  BOOST_TEST(bad == 0, "compress " << x.type_string() << " axis " << *axis_attr);
}

Tensor range_of(DType t, double s, double l, double d) {
  return run_op(Opcode::range, {make(t, Dims{1}, {s}), make(t, Dims{1}, {l}), make(t, Dims{1}, {d})}, Attrs{});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kernels_index)

BOOST_AUTO_TEST_CASE(onnx_examples) {
  const Tensor v = make(DType::f32, Dims{2}, {0, 1});
  check_values(run_op(Opcode::one_hot, {make(DType::i64, Dims{3}, {0, -1, 5}), v}, one_hot_of(3)),
               DType::f32, Dims{3, 3}, {1, 0, 0, 0, 0, 1, 0, 0, 0});
  check_values(run_op(Opcode::one_hot, {make(DType::f32, Dims{2}, {1.9, -0.5}), make(DType::i32, Dims{2}, {-2, 7})},
                      one_hot_of(3, 0)),
               DType::i32, Dims{3, 2}, {-2, 7, 7, -2, -2, -2});
  const Tensor m = make(DType::i32, Dims{2, 3}, {1, 2, 3, 4, 5, 6});
  check_values(run_op(Opcode::trilu, {m}, trilu_of(true, 1)), DType::i32, Dims{2, 3}, {0, 2, 3, 0, 0, 6});
  check_values(run_op(Opcode::trilu, {m}, trilu_of(false, 1)), DType::i32, Dims{2, 3}, {1, 2, 0, 4, 5, 6});
  check_values(run_op(Opcode::trilu, {m}, trilu_of(false, -1)), DType::i32, Dims{2, 3}, {0, 0, 0, 4, 0, 0});
  check_values(run_op(Opcode::nonzero, {make(DType::f32, Dims{2, 3}, {1, 0, 3, -1, 5, 2})}, Attrs{}), DType::i64,
               Dims{2, 5}, {0, 0, 1, 1, 1, 0, 2, 0, 1, 2});
  check_values(range_of(DType::i32, 3, 9, 3), DType::i32, Dims{2}, {3, 6});
  check_values(range_of(DType::i16, 10, 4, -2), DType::i16, Dims{3}, {10, 8, 6});
  check_values(range_of(DType::f32, 0, 1, 0.25), DType::f32, Dims{4}, {0, 0.25, 0.5, 0.75});
  const Tensor x = make(DType::f32, Dims{3, 2}, {1, 2, 3, 4, 5, 6});
  const Tensor c = make(DType::boolean, Dims{3}, {0, 1, 1});
  check_values(run_op(Opcode::compress, {x, c}, compress_of(0)), DType::f32, Dims{2, 2}, {3, 4, 5, 6});
  check_values(run_op(Opcode::compress, {x, c}, compress_of(std::nullopt)), DType::f32, Dims{2}, {2, 3});
  check_values(run_op(Opcode::compress, {x, c}, compress_of(-1)), DType::f32, Dims{3, 1}, {2, 4, 6});
}

BOOST_AUTO_TEST_CASE(one_hot_every_dtype_and_layout) {
  uint64_t seed = 1;
  for (DType it : kNumericDTypes)
    for (DType vt : kAllDTypes)
      for (Layout lay : kLayoutsNoBroadcast)
        for (int64_t axis : {-1, 0, 1, 2, -3}) {
          const int64_t depth = 1 + int64_t(seed % 6);
          // Floats: fractional values in [-10, 10] with NaN, ±inf, ±0 mixed in.
          const Tensor idx = make_input(it, Dims{3, 4}, lay, is_float(it) ? Fill::specials : Fill::small, seed++);
          const Tensor vals = relayout(make_input(vt, Dims{2}, Layout::contiguous, Fill::full, seed++), Layout::flipped);
          check_one_hot(idx, vals, depth, axis);
        }
  // Fractional float indices near the edges, truncated toward 0.
  const Tensor f = make(DType::f64, Dims{8}, {-3.5, -3.0, -2.9, -0.9, 0.9, 2.999, 3.0, NAN});
  check_one_hot(f, make(DType::u8, Dims{2}, {0, 1}), 3, -1);
  check_one_hot(f, make(DType::boolean, Dims{2}, {0, 1}), 3, 0);
  check_one_hot(make_i64(Dims{3}, {INT64_MIN, INT64_MAX, -1}), make(DType::i8, Dims{2}, {-1, 1}), 1, 0);
  check_one_hot(make(DType::f32, Dims{2, 0}, {}), make(DType::f32, Dims{2}, {0, 1}), 4, 1);
  check_one_hot(make(DType::f32, Dims{2}, {1e30, -1e30}), make(DType::f32, Dims{2}, {0, 1}), 4, 1);
}

BOOST_AUTO_TEST_CASE(trilu_every_dtype_layout_and_diagonal) {
  uint64_t seed = 10;
  for (DType t : kAllDTypes)
    for (Layout lay : kLayouts)
      for (const Dims& shape : {Dims{3, 5}, Dims{2, 5, 3}, Dims{2, 1, 4, 4}})
        for (int64_t k : {-6, -2, -1, 0, 1, 3, 6}) {
          const Tensor x = make_input(t, shape, lay, Fill::full, seed++);
          check_trilu(x, (seed & 1) != 0, k);
        }
  check_trilu(make_input(DType::f32, Dims{3, 4}, Layout::flipped, Fill::specials, 1), true, INT64_MIN);
  check_trilu(make_input(DType::f32, Dims{3, 4}, Layout::flipped, Fill::specials, 1), false, INT64_MAX);
  check_trilu(make_input(DType::i8, Dims{0, 4}, Layout::contiguous, Fill::full, 1), false, 0);
  check_trilu(make_input(DType::i8, Dims{2, 0, 4}, Layout::contiguous, Fill::full, 1), true, 0);
}

BOOST_AUTO_TEST_CASE(nonzero_every_dtype_and_layout) {
  uint64_t seed = 20;
  for (DType t : kAllDTypes)
    for (Layout lay : kLayouts)
      for (const Dims& shape : {Dims{7}, Dims{3, 4}, Dims{2, 3, 1, 4}}) {
        const Fill f = is_float(t) ? Fill::specials : Fill::small;
        check_nonzero(make_input(t, shape, lay, f, seed++));
      }
  check_nonzero(make(DType::f32, Dims{4}, {-0.0, 0.0, NAN, -INFINITY}));
  check_nonzero(make(DType::i32, Dims{2, 0}, {}));
  check_nonzero(make(DType::u8, Dims{3}, {0, 0, 0}));
}

BOOST_AUTO_TEST_CASE(range_values_and_lengths) {
  for (DType t : {DType::f32, DType::f64, DType::i16, DType::i32, DType::i64})
    for (double s : {-7.0, 0.0, 5.0})
      for (double l : {-9.0, 0.0, 4.0, 11.0})
        for (double d : {-3.0, -1.0, 1.0, 2.0, 4.0}) {
          const Tensor y = range_of(t, s, l, d);
          const int64_t n = std::max<int64_t>(int64_t(std::ceil((l - s) / d)), 0);
          std::vector<double> want;
          for (int64_t i = 0; i < n; ++i) want.push_back(s + double(i) * d);
          check_values(y, t, Dims{n}, want);
        }
  // Float lengths: ceil((limit - start) / delta) with limit - start in the dtype.
  BOOST_TEST(range_of(DType::f64, 0, 1, 0.3).numel() == 4);
  BOOST_TEST(range_of(DType::f32, 1, 1.5, 0.1).numel() == 5);
  BOOST_TEST(range_of(DType::f32, 0, -0.0, 1).numel() == 0);
  // Integer extremes: exact lengths and values, no overflow.
  const Tensor big = run_op(Opcode::range, {make_i64(Dims{1}, {INT64_MIN}), make_i64(Dims{1}, {INT64_MAX}),
                                            make_i64(Dims{1}, {int64_t(1) << 62})}, Attrs{});
  BOOST_TEST(int_values(big) == (std::vector<int64_t>{INT64_MIN, -(int64_t(1) << 62), 0, int64_t(1) << 62}));
  const Tensor down = run_op(Opcode::range, {make_i64(Dims{1}, {INT64_MAX}), make_i64(Dims{1}, {INT64_MAX - 5}),
                                             make_i64(Dims{1}, {INT64_MIN})}, Attrs{});
  BOOST_TEST(int_values(down) == (std::vector<int64_t>{INT64_MAX}));
  check_values(range_of(DType::i16, -32768, 32767, 30000), DType::i16, Dims{3}, {-32768, -2768, 27232});
  // Inputs of any one-element shape and any layout.
  const Tensor s = relayout(make(DType::i32, Dims{1, 1}, {2}), Layout::sliced);
  check_values(run_op(Opcode::range, {s, make(DType::i32, Dims{1, 1}, {5}), make(DType::i32, Dims{1, 1}, {1})}, Attrs{}),
               DType::i32, Dims{3}, {2, 3, 4});
}

BOOST_AUTO_TEST_CASE(compress_every_dtype_and_layout) {
  uint64_t seed = 30;
  for (DType t : kAllDTypes)
    for (Layout lay : kLayouts)
      for (int64_t len : {0, 2, 4, 9}) {
        const Tensor x = make_input(t, Dims{4, 3, 2}, lay, Fill::full, seed++);
        const Tensor c = relayout(make_input(DType::boolean, Dims{len}, Layout::contiguous, Fill::full, seed++),
                                  len > 0 ? Layout::flipped : Layout::contiguous);
        for (std::optional<int64_t> axis : {std::optional<int64_t>{}, std::optional<int64_t>{0},
                                            std::optional<int64_t>{1}, std::optional<int64_t>{-1}})
          check_compress(x, c, axis);
      }
  check_compress(make(DType::f32, Dims{0, 3}, {}), make(DType::boolean, Dims{2}, {1, 1}), 1);
  check_compress(make(DType::f32, Dims{0, 3}, {}), make(DType::boolean, Dims{2}, {1, 1}), std::nullopt);
}

BOOST_AUTO_TEST_CASE(threads_and_simd_levels) {
  ThreadPool pool(3);
  mlvm::simd_test::LevelGuard guard;
  const Tensor x = make_input(DType::i16, Dims{1, 92, 86, 93}, Layout::transposed, Fill::small, 3);
  const Tensor v = make(DType::i64, Dims{2}, {-5, 9});
  const Tensor i = make_input(DType::i32, Dims{300, 200}, Layout::flipped, Fill::small, 4);
  const Tensor n0 = run_op(Opcode::nonzero, {x}, Attrs{});
  const Tensor o0 = run_op(Opcode::one_hot, {i, v}, one_hot_of(40, 1));
  for (simd::Level l : mlvm::simd_test::levels()) {
    simd::set_level_for_testing(l);
    BOOST_TEST(int_values(run_op(Opcode::nonzero, {x}, Attrs{}, &pool)) == int_values(n0));
    BOOST_TEST(int_values(run_op(Opcode::one_hot, {i, v}, one_hot_of(40, 1), &pool)) == int_values(o0));
  }
  check_nonzero(x, &pool);
  check_one_hot(i, v, 40, 1, &pool);
}

BOOST_AUTO_TEST_CASE(static_rules_and_traps) {
  const Tensor f1 = make(DType::f32, Dims{1}, {1});
  BOOST_TEST(infer_op(Opcode::nonzero, {tt(DType::boolean, {kDynamic, 3, 2})}, Attrs{}).to_string() == "i64[3, ?]");
  BOOST_TEST(infer_op(Opcode::range, {tt(DType::i64, {1}), tt(DType::i64, {kDynamic}), tt(DType::i64, {1, 1})}, Attrs{})
                 .to_string() == "i64[?]");
  expect_error([] { infer_op(Opcode::range, {tt(DType::i8, {1}), tt(DType::i8, {1}), tt(DType::i8, {1})}, Attrs{}); },
               ErrorKind::invalid, "range: start has dtype i8; expected one of f32, f64, i16, i32, i64");
  expect_error([] { infer_op(Opcode::range, {tt(DType::i32, {1}), tt(DType::i64, {1}), tt(DType::i32, {1})}, Attrs{}); },
               ErrorKind::invalid, "range: start, limit and delta must have one dtype");
  expect_error([] { infer_op(Opcode::range, {tt(DType::i32, {1}), tt(DType::i32, {2}), tt(DType::i32, {1})}, Attrs{}); },
               ErrorKind::invalid, "range: limit must have one element, got i32[2]");
  expect_error([&] { run_op(Opcode::range, {f1, f1, make(DType::f32, Dims{1}, {0})}, Attrs{}); }, ErrorKind::trap,
               "range: delta is 0");
  expect_error([&] { run_op(Opcode::range, {make(DType::i64, Dims{1}, {0}), make(DType::i64, Dims{1}, {5}),
                                             make(DType::i64, Dims{1}, {0})}, Attrs{}); },
               ErrorKind::trap, "range: delta is 0");
  expect_error([&] { run_op(Opcode::range, {f1, make(DType::f32, Dims{1}, {INFINITY}), f1}, Attrs{}); },
               ErrorKind::trap, "is not a finite number of elements");
  expect_error([&] { run_op(Opcode::range, {f1, make(DType::f32, Dims{1}, {NAN}), f1}, Attrs{}); },
               ErrorKind::trap, "is not a finite number of elements");
  expect_error([&] { run_op(Opcode::range, {make(DType::f32, Dims{2}, {1, 2}), f1, f1}, Attrs{}); },
               ErrorKind::trap, "range: start must have one element, got f32[2]");
  // one_hot
  BOOST_TEST(infer_op(Opcode::one_hot, {tt(DType::f32, {kDynamic, 3}), tt(DType::i8, {2}, 3)}, one_hot_of(5, 1))
                 .to_string() == "i8[?, 5, 3] precision=3");
  expect_error([] { infer_op(Opcode::one_hot, {tt(DType::boolean, {3}), tt(DType::f32, {2})}, one_hot_of(5)); },
               ErrorKind::invalid, "one_hot: indices has dtype bool");
  expect_error([] { infer_op(Opcode::one_hot, {tt(DType::i32, {3}), tt(DType::f32, {3})}, one_hot_of(5)); },
               ErrorKind::invalid, "one_hot: values must be [off, on], two elements, got f32[3]");
  expect_error([] { infer_op(Opcode::one_hot, {tt(DType::i32, {3}), tt(DType::f32, {2})}, one_hot_of(5, 2)); },
               ErrorKind::invalid, "one_hot: axis 2 is out of range for indices of rank 1 (expected -2 to 1)");
  expect_error([] { infer_op(Opcode::one_hot, {tt(DType::i32, {1, 1, 1, 1, 1, 1, 1, 1}), tt(DType::f32, {2})}, one_hot_of(5)); },
               ErrorKind::invalid, "one_hot: the result would have rank 9");
  expect_error([] { attrs_for(Opcode::one_hot, {integer(0)}); }, ErrorKind::invalid, "expected a value >= 1");
  expect_error([&] { run_op(Opcode::one_hot, {f1, make(DType::f32, Dims{3}, {0, 1, 2})}, one_hot_of(2)); },
               ErrorKind::trap, "values must be [off, on]");
  // trilu, compress
  expect_error([] { infer_op(Opcode::trilu, {tt(DType::f32, {4})}, trilu_of(true, 0)); }, ErrorKind::invalid,
               "trilu: x must have rank >= 2, got f32[4]");
  BOOST_TEST(infer_op(Opcode::compress, {tt(DType::i32, {4, 3}, 7), tt(DType::boolean, {kDynamic})}, compress_of(1))
                 .to_string() == "i32[4, ?] precision=7");
  BOOST_TEST(infer_op(Opcode::compress, {tt(DType::i32, {4, 3}), tt(DType::boolean, {2})}, compress_of(std::nullopt))
                 .to_string() == "i32[?]");
  expect_error([] { infer_op(Opcode::compress, {tt(DType::i32, {4, 3}), tt(DType::u8, {2})}, compress_of(0)); },
               ErrorKind::invalid, "compress: condition must be a bool vector, got u8[2]");
  expect_error([] { infer_op(Opcode::compress, {tt(DType::i32, {4, 3}), tt(DType::boolean, {2, 1})}, compress_of(0)); },
               ErrorKind::invalid, "compress: condition must be a bool vector");
  expect_error([] { infer_op(Opcode::compress, {tt(DType::i32, {4, 3}), tt(DType::boolean, {2})}, compress_of(2)); },
               ErrorKind::invalid, "compress: axis 2 is out of range for rank 2");
}

BOOST_AUTO_TEST_SUITE_END()
