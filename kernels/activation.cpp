// Kernels of the ONNX activations (docs/ops.md, "Elementwise math and activations"): softplus,
// softsign, leaky_relu, elu, selu, celu, hard_sigmoid, hard_swish, gelu, thresholded_relu and
// shrink. Static rules, with the accepted dtypes: ir/infer_math.cpp.
//
// Float attributes are rounded to x's dtype first (ONNX stores them as f32, so an f32 graph sees
// the same constants). e^x - 1 is expm1, exact near 0.
// NaN follows each formula as written: a comparison with NaN is false.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ir/elementwise_rules.hpp"
#include "kernels/elementwise_loop.hpp"
#include "kernels/run_table.hpp"
#include "kernels/unary_run.hpp"

namespace mlvm {

namespace {

using namespace ew;

// The smooth activations compute in double and round once (an f32 x too: hard_swish and
// hard_sigmoid near their kinks, and gelu's 1 + erf near -inf, would otherwise lose most of
// their digits to cancellation); the others are one rounding in x's type anyway.
using A = double;

// ln(e^x + 1) without overflow: x + log1p(e^-x) for x > 0, else log1p(e^x).
struct SoftplusOp {
  template <class T>
  T operator()(T x) const {
    const A v = x;
    return T(v > 0 ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v)));
  }
};
struct SoftsignOp {
  template <class T>
  T operator()(T x) const {
    return T(A(x) / (1 + std::fabs(A(x))));
  }
};
struct HardSwishOp {
  template <class T>
  T operator()(T x) const {
    const A v = A(x) / 6 + 0.5;
    return T(A(x) * (v < 0 ? 0 : v > 1 ? 1 : v));
  }
};

template <class T>
struct LeakyReluOp {
  T alpha;
  T operator()(T x) const { return x < T(0) ? alpha * x : x; }
};
template <class T>
struct EluOp {
  T alpha;
  T operator()(T x) const { return x < T(0) ? T(A(alpha) * std::expm1(A(x))) : x; }
};
// gamma * (alpha * e^x - alpha) for x <= 0: + 0 makes x = -0 give +0, as that formula does.
template <class T>
struct SeluOp {
  T alpha, gamma;
  T operator()(T x) const {
    return T(x > T(0) ? A(gamma) * A(x) : A(gamma) * (A(alpha) * std::expm1(A(x))) + 0.0);
  }
};
// max(0, x) + min(0, alpha * (e^(x/alpha) - 1)): for any alpha != 0 the second term is 0 for
// x > 0 and the first is 0 otherwise (+ 0: a zero result is +0, as the sum is).
template <class T>
struct CeluOp {
  T alpha;
  T operator()(T x) const {
    return x > T(0) || x != x ? x : T(A(alpha) * std::expm1(A(x) / A(alpha)) + 0.0);
  }
};
// max(0, min(1, alpha * x + beta)); NaN stays NaN.
template <class T>
struct HardSigmoidOp {
  T alpha, beta;
  T operator()(T x) const {
    const A v = A(alpha) * A(x) + A(beta);
    return T(v < 0 ? 0 : v > 1 ? 1 : v);
  }
};
// x * Phi(x): exact, 0.5 x (1 + erf(x / sqrt 2)), computed as 0.5 x erfc(-x / sqrt 2); or
// ONNX's tanh approximation 0.5 x (1 + tanh(u)), u = sqrt(2 / pi) (x + 0.044715 x^3),
// computed as x / (1 + e^(-2u)). Both forms are the formulas' identities without their
// cancellation for negative x.
template <class T, bool Tanh>
struct GeluOp {
  T operator()(T x) const {
    const A v = x;
    if constexpr (Tanh) {
      const A u = 0.7978845608028654 * (v + 0.044715 * v * v * v);  // sqrt(2 / pi)
      return T(v / (1 + std::exp(-2 * u)));
    } else {
      return T(0.5 * v * std::erfc(v * -0.7071067811865476));  // -1 / sqrt 2
    }
  }
};
template <class T>
using GeluTanhOp = GeluOp<T, true>;
template <class T>
using GeluErfOp = GeluOp<T, false>;
template <class T>
struct ThresholdedReluOp {
  T alpha;
  T operator()(T x) const { return x > alpha ? x : T(0); }
};

// x < -lambd ? x + bias : x > lambd ? x - bias : 0. Integers compute in long double (exact
// for every int64 x) and are then truncated toward zero and saturated to the dtype (NaN: 0).
template <class T>
struct ShrinkOp {
  using W = std::conditional_t<std::is_floating_point_v<T>, T, long double>;
  W bias, lambd;
  T operator()(T x) const {
    const W v = W(x);
    const W r = v < -lambd ? v + bias : v > lambd ? v - bias : W(0);
    if constexpr (std::is_floating_point_v<T>) {
      return r;
    } else {
      if (r != r) return T(0);
      constexpr long double lo = (long double)std::numeric_limits<T>::lowest();
      constexpr long double hi = (long double)std::numeric_limits<T>::max();
      return r <= lo ? std::numeric_limits<T>::lowest() : r >= hi ? std::numeric_limits<T>::max()
                                                                  : T(r);
    }
  }
};

// Runs Op<T>{attribute values...} over a float x.
template <template <class> class Op, class... Args>
void run_float_activation(KernelContext& ctx, const char* op, Args... args) {
  run_same_dtype(ctx, op, kFloats, kFloatOnly, [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    if constexpr (std::is_floating_point_v<T>)
      return Maker<true, Op<T>>{Op<T>{T(args)...}};
    else
      return Maker<false, int>{0};
  });
}

}  // namespace

void run_softplus(KernelContext& ctx) {
  run_same_dtype(ctx, "softplus", kFloats, kFloatOnly, simple_maker<SoftplusOp, FloatsOnly>());
}
void run_softsign(KernelContext& ctx) {
  run_same_dtype(ctx, "softsign", kFloats, kFloatOnly, simple_maker<SoftsignOp, FloatsOnly>());
}
void run_hard_swish(KernelContext& ctx) {
  run_same_dtype(ctx, "hard_swish", kFloats, kFloatOnly, simple_maker<HardSwishOp, FloatsOnly>());
}

void run_leaky_relu(KernelContext& ctx) {
  const auto& a = ctx.attrs.get<leaky_relu_attrs>();
  run_float_activation<LeakyReluOp>(ctx, "leaky_relu", a.alpha.as_double());
}
void run_elu(KernelContext& ctx) {
  const auto& a = ctx.attrs.get<elu_attrs>();
  run_float_activation<EluOp>(ctx, "elu", a.alpha.as_double());
}
void run_selu(KernelContext& ctx) {
  const auto& a = ctx.attrs.get<selu_attrs>();
  run_float_activation<SeluOp>(ctx, "selu", a.alpha.as_double(), a.gamma.as_double());
}
void run_celu(KernelContext& ctx) {
  const auto& a = ctx.attrs.get<celu_attrs>();
  if (a.alpha.as_double() == 0) fail_invalid("celu: alpha is 0; expected a non-zero alpha");
  run_float_activation<CeluOp>(ctx, "celu", a.alpha.as_double());
}
void run_hard_sigmoid(KernelContext& ctx) {
  const auto& a = ctx.attrs.get<hard_sigmoid_attrs>();
  run_float_activation<HardSigmoidOp>(ctx, "hard_sigmoid", a.alpha.as_double(),
                                      a.beta.as_double());
}
void run_thresholded_relu(KernelContext& ctx) {
  const auto& a = ctx.attrs.get<thresholded_relu_attrs>();
  run_float_activation<ThresholdedReluOp>(ctx, "thresholded_relu", a.alpha.as_double());
}

void run_gelu(KernelContext& ctx) {
  if (ctx.attrs.get<gelu_attrs>().approximate == gelu_attrs::approximate_choice::tanh)
    run_float_activation<GeluTanhOp>(ctx, "gelu");
  else
    run_float_activation<GeluErfOp>(ctx, "gelu");
}

void run_shrink(KernelContext& ctx) {
  const auto& a = ctx.attrs.get<shrink_attrs>();
  run_same_dtype(ctx, "shrink", kNumeric, kNoBool, [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    using W = typename ShrinkOp<T>::W;
    return Maker<true, ShrinkOp<T>>{ShrinkOp<T>{W(a.bias.as_double()), W(a.lambd.as_double())}};
  });
}

}  // namespace mlvm
