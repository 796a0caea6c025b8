// Kernels of the elementwise unary ops (docs/ops.md, "Elementwise unary"); their static rules,
// with the table of accepted dtypes, are in ir/infer_unary.cpp.
// Integer abs/negative wrap (abs(INT_MIN) = INT_MIN), as two's complement does.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "ir/elementwise_rules.hpp"
#include "kernels/elementwise_loop.hpp"
#include "kernels/run_table.hpp"
#include "kernels/small_runs.hpp"
#include "kernels/unary_run.hpp"

namespace mlvm {

namespace {

using namespace ew;

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
struct FloorOp {
  template <class T>
  T operator()(T x) const {
    return std::floor(x);
  }
};
struct TanhOp {
  static constexpr simd::UnaryOp kSimd = simd::UnaryOp::tanh;
  template <class T>
  T operator()(T x) const {
    return std::tanh(x);
  }
};
struct SigmoidOp {
  static constexpr simd::UnaryOp kSimd = simd::UnaryOp::sigmoid;
  template <class T>
  T operator()(T x) const {
    // The same form as the SIMD run (kernels/simd/ew_impl.inl): no overflow of exp(-x).
    const T z = std::exp(-std::fabs(x));
    return x < T(0) ? z / (T(1) + z) : T(1) / (T(1) + z);
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
  static constexpr bool kCvmShiftLeft = false;  // its SIMD runs: simd::EwTable::cvm_right_shift
  int shift;  // b - 1, in [0, 31]
  int64_t lo, hi;
  simd::CvmShift simd_args() const { return {shift, lo, hi, 0, 0}; }
  T operator()(T x) const {
    const int64_t y = int64_t(x) >> shift;
    const int64_t t = (y >> 1) + (y & 1);
    return T(t < lo ? lo : t > hi ? hi : t);
  }
};
// clip(x * 2^b, lo, hi) without forming an overflowing product: x > hi >> b, or
// x < ceil(lo / 2^b) = -((-lo) >> b), already clips.
template <class T>
struct LeftShiftOp {
  static constexpr bool kCvmShiftLeft = true;  // its SIMD runs: simd::EwTable::cvm_left_shift
  int shift;         // b in [1, 32]
  int64_t lo, hi;    // the clip range within the dtype (CvmBounds)
  int64_t lo_limit;  // -((-lo) >> b)
  int64_t hi_limit;  // hi >> b
  simd::CvmShift simd_args() const { return {shift, lo, hi, lo_limit, hi_limit}; }
  T operator()(T x) const {
    const int64_t v = int64_t(x);
    return T(v > hi_limit ? hi : v < lo_limit ? lo : v * (int64_t(1) << shift));
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

// ---------------------------------------------------------------------------------------------
// The CVM ops' attribute ranges (precision and shift_bit in [1, 32]) are checked with the
// attributes (ir/attrs.def). The clip range is [-alpha, alpha], alpha = 2^(p-1) - 1, cut to the
// dtype: a range wider than the dtype leaves every value of the dtype unchanged, its minimum
// included (i8 with precision 12 keeps -128; only p <= 8 clips it to -127).
struct CvmBounds {
  int64_t lo, hi;
};
template <class T>
CvmBounds cvm_bounds_in(int64_t precision) {
  const int64_t alpha = cvm_alpha(precision);
  return {std::max<int64_t>(-alpha, int64_t(std::numeric_limits<T>::min())),
          std::min<int64_t>(alpha, int64_t(std::numeric_limits<T>::max()))};
}

}  // namespace

// ---------------------------------------------------------------------------------------------
void run_abs(KernelContext& ctx) {
  run_same_dtype(ctx, "abs", kNumeric, kNoBool, simple_maker<AbsOp, AnyNumeric>());
}
void run_negative(KernelContext& ctx) {
  run_same_dtype(ctx, "negative", kNumeric, kNoBool, simple_maker<NegativeOp, AnyNumeric>());
}
void run_relu(KernelContext& ctx) {
  run_same_dtype(ctx, "relu", kNumeric, kNoBool, simple_maker<ReluOp, AnyNumeric>());
}
void run_sign(KernelContext& ctx) {
  run_same_dtype(ctx, "sign", kNumeric, kNoBool, simple_maker<SignOp, AnyNumeric>());
}

void run_exp(KernelContext& ctx) {
  run_same_dtype(ctx, "exp", kFloats, kFloatOnly, simple_maker<ExpOp, FloatsOnly>());
}
void run_log(KernelContext& ctx) {
  run_same_dtype(ctx, "log", kFloats, kFloatOnly, simple_maker<LogOp, FloatsOnly>());
}
void run_sqrt(KernelContext& ctx) {
  run_same_dtype(ctx, "sqrt", kFloats, kFloatOnly, simple_maker<SqrtOp, FloatsOnly>());
}
void run_floor(KernelContext& ctx) {
  run_same_dtype(ctx, "floor", kFloats, kFloatOnly, simple_maker<FloorOp, FloatsOnly>());
}
void run_tanh(KernelContext& ctx) {
  run_same_dtype(ctx, "tanh", kFloats, kFloatOnly, simple_maker<TanhOp, FloatsOnly>());
}
void run_sigmoid(KernelContext& ctx) {
  run_same_dtype(ctx, "sigmoid", kFloats, kFloatOnly, simple_maker<SigmoidOp, FloatsOnly>());
}

// The ops above whose functors name a SIMD run, by opcode: what map_same_dtype calls.
std::optional<simd::UnaryOp> unary_simd_op(Opcode op) {
  switch (op) {
    case Opcode::abs:
      return AbsOp::kSimd;
    case Opcode::negative:
      return NegativeOp::kSimd;
    case Opcode::relu:
      return ReluOp::kSimd;
    case Opcode::exp:
      return ExpOp::kSimd;
    case Opcode::sqrt:
      return SqrtOp::kSimd;
    case Opcode::tanh:
      return TanhOp::kSimd;
    case Opcode::sigmoid:
      return SigmoidOp::kSimd;
    default:
      return std::nullopt;
  }
}

void run_clip(KernelContext& ctx) {
  require_inputs("clip", ctx.in.size(), 1);
  DType dt = ctx.in[0].dtype();
  require_dtype("clip", "x", dt, kNumeric, kNoBool);
  const auto& a = ctx.attrs.get<clip_attrs>();
  ClipBounds b = clip_bounds(dt, a.a_min, a.a_max);
  run_same_dtype(ctx, "clip", kNumeric, kNoBool, [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    if constexpr (std::is_floating_point_v<T>)
      return Maker<true, ClipOp<T>>{ClipOp<T>{T(b.flo), T(b.fhi)}};
    else
      return Maker<true, ClipOp<T>>{ClipOp<T>{T(b.ilo), T(b.ihi)}};
  });
}

void run_cast(KernelContext& ctx) {
  require_inputs("cast", ctx.in.size(), 1);
  const Tensor& x = ctx.in[0];
  const DType to = ctx.attrs.get<cast_attrs>().dtype;
  Tensor y = ctx.output(to, x.shape(), reuse_candidate(ctx, to, x.numel()));
  visit_dtype(x.dtype(), [&](auto in_tag) {
    using TI = storage_t<typename decltype(in_tag)::type>;
    visit_dtype(to, [&](auto out_tag) {
      using OutTag = typename decltype(out_tag)::type;
      using TO = storage_t<OutTag>;
      using InTag = typename decltype(in_tag)::type;
      const CastOp<TO, TI, std::is_same_v<OutTag, bool_tag>> op{};
      // Between integer dtypes (the casts of integer programs) with the level's run.
      if constexpr (std::is_integral_v<TI> && std::is_integral_v<TO> && !std::is_same_v<InTag, bool_tag> &&
                    !std::is_same_v<OutTag, bool_tag>) {
        const simd::UnaryRun run = simd::ew_kernels().cast_int[int(dtype_of<TO>::value)][int(dtype_of<TI>::value)];
        return map_tensor_simd<TO, TI>(ctx.env.pool, y, x, op,
                                       [run](std::byte* py, const std::byte* px, int64_t n) { run(py, px, n); });
      }
      // Between f32 and i8, u8, i16, i32 (an int8 program's quantized input, its dequantized
      // float parts) likewise.
      constexpr bool kIntSide = !std::is_same_v<InTag, bool_tag> && !std::is_same_v<OutTag, bool_tag>;
      if constexpr (kIntSide && (std::is_same_v<TI, float> || std::is_same_v<TO, float>)) {
        using TInt = std::conditional_t<std::is_same_v<TI, float>, TO, TI>;
        if constexpr (std::is_integral_v<TInt> && sizeof(TInt) <= 4) {
          const simd::EwTable& t = simd::ew_kernels();
          const int e = int(dtype_of<TInt>::value);
          const simd::UnaryRun run = std::is_same_v<TI, float> ? t.cast_from_f32[e] : t.cast_to_f32[e];
          if (run)
            return map_tensor_simd<TO, TI>(ctx.env.pool, y, x, op,
                                           [run](std::byte* py, const std::byte* px, int64_t n) { run(py, px, n); });
        }
      }
      map_tensor<TO, TI>(ctx.env.pool, y, x, op);
    });
  });
  ctx.out[0] = y;
}

void run_cvm_clip(KernelContext& ctx) {
  const int64_t p = ctx.attrs.get<cvm_clip_attrs>().precision;
  run_same_dtype(ctx, "cvm_clip", kSignedInts, kSignedOnly, [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    constexpr bool ok = SignedIntsOnly::ok<T>;
    const CvmBounds r = cvm_bounds_in<T>(p);
    return Maker<ok, ClipOp<T>>{ClipOp<T>{T(r.lo), T(r.hi)}};
  });
}

void run_cvm_right_shift(KernelContext& ctx) {
  const auto& a = ctx.attrs.get<cvm_shift_attrs>();
  const int b = int(a.shift_bit);
  run_same_dtype(ctx, "cvm_right_shift", kSignedInts, kSignedOnly, [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    constexpr bool ok = SignedIntsOnly::ok<T>;
    const CvmBounds r = cvm_bounds_in<T>(a.precision);
    return Maker<ok, RightShiftOp<T>>{RightShiftOp<T>{b - 1, r.lo, r.hi}};
  });
}

// The result saturates to the dtype (the static rule leaves a precision past the dtype for the
// verifier to report).
void run_cvm_left_shift(KernelContext& ctx) {
  const auto& a = ctx.attrs.get<cvm_shift_attrs>();
  const int b = int(a.shift_bit);
  run_same_dtype(ctx, "cvm_left_shift", kSignedInts, kSignedOnly, [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    constexpr bool ok = SignedIntsOnly::ok<T>;
    const CvmBounds r = cvm_bounds_in<T>(a.precision);
    return Maker<ok, LeftShiftOp<T>>{LeftShiftOp<T>{b, r.lo, r.hi, -((-r.lo) >> b), r.hi >> b}};
  });
}

void run_cvm_precision(KernelContext& ctx) {
  run_same_dtype(ctx, "cvm_precision", kInts, kIntsOnly, simple_maker<CvmPrecisionOp, IntsOnly>());
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
