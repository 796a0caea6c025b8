// Elementwise unary ops (ops.md §3 "Elementwise", seed 000 "Elemwise Operator").
//
// Accepted dtypes (anything else is Error(invalid) at assembly time):
//   abs negative relu sign clip   f32 f64 i8 u8 i16 i32 i64 (not bool: no arithmetic on truth
//                                 values; cast first)
//   exp log sqrt tanh sigmoid     f32 f64
//   cast                          any → any
//   cvm_clip cvm_right_shift
//   cvm_left_shift                i8 i16 i32 i64 (precision is a signed-integer notion)
//   cvm_precision                 i8 u8 i16 i32 i64 (result has the input's dtype)
//   logical_not                   any → bool
// Integer abs/negative wrap (abs(INT_MIN) = INT_MIN), as two's complement does.
#include "kernels/unary.hpp"

#include <bit>
#include <cmath>
#include <limits>

#include "kernels/elementwise_loop.hpp"
#include "ir/precision.hpp"

namespace mlvm {

namespace {

using namespace ew;

const char* const kNoBool = "no arithmetic on bool; cast first";
const char* const kFloatOnly = "defined on floats only; cast first";
const char* const kSignedOnly = "CVM ops work on signed integers";

// ---------------------------------------------------------------------------------------------
// Functors: one per op, applied to a storage value. kSimd names the op's SIMD run
// (kernels/simd/ew.hpp), which computes exactly what operator() computes (exp: within
// simd::kExpMaxUlp); ClipOp has its own SIMD runs.
struct AbsOp {
  static constexpr simd::UnaryOp kSimd = simd::UnaryOp::abs;
  template <class T>
  T operator()(T x) const {
    if constexpr (std::is_floating_point_v<T>)
      return std::fabs(x);
    else if constexpr (std::is_unsigned_v<T>)
      return x;
    else
      return x < 0 ? wrap_sub(T(0), x) : x;
  }
};
struct NegativeOp {
  static constexpr simd::UnaryOp kSimd = simd::UnaryOp::negative;
  template <class T>
  T operator()(T x) const {
    if constexpr (std::is_floating_point_v<T>)
      return -x;
    else
      return wrap_sub(T(0), x);
  }
};
struct ReluOp {
  static constexpr simd::UnaryOp kSimd = simd::UnaryOp::relu;
  // NaN < 0 is false, so NaN passes through (NumPy's maximum(x, 0)).
  template <class T>
  T operator()(T x) const {
    return x < T(0) ? T(0) : x;
  }
};
struct SignOp {
  // Floats: 0, -0 and NaN map to themselves (NumPy).
  template <class T>
  T operator()(T x) const {
    if constexpr (std::is_floating_point_v<T>)
      return x > T(0) ? T(1) : x < T(0) ? T(-1) : x;
    else
      return T(int(x > T(0)) - int(x < T(0)));
  }
};
struct ExpOp {
  static constexpr simd::UnaryOp kSimd = simd::UnaryOp::exp;
  template <class T>
  T operator()(T x) const {
    return std::exp(x);
  }
};
struct LogOp {
  template <class T>
  T operator()(T x) const {
    return std::log(x);
  }
};
struct SqrtOp {
  static constexpr simd::UnaryOp kSimd = simd::UnaryOp::sqrt;
  template <class T>
  T operator()(T x) const {
    return std::sqrt(x);
  }
};
struct TanhOp {
  template <class T>
  T operator()(T x) const {
    return std::tanh(x);
  }
};
struct SigmoidOp {
  template <class T>
  T operator()(T x) const {
    return T(1) / (T(1) + std::exp(-x));
  }
};
template <class T>
struct ClipOp {
  static constexpr bool kSimdClip = true;
  T lo, hi;
  // Written so that NaN passes through (both comparisons are false).
  T operator()(T x) const { return x < lo ? lo : x > hi ? hi : x; }
};
// floor((floor(x / 2^(b-1)) + 1) / 2) on int64, then clipped. With y = x >> (b-1) (an
// arithmetic shift is floor division), floor((y + 1) / 2) = (y >> 1) + (y & 1) cannot overflow
// even for y = INT64_MAX.
template <class T>
struct RightShiftOp {
  int shift;  // b - 1, in [0, 31]
  int64_t alpha;
  T operator()(T x) const {
    const int64_t y = int64_t(x) >> shift;
    const int64_t t = (y >> 1) + (y & 1);
    return T(t < -alpha ? -alpha : t > alpha ? alpha : t);
  }
};
// clip(x * 2^b, -alpha, alpha) without forming an overflowing product: |x| > alpha >> b
// already clips.
template <class T>
struct LeftShiftOp {
  int shift;      // b in [1, 32]
  int64_t alpha;  // min(2^(p-1) - 1, dtype max)
  int64_t limit;  // alpha >> b
  T operator()(T x) const {
    const int64_t v = int64_t(x);
    return T(v > limit ? alpha : v < -limit ? -alpha : v * (int64_t(1) << shift));
  }
};
struct CvmPrecisionOp {
  // ceil(log2(|x| + 1)) is the bit width of |x| (|x| taken in uint64, so INT64_MIN gives 64).
  template <class T>
  T operator()(T x) const {
    const uint64_t a = x < T(0) ? uint64_t(0) - uint64_t(int64_t(x)) : uint64_t(x);
    return x == T(0) ? T(1) : T(std::bit_width(a));
  }
};
struct LogicalNotOp {
  template <class T>
  uint8_t operator()(T x) const {
    return uint8_t(x == T(0));
  }
};

// ---------------------------------------------------------------------------------------------
// Shared rule / kernel shapes.

// y = op(x) elementwise on dtype T, with the op's SIMD run when the level has one for T.
template <class T, class Op>
void map_same_dtype(ThreadPool* pool, const Tensor& y, const Tensor& x, const Op& op) {
  const simd::EwTable& k = simd::ew_kernels();
  const int e = int(dtype_of<T>::value);
  if constexpr (requires { Op::kSimd; }) {
    if (const simd::UnaryRun run = k.unary[int(Op::kSimd)][e])
      return map_tensor_simd<T, T>(pool, y, x, op, [run](std::byte* py, const std::byte* px,
                                                         int64_t n) { run(py, px, n); });
  } else if constexpr (requires { Op::kSimdClip; }) {
    if (const simd::ClipRun run = k.clip[e])
      return map_tensor_simd<T, T>(pool, y, x, op, [&](std::byte* py, const std::byte* px,
                                                       int64_t n) { run(py, px, n, &op.lo, &op.hi); });
  }
  map_tensor<T, T>(pool, y, x, op);
}

// Result like x: same dtype, dims; precision as given.
void infer_like(InferContext& ctx, const char* op, DTypeSet allowed, const char* why,
                int precision) {
  require_inputs(op, ctx.in.size(), 1);
  const TensorType& x = ctx.in[0];
  require_dtype(op, "x", x.dtype, allowed, why);
  set_result(ctx, result_type(x.dtype, x.dims, precision));
}

// Applies functor `make(type_tag<T>)` elementwise with the input's dtype for every T in
// `allowed`; the result has x's dtype.
template <class MakeOp>
void run_same_dtype(KernelContext& ctx, const char* op, DTypeSet allowed, const char* why,
                    MakeOp make) {
  require_inputs(op, ctx.in.size(), 1);
  const Tensor& x = ctx.in[0];
  require_dtype(op, "x", x.dtype(), allowed, why);
  Tensor y = ctx.output(x.dtype(), x.shape(), reuse_candidate(ctx, x.dtype(), x.numel()));
  visit_dtype(x.dtype(), [&](auto tag) {
    using Tag = typename decltype(tag)::type;
    using T = storage_t<Tag>;
    if constexpr (!std::is_same_v<Tag, bool_tag>) {
      if constexpr (decltype(make(tag))::value) {
        map_same_dtype<T>(ctx.env.pool, y, x, make(tag).op);
      }
    }
  });
  ctx.out[0] = y;
}

// What make() returns: an op functor, and whether T is supported at all (so that
// unsupported instantiations are never compiled).
template <bool Ok, class Op>
struct Maker {
  static constexpr bool value = Ok;
  Op op;
};
template <class Op, class Pred>
auto simple_maker() {
  return [](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    return Maker<Pred::template ok<T>, Op>{Op{}};
  };
}
struct AnyNumeric {
  template <class T>
  static constexpr bool ok = true;
};
struct FloatsOnly {
  template <class T>
  static constexpr bool ok = std::is_floating_point_v<T>;
};
struct IntsOnly {
  template <class T>
  static constexpr bool ok = std::is_integral_v<T>;
};
struct SignedIntsOnly {
  template <class T>
  static constexpr bool ok = std::is_integral_v<T>&& std::is_signed_v<T>;
};

int input_precision(const TensorType& x) {
  return is_signed_int(x.dtype) ? x.precision : 0;
}

// ---------------------------------------------------------------------------------------------
// clip bounds (ops.md §1 "Number attributes"): integer tensors need integral bounds, which
// are clamped to the dtype's range; a_min > a_max is an error.
struct ClipBounds {
  int64_t ilo = 0, ihi = 0;  // integer dtypes: clamped bounds
  double flo = 0, fhi = 0;   // float dtypes
};

int64_t clamp_int_bound(const char* name, const Scalar& s, DType dt, int64_t lo, int64_t hi) {
  if (!s.is_float) return s.i < lo ? lo : s.i > hi ? hi : s.i;
  if (std::isnan(s.f)) fail_invalid(std::string("clip: ") + name + " is NaN");
  if (std::isinf(s.f)) return s.f < 0 ? lo : hi;
  if (s.f != std::trunc(s.f))
    fail_invalid(std::string("clip: ") + name + " " + s.to_string() + " is fractional; " +
                 std::string(dtype_name(dt)) + " tensors need integer bounds");
  if (s.f <= double(lo)) return lo;
  if (s.f >= double(hi)) return hi;
  return int64_t(s.f);
}

bool scalar_greater(const Scalar& a, const Scalar& b) {
  if (!a.is_float && !b.is_float) return a.i > b.i;
  auto as_ld = [](const Scalar& s) { return s.is_float ? (long double)s.f : (long double)s.i; };
  return as_ld(a) > as_ld(b);
}

ClipBounds clip_bounds(DType dt, const Scalar& a_min, const Scalar& a_max) {
  if (a_min.is_float && std::isnan(a_min.f)) fail_invalid("clip: a_min is NaN");
  if (a_max.is_float && std::isnan(a_max.f)) fail_invalid("clip: a_max is NaN");
  if (scalar_greater(a_min, a_max))
    fail_invalid("clip: a_min " + a_min.to_string() + " is greater than a_max " +
                 a_max.to_string() + " (expected a_min <= a_max)");
  ClipBounds b;
  if (is_float(dt)) {
    b.flo = a_min.as_double();
    b.fhi = a_max.as_double();
    return b;
  }
  int64_t lo = 0, hi = 0;
  visit_dtype(dt, [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    lo = int64_t(std::numeric_limits<T>::lowest());
    hi = int64_t(std::numeric_limits<T>::max());
  });
  b.ilo = clamp_int_bound("a_min", a_min, dt, lo, hi);
  b.ihi = clamp_int_bound("a_max", a_max, dt, lo, hi);
  return b;
}

// ---------------------------------------------------------------------------------------------
// cvm_* attributes.
int64_t cvm_alpha(int precision) {
  return (int64_t(1) << (precision - 1)) - 1;
}

int checked_int_attr(const char* op, const char* name, int64_t v, int64_t lo, int64_t hi) {
  if (v < lo || v > hi)
    fail_invalid(std::string(op) + ": " + name + " " + std::to_string(v) + " is outside [" +
                 std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return int(v);
}

// The precision attribute as the result's precision: when it exceeds the dtype, the clip
// bound is wider than the dtype and proves nothing beyond the dtype (ops.md §2, as for clip).
int cvm_result_precision(int p, DType dt) {
  return p <= signed_bits(dt) ? p : kUnknownPrecision;
}

// ---------------------------------------------------------------------------------------------
// cast: float→int truncates toward zero and saturates, NaN→0; →bool is x != 0 (NaN is
// non-zero, as in NumPy); int→int wraps (two's complement).
template <class TO, class TI>
TO convert_value(TI x) {
  if constexpr (std::is_floating_point_v<TI> && std::is_integral_v<TO>) {
    const double d = double(x);
    if (d != d) return TO(0);
    constexpr double lo = double(std::numeric_limits<TO>::lowest());
    // 2^bits (unsigned) or 2^(bits-1) (signed): the first value past the range, exact.
    constexpr double past_hi = double(std::numeric_limits<TO>::max() / 2 + 1) * 2.0;
    if (d <= lo) return std::numeric_limits<TO>::lowest();
    if (d >= past_hi) return std::numeric_limits<TO>::max();
    return TO(d);
  } else {
    return TO(x);
  }
}

template <class TO, class TI, bool ToBool>
struct CastOp {
  TO operator()(TI x) const {
    if constexpr (ToBool)
      return TO(x != TI(0));
    else
      return convert_value<TO, TI>(x);
  }
};

}  // namespace

// ---------------------------------------------------------------------------------------------
void infer_abs(InferContext& ctx) {
  infer_like(ctx, "abs", kNumeric, kNoBool, input_precision(ctx.in[0]));
}
void run_abs(KernelContext& ctx) {
  run_same_dtype(ctx, "abs", kNumeric, kNoBool, simple_maker<AbsOp, AnyNumeric>());
}

void infer_negative(InferContext& ctx) {
  infer_like(ctx, "negative", kNumeric, kNoBool, input_precision(ctx.in[0]));
}
void run_negative(KernelContext& ctx) {
  run_same_dtype(ctx, "negative", kNumeric, kNoBool, simple_maker<NegativeOp, AnyNumeric>());
}

void infer_relu(InferContext& ctx) {
  infer_like(ctx, "relu", kNumeric, kNoBool, input_precision(ctx.in[0]));
}
void run_relu(KernelContext& ctx) {
  run_same_dtype(ctx, "relu", kNumeric, kNoBool, simple_maker<ReluOp, AnyNumeric>());
}

// sign's result is in {-1, 0, 1} whatever the input: precision 2 is proven outright.
void infer_sign(InferContext& ctx) {
  infer_like(ctx, "sign", kNumeric, kNoBool, 2);
}
void run_sign(KernelContext& ctx) {
  run_same_dtype(ctx, "sign", kNumeric, kNoBool, simple_maker<SignOp, AnyNumeric>());
}

void infer_exp(InferContext& ctx) {
  infer_like(ctx, "exp", kFloats, kFloatOnly, 0);
}
void run_exp(KernelContext& ctx) {
  run_same_dtype(ctx, "exp", kFloats, kFloatOnly, simple_maker<ExpOp, FloatsOnly>());
}
void infer_log(InferContext& ctx) {
  infer_like(ctx, "log", kFloats, kFloatOnly, 0);
}
void run_log(KernelContext& ctx) {
  run_same_dtype(ctx, "log", kFloats, kFloatOnly, simple_maker<LogOp, FloatsOnly>());
}
void infer_sqrt(InferContext& ctx) {
  infer_like(ctx, "sqrt", kFloats, kFloatOnly, 0);
}
void run_sqrt(KernelContext& ctx) {
  run_same_dtype(ctx, "sqrt", kFloats, kFloatOnly, simple_maker<SqrtOp, FloatsOnly>());
}
void infer_tanh(InferContext& ctx) {
  infer_like(ctx, "tanh", kFloats, kFloatOnly, 0);
}
void run_tanh(KernelContext& ctx) {
  run_same_dtype(ctx, "tanh", kFloats, kFloatOnly, simple_maker<TanhOp, FloatsOnly>());
}
void infer_sigmoid(InferContext& ctx) {
  infer_like(ctx, "sigmoid", kFloats, kFloatOnly, 0);
}
void run_sigmoid(KernelContext& ctx) {
  run_same_dtype(ctx, "sigmoid", kFloats, kFloatOnly, simple_maker<SigmoidOp, FloatsOnly>());
}

// clip: precision of max(|a_min|, |a_max|) (after clamping to the dtype), or p if smaller;
// unknown when that bound does not fit the dtype and p is unknown.
void infer_clip(InferContext& ctx) {
  require_inputs("clip", ctx.in.size(), 1);
  const TensorType& x = ctx.in[0];
  require_dtype("clip", "x", x.dtype, kNumeric, kNoBool);
  ClipBounds b = clip_bounds(x.dtype, ctx.attrs.scalar(0), ctx.attrs.scalar(1));
  int precision = kUnknownPrecision;
  if (is_signed_int(x.dtype)) {
    int q = std::max(precision_of_value(b.ilo), precision_of_value(b.ihi));
    bool q_known = q <= signed_bits(x.dtype);
    if (x.precision != kUnknownPrecision && (!q_known || x.precision < q))
      precision = x.precision;
    else if (q_known)
      precision = q;
  }
  set_result(ctx, result_type(x.dtype, x.dims, precision));
}
void run_clip(KernelContext& ctx) {
  require_inputs("clip", ctx.in.size(), 1);
  DType dt = ctx.in[0].dtype();
  require_dtype("clip", "x", dt, kNumeric, kNoBool);
  ClipBounds b = clip_bounds(dt, ctx.attrs.scalar(0), ctx.attrs.scalar(1));
  run_same_dtype(ctx, "clip", kNumeric, kNoBool, [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    if constexpr (std::is_floating_point_v<T>)
      return Maker<true, ClipOp<T>>{ClipOp<T>{T(b.flo), T(b.fhi)}};
    else
      return Maker<true, ClipOp<T>>{ClipOp<T>{T(b.ilo), T(b.ihi)}};
  });
}

void infer_cast(InferContext& ctx) {
  require_inputs("cast", ctx.in.size(), 1);
  const TensorType& x = ctx.in[0];
  const DType to = ctx.attrs.dtype(0);
  int precision = kUnknownPrecision;
  if (is_signed_int(to)) {
    const int bits = signed_bits(to);
    if (is_signed_int(x.dtype)) {
      if (x.precision != kUnknownPrecision && x.precision > bits) {
        if (ctx.options.precision_check)
          fail_invalid("cast: input precision " + std::to_string(x.precision) + " exceeds " +
                       std::string(dtype_name(to)) + " (" + std::to_string(bits) +
                       " bits); clip or shift first");
      } else {
        precision = x.precision;
      }
    } else if (x.dtype == DType::u8) {
      precision = 9 <= bits ? 9 : kUnknownPrecision;  // u8 -> i8 wraps: nothing proven
    } else if (x.dtype == DType::boolean) {
      precision = 2;
    }
  }
  set_result(ctx, result_type(to, x.dims, precision));
}
void run_cast(KernelContext& ctx) {
  require_inputs("cast", ctx.in.size(), 1);
  const Tensor& x = ctx.in[0];
  const DType to = ctx.attrs.dtype(0);
  Tensor y = ctx.output(to, x.shape(), reuse_candidate(ctx, to, x.numel()));
  visit_dtype(x.dtype(), [&](auto in_tag) {
    using TI = storage_t<typename decltype(in_tag)::type>;
    visit_dtype(to, [&](auto out_tag) {
      using OutTag = typename decltype(out_tag)::type;
      using TO = storage_t<OutTag>;
      map_tensor<TO, TI>(ctx.env.pool, y, x, CastOp<TO, TI, std::is_same_v<OutTag, bool_tag>>{});
    });
  });
  ctx.out[0] = y;
}

void infer_cvm_clip(InferContext& ctx) {
  require_inputs("cvm_clip", ctx.in.size(), 1);
  int p = checked_int_attr("cvm_clip", "precision", ctx.attrs.i(0), 1, 32);
  infer_like(ctx, "cvm_clip", kSignedInts, kSignedOnly, cvm_result_precision(p, ctx.in[0].dtype));
}
void run_cvm_clip(KernelContext& ctx) {
  int p = checked_int_attr("cvm_clip", "precision", ctx.attrs.i(0), 1, 32);
  run_same_dtype(ctx, "cvm_clip", kSignedInts, kSignedOnly, [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    constexpr bool ok = SignedIntsOnly::ok<T>;
    // alpha beyond the dtype clips nothing; clamp it so that it converts to T exactly.
    const int64_t alpha = std::min<int64_t>(cvm_alpha(p), int64_t(std::numeric_limits<T>::max()));
    return Maker<ok, ClipOp<T>>{ClipOp<T>{T(-alpha), T(alpha)}};
  });
}

void infer_cvm_right_shift(InferContext& ctx) {
  require_inputs("cvm_right_shift", ctx.in.size(), 1);
  int p = checked_int_attr("cvm_right_shift", "precision", ctx.attrs.i(0), 1, 32);
  checked_int_attr("cvm_right_shift", "shift_bit", ctx.attrs.i(1), 1, 32);
  infer_like(ctx, "cvm_right_shift", kSignedInts, kSignedOnly,
             cvm_result_precision(p, ctx.in[0].dtype));
}
void run_cvm_right_shift(KernelContext& ctx) {
  int p = checked_int_attr("cvm_right_shift", "precision", ctx.attrs.i(0), 1, 32);
  int b = checked_int_attr("cvm_right_shift", "shift_bit", ctx.attrs.i(1), 1, 32);
  run_same_dtype(ctx, "cvm_right_shift", kSignedInts, kSignedOnly, [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    constexpr bool ok = SignedIntsOnly::ok<T>;
    const int64_t alpha = std::min<int64_t>(cvm_alpha(p), int64_t(std::numeric_limits<T>::max()));
    return Maker<ok, RightShiftOp<T>>{RightShiftOp<T>{b - 1, alpha}};
  });
}

// cvm_left_shift is ARITH: its precision is the attribute even past the dtype, so that the
// verifier reports the possible overflow. At run time the result saturates to the dtype.
void infer_cvm_left_shift(InferContext& ctx) {
  require_inputs("cvm_left_shift", ctx.in.size(), 1);
  int p = checked_int_attr("cvm_left_shift", "precision", ctx.attrs.i(0), 1, 32);
  checked_int_attr("cvm_left_shift", "shift_bit", ctx.attrs.i(1), 1, 32);
  infer_like(ctx, "cvm_left_shift", kSignedInts, kSignedOnly, p);
}
void run_cvm_left_shift(KernelContext& ctx) {
  int p = checked_int_attr("cvm_left_shift", "precision", ctx.attrs.i(0), 1, 32);
  int b = checked_int_attr("cvm_left_shift", "shift_bit", ctx.attrs.i(1), 1, 32);
  run_same_dtype(ctx, "cvm_left_shift", kSignedInts, kSignedOnly, [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    constexpr bool ok = SignedIntsOnly::ok<T>;
    const int64_t alpha = std::min<int64_t>(cvm_alpha(p), int64_t(std::numeric_limits<T>::max()));
    return Maker<ok, LeftShiftOp<T>>{LeftShiftOp<T>{b, alpha, alpha >> b}};
  });
}

// cvm_precision: 7 (ops.md §2) — except an i64 input of unknown precision, which may hold
// INT64_MIN, whose cvm_precision is 64 (precision 8).
void infer_cvm_precision(InferContext& ctx) {
  require_inputs("cvm_precision", ctx.in.size(), 1);
  const TensorType& x = ctx.in[0];
  int p = (x.dtype == DType::i64 && x.precision == kUnknownPrecision) ? 8 : 7;
  infer_like(ctx, "cvm_precision", kInts, "integers only", std::min(p, signed_bits(x.dtype)));
}
void run_cvm_precision(KernelContext& ctx) {
  run_same_dtype(ctx, "cvm_precision", kInts, "integers only",
                 simple_maker<CvmPrecisionOp, IntsOnly>());
}

void infer_logical_not(InferContext& ctx) {
  require_inputs("logical_not", ctx.in.size(), 1);
  set_result(ctx, result_type(DType::boolean, ctx.in[0].dims, 0));
}
void run_logical_not(KernelContext& ctx) {
  require_inputs("logical_not", ctx.in.size(), 1);
  const Tensor& x = ctx.in[0];
  Tensor y = ctx.output(DType::boolean, x.shape(), reuse_candidate(ctx, DType::boolean, x.numel()));
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    map_tensor<uint8_t, T>(ctx.env.pool, y, x, LogicalNotOp{});
  });
  ctx.out[0] = y;
}

}  // namespace mlvm
