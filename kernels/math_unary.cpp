// Kernels of the elementwise math ops (docs/ops.md, "Elementwise math and activations"): the
// ONNX unary ops Ceil, Round, Reciprocal, Erf, the trigonometric and hyperbolic functions,
// IsNaN, IsInf and BitwiseNot. Static rules, with the accepted dtypes: ir/infer_math.cpp.
// Float math is the C library's in x's own type (an f32 x is computed in float), except f32
// erf on contiguous runs, which is the SIMD level's (kernels/simd/ew.hpp).
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "ir/elementwise_rules.hpp"
#include "kernels/elementwise_loop.hpp"
#include "kernels/run_table.hpp"
#include "kernels/unary_run.hpp"

namespace mlvm {

namespace {

using namespace ew;

// Round half to even, bit for bit std::nearbyint in the default rounding mode (which mlvm
// never changes), without its library call, which the baseline ISA cannot inline (roundps is
// SSE4.1) and which cost as much as a DynamicQuantizeLinear's other passes together. Below
// 2^(mantissa bits) adding that power lands in the range where the spacing is 1, so the add
// rounds to the nearest integer, ties to even; subtracting it again is exact, and the sign is
// copied back (-0.3 -> -0). Larger values (and infinities) are integers already; NaN + 0 is
// the NaN made quiet, as nearbyint gives it. Branch-free, so the loop vectorizes.
// Contiguous runs take the level's SIMD run of the same formula (kernels/simd/ew.hpp).
struct RoundOp {
  static constexpr simd::UnaryOp kSimd = simd::UnaryOp::round;
  template <class T>
  T operator()(T x) const {
    constexpr T big = T(std::is_same_v<T, float> ? 8388608.0 : 4503599627370496.0);  // 2^23, 2^52
    const T a = std::fabs(x);
    const T r = std::copysign((a + big) - big, x);
    return a < big ? r : x + T(0);
  }
};

// One functor per C library function: MLVM_MATH_OP(CeilOp, std::ceil).
#define MLVM_MATH_OP(Name, fn)     \
  struct Name {                    \
    template <class T>             \
    T operator()(T x) const {      \
      return fn(x);                \
    }                              \
  };
MLVM_MATH_OP(CeilOp, std::ceil)
MLVM_MATH_OP(SinOp, std::sin)
MLVM_MATH_OP(CosOp, std::cos)
MLVM_MATH_OP(TanOp, std::tan)
MLVM_MATH_OP(AsinOp, std::asin)
MLVM_MATH_OP(AcosOp, std::acos)
MLVM_MATH_OP(AtanOp, std::atan)
MLVM_MATH_OP(SinhOp, std::sinh)
MLVM_MATH_OP(CoshOp, std::cosh)
MLVM_MATH_OP(AsinhOp, std::asinh)
MLVM_MATH_OP(AcoshOp, std::acosh)
MLVM_MATH_OP(AtanhOp, std::atanh)
#undef MLVM_MATH_OP

// erf: f32 contiguous runs take the level's SIMD run (kernels/simd/ew.hpp, within kErfMaxUlp).
struct ErfOp {
  static constexpr simd::UnaryOp kSimd = simd::UnaryOp::erf;
  template <class T>
  T operator()(T x) const {
    return std::erf(x);
  }
};

struct ReciprocalOp {
  template <class T>
  T operator()(T x) const {
    return T(1) / x;
  }
};
struct BitwiseNotOp {
  template <class T>
  T operator()(T x) const {
    return T(~x);
  }
};

struct IsNanOp {
  template <class T>
  uint8_t operator()(T x) const {
    return uint8_t(x != x);
  }
};
struct IsInfOp {
  bool positive, negative;
  template <class T>
  uint8_t operator()(T x) const {
    constexpr T inf = std::numeric_limits<T>::infinity();
    return uint8_t((positive && x == inf) || (negative && x == -inf));
  }
};

template <class Op>
void run_float_math(KernelContext& ctx, const char* op) {
  run_same_dtype(ctx, op, kFloats, kFloatOnly, simple_maker<Op, FloatsOnly>());
}

// isnan / isinf: a float x, a bool result.
template <class Op>
void run_float_test(KernelContext& ctx, const char* op, const Op& f) {
  require_inputs(op, ctx.in.size(), 1);
  const Tensor& x = ctx.in[0];
  require_dtype(op, "x", x.dtype(), kFloats, kFloatOnly);
  Tensor y = ctx.output(DType::boolean, x.shape(), -1);
  if (x.dtype() == DType::f32)
    map_tensor<uint8_t, float>(ctx.env.pool, y, x, f);
  else
    map_tensor<uint8_t, double>(ctx.env.pool, y, x, f);
  ctx.out[0] = y;
}

}  // namespace

void run_ceil(KernelContext& ctx) {
  run_float_math<CeilOp>(ctx, "ceil");
}
void run_round(KernelContext& ctx) {
  run_float_math<RoundOp>(ctx, "round");
}
void run_reciprocal(KernelContext& ctx) {
  run_float_math<ReciprocalOp>(ctx, "reciprocal");
}
void run_erf(KernelContext& ctx) {
  run_float_math<ErfOp>(ctx, "erf");
}
void run_sin(KernelContext& ctx) {
  run_float_math<SinOp>(ctx, "sin");
}
void run_cos(KernelContext& ctx) {
  run_float_math<CosOp>(ctx, "cos");
}
void run_tan(KernelContext& ctx) {
  run_float_math<TanOp>(ctx, "tan");
}
void run_asin(KernelContext& ctx) {
  run_float_math<AsinOp>(ctx, "asin");
}
void run_acos(KernelContext& ctx) {
  run_float_math<AcosOp>(ctx, "acos");
}
void run_atan(KernelContext& ctx) {
  run_float_math<AtanOp>(ctx, "atan");
}
void run_sinh(KernelContext& ctx) {
  run_float_math<SinhOp>(ctx, "sinh");
}
void run_cosh(KernelContext& ctx) {
  run_float_math<CoshOp>(ctx, "cosh");
}
void run_asinh(KernelContext& ctx) {
  run_float_math<AsinhOp>(ctx, "asinh");
}
void run_acosh(KernelContext& ctx) {
  run_float_math<AcoshOp>(ctx, "acosh");
}
void run_atanh(KernelContext& ctx) {
  run_float_math<AtanhOp>(ctx, "atanh");
}

void run_isnan(KernelContext& ctx) {
  run_float_test(ctx, "isnan", IsNanOp{});
}
void run_isinf(KernelContext& ctx) {
  const auto& a = ctx.attrs.get<isinf_attrs>();
  run_float_test(ctx, "isinf", IsInfOp{a.detect_positive, a.detect_negative});
}

void run_bitwise_not(KernelContext& ctx) {
  run_same_dtype(ctx, "bitwise_not", kInts, kIntsOnly, simple_maker<BitwiseNotOp, IntsOnly>());
}

}  // namespace mlvm
