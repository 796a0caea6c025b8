// det and unique (ONNX Det, Unique) against hand-computed cases and references written here
// from docs/ops.md ("Linear algebra", "Indexing"): pivoting, singular, NaN and 0x0 matrices;
// NaN, -0 and slices for unique, both orders; empty inputs; every layout of the input (a
// transposed, flipped or strided view must give the contiguous input's result); static errors
// and traps; results unchanged by threads and SIMD levels.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "common/attr_values.hpp"
#include "common/tensor_helpers.hpp"
#include "simd_test_support.hpp"

using namespace mlvm;
using namespace mlvm::testing;

namespace {

// Deterministic small values in [-4, 4] (integers, so determinants are exact in f64).
std::vector<double> small_values(int64_t n, uint64_t seed) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    v.push_back(double(int64_t((seed >> 33) % 9) - 4));
  }
  return v;
}

// The same, representable in t: u8 shifted to [0, 8], bool 0/1.
std::vector<double> values_for(DType t, int64_t n, uint64_t seed) {
  std::vector<double> v = small_values(n, seed);
  for (double& e : v) e = t == DType::boolean ? double(e > 0) : t == DType::u8 ? e + 4 : e;
  return v;
}

// Laplace expansion along the first row: the reference for small matrices.
long double laplace(const std::vector<long double>& a, int m) {
  if (m == 0) return 1;
  if (m == 1) return a[0];
  long double det = 0;
  for (int j = 0; j < m; ++j) {
    std::vector<long double> minor;
    for (int r = 1; r < m; ++r)
      for (int c = 0; c < m; ++c)
        if (c != j) minor.push_back(a[std::size_t(r * m + c)]);
    det += ((j & 1) ? -1 : 1) * a[std::size_t(j)] * laplace(minor, m - 1);
  }
  return det;
}

void check_det_against_laplace(const Tensor& x) {
  const Tensor y = run_op(Opcode::det, {x}, Attrs{});
  const int r = x.rank();
  const int m = int(x.dim(r - 1));
  const std::vector<double> xv = values(x), yv = values(y);
  const int64_t count = m > 0 ? int64_t(xv.size()) / (m * m) : y.numel();
  BOOST_REQUIRE_EQUAL(int64_t(yv.size()), count);
  for (int64_t b = 0; b < count; ++b) {
    std::vector<long double> a(xv.begin() + b * m * m, xv.begin() + (b + 1) * m * m);
    const double want = double(laplace(a, m));
    BOOST_TEST(std::fabs(yv[std::size_t(b)] - want) <= 1e-6 * std::fabs(want) + 1e-9,
               "det " << x.type_string() << " matrix " << b << ": " << yv[std::size_t(b)] << " vs "
                      << want);
  }
}

Attrs unique_of(std::optional<int64_t> axis, bool sorted = true) {
  return attrs_for(Opcode::unique, {axis ? integer(*axis) : none(), boolean(sorted)});
}

std::vector<Tensor> unique(const Tensor& x, std::optional<int64_t> axis, bool sorted = true) {
  return run_all(Opcode::unique, {x}, unique_of(axis, sorted));
}

void check_unique(const std::vector<Tensor>& r, DType dt, const Dims& yshape,
                  const std::vector<double>& y, const std::vector<int64_t>& indices,
                  const std::vector<int64_t>& inverse, const std::vector<int64_t>& counts) {
  check_values(r[0], dt, yshape, y);
  BOOST_TEST(int_values(r[1]) == indices);
  BOOST_TEST(int_values(r[2]) == inverse);
  BOOST_TEST(int_values(r[3]) == counts);
  for (int k = 1; k < 4; ++k) BOOST_TEST(r[std::size_t(k)].dtype() == DType::i64);
}

// The same four results, bit for bit.
void require_same(const std::vector<Tensor>& a, const std::vector<Tensor>& b,
                  const std::string& what) {
  BOOST_REQUIRE_EQUAL(a.size(), b.size());
  for (std::size_t k = 0; k < a.size(); ++k) {
    BOOST_TEST(dims_to_string(a[k].shape()) == dims_to_string(b[k].shape()),
               what << " result " << k);
    BOOST_TEST(same_bits(a[k], b[k]), what << " result " << k);
  }
}

// unique by its definition, over the row-major values of x (flattened, or slices along axis
// brought to the front): groups by exact equality (NaN equal to NaN), in first-occurrence
// order; `sorted` then orders them. Checks the kernel's four results.
void check_unique_reference(const Tensor& x, std::optional<int64_t> axis, bool sorted) {
  const std::vector<Tensor> got = unique(x, axis, sorted);
  const int r = x.rank();
  const int ax = axis ? int(*axis < 0 ? *axis + r : *axis) : 0;
  const int64_t n = axis ? x.dim(ax) : x.numel();
  std::vector<std::vector<double>> slices(static_cast<std::size_t>(n));
  for_each_index(x.shape(), [&](const std::vector<int64_t>& idx) {
    int64_t s = 0;
    if (axis) {
      s = idx[std::size_t(ax)];
    } else {
      for (int d = 0; d < r; ++d) s = s * x.dim(d) + idx[std::size_t(d)];
    }
    slices[std::size_t(s)].push_back(x.get_double(idx));
  });
  auto same = [](const std::vector<double>& a, const std::vector<double>& b) {
    for (std::size_t e = 0; e < a.size(); ++e)
      if (!(a[e] == b[e] || (std::isnan(a[e]) && std::isnan(b[e])))) return false;
    return true;
  };
  auto less = [](const std::vector<double>& a, const std::vector<double>& b) {
    for (std::size_t e = 0; e < a.size(); ++e) {
      const bool na = std::isnan(a[e]), nb = std::isnan(b[e]);
      if (na != nb) return nb;
      if (!na && a[e] != b[e]) return a[e] < b[e];
    }
    return false;
  };
  std::vector<int64_t> first, count, inverse(static_cast<std::size_t>(n));
  for (int64_t s = 0; s < n; ++s) {
    std::size_t g = 0;
    while (g < first.size() && !same(slices[std::size_t(first[g])], slices[std::size_t(s)])) ++g;
    if (g == first.size()) {
      first.push_back(s);
      count.push_back(0);
    }
    ++count[g];
    inverse[std::size_t(s)] = int64_t(g);
  }
  std::vector<int64_t> order(first.size()), pos(first.size());
  for (std::size_t g = 0; g < order.size(); ++g) order[g] = int64_t(g);
  if (sorted)
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return less(slices[std::size_t(first[std::size_t(a)])],
                  slices[std::size_t(first[std::size_t(b)])]);
    });
  std::vector<int64_t> want_first, want_count;
  for (std::size_t q = 0; q < order.size(); ++q) {
    pos[std::size_t(order[q])] = int64_t(q);
    want_first.push_back(first[std::size_t(order[q])]);
    want_count.push_back(count[std::size_t(order[q])]);
  }
  for (int64_t& v : inverse) v = pos[std::size_t(v)];
  const std::string what = x.type_string() + (axis ? " axis " + std::to_string(*axis) : " flat") +
                           (sorted ? " sorted" : " unsorted");
  BOOST_TEST(int_values(got[1]) == want_first, what);
  BOOST_TEST(int_values(got[2]) == inverse, what);
  BOOST_TEST(int_values(got[3]) == want_count, what);
  // y[..., q, ...] is slice want_first[q].
  const Tensor& y = got[0];
  Dims want_shape = axis ? x.shape() : Dims{int64_t(want_first.size())};
  if (axis) want_shape[ax] = int64_t(want_first.size());
  BOOST_REQUIRE_EQUAL(dims_to_string(y.shape()), dims_to_string(want_shape));
  std::vector<int64_t> seen(want_first.size(), 0);
  int64_t bad = 0;
  for_each_index(y.shape(), [&](const std::vector<int64_t>& idx) {
    const std::size_t q = std::size_t(axis ? idx[std::size_t(ax)] : idx[0]);
    const double v = y.get_double(idx),
                 w = slices[std::size_t(want_first[q])][std::size_t(seen[q]++)];
    if (!(v == w || (std::isnan(v) && std::isnan(w)))) ++bad;
  });
  BOOST_TEST(bad == 0, what);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kernels_det_unique)

BOOST_AUTO_TEST_CASE(det_hand_cases) {
  check_values(run_op(Opcode::det, {make(DType::f32, Dims{2, 2}, {1, 2, 3, 4})}, Attrs{}),
               DType::f32, Dims{1}, {-2});
  check_values(
      run_op(Opcode::det, {make(DType::f64, Dims{2, 2, 2}, {2, 0, 0, 3, 0, 1, 1, 0})}, Attrs{}),
      DType::f64, Dims{2}, {6, -1});
  // A zero first pivot: rows are swapped (the sign flips).
  check_values(
      run_op(Opcode::det, {make(DType::f64, Dims{3, 3}, {0, 1, 2, 1, 0, 3, 4, -3, 8})}, Attrs{}),
      DType::f64, Dims{1}, {-2});
  // Singular: a zero pivot column, no division by it.
  check_values(run_op(Opcode::det, {make(DType::f32, Dims{2, 2}, {1, 2, 2, 4})}, Attrs{}),
               DType::f32, Dims{1}, {0});
  check_values(
      run_op(Opcode::det, {make(DType::f32, Dims{3, 3}, {0, 1, 2, 0, 3, 4, 0, 5, 6})}, Attrs{}),
      DType::f32, Dims{1}, {0});
  // 1x1 and 0x0 matrices; no matrices at all.
  check_values(run_op(Opcode::det, {make(DType::f32, Dims{3, 1, 1}, {5, -1, 0})}, Attrs{}),
               DType::f32, Dims{3}, {5, -1, 0});
  check_values(run_op(Opcode::det, {make(DType::f32, Dims{3, 0, 0}, {})}, Attrs{}), DType::f32,
               Dims{3}, {1, 1, 1});
  check_values(run_op(Opcode::det, {make(DType::f64, Dims{0, 2, 2}, {})}, Attrs{}), DType::f64,
               Dims{0}, {});
  check_values(run_op(Opcode::det, {make(DType::f64, Dims{2, 0, 3, 3}, {})}, Attrs{}), DType::f64,
               Dims{2, 0}, {});
  // A NaN reaches the result, even in a singular matrix.
  const Tensor nan =
      run_op(Opcode::det, {make(DType::f32, Dims{2, 2, 2}, {NAN, 1, 2, 3, 0, 0, 0, NAN})}, Attrs{});
  BOOST_TEST(std::isnan(values(nan)[0]));
  BOOST_TEST(std::isnan(values(nan)[1]));
  // f32 inputs are accumulated in f64: 1e20 and 1e-20 products do not overflow on the way.
  check_values(run_op(Opcode::det, {make(DType::f32, Dims{2, 2}, {1e20f, 0, 0, 1e-20f})}, Attrs{}),
               DType::f32, Dims{1}, {double(float(double(1e20f) * double(1e-20f)))});
}

BOOST_AUTO_TEST_CASE(det_against_laplace_every_layout) {
  uint64_t seed = 3;
  for (DType t : {DType::f32, DType::f64})
    for (int m : {1, 2, 3, 4, 5})
      for (Layout lay : kLayoutsNoBroadcast) {
        const Dims shape{2, 3, m, m};
        const Tensor x = make(t, shape, small_values(2 * 3 * m * m, seed++));
        const Tensor v = relayout(x, lay);
        check_det_against_laplace(v);
        BOOST_TEST(same_bits(run_op(Opcode::det, {v}, Attrs{}), run_op(Opcode::det, {x}, Attrs{})),
                   layout_name(lay) << " m " << m);
        // det(x^T) = det(x): the transpose is a strided view of x.
        const Tensor xt =
            run_op(Opcode::transpose, {x}, attrs_for(Opcode::transpose, {ints({0, 1, 3, 2})}));
        check_det_against_laplace(xt);
      }
}

BOOST_AUTO_TEST_CASE(det_errors) {
  expect_error(
      [] {
        infer_op(Opcode::det, {tt(DType::i32, {2, 2})}, Attrs{});
      },
      ErrorKind::invalid, "det: x has dtype i32; expected one of f32, f64");
  expect_error([] { infer_op(Opcode::det, {tt(DType::f32, {3})}, Attrs{}); }, ErrorKind::invalid,
               "det: x must have rank >= 2");
  expect_error(
      [] {
        infer_op(Opcode::det, {tt(DType::f32, {2, 3})}, Attrs{});
      },
      ErrorKind::invalid, "det: the last two dims of x must be equal");
  BOOST_TEST(
      infer_op(Opcode::det, {tt(DType::f64, {kDynamic, 4, kDynamic})}, Attrs{}).to_string() ==
      "f64[?]");
  BOOST_TEST(infer_op(Opcode::det, {tt(DType::f32, {3, 3})}, Attrs{}).to_string() == "f32[1]");
  // What a `?` hid traps at run time.
  expect_error(
      [] {
        run_op(Opcode::det, {make(DType::f32, Dims{2, 3}, {1, 2, 3, 4, 5, 6})}, Attrs{});
      },
      ErrorKind::trap, "square matrices");
}

BOOST_AUTO_TEST_CASE(unique_onnx_examples) {
  const Tensor x = make(DType::f32, Dims{6}, {2, 1, 1, 3, 4, 3});
  check_unique(unique(x, std::nullopt, false), DType::f32, Dims{4}, {2, 1, 3, 4}, {0, 1, 3, 4},
               {0, 1, 1, 2, 3, 2}, {1, 2, 2, 1});
  check_unique(unique(x, std::nullopt), DType::f32, Dims{4}, {1, 2, 3, 4}, {1, 0, 3, 4},
               {1, 0, 0, 2, 3, 2}, {2, 1, 2, 1});
  const Tensor m = make(DType::f32, Dims{3, 3}, {1, 0, 0, 1, 0, 0, 2, 3, 4});
  check_unique(unique(m, 0), DType::f32, Dims{2, 3}, {1, 0, 0, 2, 3, 4}, {0, 2}, {0, 0, 1}, {2, 1});
  const Tensor c =
      make(DType::f32, Dims{2, 4, 2}, {1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 0, 1, 2, 1, 0, 1});
  check_unique(unique(c, 1), DType::f32, Dims{2, 3, 2}, {0, 1, 1, 1, 2, 1, 0, 1, 1, 1, 2, 1},
               {1, 0, 2}, {1, 0, 2, 0}, {2, 1, 1});
  check_unique(unique(m, -1), DType::f32, Dims{3, 3}, {0, 0, 1, 0, 0, 1, 3, 4, 2}, {1, 2, 0},
               {2, 0, 1}, {1, 1, 1});
}

BOOST_AUTO_TEST_CASE(unique_nan_zero_and_empty) {
  // NaNs are one value, after +inf; -0 equals 0 and the first occurrence's sign is kept.
  const Tensor f = make(DType::f64, Dims{7}, {NAN, -0.0, INFINITY, 0.0, NAN, -1, -INFINITY});
  const std::vector<Tensor> r = unique(f, std::nullopt);
  BOOST_TEST(int_values(r[1]) == (std::vector<int64_t>{6, 5, 1, 2, 0}));
  BOOST_TEST(int_values(r[2]) == (std::vector<int64_t>{4, 2, 3, 2, 4, 1, 0}));
  BOOST_TEST(int_values(r[3]) == (std::vector<int64_t>{1, 1, 2, 1, 2}));
  const std::vector<double> y = values(r[0]);
  BOOST_TEST(std::signbit(y[2]));
  BOOST_TEST(std::isnan(y[4]));
  check_unique_reference(f, std::nullopt, false);
  // Empty inputs.
  check_unique(unique(make(DType::i32, Dims{0}, {}), std::nullopt), DType::i32, Dims{0}, {}, {}, {},
               {});
  check_unique(unique(make(DType::i32, Dims{2, 0}, {}), std::nullopt), DType::i32, Dims{0}, {}, {},
               {}, {});
  // Slices of no elements are all equal: one group.
  check_unique(unique(make(DType::i32, Dims{2, 0}, {}), 0), DType::i32, Dims{1, 0}, {}, {0}, {0, 0},
               {2});
  check_unique(unique(make(DType::i32, Dims{2, 0}, {}), 1), DType::i32, Dims{2, 0}, {}, {}, {}, {});
  // bool and integer extremes.
  check_unique(unique(make(DType::boolean, Dims{4}, {1, 0, 1, 1}), std::nullopt, false),
               DType::boolean, Dims{2}, {1, 0}, {0, 1}, {0, 1, 0, 0}, {3, 1});
  const std::vector<Tensor> big =
      unique(make_i64(Dims{3}, {INT64_MAX, INT64_MIN, INT64_MAX - 1}), std::nullopt);
  BOOST_TEST(int_values(big[0]) == (std::vector<int64_t>{INT64_MIN, INT64_MAX - 1, INT64_MAX}));
}

BOOST_AUTO_TEST_CASE(unique_every_dtype_layout_and_axis) {
  uint64_t seed = 40;
  for (DType t : kAllDTypes)
    for (Layout lay : kLayouts)
      for (std::optional<int64_t> axis : {std::optional<int64_t>{}, std::optional<int64_t>{0},
                                          std::optional<int64_t>{1}, std::optional<int64_t>{-1}})
        for (bool sorted : {true, false}) {
          // Few distinct values, so that slices repeat; broadcast: one [3, 2] slice read 5 times.
          const Tensor x = make(t, Dims{5, 3, 2}, values_for(t, 30, seed++));
          const Tensor v = lay != Layout::broadcast
                               ? relayout(x, lay)
                               : make(t, Dims{1, 3, 2}, values_for(t, 6, seed++))
                                     .with_layout(Dims{5, 3, 2}, Dims{0, 2, 1}, 0);
          check_unique_reference(v, axis, sorted);
          require_same(unique(v, axis, sorted), unique(clone(v), axis, sorted),
                       std::string(layout_name(lay)) + " " + x.type_string());
        }
}

BOOST_AUTO_TEST_CASE(unique_errors) {
  expect_error(
      [] {
        infer_all(Opcode::unique, {tt(DType::f32, {2, 3})}, unique_of(2));
      },
      ErrorKind::invalid, "unique: axis");
  const std::vector<TensorType> t =
      infer_all(Opcode::unique, {tt(DType::i8, {kDynamic, 3}, 4)}, unique_of(-1));
  BOOST_REQUIRE_EQUAL(t.size(), 4u);
  BOOST_TEST(t[0].to_string() == "i8[?, ?] precision=4");
  BOOST_TEST(t[1].to_string() == "i64[?]");
  BOOST_TEST(t[2].to_string() == "i64[3]");
  BOOST_TEST(t[3].to_string() == "i64[?]");
  BOOST_TEST(
      infer_all(Opcode::unique, {tt(DType::f32, {2, 3})}, unique_of(std::nullopt))[2].to_string() ==
      "i64[6]");
  BOOST_TEST(infer_all(Opcode::unique, {tt(DType::f32, {kDynamic, 3})}, unique_of(std::nullopt))[2]
                 .to_string() == "i64[?]");
}

BOOST_AUTO_TEST_CASE(threads_and_simd_levels) {
  ThreadPool pool(3);
  mlvm::simd_test::LevelGuard guard;
  const Tensor m =
      relayout(make(DType::f64, Dims{40, 6, 6}, small_values(40 * 36, 9)), Layout::transposed);
  const Tensor u =
      relayout(make(DType::i16, Dims{300, 4}, small_values(1200, 11)), Layout::flipped);
  const Tensor d0 = run_op(Opcode::det, {m}, Attrs{});
  const std::vector<Tensor> u0 = unique(u, 0, true);
  for (simd::Level l : mlvm::simd_test::levels()) {
    simd::set_level_for_testing(l);
    BOOST_TEST(same_bits(run_op(Opcode::det, {m}, Attrs{}, &pool), d0));
    require_same(run_all(Opcode::unique, {u}, unique_of(0), &pool), u0, "unique at a level");
  }
}

BOOST_AUTO_TEST_SUITE_END()
