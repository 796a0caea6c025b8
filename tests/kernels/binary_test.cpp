// Elementwise binary ops, comparisons, logical ops and where: static rules (dtypes, shapes with
// `?`, precision) and kernels against naive references written from seed 000's broadcast
// formula (a_i = min(d_i, SA_i - 1)), index by index, over the seed's shape grid and over
// transposed, flipped, sliced, broadcast and empty views of every dtype.
#include "kernels/binary.hpp"

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
double round_to(DType t, double v) {
  return t == DType::f32 ? double(float(v)) : v;
}
bool truth(Val v) {
  return v.is_float ? v.f != 0 : v.i != 0;
}  // NaN is true

// Reference result, or nullopt-like trap flag for integer division errors.
struct Ref {
  Val v;
  bool trap = false;
};
using BinRef = std::function<Ref(DType, Val, Val)>;

struct BinaryCase {
  std::string name;
  InferFn infer;
  KernelFn run;
  std::vector<DType> dtypes;
  bool equal_shapes;
  BinRef ref;
};

Ref arith(DType t, Val a, Val b, char op) {
  if (a.is_float) {
    switch (op) {
      case '+':
        return {fv(round_to(t, a.f + b.f))};
      case '-':
        return {fv(round_to(t, a.f - b.f))};
      case '*':
        return {fv(round_to(t, a.f * b.f))};
      default:
        return {fv(round_to(t, a.f / b.f))};
    }
  }
  const __int128 x = a.i, y = b.i;
  switch (op) {
    case '+':
      return {iv(wrap_to(t, x + y))};
    case '-':
      return {iv(wrap_to(t, x - y))};
    case '*':
      return {iv(wrap_to(t, x * y))};
    default:
      if (y == 0) return {iv(0), true};
      const __int128 q = x / y;  // truncates toward zero
      if (q > hi_of(t) || q < lo_of(t)) return {iv(0), true};
      return {iv(int64_t(q))};
  }
}
Ref extreme(Val a, Val b, bool max) {
  if (a.is_float) {
    if (std::isnan(a.f)) return {a};
    if (std::isnan(b.f)) return {b};
    return {(max ? a.f >= b.f : a.f <= b.f) ? a : b};
  }
  return {(max ? a.i >= b.i : a.i <= b.i) ? a : b};
}
Ref compare(Val a, Val b, const std::string& op) {
  bool r;
  if (a.is_float) {
    r = op == "<"    ? a.f < b.f
        : op == "<=" ? a.f <= b.f
        : op == ">"  ? a.f > b.f
        : op == ">=" ? a.f >= b.f
        : op == "==" ? a.f == b.f
                     : a.f != b.f;
  } else {
    r = op == "<"    ? a.i < b.i
        : op == "<=" ? a.i <= b.i
        : op == ">"  ? a.i > b.i
        : op == ">=" ? a.i >= b.i
        : op == "==" ? a.i == b.i
                     : a.i != b.i;
  }
  return {iv(r)};
}

std::vector<BinaryCase> binary_cases() {
  std::vector<BinaryCase> c;
  auto ar = [](char op) { return [op](DType t, Val a, Val b) { return arith(t, a, b, op); }; };
  auto cmp = [](std::string op) { return [op](DType, Val a, Val b) { return compare(a, b, op); }; };
  c.push_back({"add", infer_add, run_add, kNumericTypes, false, ar('+')});
  c.push_back({"sub", infer_sub, run_sub, kNumericTypes, false, ar('-')});
  c.push_back({"mul", infer_mul, run_mul, kNumericTypes, false, ar('*')});
  c.push_back({"div", infer_div, run_div, kNumericTypes, false, ar('/')});
  c.push_back({"maximum", infer_maximum, run_maximum, kAll, false,
               [](DType, Val a, Val b) { return extreme(a, b, true); }});
  c.push_back({"minimum", infer_minimum, run_minimum, kAll, false,
               [](DType, Val a, Val b) { return extreme(a, b, false); }});
  c.push_back({"elemwise_add", infer_elemwise_add, run_elemwise_add, kNumericTypes, true, ar('+')});
  c.push_back({"elemwise_sub", infer_elemwise_sub, run_elemwise_sub, kNumericTypes, true, ar('-')});
  c.push_back({"elemwise_mul", infer_elemwise_mul, run_elemwise_mul, kNumericTypes, true, ar('*')});
  c.push_back({"less", infer_less, run_less, kAll, false, cmp("<")});
  c.push_back({"less_equal", infer_less_equal, run_less_equal, kAll, false, cmp("<=")});
  c.push_back({"greater", infer_greater, run_greater, kAll, false, cmp(">")});
  c.push_back({"greater_equal", infer_greater_equal, run_greater_equal, kAll, false, cmp(">=")});
  c.push_back({"equal", infer_equal, run_equal, kAll, false, cmp("==")});
  c.push_back({"not_equal", infer_not_equal, run_not_equal, kAll, false, cmp("!=")});
  c.push_back({"logical_and", infer_logical_and, run_logical_and, kAll, false,
               [](DType, Val a, Val b) { return Ref{iv(truth(a) && truth(b))}; }});
  c.push_back({"logical_or", infer_logical_or, run_logical_or, kAll, false,
               [](DType, Val a, Val b) { return Ref{iv(truth(a) || truth(b))}; }});
  return c;
}

// Broadcast result shape, written from seed 000 steps 1-2.
Dims ref_broadcast(const std::vector<Dims>& shapes) {
  int k = 0;
  for (auto& s : shapes) k = std::max(k, s.size());
  Dims out = Dims::filled(k, 1);
  for (auto& s : shapes)
    for (int i = 0; i < s.size(); ++i) {
      int64_t& o = out[k - s.size() + i];
      if (o == 1)
        o = s[i];
      else if (s[i] != 1 && s[i] != o)
        BOOST_FAIL("test bug: shapes do not broadcast");
      else if (s[i] == 0)
        o = 0;
    }
  return out;
}
// Element of t for output index d (rank k): a_i = min(d_i, SA_i - 1) on the 1-padded shape.
Val at_broadcast(const Tensor& t, const int64_t* d, int k) {
  int64_t idx[kMaxRank];
  const int lead = k - t.rank();
  for (int i = 0; i < t.rank(); ++i) idx[i] = std::min(d[lead + i], t.dim(i) - 1);
  return at(t, idx);
}

// Runs a binary case on (a, b) and compares with the reference; if the reference traps, the
// kernel must trap too.
void check_binary(const BinaryCase& c, const Tensor& a, const Tensor& b,
                  ThreadPool* pool = nullptr) {
  const Dims shape = ref_broadcast({a.shape(), b.shape()});
  bool ref_traps = false;
  if (c.name == "div")
    for_each_index(shape, [&](const int64_t* d) {
      ref_traps =
          ref_traps ||
          c.ref(a.dtype(), at_broadcast(a, d, shape.size()), at_broadcast(b, d, shape.size())).trap;
    });
  if (ref_traps) {
    expect_error([&] { run_op(c.run, {a, b}, Attrs{}, pool); }, ErrorKind::trap, "division");
    return;
  }
  TensorType want = infer_op(c.infer, {type_of(a), type_of(b)}, Attrs{});
  Tensor y = run_op(c.run, {a, b}, Attrs{}, pool);
  BOOST_TEST(y.dtype() == want.dtype);
  BOOST_TEST(dims_to_string(y.shape()) == dims_to_string(want.dims));
  BOOST_REQUIRE(y.shape() == shape);
  int64_t bad = 0;
  std::string first;
  for_each_index(shape, [&](const int64_t* d) {
    Val va = at_broadcast(a, d, shape.size()), vb = at_broadcast(b, d, shape.size());
    Val want_v = c.ref(a.dtype(), va, vb).v;
    Val got = at(y, d);
    if (!close(want_v, got, 0) && bad++ == 0)
      first = "at " + show_index(d, shape.size()) + ": " + show(va) + ", " + show(vb) + " want " +
              show(want_v) + " got " + show(got);
  });
  BOOST_TEST(bad == 0, c.name << " " << a.type_string() << ", " << b.type_string() << ": " << bad
                              << " mismatches, first " << first);
}

// Y shapes from the seed's grid that broadcast against X = (1, j, l, r).
std::vector<std::pair<Dims, Dims>> grid_pairs() {
  std::vector<std::pair<Dims, Dims>> out;
  int s = 0;
  for (const Dims& x : grid_sample()) {
    const int64_t j = x[1], l = x[2], r = x[3];
    const std::vector<std::pair<Dims, Dims>> variants = {
        {x, x},
        {x, Dims{1, 1, 1, 1}},
        {x, Dims{1, j, 1, r}},
        {Dims{1, j, 1, r}, Dims{1, 1, l, 1}},  // both sides broadcast
        {x, Dims{l, r}},                       // lower rank: prefixed with 1s
    };
    out.push_back(variants[s++ % 5]);
  }
  return out;
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

BOOST_AUTO_TEST_SUITE(kernels_binary)

BOOST_AUTO_TEST_CASE(seed_broadcast_add_example) {
  Tensor x = filled(DType::f32, Dims{2, 3}, {1, 1, 1, 1, 1, 1});
  Tensor y = filled(DType::f32, Dims{2, 1}, {0, 1});
  Tensor z = run_op(run_add, {x, y}, Attrs{});
  BOOST_TEST(dims_to_string(z.shape()) == "[2, 3]");
  const float want[] = {1, 1, 1, 2, 2, 2};
  for (int k = 0; k < 6; ++k) BOOST_TEST(z.data<float>()[k] == want[k]);
}

BOOST_AUTO_TEST_CASE(seed_shape_grid) {
  uint64_t seed = 1;
  const DType grid_types[] = {DType::f32, DType::i32, DType::i8, DType::f64};
  int n = 0;
  for (const BinaryCase& c : binary_cases())
    for (auto& [xs, ys] : grid_pairs()) {
      if (c.equal_shapes && !(xs == ys)) continue;
      DType t = grid_types[n++ % 4];
      // Integer div of random data: keep divisors away from 0 (division errors have their own
      // test).
      Fill fb = c.name == "div" && t != DType::f32 && t != DType::f64 ? Fill::positive : Fill::full;
      Tensor a = make_input(t, xs, Layout::contiguous, Fill::full, seed++);
      Tensor b = make_input(t, ys, Layout::contiguous, fb, seed++);
      if (fb == Fill::positive) {  // no zero divisors
        const int64_t m = b.storage()->bytes() / b.itemsize();
        for (int64_t k = 0; k < m; ++k) {
          Val v = read_elem(t, b.storage()->data() + k * b.itemsize());
          if (v.i == 0) write_elem(t, b.storage()->data() + k * b.itemsize(), iv(3));
        }
      }
      check_binary(c, a, b);
    }
  // elemwise_* on the grid's equal-shape pairs of every corner.
  for (const BinaryCase& c : binary_cases())
    if (c.equal_shapes)
      for (const Dims& x : grid_sample()) {
        Tensor a = make_input(DType::i16, x, Layout::contiguous, Fill::full, seed++);
        Tensor b = make_input(DType::i16, x, Layout::contiguous, Fill::full, seed++);
        check_binary(c, a, b);
      }
}

BOOST_AUTO_TEST_CASE(every_dtype_and_layout) {
  uint64_t seed = 100;
  const std::vector<std::pair<Dims, Dims>> bshapes = {
      {Dims{3, 5, 7}, Dims{3, 5, 7}}, {Dims{3, 1, 7}, Dims{5, 1}}, {Dims{4, 6}, Dims{1}},
      {Dims{2, 0, 3}, Dims{1, 3}},    {Dims{1, 0}, Dims{4, 1}},    {Dims{17}, Dims{17}}};
  for (const BinaryCase& c : binary_cases())
    for (DType t : c.dtypes)
      for (int la = 0; la < 5; ++la)
        for (int lb : {la, (la + 2) % 5})
          for (auto& [xs, ys] : bshapes) {
            if (c.equal_shapes && !(xs == ys)) continue;
            BOOST_TEST_CONTEXT(c.name << " " << dtype_name(t) << " " << layout_name(kLayouts[la])
                                      << "/" << layout_name(kLayouts[lb]) << " "
                                      << dims_to_string(xs) << " " << dims_to_string(ys)) {
              Fill f = (seed % 3 == 0) ? Fill::specials : seed % 3 == 1 ? Fill::full : Fill::small;
              Tensor a = make_input(t, xs, kLayouts[la], f, seed++);
              Tensor b = make_input(t, ys, kLayouts[lb], f, seed++);
              check_binary(c, a, b);
              check_binary(c, b, a);
            }
          }
}

BOOST_AUTO_TEST_CASE(integer_division) {
  for (DType t : kIntTypes) {
    Tensor a = filled(t, Dims{6}, {7, -7, 7, -7, 0, 100});
    Tensor b = filled(t, Dims{6}, {2, 2, -2, -2, 5, 7});
    if (t == DType::u8) {
      a = filled(t, Dims{3}, {7, 200, 0});
      b = filled(t, Dims{3}, {2, 7, 5});
    }
    Tensor q = run_op(run_div, {a, b}, Attrs{});
    std::vector<int64_t> want =
        t == DType::u8 ? std::vector<int64_t>{3, 28, 0} : std::vector<int64_t>{3, -3, -3, 3, 0, 14};
    for (std::size_t k = 0; k < want.size(); ++k)
      BOOST_TEST(q.get_int(std::array<int64_t, 1>{int64_t(k)}) == want[k]);
    std::vector<double> zv(std::size_t(a.numel()), 1.0);
    zv[1] = 0;
    Tensor z = filled(t, a.shape(), zv);
    expect_error(
        [&] {
          run_op(run_div, {a, z}, Attrs{});
        },
        ErrorKind::trap, "integer division by zero: ");
    // Broadcast zero divisor.
    expect_error(
        [&] {
          run_op(run_div, {a, filled(t, Dims{1}, {0})}, Attrs{});
        },
        ErrorKind::trap, "integer division by zero");
  }
  expect_error(
      [&] {
        run_op(run_div, {filled(DType::i32, Dims{1}, {9}), filled(DType::i32, Dims{1}, {0})},
               Attrs{});
      },
      ErrorKind::trap, "integer division by zero: 9 / 0");
  expect_error(
      [&] {
        run_op(run_div,
               {filled(DType::i8, Dims{2}, {4, -128}), filled(DType::i8, Dims{2}, {-1, -1})},
               Attrs{});
      },
      ErrorKind::trap, "-128 / -1 does not fit i8");
  Tensor m = Tensor::empty(DType::i64, Dims{1});
  m.data<int64_t>()[0] = INT64_MIN;
  expect_error(
      [&] {
        run_op(run_div, {m, filled(DType::i64, Dims{1}, {-1})}, Attrs{});
      },
      ErrorKind::trap, "-9223372036854775808 / -1 does not fit i64");
  // Floats divide by zero as IEEE does.
  Tensor f =
      run_op(run_div, {filled(DType::f32, Dims{3}, {1, -1, 0}), filled(DType::f32, Dims{1}, {0})},
             Attrs{});
  BOOST_TEST(f.data<float>()[0] == INFINITY);
  BOOST_TEST(f.data<float>()[1] == -INFINITY);
  BOOST_TEST(std::isnan(f.data<float>()[2]));
  // Threads: the trap still surfaces.
  ThreadPool pool(2);
  Tensor big = make_input(DType::i32, Dims{300, 1000}, Layout::contiguous, Fill::positive, 4);
  Tensor zero = Tensor::zeros_owned(DType::i32, Dims{300, 1000});
  expect_error(
      [&] {
        run_op(run_div, {big, zero}, Attrs{}, &pool);
      },
      ErrorKind::trap, "division by zero");
}

BOOST_AUTO_TEST_CASE(wrapping_and_nan) {
  Tensor a = filled(DType::i8, Dims{3}, {127, -128, 100});
  Tensor b = filled(DType::i8, Dims{3}, {1, 1, 3});
  BOOST_TEST(run_op(run_add, {a, b}, Attrs{}).data<int8_t>()[0] == -128);
  BOOST_TEST(run_op(run_sub, {a, b}, Attrs{}).data<int8_t>()[1] == 127);
  BOOST_TEST(run_op(run_mul, {a, b}, Attrs{}).data<int8_t>()[2] == 44);
  Tensor s = filled(DType::i16, Dims{1}, {-32768});
  BOOST_TEST(run_op(run_mul, {s, s}, Attrs{}).data<int16_t>()[0] == 0);  // no int promotion UB
  Tensor x = filled(DType::f64, Dims{4}, {NAN, 1, NAN, 2});
  Tensor y = filled(DType::f64, Dims{4}, {1, NAN, NAN, 3});
  for (KernelFn f : {run_maximum, run_minimum}) {
    Tensor r = run_op(f, {x, y}, Attrs{});
    BOOST_TEST(std::isnan(r.data<double>()[0]));
    BOOST_TEST(std::isnan(r.data<double>()[1]));
    BOOST_TEST(std::isnan(r.data<double>()[2]));
  }
  BOOST_TEST(run_op(run_maximum, {x, y}, Attrs{}).data<double>()[3] == 3);
  BOOST_TEST(run_op(run_minimum, {x, y}, Attrs{}).data<double>()[3] == 2);
  Tensor ne = run_op(run_not_equal, {x, x}, Attrs{});
  BOOST_TEST(ne.dtype() == DType::boolean);
  BOOST_TEST(ne.data<uint8_t>()[0] == 1);  // NaN != NaN
  BOOST_TEST(ne.data<uint8_t>()[1] == 0);
  BOOST_TEST(run_op(run_equal, {x, x}, Attrs{}).data<uint8_t>()[0] == 0);
  BOOST_TEST(run_op(run_logical_and, {x, y}, Attrs{}).data<uint8_t>()[0] == 1);  // NaN is true
}

BOOST_AUTO_TEST_CASE(static_rules_and_errors) {
  for (const BinaryCase& c : binary_cases()) {
    BOOST_TEST_CONTEXT(c.name) {
      expect_error(
          [&] {
            infer_op(c.infer, {tt(DType::f32, {3}), tt(DType::f64, {3})}, Attrs{});
          },
          ErrorKind::invalid, "operand dtypes differ (a is f32, b is f64)");
      if (c.dtypes.size() != kAll.size())
        expect_error(
            [&] {
              infer_op(c.infer, {tt(DType::boolean, {3}), tt(DType::boolean, {3})}, Attrs{});
            },
            ErrorKind::invalid, "has dtype bool");
      for (DType t : c.dtypes) {
        TensorType r = infer_op(c.infer, {tt(t, {2, 3}), tt(t, {2, 3})}, Attrs{});
        const bool cmp = c.name.find("less") == 0 || c.name.find("greater") == 0 ||
                         c.name.find("equal") != std::string::npos || c.name.find("logical") == 0;
        BOOST_TEST(r.dtype == (cmp ? DType::boolean : t));
      }
      if (c.equal_shapes) {
        expect_error(
            [&] {
              infer_op(c.infer, {tt(DType::i32, {3, 4}), tt(DType::i32, {1, 4})}, Attrs{});
            },
            ErrorKind::invalid, "needs equal shapes: i32[3, 4] and i32[1, 4] (dim 0: 3 vs 1)");
        expect_error(
            [&] {
              infer_op(c.infer, {tt(DType::i32, {4}), tt(DType::i32, {1, 4})}, Attrs{});
            },
            ErrorKind::invalid, "rank 1 vs 2");
        BOOST_TEST(
            dims_to_string(infer_op(c.infer,
                                    {tt(DType::i32, {kDynamic, 4}), tt(DType::i32, {3, kDynamic})},
                                    Attrs{})
                               .dims) == "[3, 4]");
        expect_error(
            [&] {
              run_op(c.run,
                     {filled(DType::i32, Dims{2, 1}, {1, 2}),
                      filled(DType::i32, Dims{2, 2}, {1, 2, 3, 4})},
                     Attrs{});
            },
            ErrorKind::trap, "needs equal shapes at run time");
      } else {
        expect_error(
            [&] {
              infer_op(c.infer, {tt(DType::f32, {3, 4}), tt(DType::f32, {5})}, Attrs{});
            },
            ErrorKind::invalid,
            "shape mismatch: f32[3, 4] and f32[5] cannot broadcast (dim 1: 4 vs 5)");
        BOOST_TEST(
            dims_to_string(infer_op(c.infer,
                                    {tt(DType::f32, {kDynamic, 1, 3}), tt(DType::f32, {1, 4, 1})},
                                    Attrs{})
                               .dims) == "[?, 4, 3]");
        BOOST_TEST(dims_to_string(
                       infer_op(c.infer, {tt(DType::f32, {kDynamic}), tt(DType::f32, {5})}, Attrs{})
                           .dims) == "[5]");
        BOOST_TEST(dims_to_string(
                       infer_op(c.infer, {tt(DType::f32, {0, 3}), tt(DType::f32, {1, 3})}, Attrs{})
                           .dims) == "[0, 3]");
        // A `?` that turns out wrong at run time is a trap.
        expect_error(
            [&] {
              run_op(c.run,
                     {filled(DType::f32, Dims{3}, {1, 2, 3}), filled(DType::f32, Dims{2}, {1, 2})},
                     Attrs{});
            },
            ErrorKind::trap, "cannot broadcast");
      }
      expect_error(
          [&] {
            run_op(c.run, {filled(DType::f32, Dims{1}, {1}), filled(DType::i32, Dims{1}, {1})},
                   Attrs{});
          },
          ErrorKind::invalid, "operand dtypes differ");
    }
  }
}

BOOST_AUTO_TEST_CASE(precision_rules) {
  auto p = [](InferFn f, DType t, int pa, int pb) {
    return infer_op(f, {tt(t, {4}, pa), tt(t, {1}, pb)}, Attrs{}).precision;
  };
  for (InferFn f : {infer_add, infer_sub, infer_elemwise_add, infer_elemwise_sub}) {
    if (f == infer_elemwise_add || f == infer_elemwise_sub) {
      BOOST_TEST(infer_op(f, {tt(DType::i32, {4}, 8), tt(DType::i32, {4}, 5)}, Attrs{}).precision ==
                 9);
      continue;
    }
    BOOST_TEST(p(f, DType::i32, 8, 5) == 9);
    BOOST_TEST(p(f, DType::i32, 8, 0) == 0);
    BOOST_TEST(p(f, DType::i8, 8, 8) == 9);  // past the dtype: the verifier reports it
  }
  BOOST_TEST(p(infer_mul, DType::i32, 8, 5) == 13);
  BOOST_TEST(p(infer_mul, DType::i64, 40, 40) == 80);
  BOOST_TEST(infer_op(infer_elemwise_mul, {tt(DType::i16, {4}, 3), tt(DType::i16, {4}, 4)}, Attrs{})
                 .precision == 7);
  BOOST_TEST(p(infer_div, DType::i32, 8, 5) == 8);
  BOOST_TEST(p(infer_div, DType::i32, 0, 5) == 0);
  BOOST_TEST(p(infer_maximum, DType::i16, 3, 11) == 11);
  BOOST_TEST(p(infer_minimum, DType::i16, 12, 11) == 12);
  BOOST_TEST(p(infer_minimum, DType::i16, 12, 0) == 0);
  BOOST_TEST(p(infer_add, DType::f32, 0, 0) == 0);
  BOOST_TEST(p(infer_add, DType::u8, 0, 0) == 0);
  BOOST_TEST(p(infer_less, DType::i32, 4, 4) == 0);
  BOOST_TEST(p(infer_logical_or, DType::i32, 4, 4) == 0);
}

BOOST_AUTO_TEST_CASE(where_op) {
  uint64_t seed = 500;
  auto check_where = [&](const Tensor& c, const Tensor& a, const Tensor& b) {
    const Dims shape = ref_broadcast({c.shape(), a.shape(), b.shape()});
    TensorType want = infer_op(infer_where, {type_of(c), type_of(a), type_of(b)}, Attrs{});
    Tensor y = run_op(run_where, {c, a, b}, Attrs{});
    BOOST_TEST(y.dtype() == a.dtype());
    BOOST_TEST(want.dtype == a.dtype());
    BOOST_TEST(dims_to_string(want.dims) == dims_to_string(shape));
    BOOST_REQUIRE(y.shape() == shape);
    int64_t bad = 0;
    const int k = shape.size();
    for_each_index(shape, [&](const int64_t* d) {
      Val w = truth(at_broadcast(c, d, k)) ? at_broadcast(a, d, k) : at_broadcast(b, d, k);
      bad += !close(w, at(y, d), 0);
    });
    BOOST_TEST(bad == 0,
               "where " << c.type_string() << " " << a.type_string() << " " << b.type_string());
  };
  const std::vector<std::array<Dims, 3>> shapes = {
      {Dims{3, 5, 7}, Dims{3, 5, 7}, Dims{3, 5, 7}},
      {Dims{3, 1, 7}, Dims{5, 1}, Dims{1}},
      {Dims{1, 4, 1}, Dims{2, 1, 1}, Dims{1, 1, 6}},
      {Dims{0, 3}, Dims{1, 3}, Dims{3}},
      {Dims{1, 92, 86, 93}, Dims{1, 92, 1, 93}, Dims{86, 1}}};
  for (DType ct : kAll)
    for (DType vt : {DType::f32, DType::i8, DType::i64, DType::boolean, DType::i16})
      for (std::size_t s = 0; s < shapes.size(); ++s) {
        if (s == 4 && ct != DType::boolean) continue;  // the big grid corner once per value type
        Layout l1 = kLayouts[seed % 5], l2 = kLayouts[(seed + 1) % 5],
               l3 = kLayouts[(seed + 3) % 5];
        BOOST_TEST_CONTEXT(dtype_name(ct) << " " << dtype_name(vt) << " shapes " << s) {
          check_where(make_input(ct, shapes[s][0], l1, Fill::specials, seed),
                      make_input(vt, shapes[s][1], l2, Fill::full, seed + 1),
                      make_input(vt, shapes[s][2], l3, Fill::full, seed + 2));
        }
        seed += 3;
      }
  expect_error(
      [&] {
        infer_op(infer_where, {tt(DType::boolean, {3}), tt(DType::f32, {3}), tt(DType::i32, {3})},
                 Attrs{});
      },
      ErrorKind::invalid, "operand dtypes differ");
  expect_error(
      [&] {
        infer_op(infer_where, {tt(DType::boolean, {4}), tt(DType::f32, {3}), tt(DType::f32, {3})},
                 Attrs{});
      },
      ErrorKind::invalid, "where: shape mismatch");
  expect_error(
      [&] {
        infer_op(infer_where,
                 {tt(DType::boolean, {3}), tt(DType::f32, {1}), tt(DType::f32, {2, 4})}, Attrs{});
      },
      ErrorKind::invalid, "cannot broadcast");
  expect_error(
      [&] {
        run_op(run_where,
               {filled(DType::boolean, Dims{3}, {1, 0, 1}), filled(DType::f32, Dims{2}, {1, 2}),
                filled(DType::f32, Dims{1}, {0})},
               Attrs{});
      },
      ErrorKind::trap, "cannot broadcast");
  BOOST_TEST(dims_to_string(infer_op(infer_where,
                                     {tt(DType::boolean, {kDynamic, 1}), tt(DType::f32, {1, 3}),
                                      tt(DType::f32, {1})},
                                     Attrs{})
                                .dims) == "[?, 3]");
  BOOST_TEST(infer_op(infer_where,
                      {tt(DType::i32, {3}, 0), tt(DType::i32, {3}, 5), tt(DType::i32, {3}, 9)},
                      Attrs{})
                 .precision == 9);
  BOOST_TEST(infer_op(infer_where,
                      {tt(DType::boolean, {3}), tt(DType::i32, {3}, 5), tt(DType::i32, {3}, 0)},
                      Attrs{})
                 .precision == 0);
}

BOOST_AUTO_TEST_CASE(donation_and_threads) {
  Tensor a = make_input(DType::f32, Dims{1, 92, 86, 93}, Layout::contiguous, Fill::full, 1);
  Tensor b = make_input(DType::f32, Dims{86, 1}, Layout::contiguous, Fill::full, 2);
  Tensor a_copy = Tensor::empty(DType::f32, a.shape());
  std::memcpy(a_copy.raw_data(), a.raw_data(), size_t(a.numel()) * 4);
  Tensor y = run_op(run_add, {a, b}, Attrs{}, nullptr, 1u);
  BOOST_TEST(y.storage() == a.storage());
  check_binary(binary_cases()[0], a_copy, b);  // sanity of the reference on the same data
  int64_t bad = 0;
  for_each_index(a.shape(), [&](const int64_t* d) {
    bad += at(y, d).f != double(float(at(a_copy, d).f + at_broadcast(b, d, 4).f));
  });
  BOOST_TEST(bad == 0);
  // The same storage read through another layout: not reused.
  Tensor sq = make_input(DType::i32, Dims{6, 6}, Layout::contiguous, Fill::full, 3);
  Tensor tr = sq.with_layout(Dims{6, 6}, Dims{1, 6}, 0);
  Tensor r = run_op(run_add, {sq, tr}, Attrs{}, nullptr, 1u);
  BOOST_TEST(r.storage() != sq.storage());
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j)
      BOOST_TEST(r.data<int32_t>()[i * 6 + j] ==
                 int32_t(wrap_to(DType::i32, __int128(sq.data<int32_t>()[i * 6 + j]) +
                                                 sq.data<int32_t>()[j * 6 + i])));
  // Threads: same results as the reference.
  ThreadPool pool(2);
  for (const BinaryCase& c : binary_cases()) {
    if (c.name == "div") continue;
    check_binary(c, make_input(DType::i32, Dims{1, 53, 52, 47}, Layout::transposed, Fill::full, 8),
                 make_input(DType::i32, Dims{1, 53, 52, 47}, Layout::contiguous, Fill::full, 9),
                 &pool);
    if (c.equal_shapes) continue;
    check_binary(c, make_input(DType::f32, Dims{100001}, Layout::contiguous, Fill::full, 10),
                 make_input(DType::f32, Dims{1}, Layout::contiguous, Fill::full, 11), &pool);
  }
}

BOOST_AUTO_TEST_SUITE_END()
