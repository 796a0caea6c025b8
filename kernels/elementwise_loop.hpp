// Internal helpers of the elementwise, comparison, logical and reduction kernels
// (unary.cpp, binary.cpp, reduce.cpp): the strided loops their kernels run. (The dtype-set
// checks their static rules share are in ir/rules.hpp.)
//
// Loop structure: a kernel plans over the output shape with the output as operand 0 and its
// inputs read through broadcast views (stride 0), then calls one *run function* per
// contiguous inner run. The run functions below (map_run, zip_run, select_run) are templated
// on the op's functor type and special-case the contiguous and the stride-0 layouts so that
// the compiler can vectorize them. map_tensor_simd / zip_tensor_simd take, in addition, the
// run-time-selected SIMD runs of kernels/simd/ew.hpp, used for the contiguous and splat
// layouts (the scalar run functions keep every other layout).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "kernels/cancel.hpp"
#include "ir/rules.hpp"
#include "kernels/op_api.hpp"
#include "kernels/simd/ew.hpp"
#include "kernels/thread_pool.hpp"
#include "tensor/strided_loop.hpp"

namespace mlvm::ew {

// Picks an input whose storage the result may take over (docs/ops.md, "Views, read-only views
// and storage reuse"): donated (checked by ctx.output) and not read through any other input,
// since an in-place write is only safe when every read of that storage is at the position
// being written.
inline int reuse_candidate(const KernelContext& ctx, DType dtype, int64_t numel) {
  for (int k = 0; k < int(ctx.in.size()); ++k) {
    const Tensor& t = ctx.in[k];
    if (!(ctx.donatable >> k & 1u) || !t.defined() || t.dtype() != dtype || t.numel() != numel)
      continue;
    bool shared = false;
    for (int j = 0; j < int(ctx.in.size()); ++j) {
      const Tensor& o = ctx.in[j];
      if (j == k || !o.defined() || o.storage() != t.storage()) continue;
      if (!(o.shape() == t.shape() && o.strides() == t.strides() && o.offset() == t.offset()))
        shared = true;
    }
    if (!shared) return k;
  }
  return -1;
}

// ---------------------------------------------------------------------------------------------
// Integer arithmetic that wraps (two's complement) without UB: computed in an unsigned type
// at least as wide as `unsigned`, so that small types do not promote to signed int.
template <class T>
using wide_unsigned_t =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <class T>
inline T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using W = wide_unsigned_t<T>;
    return T(W(a) + W(b));
  } else {
    return a + b;
  }
}
template <class T>
inline T wrap_sub(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using W = wide_unsigned_t<T>;
    return T(W(a) - W(b));
  } else {
    return a - b;
  }
}
template <class T>
inline T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using W = wide_unsigned_t<T>;
    return T(W(a) * W(b));
  } else {
    return a * b;
  }
}

// ---------------------------------------------------------------------------------------------
// Run functions: one inner run of `n` elements, byte strides per operand.
template <class T>
inline T load(const std::byte* p) {
  return *reinterpret_cast<const T*>(p);
}
template <class T>
inline void store(std::byte* p, T v) {
  *reinterpret_cast<T*>(p) = v;
}

// y[k] = f(x[k]) and y[k] = f(a[k], b[k]) stepping by any byte strides: the general case of
// map_run and zip_run, and alone the loops of the layouts the SIMD runs leave over, where a
// contiguous special case would never be reached.
template <class TO, class TI, class F>
inline void map_run_strided(std::byte* y, const std::byte* x, int64_t n, int64_t sy, int64_t sx,
                            const F& f) {
  for (int64_t k = 0; k < n; ++k, y += sy, x += sx) store<TO>(y, f(load<TI>(x)));
}
template <class TO, class TI, class F>
inline void zip_run_strided(std::byte* y, const std::byte* a, const std::byte* b, int64_t n,
                            int64_t sy, int64_t sa, int64_t sb, const F& f) {
  for (int64_t k = 0; k < n; ++k, y += sy, a += sa, b += sb)
    store<TO>(y, f(load<TI>(a), load<TI>(b)));
}

// y[k] = f(x[k])
template <class TO, class TI, class F>
inline void map_run(std::byte* y, const std::byte* x, int64_t n, int64_t sy, int64_t sx,
                    const F& f) {
  if (sy == int64_t(sizeof(TO)) && sx == int64_t(sizeof(TI))) {
    TO* py = reinterpret_cast<TO*>(y);
    const TI* px = reinterpret_cast<const TI*>(x);
    for (int64_t k = 0; k < n; ++k) py[k] = f(px[k]);
  } else if (sy == int64_t(sizeof(TO)) && sx == 0) {
    TO* py = reinterpret_cast<TO*>(y);
    const TO v = f(load<TI>(x));
    for (int64_t k = 0; k < n; ++k) py[k] = v;
  } else {
    map_run_strided<TO, TI>(y, x, n, sy, sx, f);
  }
}

// y[k] = f(a[k], b[k])
template <class TO, class TI, class F>
inline void zip_run(std::byte* y, const std::byte* a, const std::byte* b, int64_t n, int64_t sy,
                    int64_t sa, int64_t sb, const F& f) {
  constexpr int64_t so = sizeof(TO), si = sizeof(TI);
  if (sy == so && sa == si && sb == si) {
    TO* py = reinterpret_cast<TO*>(y);
    const TI* pa = reinterpret_cast<const TI*>(a);
    const TI* pb = reinterpret_cast<const TI*>(b);
    for (int64_t k = 0; k < n; ++k) py[k] = f(pa[k], pb[k]);
  } else if (sy == so && sa == si && sb == 0) {
    TO* py = reinterpret_cast<TO*>(y);
    const TI* pa = reinterpret_cast<const TI*>(a);
    const TI vb = load<TI>(b);
    for (int64_t k = 0; k < n; ++k) py[k] = f(pa[k], vb);
  } else if (sy == so && sa == 0 && sb == si) {
    TO* py = reinterpret_cast<TO*>(y);
    const TI va = load<TI>(a);
    const TI* pb = reinterpret_cast<const TI*>(b);
    for (int64_t k = 0; k < n; ++k) py[k] = f(va, pb[k]);
  } else {
    zip_run_strided<TO, TI>(y, a, b, n, sy, sa, sb, f);
  }
}

// y[k] = c[k] != 0 ? a[k] : b[k]
template <class T, class TC>
inline void select_run(std::byte* y, const std::byte* c, const std::byte* a, const std::byte* b,
                       int64_t n, int64_t sy, int64_t sc, int64_t sa, int64_t sb) {
  constexpr int64_t st = sizeof(T), scz = sizeof(TC);
  if (sy == st && sc == scz && sa == st && sb == st) {
    T* py = reinterpret_cast<T*>(y);
    const TC* pc = reinterpret_cast<const TC*>(c);
    const T* pa = reinterpret_cast<const T*>(a);
    const T* pb = reinterpret_cast<const T*>(b);
    for (int64_t k = 0; k < n; ++k) py[k] = pc[k] != TC(0) ? pa[k] : pb[k];
  } else {
    for (int64_t k = 0; k < n; ++k, y += sy, c += sc, a += sa, b += sb)
      store<T>(y, load<TC>(c) != TC(0) ? load<T>(a) : load<T>(b));
  }
}

// ---------------------------------------------------------------------------------------------
// Driving the runs, optionally across the pool.
inline constexpr int64_t kParallelGrain = int64_t(1) << 15;  // elements per chunk, at least

// The shared driver of for_each_run_parallel: plans the loop, splits it into cancellable
// blocks and across the pool, and calls `runs(L, base, first, last)` for ranges of whole inner
// runs of L (a single long run may come as a one-run loop of its own). It is compiled once per
// operand count (kernels/elementwise_loop.cpp) instead of once per functor and dtype: only the
// odometer over a range of runs, with the functor inlined into it, is instantiated per caller.
template <int N>
struct RunRange {
  const void* fn;
  void (*call)(const void* fn, const StridedLoop<N>& L, const std::array<std::byte*, N>& base,
               int64_t first_run, int64_t last_run);
};
template <int N>
void for_each_run_parallel_erased(ThreadPool* pool, const Dims& shape,
                                  const std::array<const Tensor*, N>& ops, RunRange<N> runs);
extern template void for_each_run_parallel_erased<2>(ThreadPool*, const Dims&,
                                                     const std::array<const Tensor*, 2>&,
                                                     RunRange<2>);
extern template void for_each_run_parallel_erased<3>(ThreadPool*, const Dims&,
                                                     const std::array<const Tensor*, 3>&,
                                                     RunRange<3>);
extern template void for_each_run_parallel_erased<4>(ThreadPool*, const Dims&,
                                                     const std::array<const Tensor*, 4>&,
                                                     RunRange<4>);

// Calls fn(ptrs, count, byte_strides) for every inner run of `shape` over the N operands
// (operand 0 is the output and fixes the visiting order). `fn` must be safe to call from
// several threads at once on disjoint runs.
template <int N, class Fn>
void for_each_run_parallel(ThreadPool* pool, const Dims& shape,
                           const std::array<const Tensor*, N>& ops, const Fn& fn) {
  const RunRange<N> runs{&fn, [](const void* f, const StridedLoop<N>& L,
                                 const std::array<std::byte*, N>& base, int64_t b, int64_t e) {
                           for_each_run(L, base, b, e, *static_cast<const Fn*>(f));
                         }};
  for_each_run_parallel_erased<N>(pool, shape, ops, runs);
}

// y = f(x) elementwise; x already has y's shape (a broadcast view is fine).
template <class TO, class TI, class F>
void map_tensor(ThreadPool* pool, const Tensor& y, const Tensor& x, const F& f) {
  for_each_run_parallel<2>(pool, y.shape(), {&y, &x}, [&](auto p, int64_t n, auto st) {
    map_run<TO, TI>(p[0], p[1], n, st[0], st[1], f);
  });
}

// y = f(a, b) elementwise; a and b already have y's shape.
template <class TO, class TI, class F>
void zip_tensor(ThreadPool* pool, const Tensor& y, const Tensor& a, const Tensor& b, const F& f) {
  for_each_run_parallel<3>(pool, y.shape(), {&y, &a, &b}, [&](auto p, int64_t n, auto st) {
    zip_run<TO, TI>(p[0], p[1], p[2], n, st[0], st[1], st[2], f);
  });
}

// y = f(x), with `simd_run(y, x, n)` for runs where both are contiguous.
template <class TO, class TI, class F, class SimdRun>
void map_tensor_simd(ThreadPool* pool, const Tensor& y, const Tensor& x, const F& f,
                     const SimdRun& simd_run) {
  for_each_run_parallel<2>(pool, y.shape(), {&y, &x}, [&](auto p, int64_t n, auto st) {
    if (st[0] == int64_t(sizeof(TO)) && st[1] == int64_t(sizeof(TI)))
      simd_run(p[0], p[1], n);
    else
      map_run_strided<TO, TI>(p[0], p[1], n, st[0], st[1], f);
  });
}

// y = f(a, b) with the SIMD runs `runs[splat][streaming]` of kernels/simd/ew.hpp (non-null)
// for a contiguous output and contiguous or splat inputs. Large outputs are written with
// streaming stores: they would not stay in the caches anyway.
template <class T, class F>
void zip_tensor_simd(ThreadPool* pool, const Tensor& y, const Tensor& a, const Tensor& b,
                     const F& f, const simd::BinaryRun (&runs)[simd::kNumSplats][2]) {
  constexpr int64_t s = sizeof(T);
  const int streaming = y.numel() * s >= simd::kStreamingMinBytes ? 1 : 0;
  const simd::BinaryRun vv = runs[int(simd::Splat::vv)][streaming];
  const simd::BinaryRun vs = runs[int(simd::Splat::vs)][streaming];
  const simd::BinaryRun sv = runs[int(simd::Splat::sv)][streaming];
  for_each_run_parallel<3>(pool, y.shape(), {&y, &a, &b}, [&](auto p, int64_t n, auto st) {
    if (st[0] == s && st[1] == s && st[2] == s)
      vv(p[0], p[1], p[2], n);
    else if (st[0] == s && st[1] == s && st[2] == 0)
      vs(p[0], p[1], p[2], n);
    else if (st[0] == s && st[1] == 0 && st[2] == s)
      sv(p[0], p[1], p[2], n);
    else
      zip_run_strided<T, T>(p[0], p[1], p[2], n, st[0], st[1], st[2], f);
  });
}

}  // namespace mlvm::ew
