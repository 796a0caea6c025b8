// Kernel of unique (docs/ops.md, "Indexing"; ONNX Unique); its static rule is in
// ir/infer_index.cpp.
//
// x is copied with the axis brought to the front, so slice s (one element without an axis) is
// the run [s·len, (s+1)·len) of one contiguous buffer. The slices are stably sorted by
// lexicographic order; equal neighbours form one group, whose first member is the first
// occurrence. Floats compare in a total order: NaNs equal each other and sort after +inf, -0
// equals 0 (NumPy's np.unique with equal_nan). Everything is sequential, hence identical at
// every SIMD level and thread count.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <type_traits>
#include <vector>

#include "kernels/cancel.hpp"
#include "kernels/elementwise_loop.hpp"
#include "kernels/run_table.hpp"
#include "kernels/run_time_type.hpp"
#include "tensor/copy.hpp"

namespace mlvm {

namespace {

template <class T>
bool less_total(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

// x viewed with dim `axis` first (a permutation of its strides: no copy).
Tensor axis_first(const Tensor& x, int axis) {
  Dims shape{x.dim(axis)}, strides{x.strides()[axis]};
  for (int d = 0; d < x.rank(); ++d) {
    if (d == axis) continue;
    shape.push_back(x.dim(d));
    strides.push_back(x.strides()[d]);
  }
  return x.with_layout(shape, strides, x.offset());
}

struct Groups {
  std::vector<int64_t> first;    // per group, in output order: its first slice
  std::vector<int64_t> count;    // per group: how many slices
  std::vector<int64_t> inverse;  // per slice: its group
};

// Groups the n slices of `len` elements at p: in ascending order (sorted) or in the order of
// their first occurrence.
template <class T>
Groups group_slices(const T* p, int64_t n, int64_t len, bool sorted) {
  auto slice_less = [&](int64_t i, int64_t j) {
    const T *a = p + i * len, *b = p + j * len;
    for (int64_t e = 0; e < len; ++e) {
      if (less_total(a[e], b[e])) return true;
      if (less_total(b[e], a[e])) return false;
    }
    return false;
  };
  std::vector<int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), int64_t(0));
  std::stable_sort(order.begin(), order.end(), slice_less);
  poll_cancel();
  Groups g;
  g.inverse.resize(std::size_t(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t s = order[std::size_t(i)];
    if (i == 0 || slice_less(order[std::size_t(i - 1)], s)) {  // a new value (the order is sorted)
      g.first.push_back(s);
      g.count.push_back(0);
    }
    g.count.back() += 1;
    g.inverse[std::size_t(s)] = int64_t(g.first.size()) - 1;
  }
  if (!sorted) {  // renumber the groups by their first occurrence
    const std::size_t k = g.first.size();
    std::vector<int64_t> by_first(k), new_id(k);
    std::iota(by_first.begin(), by_first.end(), int64_t(0));
    std::sort(by_first.begin(), by_first.end(), [&](int64_t a, int64_t b) {
      return g.first[std::size_t(a)] < g.first[std::size_t(b)];
    });
    Groups h;
    for (std::size_t q = 0; q < k; ++q) {
      new_id[std::size_t(by_first[q])] = int64_t(q);
      h.first.push_back(g.first[std::size_t(by_first[q])]);
      h.count.push_back(g.count[std::size_t(by_first[q])]);
    }
    for (int64_t& v : g.inverse) v = new_id[std::size_t(v)];
    h.inverse = std::move(g.inverse);
    g = std::move(h);
  }
  return g;
}

Tensor i64_vector(const KernelContext& ctx, const std::vector<int64_t>& v) {
  Tensor t = ctx.output(DType::i64, Dims{int64_t(v.size())});
  if (!v.empty()) std::memcpy(t.raw_data(), v.data(), v.size() * sizeof(int64_t));
  return t;
}

}  // namespace

// y, indices, inverse_indices, counts = unique x: x's distinct elements (or distinct slices
// along axis), the index of each one's first occurrence, each element's (slice's) position in
// y, and how often each occurs.
void run_unique(KernelContext& ctx) {
  infer_at_run_time(ctx, infer_unique);
  const Tensor& x = ctx.in[0];
  const auto& a = ctx.attrs.get<unique_attrs>();
  const int axis = a.axis ? normalize_axis(*a.axis, x.rank(), "unique: axis") : 0;
  const Tensor c = contiguous(a.axis ? axis_first(x, axis) : x, ctx.env.budget);
  const int64_t n = a.axis ? x.dim(axis) : x.numel();
  const int64_t len = n > 0 ? c.numel() / n : 0;
  // Without an axis y is [K]; with one, x's dims with dim axis = K, written as
  // outer x K x inner blocks (outer: the dims before axis, inner: those after).
  int64_t outer = 1, inner = 1;
  if (a.axis)
    for (int d = 0; d < x.rank(); ++d) (d < axis ? outer : inner) *= d == axis ? 1 : x.dim(d);
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    const T* p = c.numel() > 0 ? c.template data<T>() : nullptr;
    const Groups g = group_slices<T>(p, n, len, a.sorted);
    const int64_t k = int64_t(g.first.size());
    Dims ydims{k};
    if (a.axis) {
      ydims = x.shape();
      ydims[axis] = k;
    }
    Tensor y = ctx.output(x.dtype(), ydims);
    if (y.numel() > 0) {
      T* o = y.template data<T>();
      for (int64_t q = 0; q < k; ++q)
        for (int64_t b = 0; b < outer; ++b)
          std::memcpy(o + (b * k + q) * inner, p + g.first[std::size_t(q)] * len + b * inner,
                      std::size_t(inner) * sizeof(T));
    }
    ctx.out[0] = y;
    ctx.out[1] = i64_vector(ctx, g.first);
    ctx.out[2] = i64_vector(ctx, g.inverse);
    ctx.out[3] = i64_vector(ctx, g.count);
  });
}

}  // namespace mlvm
