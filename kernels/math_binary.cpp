// Kernels of the elementwise binary math ops pow, mod and prelu (docs/ops.md, "Elementwise
// binary math and bitwise ops"); static rules and accepted dtypes: ir/infer_math_binary.cpp.
//
// pow: a float a is raised in its own type (b converted to it); an integer a with an integer b
// is the exact power by squaring, wrapping in a's dtype, and with a negative b it is 1 / a^-b
// truncated (1 for a = 1, +-1 for a = -1, else 0); an integer a with a float b is
// pow(double(a), double(b)) truncated toward zero, saturated to a's dtype (NaN: 0), as cast.
// mod: integer modulo by zero traps (as integer div); MIN mod -1 is 0.
// prelu: an integer slope * x wraps, as mul.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "ir/elementwise_rules.hpp"
#include "kernels/binary_run.hpp"
#include "kernels/broadcast.hpp"
#include "kernels/elementwise_loop.hpp"
#include "kernels/run_table.hpp"

namespace mlvm {

namespace {

using namespace ew;

// ---------------------------------------------------------------------------------------------
// pow
template <class TA, class TB>
struct PowOp {
  TA operator()(TA a, TB b) const {
    if constexpr (std::is_floating_point_v<TA>) {
      return std::pow(a, TA(b));
    } else if constexpr (std::is_floating_point_v<TB>) {
      const double r = std::pow(double(a), double(b));
      constexpr double lo = double(std::numeric_limits<TA>::lowest());
      constexpr double past_hi = double(std::numeric_limits<TA>::max() / 2 + 1) * 2.0;
      if (r != r) return TA(0);
      if (r <= lo) return std::numeric_limits<TA>::lowest();
      if (r >= past_hi) return std::numeric_limits<TA>::max();
      return TA(r);
    } else {
      if constexpr (std::is_signed_v<TB>) {
        if (b < TB(0)) {
          if (a == TA(1)) return TA(1);
          if constexpr (std::is_signed_v<TA>)
            if (a == TA(-1)) return (uint64_t(int64_t(b)) & 1u) ? TA(-1) : TA(1);
          return TA(0);
        }
      }
      using W = wide_unsigned_t<TA>;
      W base = W(a), r = 1;
      for (uint64_t e = uint64_t(b); e != 0; e >>= 1) {
        if (e & 1u) r = W(r * base);
        base = W(base * base);
      }
      return TA(r);
    }
  }
};

// y[k] = f(a[k], b[k]) with a and b of different element types, any byte strides.
template <class TA, class TB, class F>
void zip_mixed_run(std::byte* y, const std::byte* a, const std::byte* b, int64_t n, int64_t sy,
                   int64_t sa, int64_t sb, const F& f) {
  if (sy == int64_t(sizeof(TA)) && sa == int64_t(sizeof(TA)) && sb == int64_t(sizeof(TB))) {
    TA* py = reinterpret_cast<TA*>(y);
    const TA* pa = reinterpret_cast<const TA*>(a);
    const TB* pb = reinterpret_cast<const TB*>(b);
    for (int64_t k = 0; k < n; ++k) py[k] = f(pa[k], pb[k]);
  } else {
    for (int64_t k = 0; k < n; ++k, y += sy, a += sa, b += sb)
      store<TA>(y, f(load<TA>(a), load<TB>(b)));
  }
}

// ---------------------------------------------------------------------------------------------
// mod. Python's % (the result has the divisor's sign; NumPy's remainder for floats, a zero
// result taking b's sign), or with Fmod C's fmod / % (the dividend's sign).
template <bool Fmod>
struct ModOp {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      T r = std::fmod(a, b);
      if constexpr (!Fmod) {
        if (r != T(0)) {
          if ((b < T(0)) != (r < T(0))) r += b;
        } else {
          r = std::copysign(T(0), b);
        }
      }
      return r;
    } else {
      if (b == T(0)) [[unlikely]]
        fail_trap("integer modulo by zero: " + std::to_string(int64_t(a)) + " mod 0");
      if constexpr (std::is_signed_v<T>) {
        if (b == T(-1)) return T(0);  // MIN % -1 overflows in C
        T r = T(a % b);
        if (!Fmod && r != T(0) && ((r < T(0)) != (b < T(0)))) r = T(r + b);
        return r;
      } else {
        return T(a % b);
      }
    }
  }
};

// ---------------------------------------------------------------------------------------------
// prelu
struct PreluOp {
  template <class T>
  T operator()(T x, T slope) const {
    return x < T(0) ? wrap_mul(slope, x) : x;
  }
};

inline constexpr BinarySpec kPrelu{"prelu", kPreluTypes, kPreluWhy, false, false,
                                   PrecisionRule::none};

// Whether pow(a, b) is a float a raised to one exponent b that converts to exactly 2: then
// each result is a·a, the one rounding of the exact square that pow also returns (the square
// of a float fits its double, and of a double, pow is correctly rounded here).
bool pow_squares(const Tensor& a, const Tensor& b) {
  if ((a.dtype() != DType::f32 && a.dtype() != DType::f64) || b.numel() != 1) return false;
  bool two = false;
  visit_dtype(b.dtype(), [&](auto tag) {
    using Tag = typename decltype(tag)::type;
    using TB = storage_t<Tag>;
    if constexpr (!std::is_same_v<Tag, bool_tag>) {
      const TB v = *b.template data<TB>();
      two = a.dtype() == DType::f32 ? float(v) == 2.0f : double(v) == 2.0;
    }
  });
  return two;
}

}  // namespace

void run_pow(KernelContext& ctx) {
  require_inputs("pow", ctx.in.size(), 2);
  require_dtype("pow", "a", ctx.in[0].dtype(), kNumeric, kNoBool);
  require_dtype("pow", "b", ctx.in[1].dtype(), kNumeric, kNoBool);
  const Dims shape =
      with_op_name("pow", [&] { return broadcast_shapes(ctx.in[0].shape(), ctx.in[1].shape()); });
  const Tensor a = broadcast_view(ctx.in[0], shape);
  const Tensor b = broadcast_view(ctx.in[1], shape);
  Tensor y = ctx.output(a.dtype(), shape, reuse_candidate(ctx, a.dtype(), checked_numel(shape)));
  if (pow_squares(ctx.in[0], ctx.in[1])) {  // layer norm's (x - mean) ^ 2, at multiply speed
    if (a.dtype() == DType::f32)
      map_tensor<float, float>(ctx.env.pool, y, a, [](float v) { return v * v; });
    else
      map_tensor<double, double>(ctx.env.pool, y, a, [](double v) { return v * v; });
    ctx.out[0] = y;
    return;
  }
  visit_dtype(a.dtype(), [&](auto atag) {
    using TagA = typename decltype(atag)::type;
    using TA = storage_t<TagA>;
    visit_dtype(b.dtype(), [&](auto btag) {
      using TagB = typename decltype(btag)::type;
      using TB = storage_t<TagB>;
      if constexpr (!std::is_same_v<TagA, bool_tag> && !std::is_same_v<TagB, bool_tag>) {
        for_each_run_parallel<3>(ctx.env.pool, shape, {&y, &a, &b},
                                 [&](auto p, int64_t n, auto st) {
                                   zip_mixed_run<TA, TB>(p[0], p[1], p[2], n, st[0], st[1], st[2],
                                                         PowOp<TA, TB>{});
                                 });
      }
    });
  });
  ctx.out[0] = y;
}

void run_mod(KernelContext& ctx) {
  if (ctx.attrs.get<mod_attrs>().fmod)
    run_binary<ModOp<true>>(ctx, kMod);
  else
    run_binary<ModOp<false>>(ctx, kMod);
}

void run_prelu(KernelContext& ctx) {
  run_binary<PreluOp>(ctx, kPrelu);
}

}  // namespace mlvm
