// The elementwise SIMD runs of one level: the body of ew_avx512.cpp, ew_avx2.cpp and
// ew_sse2.cpp (see kernels/simd/ew.hpp for the interface and ew_vec.inl for the rules).
//
// Two shapes of run:
//   * explicit xsimd loops (four registers per step, optionally with streaming stores) for
//     the float ops and for integer add/sub, whose vector instructions exist at every level;
//   * plain loops for the other integer ops (mul, maximum, minimum, negative, abs, relu,
//     clip), which the compiler vectorizes with this translation unit's instruction set —
//     each level has different native integer instructions (e.g. 64-bit multiply only with
//     AVX-512), and the compiler knows them all.
// Every run computes exactly what the scalar functors in kernels/binary.cpp and unary.cpp
// compute, except exp (ew.hpp: kExpMaxUlp).
#pragma once

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <type_traits>

#include "kernels/simd/ew.hpp"
#include "kernels/simd/ew_exp.inl"
#include "kernels/simd/ew_vec.inl"
#include "kernels/simd/requant_vec.inl"

namespace mlvm::simd::MLVM_SIMD_NS {
namespace {

template <class T>
inline constexpr bool kIsFloat = std::is_floating_point_v<T>;

// ---------------------------------------------------------------------------------------------
// Binary ops: scalar() is the reference semantics, vector() the same on registers; kVector
// says whether vector() exists for T.
struct AddOp {
  template <class T>
  static constexpr bool kVector = true;
  template <class T>
  static T scalar(T a, T b) {
    return wrapping_add(a, b);
  }
  template <class T>
  static V<T> vector(const V<T>& a, const V<T>& b) {
    return a + b;
  }
};
struct SubOp {
  template <class T>
  static constexpr bool kVector = true;
  template <class T>
  static T scalar(T a, T b) {
    return wrapping_sub(a, b);
  }
  template <class T>
  static V<T> vector(const V<T>& a, const V<T>& b) {
    return a - b;
  }
};
struct MulOp {
  template <class T>
  static constexpr bool kVector = kIsFloat<T>;
  template <class T>
  static T scalar(T a, T b) {
    return wrapping_mul(a, b);
  }
  template <class T>
  static V<T> vector(const V<T>& a, const V<T>& b) {
    return a * b;
  }
};
// Floats only: integer division traps and stays in kernels/binary.cpp.
struct DivOp {
  template <class T>
  static constexpr bool kVector = true;
  template <class T>
  static T scalar(T a, T b) {
    return a / b;
  }
  template <class T>
  static V<T> vector(const V<T>& a, const V<T>& b) {
    return a / b;
  }
};
// NaN wins (the first operand when it is NaN); ties keep the first operand.
struct MaximumOp {
  template <class T>
  static constexpr bool kVector = kIsFloat<T>;
  template <class T>
  static T scalar(T a, T b) {
    return (a >= b || a != a) ? a : b;
  }
  template <class T>
  static V<T> vector(const V<T>& a, const V<T>& b) {
    return xsimd::select((a >= b) | xsimd::isnan(a), a, b);
  }
};
struct MinimumOp {
  template <class T>
  static constexpr bool kVector = kIsFloat<T>;
  template <class T>
  static T scalar(T a, T b) {
    return (a <= b || a != a) ? a : b;
  }
  template <class T>
  static V<T> vector(const V<T>& a, const V<T>& b) {
    return xsimd::select((a <= b) | xsimd::isnan(a), a, b);
  }
};

// y[k] = Op(a[k], b[k]); a (Splat::sv) or b (Splat::vs) may be a single element.
template <class T, class Op, Splat S, bool Stream>
void binary_run(void* yv, const void* av, const void* bv, int64_t n) {
  if (n <= 0) return;
  T* y = static_cast<T*>(yv);
  const T* a = static_cast<const T*>(av);
  const T* b = static_cast<const T*>(bv);
  constexpr bool a_splat = S == Splat::sv, b_splat = S == Splat::vs;
  const T sa = a[0], sb = b[0];
  if constexpr (Op::template kVector<T>) {
    constexpr int64_t W = kLanes<T>;
    int64_t k = 0;
    if (n >= W) {  // fewer (the interpreter's scalars) are the tail's alone: no vectors to set up
      const V<T> va(sa), vb(sb);
      auto lhs = [&](int64_t i) { return a_splat ? va : load(a + i); };
      auto rhs = [&](int64_t i) { return b_splat ? vb : load(b + i); };
      auto put = [&](int64_t i, const V<T>& v) {
        if constexpr (Stream)
          stream(y + i, v);
        else
          store(y + i, v);
      };
      if constexpr (Stream) {
        for (const int64_t head = elements_before_aligned(y, n); k < head; ++k)
          y[k] = Op::scalar(a_splat ? sa : a[k], b_splat ? sb : b[k]);
      }
      for (; k + 4 * W <= n; k += 4 * W) {
        const V<T> r0 = Op::template vector<T>(lhs(k), rhs(k));
        const V<T> r1 = Op::template vector<T>(lhs(k + W), rhs(k + W));
        const V<T> r2 = Op::template vector<T>(lhs(k + 2 * W), rhs(k + 2 * W));
        const V<T> r3 = Op::template vector<T>(lhs(k + 3 * W), rhs(k + 3 * W));
        put(k, r0);
        put(k + W, r1);
        put(k + 2 * W, r2);
        put(k + 3 * W, r3);
      }
      for (; k + W <= n; k += W) put(k, Op::template vector<T>(lhs(k), rhs(k)));
    }
    for (; k < n; ++k) y[k] = Op::scalar(a_splat ? sa : a[k], b_splat ? sb : b[k]);
    if constexpr (Stream) stream_fence();
  } else if constexpr (a_splat) {
    MLVM_SIMD_INDEPENDENT
    for (int64_t k = 0; k < n; ++k) y[k] = Op::scalar(sa, b[k]);
  } else if constexpr (b_splat) {
    MLVM_SIMD_INDEPENDENT
    for (int64_t k = 0; k < n; ++k) y[k] = Op::scalar(a[k], sb);
  } else {
    MLVM_SIMD_INDEPENDENT
    for (int64_t k = 0; k < n; ++k) y[k] = Op::scalar(a[k], b[k]);
  }
}

// ---------------------------------------------------------------------------------------------
// Unary ops, same conventions.
struct NegativeOp {
  template <class T>
  static constexpr bool kVector = kIsFloat<T>;
  template <class T>
  static T scalar(T x) {
    if constexpr (kIsFloat<T>)
      return -x;
    else
      return wrapping_sub(T(0), x);
  }
  // Flips the sign bit (xsimd 8.1's AVX-512 negation computes 0 - x, which loses -0).
  template <class T>
  static V<T> vector(const V<T>& x) {
    return x ^ V<T>(T(-0.0));
  }
};
// Integer abs wraps: abs(INT_MIN) = INT_MIN.
struct AbsOp {
  template <class T>
  static constexpr bool kVector = kIsFloat<T>;
  template <class T>
  static T scalar(T x) {
    if constexpr (kIsFloat<T>)
      return sizeof(T) == 4 ? T(__builtin_fabsf(float(x))) : T(__builtin_fabs(double(x)));
    else if constexpr (std::is_unsigned_v<T>)
      return x;
    else
      return x < T(0) ? wrapping_sub(T(0), x) : x;
  }
  // Clears the sign bit.
  template <class T>
  static V<T> vector(const V<T>& x) {
    using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    return x & xsimd::bitwise_cast<V<T>>(V<U>(U(~U(0)) >> 1));
  }
};
// NaN < 0 is false: NaN passes through, and so does -0.
struct ReluOp {
  template <class T>
  static constexpr bool kVector = kIsFloat<T>;
  template <class T>
  static T scalar(T x) {
    return x < T(0) ? T(0) : x;
  }
  template <class T>
  static V<T> vector(const V<T>& x) {
    return xsimd::select(x < V<T>(T(0)), V<T>(T(0)), x);
  }
};
// Floats only (the op is defined on floats); IEEE sqrt is correctly rounded everywhere.
struct SqrtOp {
  template <class T>
  static constexpr bool kVector = true;
  template <class T>
  static T scalar(T x) {
    return sizeof(T) == 4 ? T(__builtin_sqrtf(float(x))) : T(__builtin_sqrt(double(x)));
  }
  template <class T>
  static V<T> vector(const V<T>& x) {
    return xsimd::sqrt(x);
  }
};
// Floats only: round half to even as kernels/math_unary.cpp's RoundOp computes it (the
// add-and-subtract of 2^23 or 2^52 on |x|, x's sign copied back; from that power on, and for
// NaN, x + 0), lane by lane the same operations, so every level gives the scalar bits.
struct RoundOp {
  template <class T>
  static constexpr bool kVector = true;
  template <class T>
  static T big() {
    return T(sizeof(T) == 4 ? 8388608.0 : 4503599627370496.0);
  }
  template <class T>
  static T scalar(T x) {
    const T a = sizeof(T) == 4 ? T(__builtin_fabsf(float(x))) : T(__builtin_fabs(double(x)));
    const T t = (a + big<T>()) - big<T>();
    const T r = sizeof(T) == 4 ? T(__builtin_copysignf(float(t), float(x))) : T(__builtin_copysign(double(t), double(x)));
    return a < big<T>() ? r : x + T(0);
  }
  template <class T>
  static V<T> vector(const V<T>& x) {
    const V<T> a = xsimd::abs(x), b(big<T>());
    return xsimd::select(a < b, xsimd::copysign((a + b) - b, x), x + V<T>(T(0)));
  }
};
// Floats only. The tail goes through the vector code too (via a register-sized buffer), so
// that an element's result does not depend on its position in the run.
struct ExpOp {
  template <class T>
  static constexpr bool kVector = true;
  static constexpr bool kVectorTail = true;
  template <class T>
  static V<T> vector(const V<T>& x) {
    return exp_vector<T>(x);
  }
};

// Floats only. With z = exp(-|x|) (never overflowing): 1 / (1 + z) for x >= 0 and z / (1 + z)
// for x < 0, so results far out on the negative side keep their (subnormal) value instead of
// the 0 that 1 / (1 + exp(-x)) gives once exp(-x) overflows; NaN passes.
struct SigmoidOp {
  template <class T>
  static constexpr bool kVector = true;
  static constexpr bool kVectorTail = true;
  // Registers whose every exp(-|x|) is normal (|x| <= 86 for f32) take the shorter exp: the
  // same bits (kernels/simd/ew_exp.inl). The others (those with a NaN among them) return a
  // NaN x itself, quieted, rather than the NaN of -|x| with its sign flipped: then a silu's
  // x·sigmoid(x) multiplies two equal NaNs and is the same whichever operand the compiler
  // puts first (x86 returns the first one's).
  template <class T>
  static V<T> vector(const V<T>& x) {
    const V<T> a = x | V<T>(T(-0.0));  // -|x|
    auto from = [&](const V<T>& z) {
      const V<T> r = V<T>(T(1)) / (V<T>(T(1)) + z);
      return xsimd::select(x < V<T>(T(0)), z * r, r);
    };
    if (xsimd::all(a >= V<T>(kExpNormalLo<T>))) return from(exp_normal_nonpositive<T>(a));
    return xsimd::select(xsimd::isnan(x), x + x, from(exp_vector<T>(a)));
  }
};
// f32 only (f64 keeps the scalar std::tanh). On a = |x|: below 0.55 the odd Taylor series to
// a^19 (the next term is below 0.01 ulp there); from 0.55 on 1 - 2 / (exp(2a) + 1), which
// loses at most a bit to cancellation and is exactly 1 from about 9 on. x's sign is put back
// last, so -0 stays -0; infinities give +-1 and NaN passes.
struct TanhOp {
  template <class T>
  static constexpr bool kVector = sizeof(T) == 4;
  static constexpr bool kVectorTail = true;
  template <class T>
  static V<T> vector(const V<T>& x) {
    static constexpr T kTaylor[] = {T(-0.00023912911424355248), T(0.000590027440945586),
                                    T(-0.0014558343870513183),  T(0.003592128036572481),
                                    T(-0.008863235529902197),   T(0.021869488536155203),
                                    T(-0.05396825396825397),    T(0.13333333333333333),
                                    T(-0.3333333333333333)};
    const V<T> a = xsimd::abs(x);
    const V<T> a2 = a * a;
    V<T> p(kTaylor[0]);
    for (std::size_t k = 1; k < std::size(kTaylor); ++k) p = fused_mul_add(p, a2, V<T>(kTaylor[k]));
    const V<T> small = fused_mul_add(a * a2, p, a);
    const V<T> big = V<T>(T(1)) - V<T>(T(2)) / (exp_vector<T>(a + a) + V<T>(T(1)));
    return xsimd::select(a < V<T>(T(0.55)), small, big) | (x & V<T>(T(-0.0)));
  }
};

// f32 only (f64 keeps the scalar std::erf). On a = |x|: below 1, erf(a) = a + a·P(a²); from
// 1 on, erf(a) = 1 - exp(-a²)·Q(1/a), Q approximating erfcx (erfc(a)·exp(a²)) on [1, 4]; a is
// clamped to 4, where erf is 1 in f32. P (degree 6) and Q (degree 9) are near-minimax relative
// fits (Lawson's reweighted least squares against mpmath; max relative error 1.2e-9 and
// 1.5e-8), so the result is within kErfMaxUlp. x's sign is put back last: -0 stays -0,
// infinities give +-1, and NaN passes (as x + x).
struct ErfOp {
  template <class T>
  static constexpr bool kVector = sizeof(T) == 4;
  static constexpr bool kVectorTail = true;
  template <class T>
  static V<T> vector(const V<T>& x) {
    static constexpr T kP[] = {T(7.854026625864208e-05), T(-0.0008010247838683426), T(0.005188334733247757),
                               T(-0.026853816583752632), T(0.1128358542919159),     T(-0.3761262595653534),
                               T(0.12837916612625122)};
    static constexpr T kQ[] = {T(0.030714070424437523), T(-0.17971323430538177), T(0.43824097514152527),
                               T(-0.5369493365287781),  T(0.23833419382572174),  T(0.2303950935602188),
                               T(-0.37586310505867004), T(0.020535847172141075), T(0.5617679357528687),
                               T(0.00012107826478313655)};
    const V<T> a = xsimd::abs(x);
    const V<T> a2 = a * a;
    V<T> p(kP[0]);
    for (std::size_t k = 1; k < std::size(kP); ++k) p = fused_mul_add(p, a2, V<T>(kP[k]));
    const V<T> small = fused_mul_add(a, p, a);
    const V<T> c = xsimd::min(xsimd::max(a, V<T>(T(1))), V<T>(T(4)));  // NaN: some value in [1, 4]
    const V<T> r = V<T>(T(1)) / c;
    V<T> q(kQ[0]);
    for (std::size_t k = 1; k < std::size(kQ); ++k) q = fused_mul_add(q, r, V<T>(kQ[k]));
    const V<T> big = fused_neg_mul_add(exp_vector<T>(-(c * c)), q, V<T>(T(1)));
    const V<T> y = xsimd::select(a < V<T>(T(1)), small, big) | (x & V<T>(T(-0.0)));
    return xsimd::select(xsimd::isnan(x), x + x, y);
  }
};

template <class Op>
constexpr bool vector_tail() {
  if constexpr (requires { Op::kVectorTail; })
    return Op::kVectorTail;
  else
    return false;
}

template <class T, class Op>
void unary_run(void* yv, const void* xv, int64_t n) {
  if (n <= 0) return;
  T* y = static_cast<T*>(yv);
  const T* x = static_cast<const T*>(xv);
  if constexpr (Op::template kVector<T>) {
    constexpr int64_t W = kLanes<T>;
    int64_t k = 0;
    for (; k + 4 * W <= n; k += 4 * W) {
      const V<T> r0 = Op::template vector<T>(load(x + k));
      const V<T> r1 = Op::template vector<T>(load(x + k + W));
      const V<T> r2 = Op::template vector<T>(load(x + k + 2 * W));
      const V<T> r3 = Op::template vector<T>(load(x + k + 3 * W));
      store(y + k, r0);
      store(y + k + W, r1);
      store(y + k + 2 * W, r2);
      store(y + k + 3 * W, r3);
    }
    for (; k + W <= n; k += W) store(y + k, Op::template vector<T>(load(x + k)));
    if (k == n) return;
    if constexpr (vector_tail<Op>()) {
      T buf[W] = {};
      for (int64_t j = 0; j < n - k; ++j) buf[j] = x[k + j];
      store(buf, Op::template vector<T>(load(buf)));
      for (int64_t j = 0; j < n - k; ++j) y[k + j] = buf[j];
    } else {
      for (; k < n; ++k) y[k] = Op::scalar(x[k]);
    }
  } else {
    MLVM_SIMD_INDEPENDENT
    for (int64_t k = 0; k < n; ++k) y[k] = Op::scalar(x[k]);
  }
}

// x < lo ? lo : x > hi ? hi : x — NaN fails both comparisons and passes through.
template <class T>
void clip_run(void* yv, const void* xv, int64_t n, const void* lov, const void* hiv) {
  if (n <= 0) return;
  T* y = static_cast<T*>(yv);
  const T* x = static_cast<const T*>(xv);
  const T lo = *static_cast<const T*>(lov), hi = *static_cast<const T*>(hiv);
  int64_t k = 0;
  if constexpr (kIsFloat<T>) {
    constexpr int64_t W = kLanes<T>;
    const V<T> vlo(lo), vhi(hi);
    auto clip = [&](const V<T>& v) { return clip_lanes(v, vlo, vhi); };
    for (; k + 2 * W <= n; k += 2 * W) {
      const V<T> r0 = clip(load(x + k));
      const V<T> r1 = clip(load(x + k + W));
      store(y + k, r0);
      store(y + k + W, r1);
    }
    for (; k + W <= n; k += W) store(y + k, clip(load(x + k)));
  }
  MLVM_SIMD_INDEPENDENT
  for (int64_t j = k; j < n; ++j) y[j] = x[j] < lo ? lo : x[j] > hi ? hi : x[j];
}

// The fused activations' runs (leaky_relu, hardswish, silu) continue this body there.
#include "kernels/simd/ew_fused_runs.inl"
// The integer requantization runs (cvm shifts, lookup tables) likewise.
#include "kernels/simd/ew_int_runs.inl"
#include "kernels/simd/ew_requant_run.inl"

// ---------------------------------------------------------------------------------------------
// The table.
template <class T>
constexpr Elem elem_of() {
  if constexpr (std::is_same_v<T, float>) return Elem::f32;
  if constexpr (std::is_same_v<T, double>) return Elem::f64;
  if constexpr (std::is_same_v<T, int8_t>) return Elem::i8;
  if constexpr (std::is_same_v<T, uint8_t>) return Elem::u8;
  if constexpr (std::is_same_v<T, int16_t>) return Elem::i16;
  if constexpr (std::is_same_v<T, int32_t>) return Elem::i32;
  return Elem::i64;
}

template <class T, class Op>
void set_binary(EwTable& t, BinaryOp op) {
  BinaryRun(&runs)[kNumSplats][2] = t.binary[int(op)][int(elem_of<T>())];
  runs[int(Splat::vv)][0] = binary_run<T, Op, Splat::vv, false>;
  runs[int(Splat::vs)][0] = binary_run<T, Op, Splat::vs, false>;
  runs[int(Splat::sv)][0] = binary_run<T, Op, Splat::sv, false>;
  if constexpr (Op::template kVector<T>) {
    runs[int(Splat::vv)][1] = binary_run<T, Op, Splat::vv, true>;
    runs[int(Splat::vs)][1] = binary_run<T, Op, Splat::vs, true>;
    runs[int(Splat::sv)][1] = binary_run<T, Op, Splat::sv, true>;
  } else {  // no streaming form: the plain loop serves both
    for (int s = 0; s < kNumSplats; ++s) runs[s][1] = runs[s][0];
  }
}

template <class T>
void set_all_types(EwTable& t) {
  set_binary<T, AddOp>(t, BinaryOp::add);
  set_binary<T, SubOp>(t, BinaryOp::sub);
  set_binary<T, MulOp>(t, BinaryOp::mul);
  if constexpr (kIsFloat<T>) set_binary<T, DivOp>(t, BinaryOp::div);
  set_binary<T, MaximumOp>(t, BinaryOp::maximum);
  set_binary<T, MinimumOp>(t, BinaryOp::minimum);
  UnaryRun(&unary)[kNumUnaryOps][kNumElems] = t.unary;
  const int e = int(elem_of<T>());
  unary[int(UnaryOp::negative)][e] = unary_run<T, NegativeOp>;
  unary[int(UnaryOp::abs)][e] = unary_run<T, AbsOp>;
  unary[int(UnaryOp::relu)][e] = unary_run<T, ReluOp>;
  if constexpr (kIsFloat<T>) {
    unary[int(UnaryOp::sqrt)][e] = unary_run<T, SqrtOp>;
    unary[int(UnaryOp::exp)][e] = unary_run<T, ExpOp>;
    unary[int(UnaryOp::sigmoid)][e] = unary_run<T, SigmoidOp>;
    unary[int(UnaryOp::round)][e] = unary_run<T, RoundOp>;
    if constexpr (sizeof(T) == 4) unary[int(UnaryOp::tanh)][e] = unary_run<T, TanhOp>;
    if constexpr (sizeof(T) == 4) unary[int(UnaryOp::erf)][e] = unary_run<T, ErfOp>;
  }
  t.clip[e] = clip_run<T>;
  if constexpr (std::is_signed_v<T> && !kIsFloat<T>) {
    t.cvm_right_shift[e] = cvm_right_shift_run<T>;
    t.cvm_left_shift[e] = cvm_left_shift_run<T>;
  }
}

#include "kernels/simd/ew_casts.inl"

EwTable make_table() {
  EwTable t;
  set_all_types<float>(t);
  set_all_types<double>(t);
  set_all_types<int8_t>(t);
  set_all_types<uint8_t>(t);
  set_all_types<int16_t>(t);
  set_all_types<int32_t>(t);
  set_all_types<int64_t>(t);
  t.silu_f32[0] = silu_run<false>;
  t.silu_f32[1] = silu_run<true>;
  t.leaky_f32 = leaky_run;
  t.hardswish_f32 = hardswish_run;
  t.hardswish_tail_f32[0] = hardswish_tail_run<1>;
  t.hardswish_tail_f32[1] = hardswish_tail_run<2>;
  t.lut32 = lut32_run;
  set_casts_to<int8_t>(t);
  set_casts_to<uint8_t>(t);
  set_casts_to<int16_t>(t);
  set_casts_to<int32_t>(t);
  set_casts_to<int64_t>(t);
  set_f32_casts<int8_t>(t);
  set_f32_casts<uint8_t>(t);
  set_f32_casts<int16_t>(t);
  set_f32_casts<int32_t>(t);
#if MLVM_SIMD_BYTES >= 32
  t.requant_rows_i32 = requant_rows;
  t.requant_i32 = requant_run;  // SSE2 (no 32-bit min, max or multiply) keeps the step-by-step runs
#endif
  return t;
}

}  // namespace

const EwTable& ew_table() {
  static const EwTable table = make_table();
  return table;
}

}  // namespace mlvm::simd::MLVM_SIMD_NS
