// Reductions: static rules (axes, keepdims, exclude — seed 000 cases 1-4 — dtypes, empty dims,
// precision, `?` dims) and kernels against a naive reference that walks every input index and
// accumulates into its output slot, over the seed's test shapes and over transposed, flipped,
// sliced, broadcast and empty views of every dtype.
#include "kernels/reduce.hpp"

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "kernels/thread_pool.hpp"

using namespace mlvm;

namespace {

// ---- test support (own copy per suite: shares no code with the kernels) --------------------
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform(double lo, double hi) { return lo + (hi - lo) * double(next() >> 11) * 0x1p-53; }
  int64_t range(int64_t lo, int64_t hi) {
    const uint64_t span = uint64_t(hi) - uint64_t(lo) + 1;  // 0: the whole 64-bit range
    return span == 0 ? int64_t(next()) : int64_t(uint64_t(lo) + next() % span);
  }
};

const std::vector<DType> kAll = {DType::f32, DType::f64, DType::i8,  DType::u8,
                                 DType::i16, DType::i32, DType::i64, DType::boolean};
const std::vector<DType> kNumericTypes = {DType::f32, DType::f64, DType::i8, DType::u8,
                                          DType::i16, DType::i32, DType::i64};
const std::vector<DType> kFloatTypes = {DType::f32, DType::f64};
const std::vector<DType> kSignedTypes = {DType::i8, DType::i16, DType::i32, DType::i64};
const std::vector<DType> kIntTypes = {DType::i8, DType::u8, DType::i16, DType::i32, DType::i64};

int64_t lo_of(DType t) {
  switch (t) {
    case DType::i8:
      return INT8_MIN;
    case DType::i16:
      return INT16_MIN;
    case DType::i32:
      return INT32_MIN;
    case DType::i64:
      return INT64_MIN;
    default:
      return 0;
  }
}
int64_t hi_of(DType t) {
  switch (t) {
    case DType::i8:
      return INT8_MAX;
    case DType::u8:
      return UINT8_MAX;
    case DType::i16:
      return INT16_MAX;
    case DType::i32:
      return INT32_MAX;
    case DType::i64:
      return INT64_MAX;
    case DType::boolean:
      return 1;
    default:
      return 0;
  }
}
// Two's-complement wrap of an exact value into dtype t.
int64_t wrap_to(DType t, __int128 v) {
  switch (t) {
    case DType::i8:
      return int8_t(uint8_t(uint64_t(v)));
    case DType::u8:
      return uint8_t(uint64_t(v));
    case DType::i16:
      return int16_t(uint16_t(uint64_t(v)));
    case DType::i32:
      return int32_t(uint32_t(uint64_t(v)));
    case DType::i64:
      return int64_t(uint64_t(v));
    case DType::boolean:
      return v != 0;
    default:
      return 0;
  }
}

struct Val {
  bool is_float = false;
  double f = 0;
  int64_t i = 0;
};
Val fv(double f) {
  return Val{true, f, 0};
}
Val iv(int64_t i) {
  return Val{false, double(i), i};
}

Val read_elem(DType t, const std::byte* p) {
  switch (t) {
    case DType::f32: {
      float v;
      std::memcpy(&v, p, 4);
      return fv(v);
    }
    case DType::f64: {
      double v;
      std::memcpy(&v, p, 8);
      return fv(v);
    }
    case DType::i8:
      return iv(*reinterpret_cast<const int8_t*>(p));
    case DType::u8:
      return iv(*reinterpret_cast<const uint8_t*>(p));
    case DType::boolean:
      return iv(*reinterpret_cast<const uint8_t*>(p));
    case DType::i16: {
      int16_t v;
      std::memcpy(&v, p, 2);
      return iv(v);
    }
    case DType::i32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return iv(v);
    }
    case DType::i64: {
      int64_t v;
      std::memcpy(&v, p, 8);
      return iv(v);
    }
  }
  return {};
}
void write_elem(DType t, std::byte* p, Val v) {
  switch (t) {
    case DType::f32: {
      float x = float(v.is_float ? v.f : double(v.i));
      std::memcpy(p, &x, 4);
      break;
    }
    case DType::f64: {
      double x = v.is_float ? v.f : double(v.i);
      std::memcpy(p, &x, 8);
      break;
    }
    case DType::i8: {
      int8_t x = int8_t(v.i);
      std::memcpy(p, &x, 1);
      break;
    }
    case DType::u8:
    case DType::boolean: {
      uint8_t x = uint8_t(v.i);
      std::memcpy(p, &x, 1);
      break;
    }
    case DType::i16: {
      int16_t x = int16_t(v.i);
      std::memcpy(p, &x, 2);
      break;
    }
    case DType::i32: {
      int32_t x = int32_t(v.i);
      std::memcpy(p, &x, 4);
      break;
    }
    case DType::i64: {
      std::memcpy(p, &v.i, 8);
      break;
    }
  }
}
// Element at a multi-index, from the tensor's own strides and offset.
Val at(const Tensor& t, const int64_t* idx) {
  int64_t off = t.offset();
  for (int d = 0; d < t.rank(); ++d) off += idx[d] * t.strides()[d];
  return read_elem(t.dtype(), t.storage()->data() + off * t.itemsize());
}

enum class Fill { small, full, specials, positive };

Val random_val(DType t, Fill fill, Rng& r) {
  if (t == DType::f32 || t == DType::f64) {
    if (fill == Fill::specials && r.next() % 8 == 0) {
      const double sp[] = {0.0, -0.0, NAN, INFINITY, -INFINITY, 1.0, -1.0};
      return fv(sp[r.next() % 7]);
    }
    if (fill == Fill::positive) return fv(r.uniform(0.001, 20));
    if (fill == Fill::full) return fv(r.uniform(-1e3, 1e3));
    return fv(r.uniform(-10, 10));
  }
  if (t == DType::boolean) return iv(int64_t(r.next() & 1));
  const int64_t lo = lo_of(t), hi = hi_of(t);
  if (fill == Fill::small) return iv(std::clamp<int64_t>(r.range(-50, 50), lo, hi));
  if (fill == Fill::positive) return iv(r.range(0, std::min<int64_t>(hi, 100)));
  if (r.next() % 8 == 0) {
    const int64_t sp[] = {lo, hi, 0, 1, lo + 1, hi - 1};
    return iv(std::clamp<int64_t>(sp[r.next() % 6], lo, hi));
  }
  return iv(r.range(lo, hi));
}

void fill_storage(const Tensor& t, Fill fill, uint64_t seed) {
  Rng r{seed};
  const int64_t n = t.storage()->bytes() / t.itemsize();
  for (int64_t k = 0; k < n; ++k)
    write_elem(t.dtype(), t.storage()->data() + k * t.itemsize(), random_val(t.dtype(), fill, r));
}

enum class Layout { contiguous, transposed, flipped, sliced, broadcast };
const Layout kLayouts[] = {Layout::contiguous, Layout::transposed, Layout::flipped, Layout::sliced,
                           Layout::broadcast};
const char* layout_name(Layout l) {
  switch (l) {
    case Layout::contiguous:
      return "contiguous";
    case Layout::transposed:
      return "transposed";
    case Layout::flipped:
      return "flipped";
    case Layout::sliced:
      return "sliced";
    case Layout::broadcast:
      return "broadcast";
  }
  return "?";
}

Dims row_major(const Dims& shape) {
  Dims s = Dims::filled(shape.size(), 1);
  for (int d = shape.size() - 2; d >= 0; --d) s[d] = s[d + 1] * std::max<int64_t>(shape[d + 1], 1);
  return s;
}

// A tensor of logical shape `shape` laid out as `lay`, its storage filled pseudo-randomly.
Tensor make_input(DType t, const Dims& shape, Layout lay, Fill fill, uint64_t seed) {
  const int n = shape.size();
  Tensor base, view;
  switch (lay) {
    case Layout::contiguous:
      base = Tensor::empty(t, shape);
      view = base;
      break;
    case Layout::transposed: {
      Dims rs, st;
      for (int d = n - 1; d >= 0; --d) rs.push_back(shape[d]);
      base = Tensor::empty(t, rs);
      Dims rst = row_major(rs);
      for (int d = n - 1; d >= 0; --d) st.push_back(rst[d]);
      view = base.with_layout(shape, st, 0);
      break;
    }
    case Layout::flipped: {
      base = Tensor::empty(t, shape);
      Dims st = row_major(shape);
      int64_t off = 0;
      for (int d = 0; d < n; ++d) {
        if (d != 0 && d != n - 1) continue;
        if (shape[d] > 0) off += (shape[d] - 1) * st[d];
        st[d] = -st[d];
      }
      view = base.with_layout(shape, st, off);
      break;
    }
    case Layout::sliced: {
      Dims bs;
      for (int d = 0; d < n; ++d) bs.push_back(2 * shape[d] + 1);
      base = Tensor::empty(t, bs);
      Dims bst = row_major(bs), st;
      int64_t off = 0;
      for (int d = 0; d < n; ++d) {
        st.push_back(2 * bst[d]);
        off += bst[d];
      }
      view = base.with_layout(shape, st, off);
      break;
    }
    case Layout::broadcast: {
      int bd = -1;
      for (int d = n - 1; d >= 0; --d)
        if (shape[d] > 1) {
          bd = d;
          break;
        }
      Dims bs = shape;
      if (bd >= 0) bs[bd] = 1;
      base = Tensor::empty(t, bs);
      Dims st = row_major(bs);
      if (bd >= 0) st[bd] = 0;
      view = base.with_layout(shape, st, 0);
      break;
    }
  }
  fill_storage(base, fill, seed);
  return view;
}

template <class F>
void for_each_index(const Dims& shape, F&& f) {
  int64_t total = 1;
  for (int64_t d : shape) total *= d;
  if (total == 0) return;
  int64_t idx[kMaxRank] = {};
  for (int64_t c = 0; c < total; ++c) {
    f(static_cast<const int64_t*>(idx));
    for (int d = shape.size() - 1; d >= 0; --d) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

bool close(Val want, Val got, double rtol) {
  if (!want.is_float) return !got.is_float && want.i == got.i;
  if (!got.is_float) return false;
  if (std::isnan(want.f)) return std::isnan(got.f);
  if (want.f == got.f) return std::signbit(want.f) == std::signbit(got.f) || want.f != 0;
  // rtol > 0 (transcendental ops): denormal results carry few significant bits.
  const double atol = rtol > 0 ? 1e-37 : 0;
  return std::fabs(want.f - got.f) <= rtol * std::max(std::fabs(want.f), std::fabs(got.f)) + atol;
}
std::string show(Val v) {
  return v.is_float ? std::to_string(v.f) : std::to_string(v.i);
}
std::string show_index(const int64_t* idx, int n) {
  std::string s = "[";
  for (int d = 0; d < n; ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + "]";
}

Tensor run_op(KernelFn fn, std::vector<Tensor> in, const Attrs& attrs, ThreadPool* pool = nullptr,
              uint32_t donatable = 0) {
  ExecEnv env;
  env.pool = pool;
  std::vector<Tensor> out(1);
  KernelContext ctx{in, out, attrs, env, donatable};
  fn(ctx);
  return out[0];
}
TensorType infer_op(InferFn fn, std::vector<TensorType> in, const Attrs& attrs,
                    InferOptions opt = {}) {
  InferContext ctx{in, attrs, {}, opt};
  fn(ctx);
  BOOST_REQUIRE(ctx.out.size() == 1u);
  return ctx.out[0];
}
TensorType tt(DType t, Dims d, int precision = 0) {
  TensorType x;
  x.dtype = t;
  x.dims = d;
  x.precision = precision;
  return x;
}

template <class F>
void expect_error(F&& f, ErrorKind kind, const std::string& part) {
  try {
    f();
    BOOST_ERROR("expected " << error_kind_name(kind) << " error containing \"" << part << "\"");
  } catch (const Error& e) {
    BOOST_TEST(e.kind() == kind, "kind " << error_kind_name(e.kind()) << ": " << e.message());
    BOOST_TEST(e.message().find(part) != std::string::npos,
               "message \"" << e.message() << "\" lacks \"" << part << "\"");
  }
}

// The seed's test-shape grid X.shape = (1, j, l, r): every corner plus interior points.
std::vector<Dims> grid_sample() {
  std::vector<Dims> out;
  for (int64_t j : {1, 92})
    for (int64_t l : {1, 86})
      for (int64_t r : {1, 93}) out.push_back(Dims{1, j, l, r});
  out.push_back(Dims{1, 14, 35, 47});
  out.push_back(Dims{1, 53, 18, 70});
  out.push_back(Dims{1, 79, 69, 24});
  out.push_back(Dims{1, 40, 52, 1});
  return out;
}

// ---- the reductions and their reference -----------------------------------------------------
enum class Op { sum, max, min, mean };
const char* op_name(Op o) {
  return o == Op::sum ? "sum" : o == Op::max ? "max" : o == Op::min ? "min" : "mean";
}
KernelFn run_of(Op o) {
  return o == Op::sum ? run_sum : o == Op::max ? run_max : o == Op::min ? run_min : run_mean;
}
InferFn infer_of(Op o) {
  return o == Op::sum   ? infer_sum
         : o == Op::max ? infer_max
         : o == Op::min ? infer_min
                        : infer_mean;
}
std::vector<DType> dtypes_of(Op o) {
  if (o == Op::sum) return kNumericTypes;
  if (o == Op::mean) return kFloatTypes;
  return kAll;
}

AttrValue ints(std::vector<int64_t> v) {
  std::vector<AttrValue> items;
  for (int64_t x : v) items.push_back(AttrValue::integer(x));
  AttrValue a = AttrValue::tuple(items);
  a.ints = v;
  return a;
}
Attrs reduce_attr_values(std::vector<int64_t> axes, bool keepdims = false, bool exclude = false) {
  return Attrs({ints(axes), AttrValue::boolean(keepdims), AttrValue::boolean(exclude)});
}
Attrs arg_attrs(int64_t axis, bool keepdims = false) {
  return Attrs({AttrValue::integer(axis), AttrValue::boolean(keepdims)});
}

// Seed 000: T = normalized axes, R = U - T if exclude else T; ops.md: axes=() means R = U.
struct RefPlan {
  std::vector<bool> reduced;
  Dims out_shape;
  int64_t count = 1;  // elements per output
};
RefPlan ref_plan(const Dims& x, const std::vector<int64_t>& axes, bool keepdims, bool exclude) {
  const int n = x.size();
  std::vector<bool> in_t(n, false);
  for (int64_t a : axes) in_t[a < 0 ? a + n : a] = true;
  RefPlan p;
  for (int i = 0; i < n; ++i)
    p.reduced.push_back(axes.empty() ? true : exclude ? !in_t[i] : in_t[i]);
  for (int i = 0; i < n; ++i) {
    if (p.reduced[i]) p.count *= x[i];
    if (!p.reduced[i])
      p.out_shape.push_back(x[i]);
    else if (keepdims)
      p.out_shape.push_back(1);
  }
  if (p.out_shape.empty()) p.out_shape.push_back(1);
  return p;
}

void unflatten(int64_t flat, const Dims& shape, int64_t* idx) {
  for (int d = shape.size() - 1; d >= 0; --d) {
    idx[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
}

struct Acc {
  __int128 isum = 0;
  long double fsum = 0, fabs_sum = 0;
  bool has = false, nan = false;
  Val best;
};

// Runs op on x and compares with the reference, element by element.
void check_reduce(Op op, const Tensor& x, const std::vector<int64_t>& axes, bool keepdims,
                  bool exclude) {
  const Attrs attrs = reduce_attr_values(axes, keepdims, exclude);
  const RefPlan P = ref_plan(x.shape(), axes, keepdims, exclude);
  TensorType want_t = infer_op(infer_of(op), {type_of(x)}, attrs);
  Tensor y = run_op(run_of(op), {x}, attrs);
  BOOST_TEST(y.dtype() == x.dtype());
  BOOST_TEST(want_t.dtype == x.dtype());
  BOOST_TEST(dims_to_string(want_t.dims) == dims_to_string(P.out_shape));
  BOOST_REQUIRE(dims_to_string(y.shape()) == dims_to_string(P.out_shape));
  const int64_t out_n = y.numel();
  std::vector<Acc> acc(static_cast<std::size_t>(out_n));
  const bool fl = x.dtype() == DType::f32 || x.dtype() == DType::f64;
  for_each_index(x.shape(), [&](const int64_t* idx) {
    int64_t flat = 0;  // row-major over the kept dims (reduced dims are 0)
    for (int d = 0; d < x.rank(); ++d)
      flat = flat * (P.reduced[d] ? 1 : x.dim(d)) + (P.reduced[d] ? 0 : idx[d]);
    Acc& a = acc[std::size_t(flat)];
    Val v = at(x, idx);
    if (fl) {
      a.fsum += v.f;
      a.fabs_sum += std::fabs(v.f);
      if (std::isnan(v.f)) a.nan = true;
    } else {
      a.isum += v.i;
    }
    const bool better = !a.has || (fl ? (op == Op::max ? v.f > a.best.f : v.f < a.best.f)
                                      : (op == Op::max ? v.i > a.best.i : v.i < a.best.i));
    if (better) a.best = v;
    a.has = true;
  });
  int64_t bad = 0;
  std::string first;
  int64_t oidx[kMaxRank];
  for (int64_t k = 0; k < out_n; ++k) {
    const Acc& a = acc[std::size_t(k)];
    unflatten(k, y.shape(), oidx);
    Val got = at(y, oidx), want;
    double tol = 0;
    if (op == Op::sum || op == Op::mean) {
      if (fl) {
        long double s = a.fsum;
        if (op == Op::mean) s /= (long double)P.count;
        want = fv(x.dtype() == DType::f32 ? double(float(s)) : double(s));
        tol = (x.dtype() == DType::f32 ? 2e-5 : 1e-13) * double(a.fabs_sum) /
              (op == Op::mean ? double(std::max<int64_t>(P.count, 1)) : 1.0);
      } else {
        want = iv(wrap_to(x.dtype(), a.isum));
      }
    } else {
      want = a.nan ? fv(NAN) : a.best;
    }
    bool ok;
    if (want.is_float && !std::isnan(want.f) && !std::isinf(want.f) && tol > 0)
      ok = got.is_float && std::fabs(got.f - want.f) <= tol + 1e-300;
    else
      ok = close(want, got, 0) || (want.is_float && got.is_float && want.f == got.f);
    if (!ok && bad++ == 0)
      first = "at " + show_index(oidx, y.rank()) + " want " + show(want) + " got " + show(got);
  }
  std::string ax;
  for (int64_t a : axes) ax += std::to_string(a) + " ";
  BOOST_TEST(bad == 0, op_name(op) << " " << x.type_string() << " axes (" << ax << ") keepdims "
                                   << keepdims << " exclude " << exclude << ": " << bad
                                   << " mismatches, first " << first);
}

// argmax/argmin reference: first index of the extreme; a NaN is extreme, the first NaN wins.
void check_arg(bool is_max, const Tensor& x, int64_t axis, bool keepdims,
               ThreadPool* pool = nullptr) {
  const Attrs attrs = arg_attrs(axis, keepdims);
  const int ax = int(axis < 0 ? axis + x.rank() : axis);
  TensorType want_t = infer_op(is_max ? infer_argmax : infer_argmin, {type_of(x)}, attrs);
  Tensor y = run_op(is_max ? run_argmax : run_argmin, {x}, attrs, pool);
  BOOST_TEST(y.dtype() == DType::i64);
  BOOST_TEST(want_t.dtype == DType::i64);
  BOOST_TEST(want_t.precision == 0);
  BOOST_TEST(dims_to_string(want_t.dims) == dims_to_string(y.shape()));
  Dims keep = x.shape();
  keep[ax] = 1;
  BOOST_REQUIRE(y.numel() == [&] {
    int64_t n = 1;
    for (int64_t d : keep) n *= d;
    return n;
  }());
  const bool fl = x.dtype() == DType::f32 || x.dtype() == DType::f64;
  int64_t bad = 0, k = 0;
  std::string first;
  int64_t oidx[kMaxRank];
  for_each_index(keep, [&](const int64_t* idx0) {
    int64_t idx[kMaxRank];
    std::copy(idx0, idx0 + x.rank(), idx);
    int64_t best_i = 0;
    Val best = at(x, idx);
    for (int64_t i = 1; i < x.dim(ax) && !(fl && std::isnan(best.f)); ++i) {
      idx[ax] = i;
      Val v = at(x, idx);
      bool take = fl ? (std::isnan(v.f) || (is_max ? v.f > best.f : v.f < best.f))
                     : (is_max ? v.i > best.i : v.i < best.i);
      if (take) {
        best = v;
        best_i = i;
      }
    }
    unflatten(k++, y.shape(), oidx);
    int64_t got = at(y, oidx).i;
    if (got != best_i && bad++ == 0)
      first = "at " + show_index(idx0, x.rank()) + " want " + std::to_string(best_i) + " got " +
              std::to_string(got);
  });
  BOOST_TEST(bad == 0, (is_max ? "argmax " : "argmin ")
                           << x.type_string() << " axis " << axis << ": " << bad
                           << " mismatches, first " << first);
}

Tensor filled(DType t, const Dims& shape, std::vector<double> v) {
  Tensor x = Tensor::empty(t, shape);
  for (std::size_t k = 0; k < v.size(); ++k) {
    Val e = (t == DType::f32 || t == DType::f64) ? fv(v[k]) : iv(int64_t(v[k]));
    write_elem(t, x.raw_data() + int64_t(k) * x.itemsize(), e);
  }
  return x;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kernels_reduce)

BOOST_AUTO_TEST_CASE(seed_sum_examples) {
  Tensor data =
      filled(DType::f32, Dims{3, 3, 2}, {1, 2, 2, 3, 1, 3, 1, 4, 4, 3, 5, 2, 7, 1, 7, 2, 7, 3});
  Tensor a = run_op(run_sum, {data}, reduce_attr_values({1}));
  BOOST_TEST(dims_to_string(a.shape()) == "[3, 2]");
  const float want_a[] = {4, 8, 10, 9, 21, 6};
  for (int k = 0; k < 6; ++k) BOOST_TEST(a.data<float>()[k] == want_a[k]);
  Tensor b = run_op(run_sum, {data}, reduce_attr_values({1, 2}));
  BOOST_TEST(dims_to_string(b.shape()) == "[3]");
  const float want_b[] = {12, 19, 27};
  for (int k = 0; k < 3; ++k) BOOST_TEST(b.data<float>()[k] == want_b[k]);
  // The same with integers, and with keepdims.
  Tensor di =
      filled(DType::i32, Dims{3, 3, 2}, {1, 2, 2, 3, 1, 3, 1, 4, 4, 3, 5, 2, 7, 1, 7, 2, 7, 3});
  Tensor c = run_op(run_sum, {di}, reduce_attr_values({1, 2}, true));
  BOOST_TEST(dims_to_string(c.shape()) == "[3, 1, 1]");
  for (int k = 0; k < 3; ++k) BOOST_TEST(c.data<int32_t>()[k] == int32_t(want_b[k]));
}

BOOST_AUTO_TEST_CASE(seed_test_parameters) {
  // sum / max: X.shape (1, j, l, r), j in {1, 34, 67}, l in {1, 58}, r in {1, 64}, axis (1,).
  uint64_t seed = 1;
  for (int64_t j : {1, 34, 67})
    for (int64_t l : {1, 58})
      for (int64_t r : {1, 64})
        for (Op op : {Op::sum, Op::max, Op::min, Op::mean}) {
          DType t = op == Op::mean || seed % 2 ? DType::f32 : DType::i32;
          Tensor x = make_input(t, Dims{1, j, l, r}, Layout::contiguous, Fill::full, seed++);
          check_reduce(op, x, {1}, false, false);
          if (op == Op::max || op == Op::sum) check_reduce(op, x, {}, false, false);
        }
  // The elementwise grid's corners, reducing other axes.
  for (const Dims& x : grid_sample()) {
    Tensor t = make_input(DType::f32, x, Layout::contiguous, Fill::full, seed++);
    check_reduce(Op::sum, t, {1, 3}, true, false);
    check_reduce(Op::max, t, {2}, false, true);
  }
}

BOOST_AUTO_TEST_CASE(the_four_cases) {
  Tensor x = make_input(DType::i32, Dims{2, 3, 4}, Layout::contiguous, Fill::small, 5);
  // 1. exclude and every axis named: nothing reduced, Y = X.
  for (Op op : {Op::sum, Op::max, Op::min}) {
    Tensor y = run_op(run_of(op), {x}, reduce_attr_values({0, 1, 2}, false, true));
    BOOST_TEST(dims_to_string(y.shape()) == "[2, 3, 4]");
    for (int k = 0; k < 24; ++k) BOOST_TEST(y.data<int32_t>()[k] == x.data<int32_t>()[k]);
    check_reduce(op, x, {0, -2, 2}, true, true);
  }
  // 2. axes=() reduces everything, whatever exclude says; shape [1] or all 1s.
  for (bool exclude : {false, true}) {
    BOOST_TEST(dims_to_string(run_op(run_sum, {x}, reduce_attr_values({}, false, exclude)).shape()) ==
               "[1]");
    BOOST_TEST(dims_to_string(run_op(run_sum, {x}, reduce_attr_values({}, true, exclude)).shape()) ==
               "[1, 1, 1]");
    for (bool keep : {false, true}) check_reduce(Op::sum, x, {}, keep, exclude);
  }
  // Reducing every axis by name gives [1] too.
  BOOST_TEST(dims_to_string(run_op(run_max, {x}, reduce_attr_values({0, 1, 2})).shape()) == "[1]");
  // 3 and 4: keepdims false / true, with exclude inverting the selection.
  BOOST_TEST(dims_to_string(run_op(run_sum, {x}, reduce_attr_values({1})).shape()) == "[2, 4]");
  BOOST_TEST(dims_to_string(run_op(run_sum, {x}, reduce_attr_values({1}, true)).shape()) == "[2, 1, 4]");
  BOOST_TEST(dims_to_string(run_op(run_sum, {x}, reduce_attr_values({1}, false, true)).shape()) == "[3]");
  BOOST_TEST(dims_to_string(run_op(run_sum, {x}, reduce_attr_values({-1}, true, true)).shape()) ==
             "[1, 1, 4]");
  // max of everything is the true maximum, even when every element is negative.
  Tensor neg = filled(DType::f32, Dims{2, 2}, {-5, -3, -9, -4});
  BOOST_TEST(run_op(run_max, {neg}, reduce_attr_values({})).data<float>()[0] == -3.0f);
  Tensor negi = filled(DType::i8, Dims{3}, {-128, -7, -100});
  BOOST_TEST(run_op(run_max, {negi}, reduce_attr_values({})).data<int8_t>()[0] == -7);
  BOOST_TEST(run_op(run_min, {negi}, reduce_attr_values({})).data<int8_t>()[0] == -128);
}

BOOST_AUTO_TEST_CASE(every_dtype_axes_and_layout) {
  uint64_t seed = 100;
  const std::vector<std::vector<int64_t>> axes_set = {{},     {0},  {1},     {2},
                                                      {0, 2}, {-1}, {1, -3}, {0, 1, 2}};
  for (Op op : {Op::sum, Op::max, Op::min, Op::mean})
    for (DType t : dtypes_of(op))
      for (Layout lay : kLayouts)
        for (const Dims& shape : {Dims{3, 5, 7}, Dims{4, 1, 9}})
          for (std::size_t a = 0; a < axes_set.size(); ++a) {
            const bool keep = (seed & 1) != 0, exclude = (seed & 2) != 0;
            BOOST_TEST_CONTEXT(op_name(op) << " " << dtype_name(t) << " " << layout_name(lay)) {
              Fill f = seed % 3 == 0 ? Fill::specials : Fill::full;
              check_reduce(op, make_input(t, shape, lay, f, seed), axes_set[a], keep, exclude);
            }
            ++seed;
          }
  // Rank 1 and rank 8.
  for (Op op : {Op::sum, Op::max})
    for (DType t : {DType::f64, DType::i64, DType::u8}) {
      check_reduce(op, make_input(t, Dims{1001}, Layout::flipped, Fill::full, seed++), {}, false,
                   false);
      check_reduce(
          op, make_input(t, Dims{2, 3, 1, 2, 3, 1, 2, 3}, Layout::transposed, Fill::full, seed++),
          {1, 4, 6}, false, false);
      check_reduce(op,
                   make_input(t, Dims{2, 3, 1, 2, 3, 1, 2, 3}, Layout::sliced, Fill::full, seed++),
                   {0, 7}, true, true);
    }
}

BOOST_AUTO_TEST_CASE(nan_propagation) {
  Tensor x = filled(DType::f32, Dims{2, 3}, {1, NAN, 3, 4, 5, 6});
  Tensor mx = run_op(run_max, {x}, reduce_attr_values({1}));
  BOOST_TEST(std::isnan(mx.data<float>()[0]));
  BOOST_TEST(mx.data<float>()[1] == 6.0f);
  Tensor mn = run_op(run_min, {x}, reduce_attr_values({}));
  BOOST_TEST(std::isnan(mn.data<float>()[0]));
  Tensor sm = run_op(run_sum, {x}, reduce_attr_values({0}));
  BOOST_TEST(std::isnan(sm.data<float>()[1]));
  BOOST_TEST(sm.data<float>()[2] == 9.0f);
  // NaN first in the run, then larger values: still NaN.
  Tensor y = filled(DType::f64, Dims{4}, {NAN, 1, 2, INFINITY});
  BOOST_TEST(std::isnan(run_op(run_max, {y}, reduce_attr_values({})).data<double>()[0]));
  Tensor am = filled(DType::f64, Dims{6}, {1, 9, NAN, 9, NAN, 0});
  BOOST_TEST(run_op(run_argmax, {am}, arg_attrs(0)).data<int64_t>()[0] == 2);
  BOOST_TEST(run_op(run_argmin, {am}, arg_attrs(0)).data<int64_t>()[0] == 2);
  Tensor ties = filled(DType::i32, Dims{6}, {3, 9, 1, 9, 1, 0});
  BOOST_TEST(run_op(run_argmax, {ties}, arg_attrs(0)).data<int64_t>()[0] == 1);
  Tensor ties2 = filled(DType::i32, Dims{6}, {3, 9, 1, 9, 1, 5});
  BOOST_TEST(run_op(run_argmin, {ties2}, arg_attrs(-1)).data<int64_t>()[0] == 2);
}

BOOST_AUTO_TEST_CASE(empty_dims) {
  // sum over an empty dim is 0; mean is 0/0 = NaN; an empty kept dim gives an empty result.
  Tensor e = Tensor::empty(DType::i32, Dims{3, 0});
  Tensor s = run_op(run_sum, {e}, reduce_attr_values({1}));
  BOOST_TEST(dims_to_string(s.shape()) == "[3]");
  for (int k = 0; k < 3; ++k) BOOST_TEST(s.data<int32_t>()[k] == 0);
  BOOST_TEST(run_op(run_sum, {e}, reduce_attr_values({})).data<int32_t>()[0] == 0);
  Tensor ef = Tensor::empty(DType::f32, Dims{0, 2});
  BOOST_TEST(std::isnan(run_op(run_mean, {ef}, reduce_attr_values({0})).data<float>()[1]));
  BOOST_TEST(dims_to_string(run_op(run_max, {ef}, reduce_attr_values({1})).shape()) == "[0]");
  check_reduce(Op::sum, make_input(DType::f64, Dims{2, 0, 3}, Layout::transposed, Fill::full, 1),
               {1}, true, false);
  check_reduce(Op::min, make_input(DType::i16, Dims{2, 0, 3}, Layout::flipped, Fill::full, 1),
               {0, 2}, false, false);
  // max/min over an empty dim: a static error when it is known, a trap when it was `?`.
  for (Op op : {Op::max, Op::min}) {
    expect_error(
        [&] {
          infer_op(infer_of(op), {tt(DType::f32, {3, 0})}, reduce_attr_values({1}));
        },
        ErrorKind::invalid, "cannot reduce dim 1 of f32[3, 0]: it is empty");
    expect_error(
        [&] {
          infer_op(infer_of(op), {tt(DType::f32, {3, 0})}, reduce_attr_values({}));
        },
        ErrorKind::invalid, "it is empty");
    BOOST_CHECK_NO_THROW(
        infer_op(infer_of(op), {tt(DType::f32, {3, kDynamic})}, reduce_attr_values({1})));
    BOOST_CHECK_NO_THROW(infer_op(infer_of(op), {tt(DType::f32, {0, 3})}, reduce_attr_values({1})));
    expect_error([&] { run_op(run_of(op), {ef}, reduce_attr_values({0})); }, ErrorKind::trap,
                 "cannot reduce dim 0 of f32[0, 2]: it is empty");
  }
  BOOST_CHECK_NO_THROW(infer_op(infer_sum, {tt(DType::f32, {3, 0})}, reduce_attr_values({1})));
  expect_error(
      [&] {
        infer_op(infer_argmax, {tt(DType::f32, {3, 0})}, arg_attrs(1));
      },
      ErrorKind::invalid, "it is empty");
  expect_error([&] { run_op(run_argmin, {ef}, arg_attrs(0)); }, ErrorKind::trap, "it is empty");
  BOOST_TEST(dims_to_string(run_op(run_argmax, {ef}, arg_attrs(1)).shape()) == "[0]");
}

BOOST_AUTO_TEST_CASE(static_errors) {
  const TensorType x = tt(DType::f32, {2, 3, 4});
  for (Op op : {Op::sum, Op::max, Op::min, Op::mean}) {
    expect_error([&] { infer_op(infer_of(op), {x}, reduce_attr_values({3})); }, ErrorKind::invalid,
                 "axis 3 is out of range for rank 3 (expected -3..2)");
    expect_error([&] { infer_op(infer_of(op), {x}, reduce_attr_values({-4})); }, ErrorKind::invalid,
                 "axis -4 is out of range");
    expect_error(
        [&] {
          infer_op(infer_of(op), {x}, reduce_attr_values({1, -2}));
        },
        ErrorKind::invalid, "axis 1 is named twice");
    expect_error(
        [&] {
          run_op(run_of(op),
                 {make_input(DType::f32, Dims{2, 3}, Layout::contiguous, Fill::full, 1)},
                 reduce_attr_values({0, 0}));
        },
        ErrorKind::invalid, "named twice");
  }
  expect_error([&] { infer_op(infer_sum, {tt(DType::boolean, {3})}, reduce_attr_values({})); },
               ErrorKind::invalid, "sum: x has dtype bool");
  for (DType t : kIntTypes)
    expect_error([&] { infer_op(infer_mean, {tt(t, {3})}, reduce_attr_values({})); }, ErrorKind::invalid,
                 "floats only");
  expect_error(
      [&] {
        run_op(run_mean, {make_input(DType::i32, Dims{3}, Layout::contiguous, Fill::full, 1)},
               reduce_attr_values({}));
      },
      ErrorKind::invalid, "mean: x has dtype i32");
  expect_error([&] { infer_op(infer_argmax, {x}, arg_attrs(3)); }, ErrorKind::invalid,
               "axis 3 is out of range");
  expect_error([&] { infer_op(infer_argmin, {x}, arg_attrs(-4)); }, ErrorKind::invalid,
               "axis -4 is out of range");
}

BOOST_AUTO_TEST_CASE(precision_and_dynamic_dims) {
  auto p = [](InferFn f, Dims d, int prec, std::vector<int64_t> axes, bool keep = false,
              bool ex = false) {
    return infer_op(f, {tt(DType::i32, d, prec)}, reduce_attr_values(axes, keep, ex));
  };
  BOOST_TEST(p(infer_sum, {3, 5}, 8, {}).precision == 8 + 4);  // 15 elements
  BOOST_TEST(p(infer_sum, {3, 5}, 8, {1}).precision == 8 + 3);
  BOOST_TEST(p(infer_sum, {3, 4}, 8, {1}).precision == 8 + 2);
  BOOST_TEST(p(infer_sum, {3, 1}, 8, {1}).precision == 8);
  BOOST_TEST(p(infer_sum, {3, 0}, 8, {1}).precision == 8);
  BOOST_TEST(p(infer_sum, {3, 5}, 8, {1}, false, true).precision == 8 + 2);  // exclude: axis 0
  BOOST_TEST(p(infer_sum, {3, 5}, 30, {}).precision == 34);  // past i32: the verifier reports it
  BOOST_TEST(p(infer_sum, {3, 5}, 0, {}).precision == 0);
  BOOST_TEST(p(infer_sum, {kDynamic, 5}, 8, {0}).precision == 0);  // dynamic reduced dim
  BOOST_TEST(p(infer_sum, {kDynamic, 5}, 8, {1}).precision == 8 + 3);
  BOOST_TEST(p(infer_max, {kDynamic, 5}, 8, {0}).precision == 8);
  BOOST_TEST(p(infer_min, {3, 5}, 9, {}).precision == 9);
  BOOST_TEST(p(infer_max, {3, 5}, 0, {}).precision == 0);
  BOOST_TEST(infer_op(infer_mean, {tt(DType::f32, {3})}, reduce_attr_values({})).precision == 0);
  BOOST_TEST(infer_op(infer_argmax, {tt(DType::i32, {3, 4}, 5)}, arg_attrs(1)).precision == 0);
  // `?` dims flow through.
  BOOST_TEST(dims_to_string(p(infer_sum, {kDynamic, 5, kDynamic}, 8, {1}).dims) == "[?, ?]");
  BOOST_TEST(dims_to_string(p(infer_sum, {kDynamic, 5, kDynamic}, 8, {1}, true).dims) ==
             "[?, 1, ?]");
  BOOST_TEST(dims_to_string(p(infer_max, {kDynamic, 5}, 8, {0}).dims) == "[5]");
  BOOST_TEST(dims_to_string(
                 infer_op(infer_argmax, {tt(DType::f32, {kDynamic, 4, 2})}, arg_attrs(-2)).dims) ==
             "[?, 2]");
  BOOST_TEST(
      dims_to_string(
          infer_op(infer_argmax, {tt(DType::f32, {kDynamic, 4, 2})}, arg_attrs(1, true)).dims) ==
      "[?, 1, 2]");
  BOOST_TEST(dims_to_string(infer_op(infer_argmin, {tt(DType::f32, {7})}, arg_attrs(0)).dims) ==
             "[1]");
}

BOOST_AUTO_TEST_CASE(argmax_argmin) {
  uint64_t seed = 900;
  for (bool is_max : {true, false})
    for (DType t : kAll)
      for (Layout lay : kLayouts)
        for (int64_t axis : {0, 1, 2, -1}) {
          BOOST_TEST_CONTEXT(dtype_name(t) << " " << layout_name(lay) << " axis " << axis) {
            // Small value ranges make ties common.
            check_arg(
                is_max,
                make_input(t, Dims{4, 6, 5}, lay, seed % 2 ? Fill::small : Fill::specials, seed),
                axis, seed % 3 == 0);
          }
          ++seed;
        }
  // The seed's grid shapes, along each axis.
  ThreadPool pool(2);
  for (const Dims& x : grid_sample())
    for (int64_t axis : {1, 2, 3}) {
      check_arg(true, make_input(DType::f32, x, Layout::contiguous, Fill::full, seed++), axis,
                false);
      check_arg(false, make_input(DType::i8, x, Layout::transposed, Fill::full, seed++), axis, true,
                &pool);
    }
}

BOOST_AUTO_TEST_CASE(float_sum_accuracy) {
  // 10^6 values of 0.1f: naive f32 accumulation drifts by ~1%; the pairwise sum stays within
  // a few ulps of the true sum of the stored values.
  const int64_t n = 1000000;
  Tensor x = Tensor::empty(DType::f32, Dims{n});
  for (int64_t k = 0; k < n; ++k) x.data<float>()[k] = 0.1f;
  const double exact = double(0.1f) * double(n);
  const float s = run_op(run_sum, {x}, reduce_attr_values({})).data<float>()[0];
  BOOST_TEST(std::fabs(double(s) - exact) <= 1e-5 * exact);
  const float m = run_op(run_mean, {x}, reduce_attr_values({})).data<float>()[0];
  BOOST_TEST(std::fabs(double(m) - double(0.1f)) <= 1e-6);
  // Integer sums wrap.
  Tensor i = filled(DType::i8, Dims{3}, {100, 100, 100});
  BOOST_TEST(run_op(run_sum, {i}, reduce_attr_values({})).data<int8_t>()[0] == int8_t(44));
}

BOOST_AUTO_TEST_SUITE_END()
