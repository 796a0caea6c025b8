// Copying transforms: repeat, tile, concatenate, take, cvm_lut, pad, roll.
//
// Every kernel result is compared with a naive reference written from the seed's formulas
// (index by index over row-major values; it shares no code with the kernels), on the seed's
// (1, j, l, r) grid (corners + interior), on every dtype, and on transposed / flipped / sliced /
// broadcast input views. A few pad results are NumPy's, pasted as literals.
#include "kernels/transform.hpp"

#include <atomic>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

using namespace mlvm;

namespace {

const DType kAllDTypes[] = {DType::f32, DType::f64, DType::i8,  DType::u8,
                            DType::i16, DType::i32, DType::i64, DType::boolean};

// ---- tensors ------------------------------------------------------------------------------

template <class F>
void for_each_index(const Dims& shape, F&& f) {
  for (int64_t d : shape)
    if (d == 0) return;
  std::vector<int64_t> idx(std::size_t(shape.size()), 0);
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

int64_t offset_of(const Tensor& t, const std::vector<int64_t>& idx) {
  int64_t off = 0;
  for (int d = 0; d < t.rank(); ++d) off += idx[std::size_t(d)] * t.strides()[d];
  return off;
}

void set_elem(const Tensor& t, const std::vector<int64_t>& idx, double v) {
  const int64_t off = offset_of(t, idx);
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    t.data<T>()[off] = T(v);
  });
}

// Row-major values of any view.
std::vector<double> values(const Tensor& t) {
  std::vector<double> v;
  for_each_index(t.shape(),
                 [&](const std::vector<int64_t>& idx) { v.push_back(t.get_double(idx)); });
  return v;
}

Tensor make(DType dt, const Dims& shape, const std::vector<double>& vals) {
  Tensor t = Tensor::empty(dt, shape);
  BOOST_REQUIRE_EQUAL(int64_t(vals.size()), t.numel());
  std::size_t k = 0;
  for_each_index(shape, [&](const std::vector<int64_t>& idx) { set_elem(t, idx, vals[k++]); });
  return t;
}

// Deterministic values that every dtype holds exactly.
double sample_value(DType dt, int64_t k) {
  switch (dt) {
    case DType::f32:
      return double((k * 37) % 201 - 100) / 4.0;
    case DType::f64:
      return double((k * 7919) % 20001 - 10000) / 8.0;
    case DType::i8:
      return double((k * 37) % 201 - 100);
    case DType::u8:
      return double((k * 37) % 251);
    case DType::i16:
      return double((k * 7919) % 20001 - 10000);
    case DType::i32:
    case DType::i64:
      return double((k * 104729) % 2000003 - 1000001);
    case DType::boolean:
      return (k * 7) % 3 == 0 ? 1.0 : 0.0;
  }
  return 0;
}

Tensor sample(DType dt, const Dims& shape, int64_t seed = 1) {
  std::vector<double> v(std::size_t(checked_numel(shape)));
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = sample_value(dt, int64_t(k) + seed);
  return make(dt, shape, v);
}

// broadcast (not in kLayouts: it needs an input that repeats along some dim) stores one slice
// and reads every dim along which `src` does not change through stride 0.
enum class Layout { contiguous, transposed, flipped, sliced, broadcast };
const Layout kLayouts[] = {Layout::contiguous, Layout::transposed, Layout::flipped, Layout::sliced};

// The same logical values as `src`, seen through another layout.
Tensor relayout(const Tensor& src, Layout layout) {
  const Dims& shape = src.shape();
  const int r = shape.size();
  Tensor view;
  switch (layout) {
    case Layout::contiguous:
      return src;
    case Layout::transposed: {
      Dims rev = shape;
      for (int d = 0; d < r; ++d) rev[d] = shape[r - 1 - d];
      Tensor base = Tensor::empty(src.dtype(), rev);
      Dims st = shape;
      for (int d = 0; d < r; ++d) st[d] = base.strides()[r - 1 - d];
      view = base.with_layout(shape, st, 0);
      break;
    }
    case Layout::flipped: {
      Tensor base = Tensor::empty(src.dtype(), shape);
      Dims st = shape;
      int64_t off = 0;
      for (int d = 0; d < r; ++d) {
        st[d] = -base.strides()[d];
        if (shape[d] > 0) off += (shape[d] - 1) * base.strides()[d];
      }
      if (base.numel() == 0) off = 0;
      view = base.with_layout(shape, st, off);
      break;
    }
    case Layout::sliced: {
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
      break;
    }
    case Layout::broadcast: {
      Dims small = shape;
      bool repeated = false;
      for (int d = 0; d < r; ++d) {
        if (shape[d] == 0) continue;
        bool constant = true;
        for_each_index(shape, [&](const std::vector<int64_t>& idx) {
          std::vector<int64_t> first = idx;
          first[std::size_t(d)] = 0;
          constant = constant && src.get_double(idx) == src.get_double(first);
        });
        if (!constant) continue;
        small[d] = 1;
        repeated = repeated || shape[d] > 1;
      }
      BOOST_REQUIRE_MESSAGE(repeated, "broadcast layout: " << src.type_string() << " changes along every dim");
      Tensor base = Tensor::empty(src.dtype(), small);
      Dims st = base.strides();
      for (int d = 0; d < r; ++d)
        if (small[d] == 1) st[d] = 0;
      view = base.with_layout(shape, st, 0);
      break;  // the copy below writes each stored element once per repeat, always the same value
    }
  }
  std::vector<double> v = values(src);
  std::size_t k = 0;
  for_each_index(shape, [&](const std::vector<int64_t>& idx) { set_elem(view, idx, v[k++]); });
  BOOST_REQUIRE(values(view) == v);
  return view;
}

// ---- running ops --------------------------------------------------------------------------

AttrValue I(int64_t v) {
  return AttrValue::integer(v);
}
AttrValue S(const char* s) {
  return AttrValue::string(s);
}
AttrValue F(double v) {
  return AttrValue::floating(v);
}
AttrValue ints(std::vector<int64_t> v) {
  std::vector<AttrValue> items;
  for (int64_t x : v) items.push_back(I(x));
  AttrValue a = AttrValue::tuple(items);
  a.ints = v;
  return a;
}
AttrValue pairs(std::vector<std::pair<int64_t, int64_t>> v) {
  std::vector<AttrValue> items;
  std::vector<int64_t> flat;
  for (auto [a, b] : v) {
    items.push_back(AttrValue::tuple({I(a), I(b)}));
    flat.push_back(a);
    flat.push_back(b);
  }
  AttrValue a = AttrValue::tuple(items);
  a.ints = flat;
  return a;
}

Tensor run1(KernelFn fn, std::vector<Tensor> in, std::vector<AttrValue> attrs) {
  Attrs a(std::move(attrs));
  ExecEnv env;
  std::vector<Tensor> out(1);
  KernelContext ctx{in, out, a, env};
  fn(ctx);
  BOOST_REQUIRE(out[0].defined());
  BOOST_REQUIRE(out[0].is_contiguous());
  return out[0];
}

TensorType infer1(InferFn fn, std::vector<TensorType> in, std::vector<AttrValue> attrs) {
  Attrs a(std::move(attrs));
  InferContext ctx{in, a, {}, {}};
  fn(ctx);
  BOOST_REQUIRE_EQUAL(ctx.out.size(), 1u);
  return ctx.out[0];
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

void check_result(const Tensor& y, DType dt, const Dims& shape, const std::vector<double>& expect) {
  BOOST_REQUIRE_EQUAL(y.dtype(), dt);
  BOOST_REQUIRE_EQUAL(dims_to_string(y.shape()), dims_to_string(shape));
  std::vector<double> got = values(y);
  BOOST_REQUIRE_EQUAL(got.size(), expect.size());
  std::size_t bad = 0;
  for (std::size_t k = 0; k < got.size(); ++k)
    if (got[k] != expect[k] && bad++ < 5)
      BOOST_ERROR("element " << k << ": got " << got[k] << ", expected " << expect[k]);
  BOOST_CHECK_EQUAL(bad, 0u);
}

int64_t flat_index(const Dims& shape, const std::vector<int64_t>& idx) {
  int64_t f = 0;
  for (int d = 0; d < shape.size(); ++d) f = f * shape[d] + idx[std::size_t(d)];
  return f;
}

// ---- references (seed 000 formulas) -------------------------------------------------------

std::vector<double> ref_repeat(const Tensor& x, int64_t repeats, int axis, Dims* out_shape) {
  std::vector<double> xv = values(x);
  Dims ys = x.shape();
  ys[axis] *= repeats;
  *out_shape = ys;
  std::vector<double> y;
  for_each_index(ys, [&](const std::vector<int64_t>& d) {
    std::vector<int64_t> s = d;
    s[std::size_t(axis)] = d[std::size_t(axis)] / repeats;  // floor(d_axis / repeats)
    y.push_back(xv[std::size_t(flat_index(x.shape(), s))]);
  });
  return y;
}

std::vector<double> ref_tile(const Tensor& x, const std::vector<int64_t>& reps, Dims* out_shape) {
  std::vector<double> xv = values(x);
  const int N = x.rank(), M = int(reps.size()), K = std::max(N, M);
  Dims ys = Dims::filled(K, 1);
  for (int i = 0; i < K; ++i) {
    int64_t sx = i >= K - N ? x.dim(i - K + N) : 1;
    int64_t sr = i >= K - M ? reps[std::size_t(i - K + M)] : 1;
    ys[i] = sx * sr;
  }
  *out_shape = ys;
  std::vector<double> y;
  for_each_index(ys, [&](const std::vector<int64_t>& k) {
    std::vector<int64_t> s(static_cast<std::size_t>(N));
    for (int i = 0; i < N; ++i) s[std::size_t(i)] = k[std::size_t(K - N + i)] % x.dim(i);
    y.push_back(xv[std::size_t(flat_index(x.shape(), s))]);
  });
  return y;
}

std::vector<double> ref_concatenate(const std::vector<Tensor>& in, int axis, Dims* out_shape) {
  Dims ys = in[0].shape();
  ys[axis] = 0;
  for (const Tensor& t : in) ys[axis] += t.dim(axis);
  *out_shape = ys;
  std::vector<double> y(std::size_t(checked_numel(ys)));
  int64_t before = 0;  // sum of n^j_axis for j < i
  for (const Tensor& t : in) {
    for_each_index(t.shape(), [&](const std::vector<int64_t>& d) {
      std::vector<int64_t> o = d;
      o[std::size_t(axis)] = before + d[std::size_t(axis)];  // new_idx
      y[std::size_t(flat_index(ys, o))] = t.get_double(d);
    });
    before += t.dim(axis);
  }
  return y;
}

int64_t ref_fix_index(int64_t i, int64_t n, const std::string& mode) {
  if (mode == "clip") return i < 0 ? 0 : (i > n - 1 ? n - 1 : i);
  if (mode == "wrap") {
    int64_t r = i;
    while (r < 0) r += n;  // only small indices in these tests
    while (r >= n) r -= n;
    return r;
  }
  return i < 0 ? i + n : i;  // raise, in range
}

// axis < 0 means none.
std::vector<double> ref_take(const Tensor& x, const Tensor& ind, int axis, const std::string& mode,
                             Dims* out_shape) {
  std::vector<double> xv = values(x);
  std::vector<double> iv = values(ind);
  const int M = ind.rank();
  std::vector<double> y;
  if (axis < 0) {
    *out_shape = ind.shape();
    for (double i : iv)
      y.push_back(xv[std::size_t(ref_fix_index(int64_t(i), int64_t(xv.size()), mode))]);
    return y;
  }
  Dims ys;
  for (int j = 0; j < axis; ++j) ys.push_back(x.dim(j));
  for (int j = 0; j < M; ++j) ys.push_back(ind.dim(j));
  for (int j = axis + 1; j < x.rank(); ++j) ys.push_back(x.dim(j));
  *out_shape = ys;
  for_each_index(ys, [&](const std::vector<int64_t>& d) {
    std::vector<int64_t> di(d.begin() + axis, d.begin() + axis + M);
    int64_t xidx =
        ref_fix_index(int64_t(iv[std::size_t(flat_index(ind.shape(), di))]), x.dim(axis), mode);
    std::vector<int64_t> s;
    for (int j = 0; j < axis; ++j) s.push_back(d[std::size_t(j)]);
    s.push_back(xidx);
    for (int j = axis + M; j < int(d.size()); ++j) s.push_back(d[std::size_t(j)]);
    y.push_back(xv[std::size_t(flat_index(x.shape(), s))]);
  });
  return y;
}

// NumPy pad, one position at a time: reflect bounces off the ends (no edge repeat) until it
// lands inside; a singleton dim repeats its element. Returns -1 for "use the constant".
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

// The seed's X.shape grid (1, j, l, r): its corners plus two interior points.
std::vector<Dims> seed_grid() {
  std::vector<Dims> g;
  for (int64_t j : {1, 92})
    for (int64_t l : {1, 86})
      for (int64_t r : {1, 93}) g.push_back(Dims{1, j, l, r});
  g.push_back(Dims{1, 27, 35, 47});
  g.push_back(Dims{1, 53, 18, 70});
  return g;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(transform)

// ---- repeat -------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(repeat_seed_grid) {
  int k = 0;
  for (const Dims& shape : seed_grid()) {
    DType dt = kAllDTypes[k++ % 8];
    Tensor x = sample(dt, shape, k);
    for (int axis = 0; axis < 4; ++axis) {
      if (shape[1] * shape[2] * shape[3] > 100000 && axis != 3 && axis != 1)
        continue;  // keep it fast
      Dims ys;
      std::vector<double> expect = ref_repeat(x, 2, axis, &ys);
      check_result(run1(run_repeat, {x}, {I(2), I(axis)}), dt, ys, expect);
    }
  }
}

BOOST_AUTO_TEST_CASE(repeat_dtypes_layouts_axes) {
  for (DType dt : kAllDTypes)
    for (Layout layout : kLayouts) {
      Tensor x = relayout(sample(dt, Dims{2, 3, 4}, 5), layout);
      for (int64_t axis : {0, 1, 2, -1, -3})
        for (int64_t repeats : {1, 3}) {
          Dims ys;
          std::vector<double> expect = ref_repeat(x, repeats, normalize_axis(axis, 3), &ys);
          check_result(run1(run_repeat, {x}, {I(repeats), I(axis)}), dt, ys, expect);
        }
    }
}

BOOST_AUTO_TEST_CASE(repeat_broadcast_and_empty) {
  Tensor base = sample(DType::i32, Dims{1, 3});
  Tensor x = base.with_layout(Dims{4, 3}, Dims{0, 1}, 0);  // broadcast rows
  Dims ys;
  std::vector<double> expect = ref_repeat(x, 2, 0, &ys);
  check_result(run1(run_repeat, {x}, {I(2), I(0)}), DType::i32, ys, expect);
  expect = ref_repeat(x, 3, 1, &ys);
  check_result(run1(run_repeat, {x}, {I(3), I(1)}), DType::i32, ys, expect);
  Tensor e = sample(DType::f32, Dims{0, 3});
  check_result(run1(run_repeat, {e}, {I(2), I(1)}), DType::f32, Dims{0, 6}, {});
  check_result(run1(run_repeat, {e}, {I(2), I(0)}), DType::f32, Dims{0, 3}, {});
  // A rank-8 input (the engine folds size-1 dims).
  Tensor r8 = sample(DType::i16, Dims{2, 1, 2, 1, 3, 1, 2, 2});
  expect = ref_repeat(r8, 2, 5, &ys);
  check_result(run1(run_repeat, {r8}, {I(2), I(5)}), DType::i16, ys, expect);
  expect = ref_repeat(r8, 3, 7, &ys);
  check_result(run1(run_repeat, {relayout(r8, Layout::flipped)}, {I(3), I(7)}), DType::i16, ys,
               expect);
}

BOOST_AUTO_TEST_CASE(repeat_static_rule) {
  TensorType y = infer1(infer_repeat, {tt(DType::i32, Dims{kDynamic, 3}, 9)}, {I(2), I(1)});
  BOOST_CHECK_EQUAL(y.to_string(), "i32[?, 6] precision=9");
  y = infer1(infer_repeat, {tt(DType::f32, Dims{kDynamic, 3})}, {I(4), I(-2)});
  BOOST_CHECK_EQUAL(y.to_string(), "f32[?, 3]");
  expect_error(
      [] {
        infer1(infer_repeat, {tt(DType::f32, Dims{2, 3})}, {I(2), I(2)});
      },
      ErrorKind::invalid, {"axis 2 is out of range for rank 2"});
  expect_error(
      [] {
        infer1(infer_repeat, {tt(DType::f32, Dims{2, 3})}, {I(0), I(0)});
      },
      ErrorKind::invalid, {"repeats is 0", ">= 1"});
  expect_error(
      [] {
        infer1(infer_repeat, {tt(DType::f32, Dims{INT64_MAX / 2, 1})}, {I(3), I(0)});
      },
      ErrorKind::invalid, {"overflows"});
  expect_error(
      [] {
        run1(run_repeat, {sample(DType::f32, Dims{2})}, {I(2), I(-2)});
      },
      ErrorKind::invalid, {"axis -2 is out of range for rank 1"});
}

// ---- tile ---------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(tile_seed_grid) {
  int k = 0;
  for (const Dims& shape : seed_grid()) {
    DType dt = kAllDTypes[(k++ * 3) % 8];
    Tensor x = sample(dt, shape, k);
    Dims ys;
    std::vector<double> expect = ref_tile(x, {2, 2, 3}, &ys);
    check_result(run1(run_tile, {x}, {ints({2, 2, 3})}), dt, ys, expect);
  }
}

BOOST_AUTO_TEST_CASE(tile_reps_longer_shorter_layouts) {
  const std::vector<std::vector<int64_t>> reps_list = {{2, 2, 3},    {3},    {},
                                                       {2, 1, 3, 2}, {1, 1}, {2, 1, 1, 1, 2}};
  for (DType dt : kAllDTypes)
    for (Layout layout : kLayouts) {
      Tensor x = relayout(sample(dt, Dims{2, 3}, 7), layout);
      for (const auto& reps : reps_list) {
        Dims ys;
        std::vector<double> expect = ref_tile(x, reps, &ys);
        check_result(run1(run_tile, {x}, {ints(reps)}), dt, ys, expect);
      }
    }
  // Broadcast input and empty input.
  Tensor b = sample(DType::f64, Dims{3, 1}).with_layout(Dims{3, 4}, Dims{1, 0}, 0);
  Dims ys;
  std::vector<double> expect = ref_tile(b, {2, 3}, &ys);
  check_result(run1(run_tile, {b}, {ints({2, 3})}), DType::f64, ys, expect);
  check_result(run1(run_tile, {sample(DType::i8, Dims{2, 0})}, {ints({3, 2})}), DType::i8,
               Dims{6, 0}, {});
  // Rank 8 result from a rank-1 input.
  Tensor v = sample(DType::i32, Dims{3});
  expect = ref_tile(v, {2, 1, 1, 2, 1, 1, 2, 2}, &ys);
  check_result(run1(run_tile, {v}, {ints({2, 1, 1, 2, 1, 1, 2, 2})}), DType::i32, ys, expect);
}

BOOST_AUTO_TEST_CASE(tile_static_rule) {
  TensorType y = infer1(infer_tile, {tt(DType::i16, Dims{kDynamic, 2}, 5)}, {ints({2, 2, 3})});
  BOOST_CHECK_EQUAL(y.to_string(), "i16[2, ?, 6] precision=5");
  y = infer1(infer_tile, {tt(DType::u8, Dims{2, 3, 4})}, {ints({2})});
  BOOST_CHECK_EQUAL(y.to_string(), "u8[2, 3, 8]");
  expect_error(
      [] {
        infer1(infer_tile, {tt(DType::f32, Dims{2})}, {ints({2, 0})});
      },
      ErrorKind::invalid, {"reps element 0", ">= 1"});
  expect_error(
      [] {
        infer1(infer_tile, {tt(DType::f32, Dims{2})}, {ints({1, 1, 1, 1, 1, 1, 1, 1, 2})});
      },
      ErrorKind::invalid, {"rank would exceed 8"});
  expect_error([] { run1(run_tile, {sample(DType::f32, Dims{2})}, {ints({-1})}); },
               ErrorKind::invalid, {"reps element -1"});
}

// ---- concatenate --------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(concatenate_seed_grid) {
  int k = 0;
  for (const Dims& shape : seed_grid()) {
    DType dt = kAllDTypes[(k++ * 5) % 8];
    Tensor x = sample(dt, shape, k), y = sample(dt, shape, k + 1000);
    for (int axis = 0; axis < 4; ++axis) {
      if (shape[1] * shape[2] * shape[3] > 100000 && axis != 0 && axis != 3) continue;
      Dims ys;
      std::vector<double> expect = ref_concatenate({x, y}, axis, &ys);
      check_result(run1(run_concatenate, {x, y}, {I(axis)}), dt, ys, expect);
    }
  }
}

BOOST_AUTO_TEST_CASE(concatenate_variadic_layouts_empty) {
  for (DType dt : kAllDTypes)
    for (int64_t axis : {0, 1, 2, -1}) {
      const int a = normalize_axis(axis, 3);
      std::vector<Tensor> in;
      for (int i = 0; i < 4; ++i) {
        Dims s{2, 3, 2};
        s[a] = i == 2 ? 0 : i + 1;  // one input empty along the axis
        in.push_back(relayout(sample(dt, s, 11 * i + 1), kLayouts[i % 4]));
      }
      Dims ys;
      std::vector<double> expect = ref_concatenate(in, a, &ys);
      check_result(run1(run_concatenate, in, {I(axis)}), dt, ys, expect);
    }
  // One input; a broadcast input.
  Tensor x = sample(DType::i64, Dims{2, 2});
  check_result(run1(run_concatenate, {x}, {I(0)}), DType::i64, Dims{2, 2}, values(x));
  Tensor b = sample(DType::i64, Dims{1, 2}).with_layout(Dims{3, 2}, Dims{0, 1}, 0);
  Dims ys;
  std::vector<double> expect = ref_concatenate({x, b}, 0, &ys);
  check_result(run1(run_concatenate, {x, b}, {I(0)}), DType::i64, ys, expect);
  // All empty.
  check_result(run1(run_concatenate,
                    {sample(DType::f32, Dims{0, 2}), sample(DType::f32, Dims{0, 2})}, {I(1)}),
               DType::f32, Dims{0, 4}, {});
}

BOOST_AUTO_TEST_CASE(concatenate_static_rule_and_errors) {
  TensorType y =
      infer1(infer_concatenate,
             {tt(DType::i32, Dims{kDynamic, 3}, 8), tt(DType::i32, Dims{2, kDynamic}, 12)}, {I(0)});
  BOOST_CHECK_EQUAL(y.to_string(), "i32[?, 3] precision=12");
  y = infer1(infer_concatenate, {tt(DType::i32, Dims{2, 3}, 8), tt(DType::i32, Dims{2, 4})},
             {I(-1)});
  BOOST_CHECK_EQUAL(y.to_string(), "i32[2, 7]");
  expect_error(
      [] {
        infer1(infer_concatenate, {tt(DType::f32, Dims{2, 3}), tt(DType::f32, Dims{2, 4})}, {I(0)});
      },
      ErrorKind::invalid, {"input 1 f32[2, 4]", "dim 1 (4 vs 3)", "only axis 0 may differ"});
  expect_error(
      [] {
        infer1(infer_concatenate, {tt(DType::f32, Dims{2, 3}), tt(DType::i32, Dims{2, 3})}, {I(0)});
      },
      ErrorKind::invalid, {"input 1 is i32[2, 3]", "dtypes must be equal"});
  expect_error(
      [] {
        infer1(infer_concatenate, {tt(DType::f32, Dims{2, 3}), tt(DType::f32, Dims{6})}, {I(0)});
      },
      ErrorKind::invalid, {"has rank 1", "has rank 2"});
  expect_error(
      [] {
        infer1(infer_concatenate, {tt(DType::f32, Dims{2, 3})}, {I(2)});
      },
      ErrorKind::invalid, {"axis 2 is out of range for rank 2"});
  // A `?` dim that turns out different at run time traps.
  expect_error(
      [] {
        run1(run_concatenate, {sample(DType::f32, Dims{2, 3}), sample(DType::f32, Dims{2, 4})},
             {I(0)});
      },
      ErrorKind::trap, {"dim 1 (4 vs 3)"});
  expect_error(
      [] {
        run1(run_concatenate, {sample(DType::f32, Dims{2}), sample(DType::u8, Dims{2})}, {I(0)});
      },
      ErrorKind::invalid, {"dtypes must be equal"});
}

// ---- take, cvm_lut ------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(take_modes_axes_dtypes) {
  const std::vector<double> raw = {0, 2, -1, 5, -7, 3, 12, -4, 1, -3, 4, 2};
  const std::vector<double> in_range = {0, 1, -1, -2, 1, 0};  // valid for every axis (n >= 2)
  const DType idx_types[] = {DType::i8, DType::i16, DType::i32, DType::i64};
  int k = 0;
  for (DType dt : kAllDTypes)
    for (Layout layout : kLayouts) {
      Tensor x = relayout(sample(dt, Dims{3, 4, 2}, 3 + k), layout);
      DType it = idx_types[k++ % 4];
      for (const char* mode : {"clip", "wrap", "raise"}) {
        const std::vector<double>& iv = std::string(mode) == "raise" ? in_range : raw;
        Tensor ind =
            relayout(make(it, iv.size() == 12 ? Dims{3, 4} : Dims{2, 3}, iv), kLayouts[k % 4]);
        for (int axis : {-2, 0, 1, 2}) {  // -2 stands for none here
          Dims ys;
          std::vector<double> expect = ref_take(x, ind, axis < 0 ? -1 : axis, mode, &ys);
          AttrValue ax = axis < 0 ? AttrValue::none() : I(axis);
          check_result(run1(run_take, {x, ind}, {ax, S(mode)}), dt, ys, expect);
        }
      }
    }
  // u8 indices, negative axis, 1-element axis.
  Tensor x = sample(DType::f32, Dims{2, 1, 3});
  Tensor ind = make(DType::u8, Dims{4}, {0, 200, 1, 2});
  for (const char* mode : {"clip", "wrap"}) {
    Dims ys;
    std::vector<double> expect = ref_take(x, ind, 2, mode, &ys);
    check_result(run1(run_take, {x, ind}, {I(-1), S(mode)}), DType::f32, ys, expect);
    expect = ref_take(x, ind, 1, mode, &ys);
    check_result(run1(run_take, {x, ind}, {I(1), S(mode)}), DType::f32, ys, expect);
  }
  // Broadcast x.
  Tensor bx = sample(DType::i32, Dims{1, 3}).with_layout(Dims{4, 3}, Dims{0, 1}, 0);
  Tensor bi = make(DType::i64, Dims{5}, {-1, 0, 3, 11, 12});
  Dims ys;
  std::vector<double> expect = ref_take(bx, bi, -1, "clip", &ys);
  check_result(run1(run_take, {bx, bi}, {AttrValue::none(), S("clip")}), DType::i32, ys, expect);
}

BOOST_AUTO_TEST_CASE(take_hand_cases) {
  Tensor x = make(DType::i32, Dims{2, 3}, {10, 11, 12, 20, 21, 22});
  Tensor ind = make(DType::i64, Dims{5}, {-7, -1, 0, 5, 6});
  check_result(run1(run_take, {x, ind}, {AttrValue::none(), S("clip")}), DType::i32, Dims{5},
               {10, 10, 10, 22, 22});
  // wrap: -7 mod 6 = 5, -1 -> 5, 6 -> 0 (NumPy).
  check_result(run1(run_take, {x, ind}, {AttrValue::none(), S("wrap")}), DType::i32, Dims{5},
               {22, 22, 10, 22, 10});
  Tensor ind2 = make(DType::i8, Dims{2, 2}, {-3, 2, -1, 0});
  check_result(run1(run_take, {x, ind2}, {I(1), S("raise")}), DType::i32, Dims{2, 2, 2},
               {10, 12, 12, 10, 20, 22, 22, 20});
  // The wrap mode on huge indices.
  Tensor big = make(DType::i64, Dims{2}, {double(INT64_MIN), double(INT64_MAX)});
  Tensor y = run1(run_take, {make(DType::i32, Dims{3}, {0, 1, 2}), big}, {I(0), S("wrap")});
  // INT64_MIN = -9223372036854775808 ≡ 1 (mod 3); INT64_MAX ≡ 1 (mod 3).
  check_result(y, DType::i32, Dims{2}, {1, 1});
}

BOOST_AUTO_TEST_CASE(take_errors_and_empty) {
  Tensor x = make(DType::f32, Dims{2, 3}, {1, 2, 3, 4, 5, 6});
  expect_error(
      [&] {
        run1(run_take, {x, make(DType::i32, Dims{2}, {0, 3})}, {I(1), S("raise")});
      },
      ErrorKind::trap, {"index 3 is out of range for axis 1 of size 3", "-3 to 2"});
  expect_error(
      [&] {
        run1(run_take, {x, make(DType::i32, Dims{2}, {-4, 0})}, {I(1), S("raise")});
      },
      ErrorKind::trap, {"index -4 is out of range for axis 1 of size 3"});
  expect_error(
      [&] {
        run1(run_take, {x, make(DType::i64, Dims{1}, {6})}, {AttrValue::none(), S("raise")});
      },
      ErrorKind::trap, {"index 6 is out of range for the flattened input of size 6", "-6 to 5"});
  // Nothing to pick from an empty axis: every mode traps when there are indices.
  Tensor e = sample(DType::f32, Dims{2, 0});
  for (const char* mode : {"clip", "wrap", "raise"})
    expect_error(
        [&] {
          run1(run_take, {e, make(DType::i32, Dims{1}, {0})}, {I(1), S(mode)});
        },
        ErrorKind::trap, {"index 0 cannot be taken from axis 1, which is empty", mode});
  expect_error(
      [&] {
        run1(run_take, {e, make(DType::i32, Dims{1}, {0})}, {AttrValue::none(), S("clip")});
      },
      ErrorKind::trap, {"the flattened input, which is empty"});
  // Empty indices are fine, even from an empty axis.
  check_result(run1(run_take, {e, sample(DType::i32, Dims{0})}, {I(1), S("raise")}), DType::f32,
               Dims{2, 0}, {});
  check_result(run1(run_take, {x, sample(DType::i32, Dims{0, 2})}, {I(0), S("clip")}), DType::f32,
               Dims{0, 2, 3}, {});
  // Indices must be integers.
  expect_error(
      [&] {
        run1(run_take, {x, make(DType::f32, Dims{1}, {0})}, {I(0), S("clip")});
      },
      ErrorKind::invalid, {"indices must have an integer dtype", "f32[1]"});
  expect_error(
      [] {
        infer1(infer_take, {tt(DType::f32, Dims{2}), tt(DType::boolean, Dims{2})},
               {I(0), S("clip")});
      },
      ErrorKind::invalid, {"indices must have an integer dtype", "bool[2]"});
}

BOOST_AUTO_TEST_CASE(take_static_rule) {
  TensorType y =
      infer1(infer_take, {tt(DType::i32, Dims{kDynamic, 4}, 6), tt(DType::i64, Dims{2, 3})},
             {I(1), S("wrap")});
  BOOST_CHECK_EQUAL(y.to_string(), "i32[?, 2, 3] precision=6");
  y = infer1(infer_take, {tt(DType::u8, Dims{5, 4}), tt(DType::u8, Dims{kDynamic})},
             {AttrValue::none(), S("clip")});
  BOOST_CHECK_EQUAL(y.to_string(), "u8[?]");
  y = infer1(infer_take, {tt(DType::f64, Dims{5, 4, 3}), tt(DType::i8, Dims{7})},
             {I(-1), S("raise")});
  BOOST_CHECK_EQUAL(y.to_string(), "f64[5, 4, 7]");
  expect_error(
      [] {
        infer1(infer_take, {tt(DType::f32, Dims{5, 4}), tt(DType::i8, Dims{7})}, {I(2), S("clip")});
      },
      ErrorKind::invalid, {"axis 2 is out of range for rank 2"});
  expect_error(
      [] {
        infer1(infer_take,
               {tt(DType::f32, Dims{1, 1, 1, 1, 1}), tt(DType::i8, Dims{1, 1, 1, 1, 1})},
               {I(0), S("clip")});
      },
      ErrorKind::invalid, {"result rank 9", "exceeds 8"});
}

BOOST_AUTO_TEST_CASE(cvm_lut_is_take_clip_none) {
  // The indices and the table both strided, or read through stride 0: the broadcast indices
  // repeat one row of 6 (clipped ones included) 3 times; the broadcast table repeats one row
  // of 5 four times, or one column of 4 five times (flattened, the table still varies).
  const std::vector<double> index_row = {-5, 0, 19, 20, 7, 100};
  int round = 0;
  for (DType dt : kAllDTypes)
    for (Layout lt : {Layout::transposed, Layout::broadcast})
      for (Layout li : {Layout::flipped, Layout::broadcast}) {
        BOOST_TEST_CONTEXT(dtype_name(dt) << " table " << int(lt) << " indices " << int(li)) {
          Tensor table_values = sample(dt, Dims{4, 5}, 9);
          if (lt == Layout::broadcast) {
            Tensor slice = round++ % 2 ? sample(dt, Dims{1, 5}, 9) : sample(dt, Dims{4, 1}, 9);
            std::vector<double> tv;
            for_each_index(Dims{4, 5}, [&](const std::vector<int64_t>& idx) {
              std::vector<int64_t> s = {slice.dim(0) == 1 ? 0 : idx[0], slice.dim(1) == 1 ? 0 : idx[1]};
              tv.push_back(slice.get_double(s));
            });
            table_values = make(dt, Dims{4, 5}, tv);
          }
          Tensor table = relayout(table_values, lt);
          std::vector<double> iv = index_row;
          Dims is{2, 3};
          if (li == Layout::broadcast) {
            iv.clear();
            for (int k = 0; k < 3; ++k) iv.insert(iv.end(), index_row.begin(), index_row.end());
            is = Dims{3, 6};
          }
          Tensor ind = relayout(make(DType::i32, is, iv), li);
          Dims ys;
          std::vector<double> expect = ref_take(table, ind, -1, "clip", &ys);
          check_result(run1(run_cvm_lut, {ind, table}, {}), dt, ys, expect);
        }
      }
  TensorType y =
      infer1(infer_cvm_lut, {tt(DType::i32, Dims{3, kDynamic}), tt(DType::i8, Dims{256}, 8)}, {});
  BOOST_CHECK_EQUAL(y.to_string(), "i8[3, ?] precision=8");
  expect_error(
      [] {
        infer1(infer_cvm_lut, {tt(DType::f32, Dims{3}), tt(DType::i8, Dims{256})}, {});
      },
      ErrorKind::invalid, {"cvm_lut: indices (input 0) must have an integer dtype"});
  expect_error(
      [] {
        run1(run_cvm_lut, {make(DType::i32, Dims{1}, {0}), sample(DType::i8, Dims{0})}, {});
      },
      ErrorKind::trap, {"cvm_lut: index 0 cannot be taken"});
}

// ---- pad ----------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(pad_numpy_literals) {
  // np.pad([1,2,3], (7,8), mode='reflect'), np.pad([5], (2,3), 'reflect'), np.pad([1,2], (5,5),
  // 'reflect')
  check_result(
      run1(run_pad, {make(DType::i32, Dims{3}, {1, 2, 3})}, {pairs({{7, 8}}), I(0), S("reflect")}),
      DType::i32, Dims{18}, {2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3});
  check_result(
      run1(run_pad, {make(DType::i32, Dims{1}, {5})}, {pairs({{2, 3}}), I(0), S("reflect")}),
      DType::i32, Dims{6}, {5, 5, 5, 5, 5, 5});
  check_result(
      run1(run_pad, {make(DType::f32, Dims{2}, {1, 2})}, {pairs({{5, 5}}), I(0), S("reflect")}),
      DType::f32, Dims{12}, {2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1});
  // np.pad([[1,2],[3,4]], ((1,0),(0,2)), 'edge') and constant 9.
  Tensor m = make(DType::i8, Dims{2, 2}, {1, 2, 3, 4});
  check_result(run1(run_pad, {m}, {pairs({{1, 0}, {0, 2}}), I(0), S("edge")}), DType::i8,
               Dims{3, 4}, {1, 2, 2, 2, 1, 2, 2, 2, 3, 4, 4, 4});
  check_result(run1(run_pad, {m}, {pairs({{1, 0}, {0, 2}}), I(9), S("constant")}), DType::i8,
               Dims{3, 4}, {9, 9, 9, 9, 1, 2, 9, 9, 3, 4, 9, 9});
}

BOOST_AUTO_TEST_CASE(pad_modes_dtypes_layouts) {
  const std::vector<std::vector<std::pair<int64_t, int64_t>>> widths = {{{0, 0}, {0, 0}, {0, 0}},
                                                                        {{1, 2}, {0, 3}, {2, 0}},
                                                                        {{5, 4}, {7, 9}, {1, 1}},
                                                                        {{0, 1}, {11, 0}, {3, 4}}};
  for (DType dt : kAllDTypes)
    for (Layout layout : kLayouts) {
      Tensor x = relayout(sample(dt, Dims{2, 3, 1}, 13), layout);
      for (const auto& pw : widths)
        for (const char* mode : {"constant", "edge", "reflect"}) {
          const double value = dt == DType::boolean ? 1 : (dt == DType::u8 ? 200 : -7);
          Dims ys;
          std::vector<double> expect = ref_pad(x, pw, value, mode, &ys);
          check_result(run1(run_pad,
                            {
                                x,
                            },
                            {pairs(pw), I(int64_t(value)), S(mode)}),
                       dt, ys, expect);
        }
    }
  // A float value on a float tensor; a broadcast input.
  Tensor f = sample(DType::f64, Dims{3, 2});
  Dims ys;
  std::vector<double> expect = ref_pad(f, {{2, 1}, {1, 1}}, 0.25, "constant", &ys);
  check_result(run1(run_pad, {f}, {pairs({{2, 1}, {1, 1}}), F(0.25), S("constant")}), DType::f64,
               ys, expect);
  Tensor b = sample(DType::i16, Dims{1, 4}).with_layout(Dims{3, 4}, Dims{0, 1}, 0);
  for (const char* mode : {"constant", "edge", "reflect"}) {
    expect = ref_pad(b, {{4, 5}, {6, 2}}, 3, mode, &ys);
    check_result(run1(run_pad, {b}, {pairs({{4, 5}, {6, 2}}), I(3), S(mode)}), DType::i16, ys,
                 expect);
  }
}

BOOST_AUTO_TEST_CASE(pad_empty_dims) {
  // Constant mode may pad an empty dim; edge/reflect may not (but may leave it alone).
  Tensor e = sample(DType::f32, Dims{0, 2});
  check_result(run1(run_pad, {e}, {pairs({{1, 1}, {0, 1}}), F(1.5), S("constant")}), DType::f32,
               Dims{2, 3}, {1.5, 1.5, 1.5, 1.5, 1.5, 1.5});
  check_result(run1(run_pad, {e}, {pairs({{0, 0}, {2, 1}}), I(0), S("reflect")}), DType::f32,
               Dims{0, 5}, {});
  for (const char* mode : {"edge", "reflect"}) {
    expect_error(
        [&] {
          run1(run_pad, {e}, {pairs({{1, 0}, {0, 0}}), I(0), S(mode)});
        },
        ErrorKind::trap, {"cannot extend dim 0 of f32[0, 2], which is empty", mode});
    expect_error(
        [&] {
          infer1(infer_pad, {tt(DType::f32, Dims{0, 2})}, {pairs({{0, 1}, {0, 0}}), I(0), S(mode)});
        },
        ErrorKind::invalid, {"cannot extend dim 0"});
  }
}

BOOST_AUTO_TEST_CASE(pad_static_rule_and_errors) {
  TensorType y = infer1(infer_pad, {tt(DType::i32, Dims{kDynamic, 3}, 3)},
                        {pairs({{1, 2}, {0, 1}}), I(100), S("constant")});
  BOOST_CHECK_EQUAL(y.to_string(), "i32[?, 4] precision=8");  // max(3, precision of 100)
  y = infer1(infer_pad, {tt(DType::i32, Dims{2, 3}, 9)},
             {pairs({{1, 2}, {0, 1}}), I(-3), S("edge")});
  BOOST_CHECK_EQUAL(y.to_string(), "i32[5, 4] precision=9");
  y = infer1(infer_pad, {tt(DType::f32, Dims{kDynamic})}, {pairs({{1, 2}}), F(0.5), S("reflect")});
  BOOST_CHECK_EQUAL(y.to_string(), "f32[?]");
  expect_error(
      [] {
        infer1(infer_pad, {tt(DType::f32, Dims{2, 3})}, {pairs({{1, 1}}), I(0), S("constant")});
      },
      ErrorKind::invalid, {"pad_width has 1 (before, after) pairs; expected 2"});
  expect_error(
      [] {
        infer1(infer_pad, {tt(DType::f32, Dims{2})}, {pairs({{1, -1}}), I(0), S("constant")});
      },
      ErrorKind::invalid, {"pad_width element -1 is negative"});
  expect_error(
      [] {
        infer1(infer_pad, {tt(DType::i32, Dims{2})}, {pairs({{1, 1}}), F(0.5), S("constant")});
      },
      ErrorKind::invalid, {"value 0.5 is not representable in i32"});
  expect_error(
      [] {
        infer1(infer_pad, {tt(DType::u8, Dims{2})}, {pairs({{1, 1}}), I(-1), S("constant")});
      },
      ErrorKind::invalid, {"value -1 is not representable in u8"});
  expect_error(
      [] {
        infer1(infer_pad, {tt(DType::boolean, Dims{2})}, {pairs({{1, 1}}), I(2), S("constant")});
      },
      ErrorKind::invalid, {"value 2 is not representable in bool"});
  expect_error(
      [] {
        run1(run_pad, {sample(DType::i8, Dims{2})}, {pairs({{1, 1}}), I(300), S("constant")});
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
    for (Layout layout : kLayouts) {
      Tensor x = relayout(sample(dt, Dims{3, 4, 5}, 17), layout);
      for (const auto& [shift, axis] : cases)
        check_result(run1(run_roll, {x}, {ints(shift), ints(axis)}), dt, x.shape(),
                     ref_roll(x, shift, axis));
    }
  check_result(run1(run_roll, {make(DType::i32, Dims{5}, {1, 2, 3, 4, 5})}, {ints({2}), ints({0})}),
               DType::i32, Dims{5}, {4, 5, 1, 2, 3});
  check_result(
      run1(run_roll, {make(DType::i32, Dims{5}, {1, 2, 3, 4, 5})}, {ints({INT64_MIN}), ints({0})}),
      DType::i32, Dims{5}, {4, 5, 1, 2, 3});  // INT64_MIN ≡ 2 (mod 5)
  Tensor b = sample(DType::f32, Dims{1, 3}).with_layout(Dims{2, 3}, Dims{0, 1}, 0);
  check_result(run1(run_roll, {b}, {ints({1, 1}), ints({0, 1})}), DType::f32, Dims{2, 3},
               ref_roll(b, {1, 1}, {0, 1}));
  check_result(run1(run_roll, {sample(DType::u8, Dims{0, 3})}, {ints({5}), ints({0})}), DType::u8,
               Dims{0, 3}, {});
}

BOOST_AUTO_TEST_CASE(roll_static_rule) {
  TensorType y =
      infer1(infer_roll, {tt(DType::i64, Dims{kDynamic, 3}, 20)}, {ints({1}), ints({0})});
  BOOST_CHECK_EQUAL(y.to_string(), "i64[?, 3] precision=20");
  expect_error(
      [] {
        infer1(infer_roll, {tt(DType::f32, Dims{2, 3})}, {ints({1, 2}), ints({0})});
      },
      ErrorKind::invalid, {"shift has 2 elements but axis has 1"});
  expect_error(
      [] {
        infer1(infer_roll, {tt(DType::f32, Dims{2, 3})}, {ints({1, 2}), ints({0, -2})});
      },
      ErrorKind::invalid, {"axis -2 is repeated"});
  expect_error(
      [] {
        infer1(infer_roll, {tt(DType::f32, Dims{2, 3})}, {ints({1}), ints({2})});
      },
      ErrorKind::invalid, {"axis 2 is out of range for rank 2"});
  expect_error(
      [] {
        run1(run_roll, {sample(DType::f32, Dims{2})}, {ints({1}), ints({3})});
      },
      ErrorKind::invalid, {"axis 3 is out of range"});
}

BOOST_AUTO_TEST_CASE(cancelled_run_stops) {
  std::atomic<bool> stop{true};
  ExecEnv env;
  env.cancel = &stop;
  Attrs a({ints({2, 3})});
  std::vector<Tensor> in = {sample(DType::f32, Dims{4, 5})}, out(1);
  KernelContext ctx{in, out, a, env};
  expect_error([&] { run_tile(ctx); }, ErrorKind::limit, {"cancelled"});
}

BOOST_AUTO_TEST_SUITE_END()
