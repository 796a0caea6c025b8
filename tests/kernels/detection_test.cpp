// Detection post-processing: get_valid_count and non_max_suppression.
//
// Hand-computed cases for every rule ops.md spells out, plus randomized comparison with a
// naive reference written from the seed's formal definition (selection instead of sorting,
// the set U built literally), on every allowed dtype and on strided input views.
#include "kernels/detection.hpp"

#include <atomic>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace mlvm;

namespace {

const DType kBoxDTypes[] = {DType::f32, DType::f64, DType::i8, DType::i16, DType::i32, DType::i64};

template <class F>
void for_each_index(const Dims& shape, F&& f) {
  for (int64_t d : shape)
    if (d == 0) return;
  std::vector<int64_t> idx(static_cast<std::size_t>(shape.size()), 0);
  while (true) {
    f(idx);
    int d = shape.size() - 1;
    for (; d >= 0; --d) {
      if (++idx[std::size_t(d)] < shape[d]) break;
      idx[std::size_t(d)] = 0;
    }
    if (d < 0) return;
  }
}

// Exact for every dtype: integers travel as int64, floats as double.
struct Num {
  bool is_int;
  int64_t i;
  double f;
};

void set_elem(const Tensor& t, const std::vector<int64_t>& idx, Num v) {
  int64_t off = 0;
  for (int d = 0; d < t.rank(); ++d) off += idx[std::size_t(d)] * t.strides()[d];
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    t.data<T>()[off] = v.is_int ? T(v.i) : T(v.f);
  });
}

Tensor make(DType dt, const Dims& shape, const std::vector<double>& vals) {
  Tensor t = Tensor::empty(dt, shape);
  BOOST_REQUIRE_EQUAL(int64_t(vals.size()), t.numel());
  std::size_t k = 0;
  for_each_index(shape, [&](const std::vector<int64_t>& idx) {
    double v = vals[k++];
    set_elem(t, idx, Num{!is_float(dt), int64_t(v), v});
  });
  return t;
}

Tensor make_i64(const Dims& shape, const std::vector<int64_t>& vals) {
  Tensor t = Tensor::empty(DType::i64, shape);
  BOOST_REQUIRE_EQUAL(int64_t(vals.size()), t.numel());
  std::memcpy(t.data<int64_t>(), vals.data(), vals.size() * sizeof(int64_t));
  return t;
}

std::vector<double> values(const Tensor& t) {
  std::vector<double> v;
  for_each_index(t.shape(),
                 [&](const std::vector<int64_t>& idx) { v.push_back(t.get_double(idx)); });
  return v;
}
std::vector<int64_t> int_values(const Tensor& t) {
  std::vector<int64_t> v;
  for_each_index(t.shape(), [&](const std::vector<int64_t>& idx) { v.push_back(t.get_int(idx)); });
  return v;
}

// broadcast: dim 0 read through stride 0 (every batch the same rows) — only for inputs whose
// batches are equal; the rows and columns of a batch still vary.
enum class Layout { contiguous, transposed, flipped, sliced, broadcast };
const Layout kLayouts[] = {Layout::contiguous, Layout::transposed, Layout::flipped, Layout::sliced};
const char* layout_name(Layout l) {
  const char* names[] = {"contiguous", "transposed", "flipped", "sliced", "broadcast"};
  return names[int(l)];
}

// Same logical values as `src`, through another layout (values copied exactly).
Tensor relayout(const Tensor& src, Layout layout) {
  const Dims& shape = src.shape();
  const int r = shape.size();
  Tensor view;
  if (layout == Layout::contiguous) return src;
  if (layout == Layout::broadcast) {
    // one batch stored (at an offset, strided, to keep it honest), seen shape[0] times
    BOOST_REQUIRE(r >= 2);
    Dims one = shape;
    one[0] = 1;
    Dims big = one;
    big[r - 1] = 2 * shape[r - 1] + 1;
    Tensor base = Tensor::empty(src.dtype(), big);
    Dims st = base.strides();
    st[0] = 0;
    st[r - 1] = 2;
    view = base.with_layout(shape, st, 1);
    if (shape[0] > 0) {
      const bool integer = !is_float(src.dtype());
      for_each_index(one, [&](const std::vector<int64_t>& idx) {
        set_elem(view, idx, integer ? Num{true, src.get_int(idx), 0} : Num{false, 0, src.get_double(idx)});
      });
    }
    BOOST_REQUIRE_MESSAGE(int_values(view) == int_values(src) && values(view) == values(src),
                          "broadcast layout: the batches of " << src.type_string() << " differ");
    return view;
  }
  if (layout == Layout::transposed) {
    Dims rev = shape;
    for (int d = 0; d < r; ++d) rev[d] = shape[r - 1 - d];
    Tensor base = Tensor::empty(src.dtype(), rev);
    Dims st = shape;
    for (int d = 0; d < r; ++d) st[d] = base.strides()[r - 1 - d];
    view = base.with_layout(shape, st, 0);
  } else if (layout == Layout::flipped) {
    Tensor base = Tensor::empty(src.dtype(), shape);
    Dims st = shape;
    int64_t off = 0;
    for (int d = 0; d < r; ++d) {
      st[d] = -base.strides()[d];
      if (shape[d] > 0) off += (shape[d] - 1) * base.strides()[d];
    }
    view = base.with_layout(shape, st, base.numel() == 0 ? 0 : off);
  } else {
    Dims big = shape;
    for (int d = 0; d < r; ++d) big[d] = 2 * shape[d] + 1;
    Tensor base = Tensor::empty(src.dtype(), big);
    Dims st = shape;
    int64_t off = 0;
    for (int d = 0; d < r; ++d) {
      st[d] = 2 * base.strides()[d];
      off += base.strides()[d];
    }
    view = base.with_layout(shape, st, off);
  }
  const bool integer = !is_float(src.dtype());
  for_each_index(shape, [&](const std::vector<int64_t>& idx) {
    set_elem(view, idx,
             integer ? Num{true, src.get_int(idx), 0} : Num{false, 0, src.get_double(idx)});
  });
  return view;
}

AttrValue I(int64_t v) {
  return AttrValue::integer(v);
}
AttrValue F(double v) {
  return AttrValue::floating(v);
}
AttrValue Bo(bool v) {
  return AttrValue::boolean(v);
}

std::vector<Tensor> run(KernelFn fn, std::vector<Tensor> in, std::vector<AttrValue> attrs,
                        int nout) {
  Attrs a(std::move(attrs));
  ExecEnv env;
  std::vector<Tensor> out(static_cast<std::size_t>(nout));
  KernelContext ctx{in, out, a, env};
  fn(ctx);
  for (const Tensor& t : out) {
    BOOST_REQUIRE(t.defined());
    BOOST_REQUIRE(t.is_contiguous());
  }
  return out;
}

std::vector<TensorType> infer(InferFn fn, std::vector<TensorType> in,
                              std::vector<AttrValue> attrs) {
  Attrs a(std::move(attrs));
  InferContext ctx{in, a, {}, {}};
  fn(ctx);
  return ctx.out;
}

TensorType tt(DType dt, Dims d, int precision = kUnknownPrecision) {
  return TensorType{dt, d, precision};
}

template <class Fn>
void expect_error(Fn&& fn, ErrorKind kind, std::vector<std::string> parts) {
  try {
    fn();
  } catch (const Error& e) {
    BOOST_CHECK_EQUAL(e.kind(), kind);
    for (const std::string& p : parts)
      BOOST_CHECK_MESSAGE(e.message().find(p) != std::string::npos,
                          "message \"" << e.message() << "\" lacks \"" << p << "\"");
    return;
  }
  BOOST_ERROR("no error thrown; expected " << error_kind_name(kind));
}

void check_values(const Tensor& y, DType dt, const Dims& shape, const std::vector<double>& expect) {
  BOOST_REQUIRE_EQUAL(y.dtype(), dt);
  BOOST_REQUIRE_EQUAL(dims_to_string(y.shape()), dims_to_string(shape));
  std::vector<double> got = values(y);
  BOOST_REQUIRE_EQUAL(got.size(), expect.size());
  for (std::size_t k = 0; k < got.size(); ++k)
    if (got[k] != expect[k]) {
      BOOST_ERROR("element " << k << ": got " << got[k] << ", expected " << expect[k]);
      return;
    }
}

// ---- get_valid_count reference (seed formula) ---------------------------------------------

void ref_valid_count(const std::vector<double>& x, int64_t B, int64_t N, int64_t K, double thr,
                     std::vector<double>* count, std::vector<double>* y) {
  count->assign(std::size_t(B), 0);
  y->assign(std::size_t(B * N * K), -1);
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t n = 0; n < N; ++n) {
      if (!(x[std::size_t((b * N + n) * K + 1)] > thr)) continue;
      int64_t idx = 0;  // card{q < n : X[b, q, 1] > thr}
      for (int64_t q = 0; q < n; ++q) idx += x[std::size_t((b * N + q) * K + 1)] > thr;
      for (int64_t k = 0; k < K; ++k)
        (*y)[std::size_t((b * N + idx) * K + k)] = x[std::size_t((b * N + n) * K + k)];
      (*count)[std::size_t(b)] += 1;
    }
  }
}

// ---- non_max_suppression reference (seed formal definition) -------------------------------

struct NmsAttrs {
  int64_t iou_threshold = 50, max_output_size = -1;
  bool force_suppress = false;
  int64_t top_k = -1;
};

// IoU in percent of two rows (class, score, x1, y1, x2, y2): integer boxes floor it.
double ref_overlap(const double* p, const double* q, bool integer) {
  double w = std::min(p[4], q[4]) - std::max(p[2], q[2]);
  double h = std::min(p[5], q[5]) - std::max(p[3], q[3]);
  if (w < 0) w = 0;
  if (h < 0) h = 0;
  const double inter = w * h;
  const double uni = (p[4] - p[2]) * (p[5] - p[3]) + (q[4] - q[2]) * (q[5] - q[3]) - inter;
  if (uni <= 0) return 0;
  if (integer) return double((int64_t(inter) * 100) / int64_t(uni));  // small coordinates: exact
  return 100.0 * inter / uni;
}

std::vector<double> ref_nms(const std::vector<double>& x, const std::vector<int64_t>& vc, int64_t B,
                            int64_t N, const NmsAttrs& a, bool integer) {
  std::vector<double> y(std::size_t(B * N * 6), -1);
  for (int64_t b = 0; b < B; ++b) {
    const double* xb = x.data() + b * N * 6;
    const int64_t T = std::max<int64_t>(std::min<int64_t>(N, vc[std::size_t(b)]), 0);
    // I: repeatedly the highest remaining score, the smaller index on ties.
    std::vector<int64_t> I;
    std::vector<bool> used(std::size_t(T), false);
    for (int64_t i = 0; i < T; ++i) {
      int64_t best = -1;
      for (int64_t j = 0; j < T; ++j)
        if (!used[std::size_t(j)] && (best < 0 || xb[j * 6 + 1] > xb[best * 6 + 1])) best = j;
      used[std::size_t(best)] = true;
      I.push_back(best);
    }
    const int64_t TK = a.top_k < 0 ? INT64_MAX : a.top_k;
    const int64_t MOS = a.max_output_size < 0 ? INT64_MAX : a.max_output_size;
    std::vector<int64_t> U;
    for (int64_t p = 0; p < std::min(TK, T); ++p) {
      const double* rp = xb + I[std::size_t(p)] * 6;
      if (!(rp[0] >= 0)) continue;
      bool ok = true;
      for (int64_t q : U) {
        const double* rq = xb + I[std::size_t(q)] * 6;
        double iou = (a.force_suppress || rp[0] == rq[0]) ? ref_overlap(rp, rq, integer) : 0;
        if (!(iou < double(a.iou_threshold))) ok = false;
      }
      if (ok) U.push_back(p);
    }
    const int64_t out = std::min({T, MOS, int64_t(U.size())});
    for (int64_t n = 0; n < out; ++n)
      for (int k = 0; k < 6; ++k)
        y[std::size_t((b * N + n) * 6 + k)] = xb[I[std::size_t(U[std::size_t(n)])] * 6 + k];
  }
  return y;
}

Tensor nms(const Tensor& x, const Tensor& vc, const NmsAttrs& a) {
  return run(run_non_max_suppression, {x, vc},
             {I(a.iou_threshold), I(a.max_output_size), Bo(a.force_suppress), I(a.top_k)}, 1)[0];
}

// Rows as (class, score, x1, y1, x2, y2).
using Row = std::vector<double>;
std::vector<double> flat(const std::vector<Row>& rows) {
  std::vector<double> v;
  for (const Row& r : rows) v.insert(v.end(), r.begin(), r.end());
  return v;
}
const Row kNone = {-1, -1, -1, -1, -1, -1};

struct Lcg {
  uint64_t s;
  int64_t next(int64_t n) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return int64_t((s >> 33) % uint64_t(n));
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(detection)

// ---- get_valid_count ----------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(get_valid_count_hand_case) {
  Tensor x = make(DType::f32, Dims{2, 4, 3},
                  {1, 0.5, 7, 2, -1, 8, 3, 2,    9, 4, 0, 10,   // batch 0: rows 0 and 2 are valid
                   5, 0,   1, 6, -2, 1, 7, -0.5, 1, 8, 0, 1});  // batch 1: none (0 is not > 0)
  std::vector<Tensor> out = run(run_get_valid_count, {x}, {I(0)}, 2);
  check_values(out[0], DType::i32, Dims{2}, {2, 0});
  check_values(
      out[1], DType::f32, Dims{2, 4, 3},
      {1, 0.5, 7, 3, 2, 9, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1});
  // A negative threshold admits batch 1's 0 scores and -0.5.
  out = run(run_get_valid_count, {x}, {F(-0.75)}, 2);
  check_values(out[0], DType::i32, Dims{2}, {3, 3});
}

BOOST_AUTO_TEST_CASE(get_valid_count_thresholds) {
  // Integer scores against a fractional threshold compare exactly: 1.5 admits 2 and 3.
  Tensor xi = make(DType::i32, Dims{1, 4, 2}, {0, 1, 1, 2, 2, 3, 3, 1});
  std::vector<Tensor> out = run(run_get_valid_count, {xi}, {F(1.5)}, 2);
  check_values(out[0], DType::i32, Dims{1}, {2});
  check_values(out[1], DType::i32, Dims{1, 4, 2}, {1, 2, 2, 3, -1, -1, -1, -1});
  out = run(run_get_valid_count, {xi}, {F(-0.5)}, 2);  // every score >= 1
  check_values(out[0], DType::i32, Dims{1}, {4});
  out = run(run_get_valid_count, {xi}, {F(std::nan(""))}, 2);
  check_values(out[0], DType::i32, Dims{1}, {0});
  out = run(run_get_valid_count, {xi}, {F(1e300)}, 2);
  check_values(out[0], DType::i32, Dims{1}, {0});
  out = run(run_get_valid_count, {xi}, {F(-1e300)}, 2);
  check_values(out[0], DType::i32, Dims{1}, {4});
  out = run(run_get_valid_count, {xi}, {I(1000)}, 2);  // beyond every score
  check_values(out[0], DType::i32, Dims{1}, {0});
  // i64 near 2^62: compared as integers, not doubles.
  const int64_t big = int64_t(1) << 62;
  Tensor x64 = make_i64(Dims{1, 2, 2}, {0, big, 1, big + 1});
  out = run(run_get_valid_count, {x64}, {I(big)}, 2);
  check_values(out[0], DType::i32, Dims{1}, {1});
  BOOST_CHECK_EQUAL(int_values(out[1])[1], big + 1);
  // f32 scores compare in f32: 0.1f is not above the threshold 0.1 rounded to f32.
  Tensor xf = make(DType::f32, Dims{1, 2, 2}, {0, double(0.1f), 1, double(0.2f)});
  out = run(run_get_valid_count, {xf}, {F(0.1)}, 2);
  check_values(out[0], DType::i32, Dims{1}, {1});
  check_values(out[1], DType::f32, Dims{1, 2, 2}, {1, double(0.2f), -1, -1});
  // Thresholds beyond f32's range.
  out = run(run_get_valid_count, {xf}, {F(1e300)}, 2);
  check_values(out[0], DType::i32, Dims{1}, {0});
  out = run(run_get_valid_count, {xf}, {F(-1e300)}, 2);
  check_values(out[0], DType::i32, Dims{1}, {2});
}

BOOST_AUTO_TEST_CASE(get_valid_count_reference_dtypes_layouts) {
  Lcg rng{7};
  for (DType dt : kBoxDTypes)
    for (Layout layout : {Layout::contiguous, Layout::transposed, Layout::flipped, Layout::sliced, Layout::broadcast})
      for (int64_t K : {2, 5}) {
        BOOST_TEST_CONTEXT(dtype_name(dt) << " " << layout_name(layout) << " K " << K) {
          const int64_t B = 3, N = 7;
          std::vector<double> v(std::size_t(B * N * K));
          for (double& e : v) e = double(rng.next(9) - 4) * (is_float(dt) ? 0.5 : 1);
          // broadcast: batch 0's rows in every batch (they vary within the batch)
          if (layout == Layout::broadcast)
            for (std::size_t k = std::size_t(N * K); k < v.size(); ++k) v[k] = v[k % std::size_t(N * K)];
          Tensor x = relayout(make(dt, Dims{B, N, K}, v), layout);
          for (double thr : {0.0, -2.0, 1.0}) {
            std::vector<double> count, y;
            ref_valid_count(v, B, N, K, thr, &count, &y);
            std::vector<Tensor> out = run(run_get_valid_count, {x}, {I(int64_t(thr))}, 2);
            check_values(out[0], DType::i32, Dims{B}, count);
            check_values(out[1], dt, Dims{B, N, K}, y);
          }
        }
      }
  // Empty shapes.
  std::vector<Tensor> out =
      run(run_get_valid_count, {make(DType::f32, Dims{2, 0, 3}, {})}, {I(0)}, 2);
  check_values(out[0], DType::i32, Dims{2}, {0, 0});
  check_values(out[1], DType::f32, Dims{2, 0, 3}, {});
  out = run(run_get_valid_count, {make(DType::i8, Dims{0, 4, 2}, {})}, {I(0)}, 2);
  check_values(out[0], DType::i32, Dims{0}, {});
}

BOOST_AUTO_TEST_CASE(get_valid_count_static_rule_and_errors) {
  std::vector<TensorType> t =
      infer(infer_get_valid_count, {tt(DType::i32, Dims{kDynamic, 100, 6}, 1)}, {I(0)});
  BOOST_REQUIRE_EQUAL(t.size(), 2u);
  BOOST_CHECK_EQUAL(t[0].to_string(), "i32[?] precision=8");  // 100 needs 8 bits
  BOOST_CHECK_EQUAL(t[1].to_string(), "i32[?, 100, 6] precision=2");
  t = infer(infer_get_valid_count, {tt(DType::i16, Dims{2, kDynamic, kDynamic}, 9)}, {I(0)});
  BOOST_CHECK_EQUAL(t[0].to_string(), "i32[2]");
  BOOST_CHECK_EQUAL(t[1].to_string(), "i16[2, ?, ?] precision=9");
  t = infer(infer_get_valid_count, {tt(DType::f64, Dims{2, 3, 2})}, {F(0.5)});
  BOOST_CHECK_EQUAL(t[0].to_string(), "i32[2] precision=3");
  BOOST_CHECK_EQUAL(t[1].to_string(), "f64[2, 3, 2]");
  expect_error(
      [] {
        infer(infer_get_valid_count, {tt(DType::f32, Dims{2, 3, 1})}, {I(0)});
      },
      ErrorKind::invalid, {"(B, N, K) with K >= 2", "f32[2, 3, 1]"});
  expect_error(
      [] {
        infer(infer_get_valid_count, {tt(DType::f32, Dims{2, 3})}, {I(0)});
      },
      ErrorKind::invalid, {"(B, N, K)", "f32[2, 3]"});
  expect_error(
      [] {
        infer(infer_get_valid_count, {tt(DType::u8, Dims{2, 3, 3})}, {I(0)});
      },
      ErrorKind::invalid, {"x must be f32, f64, i8, i16, i32 or i64", "u8[2, 3, 3]"});
  expect_error(
      [] {
        infer(infer_get_valid_count, {tt(DType::boolean, Dims{2, 3, 3})}, {I(0)});
      },
      ErrorKind::invalid, {"bool[2, 3, 3]"});
  expect_error(
      [] {
        infer(infer_get_valid_count, {tt(DType::f32, Dims{1, int64_t(1) << 31, 2})}, {I(0)});
      },
      ErrorKind::invalid, {"more rows than an i32 count can hold"});
  // A `?` K that turns out to be 1 traps at run time.
  expect_error(
      [] {
        run(run_get_valid_count, {make(DType::f32, Dims{1, 2, 1}, {0, 0})}, {I(0)}, 2);
      },
      ErrorKind::trap, {"K >= 2", "f32[1, 2, 1]"});
}

// ---- non_max_suppression: hand cases ------------------------------------------------------

BOOST_AUTO_TEST_CASE(nms_basic_ties_and_negative_class) {
  // Scores tie at 3 (rows 1 and 3): the earlier row comes first. Row 2 overlaps row 1
  // (inter 50, union 150: 33.3%), which suppresses it at threshold 30. Row 0 has class -1.
  std::vector<Row> rows = {{-1, 4, 0, 0, 10, 10},
                           {0, 3, 0, 0, 10, 10},
                           {0, 2.5, 5, 0, 15, 10},
                           {0, 3, 20, 20, 30, 30},
                           {1, 1.5, 0, 0, 10, 10}};
  for (DType dt : {DType::f32, DType::f64}) {
    Tensor x = make(dt, Dims{1, 5, 6}, flat(rows));
    Tensor vc = make(DType::i32, Dims{1}, {5});
    NmsAttrs a;
    a.iou_threshold = 30;
    check_values(nms(x, vc, a), dt, Dims{1, 5, 6}, flat({rows[1], rows[3], rows[4], kNone, kNone}));
    a.iou_threshold = 34;  // 33.3% < 34: row 2 survives
    check_values(nms(x, vc, a), dt, Dims{1, 5, 6},
                 flat({rows[1], rows[3], rows[2], rows[4], kNone}));
    // force_suppress: class 1's box equals row 1's (100%) and goes too.
    a.iou_threshold = 30;
    a.force_suppress = true;
    check_values(nms(x, vc, a), dt, Dims{1, 5, 6}, flat({rows[1], rows[3], kNone, kNone, kNone}));
  }
}

BOOST_AUTO_TEST_CASE(nms_max_output_size_and_top_k) {
  std::vector<Row> rows = {
      {0, 5, 0, 0, 1, 1}, {0, 9, 10, 10, 11, 11}, {0, 7, 20, 20, 21, 21}, {0, 8, 30, 30, 31, 31}};
  Tensor x = make(DType::i32, Dims{1, 4, 6}, flat(rows));
  Tensor vc = make(DType::i64, Dims{1}, {4});
  NmsAttrs a;
  check_values(nms(x, vc, a), DType::i32, Dims{1, 4, 6},
               flat({rows[1], rows[3], rows[2], rows[0]}));
  a.max_output_size = 0;
  check_values(nms(x, vc, a), DType::i32, Dims{1, 4, 6}, flat({kNone, kNone, kNone, kNone}));
  a.max_output_size = 2;
  check_values(nms(x, vc, a), DType::i32, Dims{1, 4, 6}, flat({rows[1], rows[3], kNone, kNone}));
  a.max_output_size = -1;
  a.top_k = 3;
  check_values(nms(x, vc, a), DType::i32, Dims{1, 4, 6}, flat({rows[1], rows[3], rows[2], kNone}));
  a.top_k = 0;
  check_values(nms(x, vc, a), DType::i32, Dims{1, 4, 6}, flat({kNone, kNone, kNone, kNone}));
  a.top_k = 100;
  a.max_output_size = 100;
  check_values(nms(x, vc, a), DType::i32, Dims{1, 4, 6},
               flat({rows[1], rows[3], rows[2], rows[0]}));
}

BOOST_AUTO_TEST_CASE(nms_valid_count_edge_cases) {
  std::vector<Row> rows = {{0, 1, 0, 0, 2, 2}, {0, 3, 5, 5, 6, 6}, {0, 2, 8, 8, 9, 9}};
  std::vector<double> v = flat(rows);
  std::vector<double> two = v;
  two.insert(two.end(), v.begin(), v.end());
  two.insert(two.end(), v.begin(), v.end());
  Tensor x = make(DType::i16, Dims{3, 3, 6}, two);
  // Batch 0: valid_count -2 (all -1); batch 1: 2 (only rows 0, 1 count); batch 2: 99 > N.
  Tensor vc = make(DType::i32, Dims{3}, {-2, 2, 99});
  std::vector<double> expect =
      flat({kNone, kNone, kNone, rows[1], rows[0], kNone, rows[1], rows[2], rows[0]});
  check_values(nms(x, vc, NmsAttrs{}), DType::i16, Dims{3, 3, 6}, expect);
  vc = make(DType::u8, Dims{3}, {0, 2, 255});
  check_values(nms(x, vc, NmsAttrs{}), DType::i16, Dims{3, 3, 6}, expect);
  // The input is never modified.
  BOOST_CHECK(values(x) == two);
}

BOOST_AUTO_TEST_CASE(nms_iou_exactly_at_threshold) {
  // p = (0, 0, a, 1), q = (0, 0, b, 1): IoU = 100 b / a exactly.
  for (DType dt : {DType::i16, DType::i32, DType::i64, DType::f32, DType::f64}) {
    for (auto [b, kept] :
         std::vector<std::pair<double, bool>>{{4999, true}, {5000, false}, {5001, false}}) {
      Tensor x = make(dt, Dims{1, 2, 6}, {0, 2, 0, 0, 10000, 1, 0, 1, 0, 0, b, 1});
      Row p = {0, 2, 0, 0, 10000, 1}, q = {0, 1, 0, 0, b, 1};
      check_values(nms(x, make(DType::i32, Dims{1}, {2}), NmsAttrs{}), dt, Dims{1, 2, 6},
                   flat({p, kept ? q : kNone}));
    }
  }
  // Float boxes do not floor: 49.995 < 50 keeps, 50.0 suppresses.
  Tensor x = make(DType::f64, Dims{1, 2, 6}, {0, 2, 0, 0, 10000, 1, 0, 1, 0, 0, 4999.5, 1});
  check_values(nms(x, make(DType::i32, Dims{1}, {2}), NmsAttrs{}), DType::f64, Dims{1, 2, 6},
               {0, 2, 0, 0, 10000, 1, 0, 1, 0, 0, 4999.5, 1});
  // iou_threshold 101: even identical boxes survive.
  Tensor same = make(DType::i32, Dims{1, 2, 6}, {0, 2, 0, 0, 5, 5, 0, 1, 0, 0, 5, 5});
  NmsAttrs a;
  a.iou_threshold = 101;
  check_values(nms(same, make(DType::i32, Dims{1}, {2}), a), DType::i32, Dims{1, 2, 6},
               values(same));
  a.iou_threshold = 100;
  check_values(nms(same, make(DType::i32, Dims{1}, {2}), a), DType::i32, Dims{1, 2, 6},
               {0, 2, 0, 0, 5, 5, -1, -1, -1, -1, -1, -1});
}

BOOST_AUTO_TEST_CASE(nms_huge_integer_coordinates) {
  // i32: p = (-2e9, -2e9, 2e9, 2e9) has area 1.6e19 (past int64), q its left half: exactly 50%.
  Tensor x32 =
      make(DType::i32, Dims{1, 2, 6}, {0, 9, -2e9, -2e9, 2e9, 2e9, 0, 8, -2e9, -2e9, 0, 2e9});
  Tensor vc = make(DType::i32, Dims{1}, {2});
  NmsAttrs a;
  check_values(nms(x32, vc, a), DType::i32, Dims{1, 2, 6},
               {0, 9, -2e9, -2e9, 2e9, 2e9, -1, -1, -1, -1, -1, -1});
  a.iou_threshold = 51;
  check_values(nms(x32, vc, a), DType::i32, Dims{1, 2, 6}, values(x32));
  // i64 over the whole range: p spans [MIN, MAX]^2 (union 2^128 - 2^65 + 1); q has width w, so
  // IoU = floor(100 w / (2^64 - 1)): w = 184467440737095516 gives 0 (kept at threshold 1),
  // w + 1 gives 1 (suppressed). A double computation calls both 1.0.
  const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  const int64_t w = 184467440737095516;
  for (int64_t extra : {0, 1}) {
    Tensor x = make_i64(Dims{1, 2, 6}, {3, 9, lo, lo, hi, hi, 3, 8, lo, lo, lo + w + extra, hi});
    NmsAttrs t;
    t.iou_threshold = 1;
    std::vector<int64_t> got = int_values(nms(x, make(DType::i8, Dims{1}, {2}), t));
    std::vector<int64_t> expect = {3, 9, lo, lo, hi, hi, 3, 8, lo, lo, lo + w + extra, hi};
    if (extra) std::fill(expect.begin() + 6, expect.end(), -1);
    BOOST_CHECK(got == expect);
  }
  // i64 with areas past 2^120 and 49.99% vs 50%.
  const int64_t e = 4000000000000000000;
  for (auto [bw, kept] :
       std::vector<std::pair<int64_t, bool>>{{3999200000000000000, true}, {e, false}}) {
    Tensor x = make_i64(Dims{1, 2, 6}, {0, 9, -e, -e, e, e, 0, 8, -e, -e, -e + bw, e});
    std::vector<int64_t> got = int_values(nms(x, make(DType::i32, Dims{1}, {2}), NmsAttrs{}));
    BOOST_CHECK_EQUAL(got[6], kept ? 0 : -1);
    BOOST_CHECK_EQUAL(got[10], kept ? -e + bw : -1);
  }
}

BOOST_AUTO_TEST_CASE(nms_float_boxes_and_nan) {
  // f32 boxes with fractional coordinates: IoU = 0.5*1 / (1 + 1 - 0.5) = 33.3%.
  std::vector<Row> rows = {{2, 0.5, 0.25, 0.25, 1.25, 1.25}, {2, 0.25, 0.75, 0.25, 1.75, 1.25}};
  Tensor x = make(DType::f32, Dims{1, 2, 6}, flat(rows));
  NmsAttrs a;
  a.iou_threshold = 33;
  check_values(nms(x, make(DType::i32, Dims{1}, {2}), a), DType::f32, Dims{1, 2, 6},
               flat({rows[0], kNone}));
  a.iou_threshold = 34;
  check_values(nms(x, make(DType::i32, Dims{1}, {2}), a), DType::f32, Dims{1, 2, 6}, flat(rows));
  // A NaN score sorts last; a NaN class is never kept.
  const double nan = std::nan("");
  Tensor xn =
      make(DType::f64, Dims{1, 3, 6}, {0, nan, 0, 0, 1, 1, 0, 1, 5, 5, 6, 6, nan, 2, 9, 9, 10, 10});
  std::vector<double> got = values(nms(xn, make(DType::i32, Dims{1}, {3}), NmsAttrs{}));
  BOOST_CHECK_EQUAL(got[1], 1);
  BOOST_CHECK(std::isnan(got[7]));
  BOOST_CHECK_EQUAL(got[12], -1);
}

// ---- non_max_suppression: reference comparison --------------------------------------------

BOOST_AUTO_TEST_CASE(nms_matches_reference) {
  Lcg rng{42};
  int cases = 0;
  for (DType dt : kBoxDTypes)
    for (Layout layout : kLayouts)
      for (int round = 0; round < 6; ++round) {
        const int64_t B = 3, N = 9;
        const double unit = is_float(dt) ? 0.5 : 1;
        std::vector<double> v;
        for (int64_t r = 0; r < B * N; ++r) {
          double x1 = double(rng.next(12)) * unit, y1 = double(rng.next(12)) * unit;
          double x2 = x1 + double(rng.next(9) - 1) * unit, y2 = y1 + double(rng.next(9) - 1) * unit;
          v.insert(v.end(), {double(rng.next(4) - 1), double(rng.next(5)), x1, y1, x2, y2});
        }
        std::vector<int64_t> vcv = {int64_t(rng.next(12) - 2), int64_t(rng.next(12) - 2), N};
        Tensor x = relayout(make(dt, Dims{B, N, 6}, v), layout);
        Tensor vc = make(DType::i64, Dims{3}, {double(vcv[0]), double(vcv[1]), double(vcv[2])});
        NmsAttrs a;
        a.iou_threshold = std::vector<int64_t>{1, 20, 50, 70, 101}[std::size_t(rng.next(5))];
        a.max_output_size = rng.next(4) - 1;
        a.force_suppress = rng.next(2) == 1;
        a.top_k = rng.next(7) - 1;
        check_values(nms(x, vc, a), dt, Dims{B, N, 6}, ref_nms(v, vcv, B, N, a, !is_float(dt)));
        ++cases;
      }
  BOOST_CHECK_EQUAL(cases, 6 * 4 * 6);
  // A broadcast x (the same rows in every batch).
  Tensor base = make(DType::f32, Dims{1, 2, 6}, {0, 1, 0, 0, 4, 4, 0, 2, 1, 1, 4, 4});
  Tensor bx = base.with_layout(Dims{3, 2, 6}, Dims{0, 6, 1}, 0);
  std::vector<double> bv = values(bx);
  check_values(nms(bx, make(DType::i32, Dims{3}, {2, 1, 0}), NmsAttrs{}), DType::f32, Dims{3, 2, 6},
               ref_nms(bv, {2, 1, 0}, 3, 2, NmsAttrs{}, false));
  // Empty: no batches, or no rows.
  check_values(nms(make(DType::f32, Dims{0, 4, 6}, {}), make(DType::i32, Dims{0}, {}), NmsAttrs{}),
               DType::f32, Dims{0, 4, 6}, {});
  check_values(
      nms(make(DType::i8, Dims{2, 0, 6}, {}), make(DType::i32, Dims{2}, {3, 0}), NmsAttrs{}),
      DType::i8, Dims{2, 0, 6}, {});
}

BOOST_AUTO_TEST_CASE(nms_static_rule_and_errors) {
  std::vector<AttrValue> attrs = {I(50), I(-1), Bo(false), I(-1)};
  std::vector<TensorType> t =
      infer(infer_non_max_suppression,
            {tt(DType::i32, Dims{kDynamic, 10, 6}, 1), tt(DType::i32, Dims{4})}, attrs);
  BOOST_REQUIRE_EQUAL(t.size(), 1u);
  BOOST_CHECK_EQUAL(t[0].to_string(), "i32[?, 10, 6] precision=2");
  t = infer(infer_non_max_suppression,
            {tt(DType::i8, Dims{2, 10, kDynamic}, 7), tt(DType::u8, Dims{kDynamic})}, attrs);
  BOOST_CHECK_EQUAL(t[0].to_string(), "i8[2, 10, ?] precision=7");
  t = infer(infer_non_max_suppression, {tt(DType::f32, Dims{2, 10, 6}), tt(DType::i64, Dims{2})},
            attrs);
  BOOST_CHECK_EQUAL(t[0].to_string(), "f32[2, 10, 6]");
  auto bad = [&](TensorType x, TensorType vc, std::vector<AttrValue> at, ErrorKind k,
                 std::vector<std::string> parts) {
    expect_error([&] { infer(infer_non_max_suppression, {x, vc}, at); }, k, parts);
  };
  bad(tt(DType::f32, Dims{2, 10, 5}), tt(DType::i32, Dims{2}), attrs, ErrorKind::invalid,
      {"(B, N, 6) rows (class, score, x1, y1, x2, y2)", "f32[2, 10, 5]"});
  bad(tt(DType::f32, Dims{10, 6}), tt(DType::i32, Dims{2}), attrs, ErrorKind::invalid,
      {"f32[10, 6]"});
  bad(tt(DType::u8, Dims{2, 10, 6}), tt(DType::i32, Dims{2}), attrs, ErrorKind::invalid,
      {"u8[2, 10, 6]"});
  bad(tt(DType::boolean, Dims{2, 10, 6}), tt(DType::i32, Dims{2}), attrs, ErrorKind::invalid,
      {"bool[2, 10, 6]"});
  bad(tt(DType::f32, Dims{2, 10, 6}), tt(DType::f32, Dims{2}), attrs, ErrorKind::invalid,
      {"valid_count must be a 1-D integer tensor (B), got f32[2]"});
  bad(tt(DType::f32, Dims{2, 10, 6}), tt(DType::i32, Dims{2, 1}), attrs, ErrorKind::invalid,
      {"got i32[2, 1]"});
  bad(tt(DType::f32, Dims{2, 10, 6}), tt(DType::i32, Dims{3}), attrs, ErrorKind::invalid,
      {"valid_count i32[3] has 3 entries but x f32[2, 10, 6] has B = 2"});
  bad(tt(DType::f32, Dims{2, 10, 6}), tt(DType::i32, Dims{2}), {I(0), I(-1), Bo(false), I(-1)},
      ErrorKind::invalid, {"iou_threshold is 0; expected > 0"});
  // `?` dims that disagree at run time trap.
  expect_error(
      [] {
        nms(make(DType::f32, Dims{2, 1, 6}, std::vector<double>(12, 0)),
            make(DType::i32, Dims{3}, {1, 1, 1}), NmsAttrs{});
      },
      ErrorKind::trap, {"has 3 entries but x f32[2, 1, 6] has B = 2"});
  expect_error(
      [] {
        nms(make(DType::f32, Dims{1, 1, 5}, std::vector<double>(5, 0)),
            make(DType::i32, Dims{1}, {1}), NmsAttrs{});
      },
      ErrorKind::trap, {"f32[1, 1, 5]"});
}

BOOST_AUTO_TEST_CASE(cancelled_run_stops) {
  std::atomic<bool> stop{true};
  ExecEnv env;
  env.cancel = &stop;
  Attrs a({I(50), I(-1), Bo(false), I(-1)});
  std::vector<Tensor> in = {make(DType::f32, Dims{1, 1, 6}, {0, 1, 0, 0, 1, 1}),
                            make(DType::i32, Dims{1}, {1})};
  std::vector<Tensor> out(1);
  KernelContext ctx{in, out, a, env};
  expect_error([&] { run_non_max_suppression(ctx); }, ErrorKind::limit, {"cancelled"});
}

BOOST_AUTO_TEST_SUITE_END()
