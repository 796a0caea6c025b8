// The strided iteration planner (after NumPy's nditer): given a shape and N operands'
// strides, it drops size-1 dims, orders dims by operand 0's stride, optionally flips dims
// whose strides are all negative, and coalesces dims that are contiguous for every operand,
// so that the innermost loop is one long run. Kernels then walk the plan with
// for_each_run(), receiving (pointers, count, inner byte strides) per run: the inner run is
// where SIMD code goes, and no per-element index arithmetic is done anywhere.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tensor/dims.hpp"
#include "tensor/tensor.hpp"

namespace mlvm {

template <int N>
struct StridedLoop {
  int ndim = 0;  // dims after coalescing; dims[ndim-1] is the inner run. 0 dims: one element.
  bool empty = false;  // some dim is 0: nothing to do
  std::array<int64_t, kMaxRank> shape{};
  std::array<std::array<int64_t, kMaxRank>, N> byte_strides{};
  std::array<int64_t, N> byte_offset{};  // added to each base pointer (non-zero after flips)

  int64_t inner_count() const { return ndim == 0 ? 1 : shape[ndim - 1]; }
  // Number of inner runs (product of the outer dims).
  int64_t outer_count() const {
    int64_t n = 1;
    for (int i = 0; i + 1 < ndim; ++i) n *= shape[i];
    return n;
  }
};

struct LoopOptions {
  // Reorder dims by operand 0's strides (largest outer). Turn off when the visiting order
  // must be row-major (e.g. argmax's first-index rule relies on it).
  bool reorder = true;
  // Allow visiting a dim backwards when every operand has a negative stride on it.
  bool allow_flip = true;
};

// `strides[k]` are operand k's element strides (same rank as `shape`), `itemsize[k]` its
// element size in bytes.
template <int N>
StridedLoop<N> plan_strided_loop(const Dims& shape, const std::array<const Dims*, N>& strides,
                                 const std::array<int64_t, N>& itemsize, LoopOptions opt = {}) {
  StridedLoop<N> L;
  int order[kMaxRank];
  int n = 0;
  for (int d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) L.empty = true;
    if (shape[d] != 1) order[n++] = d;
  }
  L.byte_offset.fill(0);
  if (L.empty) return L;
  // Optional stable insertion sort: larger |stride| of operand 0 goes outward; ties keep order.
  if (opt.reorder) {
    for (int i = 1; i < n; ++i) {
      int d = order[i], j = i;
      auto key = [&](int dd) {
        int64_t s = (*strides[0])[dd];
        return s < 0 ? -s : s;
      };
      while (j > 0 && key(order[j - 1]) < key(d)) {
        order[j] = order[j - 1];
        --j;
      }
      order[j] = d;
    }
  }
  for (int i = 0; i < n; ++i) {
    int d = order[i];
    L.shape[i] = shape[d];
    bool all_negative = true;
    for (int k = 0; k < N; ++k) {
      int64_t s = (*strides[k])[d] * itemsize[k];
      L.byte_strides[k][i] = s;
      if (s >= 0) all_negative = false;
    }
    if (opt.allow_flip && all_negative) {
      for (int k = 0; k < N; ++k) {
        L.byte_offset[k] += (shape[d] - 1) * L.byte_strides[k][i];
        L.byte_strides[k][i] = -L.byte_strides[k][i];
      }
    }
  }
  // Coalesce: dim i (outer) merges into i+1 (inner) when stride[i] == stride[i+1]*shape[i+1]
  // for every operand.
  int m = 0;
  for (int i = 0; i < n; ++i) {
    if (m > 0) {
      bool ok = true;
      for (int k = 0; k < N; ++k)
        if (L.byte_strides[k][m - 1] != L.byte_strides[k][i] * L.shape[i]) ok = false;
      if (ok) {
        L.shape[m - 1] *= L.shape[i];
        for (int k = 0; k < N; ++k) L.byte_strides[k][m - 1] = L.byte_strides[k][i];
        continue;
      }
    }
    L.shape[m] = L.shape[i];
    for (int k = 0; k < N; ++k) L.byte_strides[k][m] = L.byte_strides[k][i];
    ++m;
  }
  L.ndim = m;
  return L;
}

// Convenience: plan over tensors that share `shape` (operand 0 is usually the output).
template <int N>
StridedLoop<N> plan_strided_loop(const Dims& shape, const std::array<const Tensor*, N>& ops,
                                 LoopOptions opt = {}) {
  std::array<const Dims*, N> st;
  std::array<int64_t, N> isz;
  for (int k = 0; k < N; ++k) {
    st[k] = &ops[k]->strides();
    isz[k] = ops[k]->itemsize();
  }
  return plan_strided_loop<N>(shape, st, isz, opt);
}

// Calls fn(ptrs, count, inner_byte_strides) for inner runs [first_run, last_run) of the plan,
// `ptrs[k]` pointing at the first element of operand k's run. Splitting the run range is how
// threads share a loop.
template <int N, class Fn>
void for_each_run(const StridedLoop<N>& L, const std::type_identity_t<std::array<std::byte*, N>>& base, int64_t first_run,
                  int64_t last_run, Fn&& fn) {
  if (L.empty || first_run >= last_run) return;
  std::array<std::byte*, N> p;
  std::array<int64_t, N> inner{};
  for (int k = 0; k < N; ++k) {
    p[k] = base[k] + L.byte_offset[k];
    inner[k] = L.ndim ? L.byte_strides[k][L.ndim - 1] : 0;
  }
  int outer = L.ndim - 1;
  if (outer <= 0) {  // a single run
    fn(p, L.inner_count(), inner);
    return;
  }
  // Decode first_run into an outer multi-index once; then step like an odometer.
  std::array<int64_t, kMaxRank> idx{};
  int64_t r = first_run;
  for (int d = outer - 1; d >= 0; --d) {
    idx[d] = r % L.shape[d];
    r /= L.shape[d];
    for (int k = 0; k < N; ++k) p[k] += idx[d] * L.byte_strides[k][d];
  }
  const int64_t count = L.inner_count();
  for (int64_t run = first_run; run < last_run; ++run) {
    fn(p, count, inner);
    for (int d = outer - 1; d >= 0; --d) {
      for (int k = 0; k < N; ++k) p[k] += L.byte_strides[k][d];
      if (++idx[d] < L.shape[d]) break;
      for (int k = 0; k < N; ++k) p[k] -= L.shape[d] * L.byte_strides[k][d];
      idx[d] = 0;
    }
  }
}

template <int N, class Fn>
void for_each_run(const StridedLoop<N>& L, const std::type_identity_t<std::array<std::byte*, N>>& base, Fn&& fn) {
  for_each_run(L, base, 0, L.outer_count(), std::forward<Fn>(fn));
}

}  // namespace mlvm
