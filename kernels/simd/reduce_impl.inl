// The reduction SIMD runs of one level: the body of reduce_avx512.cpp, reduce_avx2.cpp and
// reduce_sse2.cpp (interface and result rules: kernels/simd/reduce.hpp; inclusion rules:
// kernels/simd/ew_vec.inl).
//
// Explicit xsimd loops, with four independent accumulator registers so that the adds and
// compares overlap instead of waiting on one another, serve the float ops and the integer
// sums (vector add exists for every integer width at every level). Integer max and min are
// plain loops the compiler vectorizes with this unit's instruction set.
#pragma once

#include "kernels/simd/ew_vec.inl"
#include "kernels/simd/reduce.hpp"

namespace mlvm::simd::MLVM_SIMD_NS {
namespace {

template <class T>
inline constexpr bool kFloat = std::is_floating_point_v<T>;

// Scalar semantics, as in kernels/reduce.cpp: NaN sticks (x > NaN is false; a NaN x
// replaces acc); on ties acc stays.
template <class T>
inline T max_combine(T acc, T x) {
  return (x > acc || x != x) ? x : acc;
}
template <class T>
inline T min_combine(T acc, T x) {
  return (x < acc || x != x) ? x : acc;
}
template <class T>
inline constexpr T highest() {
  if constexpr (kFloat<T>) {
    return T(__builtin_inf());
  } else {
    using U = std::make_unsigned_t<T>;
    return std::is_signed_v<T> ? T(U(~U(0)) >> 1) : T(~U(0));
  }
}
template <class T>
inline constexpr T lowest() {
  if constexpr (kFloat<T>)
    return T(-__builtin_inf());
  else
    return std::is_signed_v<T> ? T(-highest<T>() - 1) : T(0);
}
template <class T>
inline T max_identity() {
  return lowest<T>();
}
template <class T>
inline T min_identity() {
  return highest<T>();
}

// ---------------------------------------------------------------------------------------------
// Sums.

// Lane-wise sums of n contiguous elements, n a multiple of 4 registers: blocks of at most
// kSumBlock elements go through 4 accumulator registers, and blocks are combined pairwise
// (register + register), so each lane's error grows with log2 of the block count, not with n.
template <class T>
V<T> sum_lanes(const T* x, int64_t n) {
  constexpr int64_t step = 4 * kLanes<T>;
  if (n > kSumBlock) {
    const int64_t half = (n / 2) / step * step;
    return sum_lanes(x, half) + sum_lanes(x + half, n - half);
  }
  constexpr int64_t W = kLanes<T>;
  V<T> a0(T(0)), a1(T(0)), a2(T(0)), a3(T(0));
  for (int64_t k = 0; k < n; k += step) {
    a0 += load(x + k);
    a1 += load(x + k + W);
    a2 += load(x + k + 2 * W);
    a3 += load(x + k + 3 * W);
  }
  return (a0 + a1) + (a2 + a3);
}

// The lanes added as a balanced tree, then the fewer than 4 registers' worth of leftovers.
template <class T>
T sum_pairwise(const T* x, int64_t n) {
  constexpr int64_t W = kLanes<T>;
  const int64_t body = n / (4 * W) * (4 * W);
  T r = T(0);
  if (body > 0) {
    T lanes[W];
    store(lanes, sum_lanes(x, body));
    for (int64_t w = W / 2; w >= 1; w /= 2)
      for (int64_t j = 0; j < w; ++j) lanes[j] += lanes[j + w];
    r = lanes[0];
  }
  for (int64_t k = body; k < n; ++k) r += x[k];
  return r;
}

// Integers wrap, and wrapping addition is associative: any order gives the sequential sum.
template <class T>
T wrapping_sum(const T* x, int64_t n) {
  constexpr int64_t W = kLanes<T>;
  V<T> a0(T(0)), a1(T(0)), a2(T(0)), a3(T(0));
  int64_t k = 0;
  for (; k + 4 * W <= n; k += 4 * W) {
    a0 += load(x + k);
    a1 += load(x + k + W);
    a2 += load(x + k + 2 * W);
    a3 += load(x + k + 3 * W);
  }
  for (; k + W <= n; k += W) a0 += load(x + k);
  T lanes[W];
  store(lanes, (a0 + a1) + (a2 + a3));
  T r = T(0);
  for (int64_t j = 0; j < W; ++j) r = wrapping_add(r, lanes[j]);
  for (; k < n; ++k) r = wrapping_add(r, x[k]);
  return r;
}

template <class T>
void sum_fold(void* accv, const void* xv, int64_t n) {
  T* acc = static_cast<T*>(accv);
  const T* x = static_cast<const T*>(xv);
  if constexpr (kFloat<T>)
    *acc = *acc + sum_pairwise(x, n);
  else
    *acc = wrapping_add(*acc, wrapping_sum(x, n));
}

template <class T>
void sum_accumulate(void* accv, const void* xv, int64_t n) {
  T* acc = static_cast<T*>(accv);
  const T* x = static_cast<const T*>(xv);
  constexpr int64_t W = kLanes<T>;
  int64_t k = 0;
  for (; k + 2 * W <= n; k += 2 * W) {
    const V<T> r0 = load(acc + k) + load(x + k);
    const V<T> r1 = load(acc + k + W) + load(x + k + W);
    store(acc + k, r0);
    store(acc + k + W, r1);
  }
  for (; k + W <= n; k += W) store(acc + k, load(acc + k) + load(x + k));
  for (; k < n; ++k) acc[k] = wrapping_add(acc[k], x[k]);
}

// ---------------------------------------------------------------------------------------------
// max / min.
template <bool Max>
struct Extreme {
  template <class T>
  static T combine(T acc, T x) {
    return Max ? max_combine(acc, x) : min_combine(acc, x);
  }
  template <class T>
  static T identity() {
    return Max ? max_identity<T>() : min_identity<T>();
  }
  // Lane-wise combine, the same rule.
  template <class T>
  static V<T> combine(const V<T>& acc, const V<T>& x) {
    if constexpr (Max)
      return xsimd::select((x > acc) | xsimd::isnan(x), x, acc);
    else
      return xsimd::select((x < acc) | xsimd::isnan(x), x, acc);
  }
};

// Floats: lanes visit the elements in another order than the sequential loop, which only
// matters when the winner is not unique bit for bit — a zero (0 and -0 compare equal) or a
// NaN (the sequential loop keeps the last NaN) — so then that element is looked up.
template <class T, bool Max>
T extreme_float(const T* x, int64_t n) {
  using E = Extreme<Max>;
  constexpr int64_t W = kLanes<T>;
  const V<T> id(E::template identity<T>());
  V<T> a0 = id, a1 = id, a2 = id, a3 = id;
  int64_t k = 0;
  for (; k + 4 * W <= n; k += 4 * W) {
    a0 = E::combine(a0, load(x + k));
    a1 = E::combine(a1, load(x + k + W));
    a2 = E::combine(a2, load(x + k + 2 * W));
    a3 = E::combine(a3, load(x + k + 3 * W));
  }
  for (; k + W <= n; k += W) a0 = E::combine(a0, load(x + k));
  a0 = E::combine(E::combine(a0, a1), E::combine(a2, a3));
  T lanes[W];
  store(lanes, a0);
  T r = E::template identity<T>();
  for (int64_t j = 0; j < W; ++j) r = E::combine(r, lanes[j]);
  for (; k < n; ++k) r = E::combine(r, x[k]);
  // Which element the sequential loop ends on, found without redoing it (a ReLU's output has
  // min 0, and redoing it cost ten times the vector loop): a NaN x always replaces acc and a
  // number never replaces a NaN, so the last NaN; a zero ties with every later zero of either
  // sign and beats every other value before it, so the first zero.
  if (r != r)
    for (int64_t j = n - 1;; --j)
      if (x[j] != x[j]) return x[j];
  if (r == T(0))
    for (int64_t j = 0;; ++j)
      if (x[j] == T(0)) return x[j];
  return r;
}

template <class T, bool Max>
void extreme_fold(void* accv, const void* xv, int64_t n) {
  using E = Extreme<Max>;
  T* acc = static_cast<T*>(accv);
  const T* x = static_cast<const T*>(xv);
  if constexpr (kFloat<T>) {
    *acc = E::combine(*acc, extreme_float<T, Max>(x, n));
  } else {  // exact in any order; the compiler vectorizes this reduction
    T r = *acc;
    for (int64_t k = 0; k < n; ++k) r = Max ? (x[k] > r ? x[k] : r) : (x[k] < r ? x[k] : r);
    *acc = r;
  }
}

template <class T, bool Max>
void extreme_accumulate(void* accv, const void* xv, int64_t n) {
  using E = Extreme<Max>;
  T* acc = static_cast<T*>(accv);
  const T* x = static_cast<const T*>(xv);
  int64_t k = 0;
  if constexpr (kFloat<T>) {
    constexpr int64_t W = kLanes<T>;
    for (; k + 2 * W <= n; k += 2 * W) {
      const V<T> r0 = E::combine(load(acc + k), load(x + k));
      const V<T> r1 = E::combine(load(acc + k + W), load(x + k + W));
      store(acc + k, r0);
      store(acc + k + W, r1);
    }
    for (; k + W <= n; k += W) store(acc + k, E::combine(load(acc + k), load(x + k)));
  }
  MLVM_SIMD_INDEPENDENT
  for (int64_t j = k; j < n; ++j) acc[j] = E::combine(acc[j], x[j]);
}

// ---------------------------------------------------------------------------------------------
template <class T>
constexpr int elem_index() {
  if constexpr (std::is_same_v<T, float>) return int(Elem::f32);
  if constexpr (std::is_same_v<T, double>) return int(Elem::f64);
  if constexpr (std::is_same_v<T, int8_t>) return int(Elem::i8);
  if constexpr (std::is_same_v<T, uint8_t>) return int(Elem::u8);
  if constexpr (std::is_same_v<T, int16_t>) return int(Elem::i16);
  if constexpr (std::is_same_v<T, int32_t>) return int(Elem::i32);
  return int(Elem::i64);
}

template <class T>
void set_type(ReduceTable& t) {
  constexpr int e = elem_index<T>();
  t.fold[int(ReduceOp::sum)][e] = sum_fold<T>;
  t.fold[int(ReduceOp::max)][e] = extreme_fold<T, true>;
  t.fold[int(ReduceOp::min)][e] = extreme_fold<T, false>;
  t.accumulate[int(ReduceOp::sum)][e] = sum_accumulate<T>;
  t.accumulate[int(ReduceOp::max)][e] = extreme_accumulate<T, true>;
  t.accumulate[int(ReduceOp::min)][e] = extreme_accumulate<T, false>;
}

ReduceTable make_table() {
  ReduceTable t;
  set_type<float>(t);
  set_type<double>(t);
  set_type<int8_t>(t);
  set_type<uint8_t>(t);
  set_type<int16_t>(t);
  set_type<int32_t>(t);
  set_type<int64_t>(t);
  return t;
}

}  // namespace

const ReduceTable& reduce_table() {
  static const ReduceTable table = make_table();
  return table;
}

}  // namespace mlvm::simd::MLVM_SIMD_NS
