// Elementwise unary ops: static rules (dtypes, precision, attribute errors) and kernels against
// naive references written from seed 000 / ops.md, index by index, over the seed's test-shape
// grid and over transposed, flipped, sliced, broadcast and empty views of every dtype.
#include "kernels/unary.hpp"

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

// ---- the ops under test and their references ------------------------------------------------
Attrs no_attrs() {
  return Attrs{};
}
Attrs int_attrs(std::vector<int64_t> v) {
  std::vector<AttrValue> a;
  for (int64_t x : v) a.push_back(AttrValue::integer(x));
  return Attrs(a);
}
Attrs clip_attr_values(AttrValue lo, AttrValue hi) {
  return Attrs({lo, hi});
}

double round_to(DType t, double v) {
  return t == DType::f32 ? double(float(v)) : v;
}

using RefFn = std::function<Val(DType, Val)>;

struct UnaryCase {
  std::string name;
  InferFn infer;
  KernelFn run;
  std::vector<DType> dtypes;
  Attrs attrs;
  RefFn ref;
  double rtol;
  DType grid_dtype;
};

__int128 floor_div(__int128 a, __int128 b) {
  __int128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t clip_i(__int128 v, int64_t lo, int64_t hi) {
  return int64_t(v < lo ? lo : v > hi ? hi : v);
}

// seed 000: clip(floor((floor(x / 2^(b-1)) + 1) / 2), ±(2^(p-1)-1)), in exact integer math.
int64_t ref_right_shift(int64_t x, int p, int b) {
  __int128 t = floor_div(floor_div(x, __int128(1) << (b - 1)) + 1, 2);
  int64_t alpha = (int64_t(1) << (p - 1)) - 1;
  return clip_i(t, -alpha, alpha);
}
// clip(x * 2^b, ±alpha), then (alpha wider than the dtype) bounded by the dtype's maximum.
int64_t ref_left_shift(DType t, int64_t x, int p, int b) {
  __int128 v = __int128(x) * (__int128(1) << b);
  int64_t alpha = std::min<int64_t>((int64_t(1) << (p - 1)) - 1, hi_of(t));
  return clip_i(v, -alpha, alpha);
}
int64_t ref_cvm_precision(int64_t x) {
  if (x == 0) return 1;
  __int128 a = x < 0 ? -__int128(x) : __int128(x);
  int64_t k = 0;
  while ((__int128(1) << k) < a + 1) ++k;  // smallest k with 2^k >= |x| + 1
  return k;
}

std::vector<UnaryCase> unary_cases() {
  auto fl = [](std::function<double(double)> f) {
    return [f](DType t, Val x) { return fv(round_to(t, f(x.f))); };
  };
  std::vector<UnaryCase> c;
  c.push_back({"abs", infer_abs, run_abs, kNumericTypes, no_attrs(),
               [](DType t, Val x) {
                 if (x.is_float) return fv(std::fabs(x.f));
                 return iv(wrap_to(t, x.i < 0 ? -__int128(x.i) : __int128(x.i)));
               },
               0, DType::i32});
  c.push_back(
      {"negative", infer_negative, run_negative, kNumericTypes, no_attrs(),
       [](DType t, Val x) { return x.is_float ? fv(-x.f) : iv(wrap_to(t, -__int128(x.i))); }, 0,
       DType::f32});
  c.push_back({"relu", infer_relu, run_relu, kNumericTypes, no_attrs(),
               [](DType, Val x) {
                 if (x.is_float) return fv(std::isnan(x.f) ? x.f : x.f < 0 ? 0.0 : x.f);
                 return iv(x.i < 0 ? 0 : x.i);
               },
               0, DType::f32});
  c.push_back({"sign", infer_sign, run_sign, kNumericTypes, no_attrs(),
               [](DType, Val x) {
                 if (x.is_float)
                   return fv(std::isnan(x.f) ? x.f : x.f > 0 ? 1.0 : x.f < 0 ? -1.0 : x.f);
                 return iv(x.i > 0 ? 1 : x.i < 0 ? -1 : 0);
               },
               0, DType::i8});
  c.push_back({"exp", infer_exp, run_exp, kFloatTypes, no_attrs(),
               fl([](double v) { return std::exp(v); }), 1e-5, DType::f32});
  c.push_back({"log", infer_log, run_log, kFloatTypes, no_attrs(),
               fl([](double v) { return std::log(v); }), 1e-5, DType::f64});
  c.push_back({"sqrt", infer_sqrt, run_sqrt, kFloatTypes, no_attrs(),
               fl([](double v) { return std::sqrt(v); }), 1e-6, DType::f32});
  c.push_back({"tanh", infer_tanh, run_tanh, kFloatTypes, no_attrs(),
               fl([](double v) { return std::tanh(v); }), 1e-5, DType::f32});
  c.push_back({"sigmoid", infer_sigmoid, run_sigmoid, kFloatTypes, no_attrs(),
               fl([](double v) { return 1.0 / (1.0 + std::exp(-v)); }), 1e-5, DType::f32});
  // The seed's clip test parameters: a_max 10, a_min -19.
  c.push_back({"clip", infer_clip, run_clip, kNumericTypes,
               clip_attr_values(AttrValue::integer(-19), AttrValue::integer(10)),
               [](DType t, Val x) {
                 if (x.is_float)
                   return fv(std::isnan(x.f) ? x.f : x.f <= -19 ? -19.0 : x.f >= 10 ? 10.0 : x.f);
                 const int64_t lo = std::max<int64_t>(-19, lo_of(t));
                 return iv(x.i <= lo ? lo : x.i >= 10 ? 10 : x.i);
               },
               0, DType::i32});
  // Seed: cvm_clip precision 2; cvm_right_shift / cvm_left_shift precision 2, shift_bit 2.
  c.push_back({"cvm_clip", infer_cvm_clip, run_cvm_clip, kSignedTypes, int_attrs({2}),
               [](DType, Val x) { return iv(clip_i(x.i, -1, 1)); }, 0, DType::i32});
  c.push_back({"cvm_right_shift", infer_cvm_right_shift, run_cvm_right_shift, kSignedTypes,
               int_attrs({2, 2}), [](DType, Val x) { return iv(ref_right_shift(x.i, 2, 2)); }, 0,
               DType::i32});
  c.push_back({"cvm_left_shift", infer_cvm_left_shift, run_cvm_left_shift, kSignedTypes,
               int_attrs({2, 2}), [](DType t, Val x) { return iv(ref_left_shift(t, x.i, 2, 2)); },
               0, DType::i32});
  c.push_back({"cvm_precision", infer_cvm_precision, run_cvm_precision, kIntTypes, no_attrs(),
               [](DType, Val x) { return iv(ref_cvm_precision(x.i)); }, 0, DType::i32});
  c.push_back({"logical_not", infer_logical_not, run_logical_not, kAll, no_attrs(),
               [](DType, Val x) { return iv(x.is_float ? x.f == 0 : x.i == 0); }, 0, DType::f32});
  return c;
}

// Runs `c` on x and compares every element with the reference; also checks that the kernel's
// result type is what the static rule said.
void check_case(const UnaryCase& c, const Tensor& x, ThreadPool* pool = nullptr,
                uint32_t donatable = 0, DType out_dtype_override = DType::f32,
                bool override_dtype = false, const RefFn* ref_override = nullptr) {
  TensorType want = infer_op(c.infer, {type_of(x)}, c.attrs);
  Tensor y = run_op(c.run, {x}, c.attrs, pool, donatable);
  BOOST_REQUIRE(y.defined());
  BOOST_TEST(y.dtype() == (override_dtype ? out_dtype_override : want.dtype));
  BOOST_TEST(want.dtype == y.dtype());
  BOOST_TEST(dims_to_string(y.shape()) == dims_to_string(want.dims));
  BOOST_REQUIRE(y.shape() == x.shape());
  const RefFn& ref = ref_override ? *ref_override : c.ref;
  int64_t bad = 0;
  std::string first;
  for_each_index(x.shape(), [&](const int64_t* idx) {
    Val want_v = ref(x.dtype(), at(x, idx));
    Val got = at(y, idx);
    if (!close(want_v, got, c.rtol)) {
      if (bad++ == 0)
        first = "at " + show_index(idx, x.rank()) + ": x=" + show(at(x, idx)) + " want " +
                show(want_v) + " got " + show(got);
    }
  });
  BOOST_TEST(bad == 0,
             c.name << " " << x.type_string() << ": " << bad << " mismatches, first " << first);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kernels_unary)

BOOST_AUTO_TEST_CASE(seed_shape_grid) {
  uint64_t seed = 1;
  for (const UnaryCase& c : unary_cases())
    for (const Dims& shape : grid_sample()) {
      Fill fill = c.name == "log" || c.name == "sqrt" ? Fill::positive : Fill::full;
      if (c.name == "exp") fill = Fill::small;
      check_case(c, make_input(c.grid_dtype, shape, Layout::contiguous, fill, seed++));
    }
}

BOOST_AUTO_TEST_CASE(every_dtype_and_layout) {
  uint64_t seed = 100;
  const std::vector<Dims> shapes = {Dims{3, 5, 7}, Dims{2, 1, 4, 3}, Dims{17}, Dims{2, 0, 3},
                                    Dims{0}};
  for (const UnaryCase& c : unary_cases())
    for (DType t : c.dtypes)
      for (Layout lay : kLayouts)
        for (const Dims& shape : shapes) {
          BOOST_TEST_CONTEXT(c.name << " " << dtype_name(t) << " " << layout_name(lay) << " "
                                    << dims_to_string(shape)) {
            check_case(c, make_input(t, shape, lay, Fill::specials, seed++));
            check_case(c, make_input(t, shape, lay, Fill::full, seed++));
          }
        }
}

BOOST_AUTO_TEST_CASE(nan_and_signed_zero) {
  Tensor x = Tensor::empty(DType::f64, Dims{6});
  const double v[] = {NAN, -0.0, 0.0, -2.5, INFINITY, -INFINITY};
  std::memcpy(x.raw_data(), v, sizeof v);
  auto y = [&](KernelFn fn, int k) { return run_op(fn, {x}, no_attrs()).data<double>()[k]; };
  BOOST_TEST(std::isnan(y(run_relu, 0)));  // relu(NaN) = NaN (NumPy)
  BOOST_TEST(y(run_relu, 3) == 0.0);
  BOOST_TEST(y(run_relu, 4) == INFINITY);
  BOOST_TEST(std::isnan(y(run_abs, 0)));
  BOOST_TEST(std::isnan(y(run_sign, 0)));
  BOOST_TEST(y(run_sign, 5) == -1.0);
  BOOST_TEST(y(run_abs, 5) == INFINITY);
  BOOST_TEST(!std::signbit(y(run_abs, 1)));
  BOOST_TEST(y(run_sigmoid, 4) == 1.0);
  BOOST_TEST(y(run_sigmoid, 5) == 0.0);
  BOOST_TEST(std::isnan(y(run_log, 3)));
  Tensor c = run_op(run_clip, {x}, clip_attr_values(AttrValue::integer(-1), AttrValue::integer(1)));
  BOOST_TEST(std::isnan(c.data<double>()[0]));
  BOOST_TEST(c.data<double>()[3] == -1.0);
  BOOST_TEST(c.data<double>()[4] == 1.0);
  Tensor n = run_op(run_logical_not, {x}, no_attrs());
  BOOST_TEST(n.dtype() == DType::boolean);
  const uint8_t want_not[] = {0, 1, 1, 0, 0, 0};  // NaN is non-zero
  for (int k = 0; k < 6; ++k) BOOST_TEST(n.data<uint8_t>()[k] == want_not[k]);
}

BOOST_AUTO_TEST_CASE(integer_wraps) {
  Tensor x = Tensor::empty(DType::i8, Dims{4});
  const int8_t v[] = {-128, 127, -1, 0};
  std::memcpy(x.raw_data(), v, 4);
  Tensor a = run_op(run_abs, {x}, no_attrs());
  Tensor n = run_op(run_negative, {x}, no_attrs());
  BOOST_TEST(a.data<int8_t>()[0] == -128);  // abs(MIN) wraps
  BOOST_TEST(n.data<int8_t>()[0] == -128);
  BOOST_TEST(n.data<int8_t>()[1] == -127);
  BOOST_TEST(a.data<int8_t>()[2] == 1);
  Tensor u = Tensor::empty(DType::u8, Dims{2});
  u.data<uint8_t>()[0] = 1;
  u.data<uint8_t>()[1] = 0;
  Tensor nu = run_op(run_negative, {u}, no_attrs());
  BOOST_TEST(nu.data<uint8_t>()[0] == 255);
  BOOST_TEST(nu.data<uint8_t>()[1] == 0);
}

BOOST_AUTO_TEST_CASE(dtype_rules) {
  const Attrs none;
  for (DType t : kAll) {
    const bool fl = t == DType::f32 || t == DType::f64;
    for (InferFn f : {infer_exp, infer_log, infer_sqrt, infer_tanh, infer_sigmoid}) {
      if (fl)
        BOOST_CHECK_NO_THROW(infer_op(f, {tt(t, {2})}, none));
      else
        expect_error([&] { infer_op(f, {tt(t, {2})}, none); }, ErrorKind::invalid, "floats only");
    }
    for (KernelFn f : {run_exp, run_sigmoid})
      if (!fl) {
        Tensor x = make_input(t, Dims{2}, Layout::contiguous, Fill::small, 1);
        expect_error([&] { run_op(f, {x}, none); }, ErrorKind::invalid, "expected one of f32, f64");
      }
    for (InferFn f : {infer_abs, infer_negative, infer_relu, infer_sign}) {
      if (t == DType::boolean)
        expect_error([&] { infer_op(f, {tt(t, {2})}, none); }, ErrorKind::invalid,
                     "has dtype bool");
      else
        BOOST_CHECK_NO_THROW(infer_op(f, {tt(t, {2})}, none));
    }
    const bool sgn = t == DType::i8 || t == DType::i16 || t == DType::i32 || t == DType::i64;
    auto cvm = [&](InferFn f, Attrs a) {
      if (sgn)
        BOOST_CHECK_NO_THROW(infer_op(f, {tt(t, {2})}, a));
      else
        expect_error([&] { infer_op(f, {tt(t, {2})}, a); }, ErrorKind::invalid, "signed integers");
    };
    cvm(infer_cvm_clip, int_attrs({8}));
    cvm(infer_cvm_right_shift, int_attrs({8, 3}));
    cvm(infer_cvm_left_shift, int_attrs({8, 3}));
    if (sgn || t == DType::u8)
      BOOST_CHECK_NO_THROW(infer_op(infer_cvm_precision, {tt(t, {2})}, none));
    else
      expect_error([&] { infer_op(infer_cvm_precision, {tt(t, {2})}, none); }, ErrorKind::invalid,
                   "integers only");
    BOOST_TEST(infer_op(infer_logical_not, {tt(t, {2})}, none).dtype == DType::boolean);
    if (t == DType::boolean)
      expect_error(
          [&] {
            infer_op(infer_clip, {tt(t, {2})},
                     clip_attr_values(AttrValue::integer(0), AttrValue::integer(1)));
          },
          ErrorKind::invalid, "clip: x has dtype bool");
  }
  // Attribute ranges, checked by the rule too (a module's attributes may come from anywhere).
  expect_error([&] { infer_op(infer_cvm_clip, {tt(DType::i32, {2})}, int_attrs({0})); },
               ErrorKind::invalid, "precision 0 is outside [1, 32]");
  expect_error(
      [&] {
        infer_op(infer_cvm_right_shift, {tt(DType::i32, {2})}, int_attrs({8, 33}));
      },
      ErrorKind::invalid, "shift_bit 33 is outside [1, 32]");
  expect_error(
      [&] {
        run_op(run_cvm_left_shift,
               {make_input(DType::i32, Dims{2}, Layout::contiguous, Fill::small, 1)},
               int_attrs({33, 1}));
      },
      ErrorKind::invalid, "precision 33");
}

BOOST_AUTO_TEST_CASE(clip_attribute_rules) {
  const TensorType i8 = tt(DType::i8, {3});
  expect_error(
      [&] { infer_op(infer_clip, {i8}, clip_attr_values(AttrValue::integer(5), AttrValue::integer(4))); },
      ErrorKind::invalid, "a_min 5 is greater than a_max 4");
  expect_error(
      [&] {
        infer_op(infer_clip, {tt(DType::f32, {3})},
                 clip_attr_values(AttrValue::floating(0.5), AttrValue::floating(0.25)));
      },
      ErrorKind::invalid, "greater than a_max");
  expect_error(
      [&] {
        infer_op(infer_clip, {i8}, clip_attr_values(AttrValue::floating(1.5), AttrValue::integer(4)));
      },
      ErrorKind::invalid, "a_min 1.5 is fractional");
  expect_error(
      [&] {
        infer_op(infer_clip, {tt(DType::i32, {3})},
                 clip_attr_values(AttrValue::integer(0), AttrValue::floating(2.25)));
      },
      ErrorKind::invalid, "a_max 2.25 is fractional");
  expect_error(
      [&] {
        infer_op(infer_clip, {tt(DType::f32, {3})},
                 clip_attr_values(AttrValue::floating(NAN), AttrValue::integer(1)));
      },
      ErrorKind::invalid, "a_min is NaN");
  Tensor x = make_input(DType::i8, Dims{3}, Layout::contiguous, Fill::small, 3);
  expect_error(
      [&] { run_op(run_clip, {x}, clip_attr_values(AttrValue::integer(2), AttrValue::integer(1))); },
      ErrorKind::invalid, "greater than a_max");
  // Integral floats are fine on ints; bounds beyond the dtype are clamped to it.
  BOOST_CHECK_NO_THROW(
      infer_op(infer_clip, {i8}, clip_attr_values(AttrValue::floating(-3.0), AttrValue::floating(4.0))));
  Tensor e = Tensor::empty(DType::i8, Dims{4});
  const int8_t v[] = {-128, 127, -5, 9};
  std::memcpy(e.raw_data(), v, 4);
  Tensor wide =
      run_op(run_clip, {e}, clip_attr_values(AttrValue::integer(-1000), AttrValue::integer(1000)));
  for (int k = 0; k < 4; ++k) BOOST_TEST(wide.data<int8_t>()[k] == v[k]);
  Tensor inf =
      run_op(run_clip, {e}, clip_attr_values(AttrValue::floating(-INFINITY), AttrValue::floating(3.0)));
  BOOST_TEST(inf.data<int8_t>()[0] == -128);
  BOOST_TEST(inf.data<int8_t>()[1] == 3);
  Tensor above =
      run_op(run_clip, {e}, clip_attr_values(AttrValue::integer(200), AttrValue::integer(300)));
  for (int k = 0; k < 4; ++k)
    BOOST_TEST(above.data<int8_t>()[k] == 127);  // clamped bounds [127, 127]
  Tensor i64 = Tensor::empty(DType::i64, Dims{2});
  i64.data<int64_t>()[0] = INT64_MIN;
  i64.data<int64_t>()[1] = INT64_MAX;
  Tensor big =
      run_op(run_clip, {i64}, clip_attr_values(AttrValue::floating(-1e30), AttrValue::floating(1e30)));
  BOOST_TEST(big.data<int64_t>()[0] == INT64_MIN);
  BOOST_TEST(big.data<int64_t>()[1] == INT64_MAX);
}

BOOST_AUTO_TEST_CASE(cvm_right_shift_every_shift) {
  uint64_t seed = 7;
  for (DType t : kSignedTypes)
    for (int p : {1, 2, 5, 8, 9, 16, 17, 31, 32})
      for (int b = 1; b <= 32; ++b) {
        Tensor x = make_input(t, Dims{64}, Layout::contiguous, Fill::full, seed++);
        // Values at the rounding boundaries of this shift: ±2^(b-1)·k ± 1.
        for (int k = 0; k < 16; ++k) {
          __int128 base = (__int128(1) << (b - 1)) * (k - 8);
          __int128 v = base + (k % 3) - 1;
          if (v >= lo_of(t) && v <= hi_of(t))
            write_elem(t, x.storage()->data() + k * x.itemsize(), iv(int64_t(v)));
        }
        UnaryCase c{"cvm_right_shift",
                    infer_cvm_right_shift,
                    run_cvm_right_shift,
                    kSignedTypes,
                    int_attrs({p, b}),
                    [p, b](DType, Val v) { return iv(ref_right_shift(v.i, p, b)); },
                    0,
                    t};
        BOOST_TEST_CONTEXT("p=" << p << " b=" << b << " " << dtype_name(t)) {
          check_case(c, x);
        }
      }
  // Hand-checked values: round half up.
  Tensor x = Tensor::empty(DType::i32, Dims{6});
  const int32_t v[] = {5, 6, 7, -5, -6, -7};
  std::memcpy(x.raw_data(), v, sizeof v);
  Tensor y = run_op(run_cvm_right_shift, {x}, int_attrs({8, 2}));  // x / 4 rounded half up
  const int32_t want[] = {1, 2, 2, -1, -1, -2};
  for (int k = 0; k < 6; ++k) BOOST_TEST(y.data<int32_t>()[k] == want[k]);
  Tensor big = Tensor::empty(DType::i64, Dims{2});
  big.data<int64_t>()[0] = INT64_MAX;
  big.data<int64_t>()[1] = INT64_MIN;
  Tensor s = run_op(run_cvm_right_shift, {big}, int_attrs({32, 32}));
  BOOST_TEST(s.data<int64_t>()[0] == INT32_MAX);  // 2^32 clipped to 2^31-1
  BOOST_TEST(s.data<int64_t>()[1] == -int64_t(INT32_MAX));
}

BOOST_AUTO_TEST_CASE(cvm_left_shift_and_clip_every_shift) {
  uint64_t seed = 9;
  for (DType t : kSignedTypes)
    for (int p : {1, 2, 8, 9, 16, 32})
      for (int b = 1; b <= 32; ++b) {
        Tensor x =
            make_input(t, Dims{48}, Layout::contiguous, b % 2 ? Fill::full : Fill::small, seed++);
        UnaryCase c{"cvm_left_shift",
                    infer_cvm_left_shift,
                    run_cvm_left_shift,
                    kSignedTypes,
                    int_attrs({p, b}),
                    [p, b](DType dt, Val v) { return iv(ref_left_shift(dt, v.i, p, b)); },
                    0,
                    t};
        BOOST_TEST_CONTEXT("p=" << p << " b=" << b << " " << dtype_name(t)) {
          check_case(c, x);
        }
      }
  for (DType t : kSignedTypes)
    for (int p = 1; p <= 32; ++p) {
      Tensor x = make_input(t, Dims{40}, Layout::contiguous, Fill::full, seed++);
      UnaryCase c{"cvm_clip",
                  infer_cvm_clip,
                  run_cvm_clip,
                  kSignedTypes,
                  int_attrs({p}),
                  [p](DType dt, Val v) {
                    int64_t alpha = std::min<int64_t>((int64_t(1) << (p - 1)) - 1, hi_of(dt));
                    return iv(clip_i(v.i, -alpha, alpha));
                  },
                  0,
                  t};
      BOOST_TEST_CONTEXT("cvm_clip p=" << p << " " << dtype_name(t)) {
        check_case(c, x);
      }
    }
  Tensor x = Tensor::empty(DType::i32, Dims{3});
  const int32_t v[] = {3, -3, 1 << 30};
  std::memcpy(x.raw_data(), v, sizeof v);
  Tensor y = run_op(run_cvm_left_shift, {x}, int_attrs({8, 2}));
  BOOST_TEST(y.data<int32_t>()[0] == 12);
  BOOST_TEST(y.data<int32_t>()[1] == -12);
  BOOST_TEST(y.data<int32_t>()[2] == 127);  // 2^32 computed without overflow, clipped
}

BOOST_AUTO_TEST_CASE(cvm_precision_values) {
  Tensor x = Tensor::empty(DType::i64, Dims{11});
  const int64_t v[] = {0, 1, -1, 2, 3, 4, 127, -128, INT64_MIN, INT64_MAX, 255};
  const int64_t want[] = {1, 1, 1, 2, 2, 3, 7, 8, 64, 63, 8};
  std::memcpy(x.raw_data(), v, sizeof v);
  Tensor y = run_op(run_cvm_precision, {x}, no_attrs());
  BOOST_TEST(y.dtype() == DType::i64);  // the input's dtype
  for (int k = 0; k < 11; ++k) BOOST_TEST(y.data<int64_t>()[k] == want[k]);
}

BOOST_AUTO_TEST_CASE(cast_semantics) {
  Tensor f = Tensor::empty(DType::f32, Dims{9});
  const float fv_[] = {300.7f, -300.f, -1.9f, 1.9f, NAN, INFINITY, -INFINITY, -0.0f, 127.5f};
  std::memcpy(f.raw_data(), fv_, sizeof fv_);
  Tensor i8 = run_op(run_cast, {f}, Attrs({AttrValue::dtype(DType::i8)}));
  const int8_t want8[] = {127, -128, -1, 1, 0, 127, -128, 0, 127};
  for (int k = 0; k < 9; ++k) BOOST_TEST(int(i8.data<int8_t>()[k]) == int(want8[k]));
  Tensor u8 = run_op(run_cast, {f}, Attrs({AttrValue::dtype(DType::u8)}));
  const uint8_t wantu[] = {255, 0, 0, 1, 0, 255, 0, 0, 127};
  for (int k = 0; k < 9; ++k) BOOST_TEST(int(u8.data<uint8_t>()[k]) == int(wantu[k]));
  Tensor b = run_op(run_cast, {f}, Attrs({AttrValue::dtype(DType::boolean)}));
  const uint8_t wantb[] = {1, 1, 1, 1, 1, 1, 1, 0, 1};
  for (int k = 0; k < 9; ++k) BOOST_TEST(int(b.data<uint8_t>()[k]) == int(wantb[k]));
  Tensor d = Tensor::empty(DType::f64, Dims{4});
  const double dv[] = {1e19, -1e19, 9223372036854774784.0, -9223372036854775808.0};
  std::memcpy(d.raw_data(), dv, sizeof dv);
  Tensor i64 = run_op(run_cast, {d}, Attrs({AttrValue::dtype(DType::i64)}));
  BOOST_TEST(i64.data<int64_t>()[0] == INT64_MAX);
  BOOST_TEST(i64.data<int64_t>()[1] == INT64_MIN);
  BOOST_TEST(i64.data<int64_t>()[2] == 9223372036854774784);
  BOOST_TEST(i64.data<int64_t>()[3] == INT64_MIN);
  Tensor i32 = Tensor::empty(DType::i32, Dims{2});
  i32.data<int32_t>()[0] = 300;
  i32.data<int32_t>()[1] = -129;
  Tensor w = run_op(run_cast, {i32}, Attrs({AttrValue::dtype(DType::i8)}));
  BOOST_TEST(w.data<int8_t>()[0] == 44);  // int -> int wraps
  BOOST_TEST(w.data<int8_t>()[1] == 127);

  // Every (from, to) pair, every layout, against the rule written out.
  auto ref = [](DType to) {
    return RefFn([to](DType, Val x) -> Val {
      if (to == DType::boolean) return iv(x.is_float ? x.f != 0 : x.i != 0);
      if (to == DType::f32 && !x.is_float) return fv(double(float(x.i)));  // one rounding
      if (to == DType::f32 || to == DType::f64)
        return fv(round_to(to, x.is_float ? x.f : double(x.i)));
      if (!x.is_float) return iv(wrap_to(to, x.i));
      if (std::isnan(x.f)) return iv(0);
      const long double t = std::trunc((long double)x.f);
      if (t <= (long double)lo_of(to)) return iv(lo_of(to));
      if (t >= (long double)hi_of(to)) return iv(hi_of(to));
      return iv(int64_t(t));
    });
  };
  uint64_t seed = 50;
  for (DType from : kAll)
    for (DType to : kAll)
      for (Layout lay : kLayouts) {
        Attrs a({AttrValue::dtype(to)});
        UnaryCase c{"cast", infer_cast, run_cast, kAll, a, ref(to), 0, from};
        Tensor x =
            make_input(from, Dims{4, 9, 5}, lay, seed % 2 ? Fill::specials : Fill::full, seed);
        ++seed;
        if (from == DType::f32 || from == DType::f64) {  // exercise saturation with large values
          Rng r{seed};
          const int64_t n = x.storage()->bytes() / x.itemsize();
          for (int64_t k = 0; k < n; k += 3)
            write_elem(from, x.storage()->data() + k * x.itemsize(), fv(r.uniform(-4e19, 4e19)));
        }
        BOOST_TEST_CONTEXT(dtype_name(from)
                           << " -> " << dtype_name(to) << " " << layout_name(lay)) {
          check_case(c, x);
        }
      }
}

BOOST_AUTO_TEST_CASE(precision_rules) {
  const Attrs none;
  const Dims d{4, kDynamic};
  for (InferFn f : {infer_abs, infer_negative, infer_relu}) {
    BOOST_TEST(infer_op(f, {tt(DType::i16, d, 9)}, none).precision == 9);
    BOOST_TEST(infer_op(f, {tt(DType::i16, d, 0)}, none).precision == 0);
    BOOST_TEST(infer_op(f, {tt(DType::f32, d)}, none).precision == 0);
    BOOST_TEST(infer_op(f, {tt(DType::u8, d)}, none).precision == 0);
  }
  BOOST_TEST(infer_op(infer_sign, {tt(DType::i32, d, 20)}, none).precision == 2);
  BOOST_TEST(infer_op(infer_sign, {tt(DType::i32, d, 0)}, none).precision == 2);
  auto clip = [&](DType t, int p, int64_t lo, int64_t hi) {
    return infer_op(infer_clip, {tt(t, d, p)},
                    clip_attr_values(AttrValue::integer(lo), AttrValue::integer(hi)))
        .precision;
  };
  BOOST_TEST(clip(DType::i32, 0, -19, 10) == 6);  // |-19| needs 6 bits
  BOOST_TEST(clip(DType::i32, 4, -19, 10) == 4);  // p is smaller
  BOOST_TEST(clip(DType::i32, 12, -19, 10) == 6);
  BOOST_TEST(clip(DType::i8, 0, -127, 127) == 8);
  BOOST_TEST(clip(DType::i8, 0, -128, 127) == 0);  // wider than i8: unknown
  BOOST_TEST(clip(DType::i8, 5, -128, 127) == 5);  // ... unless p is known
  BOOST_TEST(clip(DType::i8, 0, -1000, 1000) == 0);
  BOOST_TEST(clip(DType::i32, 0, 0, 0) == 1);
  BOOST_TEST(clip(DType::u8, 0, 0, 10) == 0);
  BOOST_TEST(infer_op(infer_cvm_clip, {tt(DType::i32, d, 0)}, int_attrs({8})).precision == 8);
  BOOST_TEST(infer_op(infer_cvm_clip, {tt(DType::i8, d, 0)}, int_attrs({16})).precision == 0);
  BOOST_TEST(
      infer_op(infer_cvm_right_shift, {tt(DType::i32, d, 30)}, int_attrs({8, 4})).precision == 8);
  BOOST_TEST(infer_op(infer_cvm_left_shift, {tt(DType::i32, d, 0)}, int_attrs({24, 4})).precision ==
             24);
  // ARITH: past the dtype it stays, for the verifier to report.
  BOOST_TEST(infer_op(infer_cvm_left_shift, {tt(DType::i8, d, 0)}, int_attrs({12, 4})).precision ==
             12);
  BOOST_TEST(infer_op(infer_cvm_precision, {tt(DType::i32, d, 0)}, none).precision == 7);
  BOOST_TEST(infer_op(infer_cvm_precision, {tt(DType::i64, d, 40)}, none).precision == 7);
  BOOST_TEST(infer_op(infer_cvm_precision, {tt(DType::i64, d, 0)}, none).precision == 8);
  BOOST_TEST(infer_op(infer_cvm_precision, {tt(DType::i64, d, 0)}, none).dtype == DType::i64);
  auto cast = [&](DType from, int p, DType to, InferOptions o = {}) {
    return infer_op(infer_cast, {tt(from, d, p)}, Attrs({AttrValue::dtype(to)}), o).precision;
  };
  BOOST_TEST(cast(DType::i32, 7, DType::i8) == 7);
  BOOST_TEST(cast(DType::i8, 7, DType::i64) == 7);
  BOOST_TEST(cast(DType::i32, 0, DType::i8) == 0);
  BOOST_TEST(cast(DType::u8, 0, DType::i16) == 9);
  BOOST_TEST(cast(DType::u8, 0, DType::i8) == 0);
  BOOST_TEST(cast(DType::boolean, 0, DType::i8) == 2);
  BOOST_TEST(cast(DType::f32, 0, DType::i32) == 0);
  BOOST_TEST(cast(DType::i32, 7, DType::f32) == 0);
  expect_error([&] { cast(DType::i32, 20, DType::i8); }, ErrorKind::invalid,
               "input precision 20 exceeds i8");
  InferOptions off;
  off.precision_check = false;
  BOOST_TEST(cast(DType::i32, 20, DType::i8, off) == 0);
  // `?` dims flow through every unary rule.
  BOOST_TEST(dims_to_string(infer_op(infer_exp, {tt(DType::f32, d)}, none).dims) == "[4, ?]");
  BOOST_TEST(dims_to_string(infer_op(infer_logical_not, {tt(DType::i8, d)}, none).dims) ==
             "[4, ?]");
}

BOOST_AUTO_TEST_CASE(donated_input_is_reused_and_threads_agree) {
  const UnaryCase c = unary_cases()[0];  // abs
  Tensor x = make_input(DType::i32, Dims{1, 92, 86, 93}, Layout::contiguous, Fill::full, 77);
  Tensor copy = Tensor::empty(DType::i32, x.shape());
  std::memcpy(copy.raw_data(), x.raw_data(), size_t(x.numel() * 4));
  Tensor y = run_op(c.run, {x}, c.attrs, nullptr, 1u);
  BOOST_TEST(y.storage() == x.storage());  // written in place
  int64_t bad = 0;
  for (int64_t k = 0; k < copy.numel(); ++k)
    bad += y.data<int32_t>()[k] !=
           int32_t(wrap_to(DType::i32,
                           (copy.data<int32_t>()[k] < 0 ? -__int128(copy.data<int32_t>()[k])
                                                        : __int128(copy.data<int32_t>()[k]))));
  BOOST_TEST(bad == 0);
  // A transposed (non-contiguous) donated input is not reused.
  Tensor xt = make_input(DType::f32, Dims{5, 6}, Layout::transposed, Fill::full, 3);
  BOOST_TEST(run_op(run_abs, {xt}, no_attrs(), nullptr, 1u).storage() != xt.storage());
  ThreadPool pool(2);
  for (const UnaryCase& uc : unary_cases()) {
    Fill fill = uc.name == "log" || uc.name == "sqrt" ? Fill::positive : Fill::small;
    check_case(uc, make_input(uc.grid_dtype, Dims{1, 53, 52, 47}, Layout::transposed, fill, 5),
               &pool);
    check_case(uc, make_input(uc.grid_dtype, Dims{100003}, Layout::contiguous, fill, 6), &pool);
  }
}

BOOST_AUTO_TEST_SUITE_END()
