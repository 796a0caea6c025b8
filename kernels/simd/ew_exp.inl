// exp on SIMD registers, for ew_impl.inl (same inclusion rules as ew_vec.inl).
//
// exp(x) = 2^n * exp(r), n = round(x / ln2), r = x - n*ln2 in [-ln2/2, ln2/2], with ln2 split
// in two (Cody-Waite) so that n*ln2_hi is exact. exp(r) is its Taylor polynomial, to degree 7
// (f32) or 13 (f64): the truncation error is below 0.1 ulp, so the result is within about
// 1 ulp of the correctly rounded value (tests check kExpMaxUlp over every f32 input).
//
// 2^n is applied as two factors 2^n1 * 2^n2 (n1 + n2 = n, each a normal power of two), so
// the product rounds once: results in the subnormal range come out as accurate as the
// normal ones, and results past the largest float overflow to +inf. x is clamped to a range
// whose ends already give 0 and +inf, which also takes care of -inf and +inf; NaN passes.
#pragma once

#include "kernels/simd/ew_vec.inl"

namespace mlvm::simd::MLVM_SIMD_NS {
namespace {

template <class T>
struct ExpConstants;

template <>
struct ExpConstants<float> {
  using Int = int32_t;
  static constexpr float lo = -104.0f;  // exp(-104) < smallest subnormal / 2: rounds to 0
  static constexpr float hi = 89.0f;    // exp(89) > largest float: overflows to inf
  static constexpr float log2e = 1.44269504088896341f;
  static constexpr float ln2_hi = 0.693359375f;  // 9 significant bits: n * ln2_hi is exact
  static constexpr float ln2_lo = -2.12194440e-4f;  // ln2 - ln2_hi
  static constexpr float round_magic = 12582912.0f;  // 1.5 * 2^23: x + m - m rounds to integer
  static constexpr int mantissa_bits = 23;
  static constexpr int bias = 127;
  static constexpr int degree = 7;
};

template <>
struct ExpConstants<double> {
  using Int = int64_t;
  static constexpr double lo = -746.0;
  static constexpr double hi = 710.0;
  static constexpr double log2e = 1.44269504088896340736;
  static constexpr double ln2_hi = 6.93147180369123816490e-01;  // 32 significant bits
  static constexpr double ln2_lo = 1.90821492927058770002e-10;  // ln2 - ln2_hi
  static constexpr double round_magic = 6755399441055744.0;     // 1.5 * 2^52
  static constexpr int mantissa_bits = 52;
  static constexpr int bias = 1023;
  static constexpr int degree = 13;
};

// Round-to-nearest of an integer-valued-range float (|x| < 2^22 for f32). AVX-512 has it as
// one instruction with the same rounding (to nearest, ties to even) as the magic-number pair.
template <class T>
inline V<T> round_to_integer(const V<T>& x) {
#if MLVM_SIMD_BYTES == 64
  constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  if constexpr (sizeof(T) == 4) return V<T>(_mm512_roundscale_ps(x, kNearest));
  else return V<T>(_mm512_roundscale_pd(x, kNearest));
#else
  const V<T> magic(ExpConstants<T>::round_magic);
  return (x + magic) - magic;
#endif
}

// 2^k for integer-valued k with k + bias in [1, 2 * bias]: the biased exponent is read off
// the low bits of k + bias + magic and shifted into the exponent field (the magic's own bits
// are shifted out).
template <class T>
inline V<T> power_of_two(const V<T>& k) {
  using C = ExpConstants<T>;
  using I = typename C::Int;
  const V<T> t = k + V<T>(T(C::bias) + C::round_magic);
  const V<I> bits = xsimd::bitwise_cast<V<I>>(t) << C::mantissa_bits;
  return xsimd::bitwise_cast<V<T>>(bits);
}

// p·2^k for integer-valued k as power_of_two allows: p times that power, or at AVX-512 one
// scalef, which rounds the same exact product the same way (once, to nearest).
template <class T>
inline V<T> times_power_of_two(const V<T>& p, const V<T>& k) {
#if MLVM_SIMD_BYTES == 64
  if constexpr (sizeof(T) == 4) return V<T>(_mm512_scalef_ps(p, k));
  else return V<T>(_mm512_scalef_pd(p, k));
#else
  return p * power_of_two<T>(k);
#endif
}

// exp(x) = p·2^n with n = round(x / ln2) (returned in n) and p = exp(x - n·ln2) by its Taylor
// polynomial: the part exp_vector and exp_normal_nonpositive share, for x inside [lo, hi].
template <class T>
inline V<T> exp_reduced(const V<T>& x, V<T>& n) {
  using C = ExpConstants<T>;
  n = round_to_integer<T>(x * V<T>(C::log2e));
  V<T> r = fused_mul_add(-n, V<T>(C::ln2_hi), x);
  r = fused_mul_add(-n, V<T>(C::ln2_lo), r);
  // Taylor coefficients 1/k!, highest first.
  T coef[C::degree + 1];
  T factorial = 1;
  for (int k = 0; k <= C::degree; ++k) {
    if (k > 0) factorial *= T(k);
    coef[C::degree - k] = T(1) / factorial;
  }
  V<T> p(coef[0]);
  for (int k = 1; k <= C::degree; ++k) p = fused_mul_add(p, r, V<T>(coef[k]));
  return p;
}

template <class T>
inline V<T> exp_vector(const V<T>& x) {
  using C = ExpConstants<T>;
  const V<T> xc = xsimd::min(xsimd::max(x, V<T>(C::lo)), V<T>(C::hi));
  V<T> n;
  const V<T> p = exp_reduced<T>(xc, n);
  const V<T> n1 = round_to_integer<T>(n * V<T>(T(0.5)));
  const V<T> n2 = n - n1;
  const V<T> y = times_power_of_two<T>(times_power_of_two<T>(p, n1), n2);
  return xsimd::select(xsimd::isnan(x), x + x, y);  // x + x: a quiet NaN, as libm returns
}

// exp(x) for x in [kExpNormalLo, 0], where every result is a normal number: exp_vector without
// the clamp and the NaN check, and with 2^n as one factor (exp_vector's two products are then
// both exact, so the bits are the same). The sigmoid's exp(-|x|) is here for all but |x| > 86.
template <class T>
inline constexpr T kExpNormalLo = sizeof(T) == 4 ? T(-86.0) : T(-700.0);

template <class T>
inline V<T> exp_normal_nonpositive(const V<T>& x) {
  V<T> n;
  const V<T> p = exp_reduced<T>(x, n);
  return times_power_of_two<T>(p, n);
}

template <class T>
inline T exp_scalar(T x) {
  if constexpr (sizeof(T) == 4)
    return __builtin_expf(x);
  else
    return __builtin_exp(x);
}

}  // namespace
}  // namespace mlvm::simd::MLVM_SIMD_NS
