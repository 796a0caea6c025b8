// cumsum, log_softmax, hardmax and topk (ONNX CumSum, LogSoftmax, Hardmax, TopK) against
// references written here from docs/ops.md ("Scans and selections along an axis"): each walks
// the lines of x along the axis by index (integers exactly modulo 2^64 then wrapped; floats in
// long double), over every accepted dtype, layout and axis, empty and one-element lines, NaN and
// infinities, ties, threads and SIMD levels; and the static rules' errors and precision.
#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "common/attr_values.hpp"
#include "common/tensor_helpers.hpp"
#include "simd_test_support.hpp"

using namespace mlvm;
using namespace mlvm::testing;

namespace {

Attrs cumsum_attrs_of(int64_t axis, bool exclusive, bool reverse) {
  return attrs_for(Opcode::cumsum, {integer(axis), boolean(exclusive), boolean(reverse)});
}
Attrs line_attrs(Opcode op, int64_t axis) {
  return attrs_for(op, {integer(axis)});
}
Attrs topk_attrs_of(int64_t k, int64_t axis, bool largest = true, bool sorted = true) {
  return attrs_for(Opcode::topk, {integer(k), integer(axis), boolean(largest), boolean(sorted)});
}

// Calls f(line) for every line of `shape` along `axis`: line[j] is the multi-index of its j-th
// element (the line's dim runs over the axis).
template <class F>
void for_each_line(const Dims& shape, int axis, F&& f) {
  Dims keep = shape;
  keep[axis] = 1;
  for_each_index(keep, [&](const std::vector<int64_t>& idx) {
    std::vector<std::vector<int64_t>> line;
    for (int64_t j = 0; j < shape[axis]; ++j) {
      line.push_back(idx);
      line.back()[std::size_t(axis)] = j;
    }
    f(line);
  });
}

int norm_axis(int64_t a, int rank) {
  return int(a < 0 ? a + rank : a);
}

void check_cumsum(const Tensor& x, int64_t axis_attr, bool exclusive, bool reverse,
                  ThreadPool* pool = nullptr) {
  const Tensor y = run_op(Opcode::cumsum, {x}, cumsum_attrs_of(axis_attr, exclusive, reverse), pool);
  BOOST_REQUIRE(y.dtype() == x.dtype());
  BOOST_REQUIRE(dims_to_string(y.shape()) == dims_to_string(x.shape()));
  const bool fl = is_float(x.dtype());
  int64_t bad = 0;
  std::string first;
  for_each_line(x.shape(), norm_axis(axis_attr, x.rank()), [&](const auto& line) {
    const int64_t n = int64_t(line.size());
    uint64_t isum = 0;
    long double fsum = 0, abs_sum = 0;
    for (int64_t s = 0; s < n; ++s) {
      const auto& idx = line[std::size_t(reverse ? n - 1 - s : s)];
      const Val v = at(x, idx);
      Val want;
      long double tol = 0;  // the sum of |x| of the terms in want
      auto current = [&] {
        tol = abs_sum;
        return fl ? fv(round_to(x.dtype(), double(fsum))) : iv(wrap_to(x.dtype(), __int128(int64_t(isum))));
      };
      if (exclusive) want = current();
      isum += uint64_t(v.i);
      fsum += v.f;
      abs_sum += std::fabs(v.f);
      if (!exclusive) want = current();
      const Val got = at(y, idx);
      const bool ok = fl && std::isfinite(want.f) && std::isfinite(got.f)
                          ? std::fabs(want.f - got.f) <= 1e-6 * double(tol) + 1e-300
                          : close(want, got, 0);
      if (!ok && bad++ == 0)
        first = "at " + show_index(idx, x.rank()) + " want " + show(want) + " got " + show(got);
    }
  });
  BOOST_TEST(bad == 0, "cumsum " << x.type_string() << " axis " << axis_attr << " exclusive "
                                 << exclusive << " reverse " << reverse << ": " << bad
                                 << " mismatches, first " << first);
}

void check_log_softmax(const Tensor& x, int64_t axis_attr) {
  const Tensor y = run_op(Opcode::log_softmax, {x}, line_attrs(Opcode::log_softmax, axis_attr));
  BOOST_REQUIRE(dims_to_string(y.shape()) == dims_to_string(x.shape()));
  int64_t bad = 0;
  for_each_line(x.shape(), norm_axis(axis_attr, x.rank()), [&](const auto& line) {
    long double m = -INFINITY, rest = 0;  // Σ exp(x − m) = 1 + rest
    bool nan = false;
    std::size_t im = 0;
    for (std::size_t j = 0; j < line.size(); ++j) {
      const double v = at(x, line[j]).f;
      nan = nan || std::isnan(v);
      if (v > m) {
        m = v;
        im = j;
      }
    }
    for (std::size_t j = 0; j < line.size(); ++j)
      if (j != im) rest += std::exp((long double)at(x, line[j]).f - m);
    for (const auto& idx : line) {
      long double r = (long double)at(x, idx).f - m - std::log1p(rest);
      if (nan || std::isinf(m)) r = NAN;
      const Val want = fv(round_to(x.dtype(), double(r)));
      // ±0 either way: a tiny exp(x − m) that f64 loses and long double keeps decides the sign.
      const Val got = at(y, idx);
      const bool ok = (want.f == 0 && got.f == 0) ||
                      close(want, got, x.dtype() == DType::f32 ? 2e-6 : 1e-12);
      if (!ok && bad++ == 0)
        BOOST_TEST_MESSAGE("at " << show_index(idx, x.rank()) << " want " << show(want) << " got "
                                 << show(at(y, idx)));
    }
  });
  BOOST_TEST(bad == 0, "log_softmax " << x.type_string() << " axis " << axis_attr);
}

void check_hardmax(const Tensor& x, int64_t axis_attr) {
  const Tensor y = run_op(Opcode::hardmax, {x}, line_attrs(Opcode::hardmax, axis_attr));
  BOOST_REQUIRE(y.dtype() == x.dtype());
  int64_t bad = 0;
  for_each_line(x.shape(), norm_axis(axis_attr, x.rank()), [&](const auto& line) {
    std::size_t best = 0;
    for (std::size_t j = 0; j < line.size(); ++j) {
      const double v = at(x, line[j]).f, b = at(x, line[best]).f;
      if (std::isnan(b)) break;
      if (std::isnan(v) || v > b) best = j;
    }
    for (std::size_t j = 0; j < line.size(); ++j)
      if (at(y, line[j]).f != (j == best ? 1.0 : 0.0)) ++bad;
  });
  BOOST_TEST(bad == 0, "hardmax " << x.type_string() << " axis " << axis_attr);
}

// The order of docs/ops.md: larger first (smaller when !largest), NaN above every number, ties
// by lower index.
void check_topk(const Tensor& x, int64_t k, int64_t axis_attr, bool largest,
                ThreadPool* pool = nullptr) {
  const int axis = norm_axis(axis_attr, x.rank());
  const std::vector<Tensor> out = run_all(Opcode::topk, {x}, topk_attrs_of(k, axis_attr, largest), pool);
  BOOST_REQUIRE(out.size() == 2u);
  Dims want_shape = x.shape();
  want_shape[axis] = k;
  BOOST_REQUIRE(dims_to_string(out[0].shape()) == dims_to_string(want_shape));
  BOOST_REQUIRE(dims_to_string(out[1].shape()) == dims_to_string(want_shape));
  BOOST_REQUIRE(out[0].dtype() == x.dtype());
  BOOST_REQUIRE(out[1].dtype() == DType::i64);
  int64_t bad = 0;
  for_each_line(x.shape(), axis, [&](const auto& line) {
    std::vector<Val> v;
    for (const auto& idx : line) v.push_back(at(x, idx));
    auto key = [&](std::size_t i) {  // (is NaN, value) with NaN largest
      const Val& e = v[i];
      return std::pair<bool, long double>(e.is_float && std::isnan(e.f),
                                          e.is_float ? (long double)e.f : (long double)e.i);
    };
    std::vector<std::size_t> order(v.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      auto ka = key(a), kb = key(b);
      if (ka.first != kb.first) return largest ? ka.first : kb.first;
      if (ka.first) return false;
      return largest ? ka.second > kb.second : ka.second < kb.second;
    });
    for (int64_t j = 0; j < k; ++j) {
      std::vector<int64_t> oi = line[0];
      oi[std::size_t(axis)] = j;
      const std::size_t src = order[std::size_t(j)];
      if (at(out[1], oi).i != int64_t(src) || !close(v[src], at(out[0], oi), 0)) ++bad;
    }
  });
  BOOST_TEST(bad == 0, "topk " << x.type_string() << " k " << k << " axis " << axis_attr
                               << " largest " << largest);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kernels_scan_ops)

BOOST_AUTO_TEST_CASE(onnx_examples) {
  const Tensor x = make(DType::i32, Dims{3}, {1, 2, 3});
  check_values(run_op(Opcode::cumsum, {x}, cumsum_attrs_of(0, false, false)), DType::i32, Dims{3}, {1, 3, 6});
  check_values(run_op(Opcode::cumsum, {x}, cumsum_attrs_of(0, true, false)), DType::i32, Dims{3}, {0, 1, 3});
  check_values(run_op(Opcode::cumsum, {x}, cumsum_attrs_of(0, false, true)), DType::i32, Dims{3}, {6, 5, 3});
  check_values(run_op(Opcode::cumsum, {x}, cumsum_attrs_of(-1, true, true)), DType::i32, Dims{3}, {5, 3, 0});
  const Tensor m = make(DType::f32, Dims{2, 3}, {1, 0, 3, -1, 5, 2});
  const Tensor ls = run_op(Opcode::log_softmax, {m}, line_attrs(Opcode::log_softmax, -1));
  BOOST_TEST(std::fabs(ls.data<float>()[0] - -2.169846f) < 1e-6f);
  BOOST_TEST(std::fabs(ls.data<float>()[4] - -0.050945763f) < 1e-6f);
  const Tensor h = make(DType::f32, Dims{2, 3}, {1, 3, 3, NAN, 1, 2});
  check_values(run_op(Opcode::hardmax, {h}, line_attrs(Opcode::hardmax, 1)), DType::f32, Dims{2, 3},
               {0, 1, 0, 1, 0, 0});
  std::vector<Tensor> t = run_all(Opcode::topk, {m}, topk_attrs_of(2, -1));
  check_values(t[0], DType::f32, Dims{2, 2}, {3, 1, 5, 2});
  check_values(t[1], DType::i64, Dims{2, 2}, {2, 0, 1, 2});
  t = run_all(Opcode::topk, {m}, topk_attrs_of(1, 0, false));
  check_values(t[0], DType::f32, Dims{1, 3}, {-1, 0, 2});
  check_values(t[1], DType::i64, Dims{1, 3}, {1, 0, 1});
  // Ties by lower index; NaN first when largest, last when smallest.
  const Tensor n = make(DType::f64, Dims{6}, {2, NAN, 7, 2, INFINITY, NAN});
  t = run_all(Opcode::topk, {n}, topk_attrs_of(6, 0));
  check_values(t[1], DType::i64, Dims{6}, {1, 5, 4, 2, 0, 3});
  t = run_all(Opcode::topk, {n}, topk_attrs_of(4, 0, false, false));
  check_values(t[1], DType::i64, Dims{4}, {0, 3, 2, 4});
  t = run_all(Opcode::topk, {n}, topk_attrs_of(0, 0));
  BOOST_TEST(t[0].numel() == 0);
  BOOST_TEST(dims_to_string(t[1].shape()) == "[0]");
}

BOOST_AUTO_TEST_CASE(cumsum_every_dtype_layout_axis) {
  uint64_t seed = 11;
  for (DType t : kNumericDTypes)
    for (Layout lay : kLayouts)
      for (int64_t axis : {0, 1, 2, -1})
        for (int flags = 0; flags < 4; ++flags) {
          const Fill f = seed % 3 == 0 ? Fill::specials : is_float(t) ? Fill::small : Fill::full;
          check_cumsum(make_input(t, Dims{3, 5, 4}, lay, f, seed++), axis, flags & 1, flags & 2);
        }
  // Empty and long lines.
  for (bool ex : {false, true}) {
    check_cumsum(make_input(DType::i64, Dims{2, 0, 3}, Layout::contiguous, Fill::full, 1), 1, ex, !ex);
    check_cumsum(make_input(DType::f32, Dims{3, 0}, Layout::contiguous, Fill::full, 1), 0, ex, ex);
    check_cumsum(make_input(DType::f32, Dims{5000}, Layout::flipped, Fill::full, seed++), 0, ex, ex);
  }
}

BOOST_AUTO_TEST_CASE(log_softmax_and_hardmax) {
  uint64_t seed = 21;
  for (DType t : kFloatDTypes)
    for (Layout lay : kLayouts)
      for (int64_t axis : {0, 1, 2, -2}) {
        const Fill f = seed % 2 ? Fill::full : Fill::specials;
        check_log_softmax(make_input(t, Dims{4, 6, 5}, lay, f, seed++), axis);
        check_hardmax(make_input(t, Dims{4, 6, 5}, lay, seed % 2 ? Fill::small : Fill::specials, seed), axis);
        ++seed;
      }
  // Special lines: all -inf, a +inf, one element, empty.
  const Tensor s = make(DType::f32, Dims{3, 2}, {-INFINITY, -INFINITY, INFINITY, 1, 4, -INFINITY});
  const Tensor y = run_op(Opcode::log_softmax, {s}, line_attrs(Opcode::log_softmax, 1));
  BOOST_TEST((std::isnan(y.data<float>()[0]) && std::isnan(y.data<float>()[3])));
  BOOST_TEST(y.data<float>()[4] == 0.0f);
  BOOST_TEST(y.data<float>()[5] == -INFINITY);
  check_log_softmax(make_input(DType::f64, Dims{7, 1}, Layout::contiguous, Fill::full, 3), 1);
  check_values(run_op(Opcode::hardmax, {make(DType::f32, Dims{2, 1}, {5, -2})},
                      line_attrs(Opcode::hardmax, -1)), DType::f32, Dims{2, 1}, {1, 1});
  check_values(run_op(Opcode::log_softmax, {make(DType::f32, Dims{2, 0}, {})},
                      line_attrs(Opcode::log_softmax, 1)), DType::f32, Dims{2, 0}, {});
  check_values(run_op(Opcode::hardmax, {make(DType::f64, Dims{0, 3}, {})},
                      line_attrs(Opcode::hardmax, 0)), DType::f64, Dims{0, 3}, {});
}

BOOST_AUTO_TEST_CASE(topk_every_dtype_layout_axis_k) {
  uint64_t seed = 31;
  for (DType t : kNumericDTypes)
    for (Layout lay : kLayouts)
      for (int64_t axis : {0, 1, -1})
        for (bool largest : {true, false}) {
          const Tensor x = make_input(t, Dims{4, 7}, lay, seed % 2 ? Fill::small : Fill::specials, seed);
          ++seed;
          const int64_t n = x.dim(norm_axis(axis, 2));
          for (int64_t k : {int64_t(0), int64_t(1), n / 2, n}) check_topk(x, k, axis, largest);
        }
  check_topk(make_input(DType::i8, Dims{3, 1000}, Layout::transposed, Fill::full, 5), 17, 1, true);
  check_topk(make_input(DType::f32, Dims{2, 0, 3}, Layout::contiguous, Fill::full, 5), 0, 1, true);
  check_topk(make_input(DType::f32, Dims{2, 0, 3}, Layout::contiguous, Fill::full, 5), 2, 0, false);
}

// Integer results bit-identical at every SIMD level and thread count.
BOOST_AUTO_TEST_CASE(threads_and_simd_levels) {
  ThreadPool pool(3);
  mlvm::simd_test::LevelGuard guard;
  uint64_t seed = 50;
  for (const Dims& shape : {Dims{1, 92, 86, 93}, Dims{1, 79, 69, 24}, Dims{300, 400}}) {
    const Tensor x = make_input(DType::i32, shape, Layout::contiguous, Fill::full, seed++);
    const int axis = shape.size() - 1;
    const Tensor c0 = run_op(Opcode::cumsum, {x}, cumsum_attrs_of(1, true, false));
    const std::vector<Tensor> t0 = run_all(Opcode::topk, {x}, topk_attrs_of(5, axis));
    for (simd::Level l : mlvm::simd_test::levels()) {
      simd::set_level_for_testing(l);
      const Tensor c = run_op(Opcode::cumsum, {x}, cumsum_attrs_of(1, true, false), &pool);
      const std::vector<Tensor> t = run_all(Opcode::topk, {x}, topk_attrs_of(5, axis), &pool);
      BOOST_TEST(int_values(c) == int_values(c0));
      BOOST_TEST(int_values(t[0]) == int_values(t0[0]));
      BOOST_TEST(int_values(t[1]) == int_values(t0[1]));
    }
    check_cumsum(x, 1, false, true, &pool);
    check_topk(x, 3, axis, false, &pool);
  }
}

BOOST_AUTO_TEST_CASE(static_rules) {
  expect_error([] { infer_op(Opcode::cumsum, {tt(DType::boolean, {3})}, cumsum_attrs_of(0, false, false)); },
               ErrorKind::invalid, "cumsum: x has dtype bool");
  expect_error([] { infer_op(Opcode::cumsum, {tt(DType::f32, {3})}, cumsum_attrs_of(1, false, false)); },
               ErrorKind::invalid, "cumsum: axis 1 is out of range for rank 1");
  for (Opcode op : {Opcode::log_softmax, Opcode::hardmax}) {
    expect_error([&] { infer_op(op, {tt(DType::i32, {3})}, line_attrs(op, 0)); }, ErrorKind::invalid,
                 "x has dtype i32; expected one of f32, f64");
    expect_error([&] { infer_op(op, {tt(DType::f32, {3, 2})}, line_attrs(op, -3)); },
                 ErrorKind::invalid, "axis -3 is out of range for rank 2");
  }
  expect_error([] { infer_all(Opcode::topk, {tt(DType::boolean, {3})}, topk_attrs_of(1, 0)); },
               ErrorKind::invalid, "topk: x has dtype bool");
  expect_error([] { infer_all(Opcode::topk, {tt(DType::f32, {2, 3})}, topk_attrs_of(4, 1)); },
               ErrorKind::invalid, "topk: k 4 is larger than dim 1 of f32[2, 3] (3 elements)");
  expect_error([] { attrs_for(Opcode::topk, {integer(-1)}); }, ErrorKind::invalid, "expected a value >= 0");
  // A `?` axis: the kernel traps.
  const std::vector<TensorType> d = infer_all(Opcode::topk, {tt(DType::i8, {kDynamic, 3}, 5)}, topk_attrs_of(4, 0));
  BOOST_TEST(d[0].to_string() == "i8[4, 3] precision=5");
  BOOST_TEST(d[1].to_string() == "i64[4, 3]");
  expect_error([] { run_all(Opcode::topk, {make(DType::i8, Dims{2, 3}, {1, 2, 3, 4, 5, 6})}, topk_attrs_of(4, 0)); },
               ErrorKind::trap, "topk: k 4 is larger than dim 0");
  // cumsum's precision: p + ceil(log2 n); unknown when n is `?`.
  BOOST_TEST(infer_op(Opcode::cumsum, {tt(DType::i32, {2, 5}, 8)}, cumsum_attrs_of(1, false, false)).precision == 11);
  BOOST_TEST(infer_op(Opcode::cumsum, {tt(DType::i32, {2, kDynamic}, 8)}, cumsum_attrs_of(1, false, false)).precision == 0);
  BOOST_TEST(infer_op(Opcode::log_softmax, {tt(DType::f64, {kDynamic, 3})}, line_attrs(Opcode::log_softmax, -1))
                 .to_string() == "f64[?, 3]");
}

BOOST_AUTO_TEST_SUITE_END()
