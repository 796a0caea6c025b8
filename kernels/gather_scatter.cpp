// Kernels of gather_elements, gather_nd, scatter_elements and scatter_nd (docs/ops.md,
// "Indexing"); their static rules are in ir/infer_index.cpp and are re-applied here to the
// concrete types. Indices are i32 or i64; an index i into a dim of size n must lie in [-n, n)
// (a negative one counts from the end); anything else traps, naming the first bad index in
// row-major order whatever the thread count.
//
// gather_elements walks its output with the indices and a view of data whose stride along the
// axis is 0 (so each step lands on data[..., 0, ...] and the index adds axis_stride·i): no
// per-element index arithmetic, any layout, shared across the pool. The nd ops read the index
// tuples once (kernels/run_time_type.hpp read_ints) and copy whole slices of a contiguous data.
// Scatters copy data into a fresh result, then apply the updates one by one in row-major order
// of updates (so with duplicate indices the last update wins for "none", and float add/mul
// round in that order).
#include <atomic>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/elementwise_loop.hpp"
#include "kernels/run_table.hpp"
#include "kernels/run_time_type.hpp"
#include "tensor/copy.hpp"

namespace mlvm {

namespace {

using namespace ew;

// An unsigned integer type of `size` bytes, for moving elements without looking at them.
template <int Size>
using bits_t = std::conditional_t<
    Size == 1, uint8_t,
    std::conditional_t<Size == 2, uint16_t, std::conditional_t<Size == 4, uint32_t, uint64_t>>>;

template <class F>
void visit_elem_size(int64_t size, F&& f) {
  switch (size) {
    case 1:
      return f(std::integral_constant<int, 1>{});
    case 2:
      return f(std::integral_constant<int, 2>{});
    case 4:
      return f(std::integral_constant<int, 4>{});
    default:
      return f(std::integral_constant<int, 8>{});
  }
}

template <class F>
void visit_index_dtype(DType t, F&& f) {
  if (t == DType::i32)
    f(int32_t{});
  else
    f(int64_t{});
}

std::string index_text(const Dims& shape, int64_t flat) {
  std::string s;
  for (int d = shape.size() - 1; d >= 0; --d) {
    const int64_t n = shape[d] > 0 ? shape[d] : 1;
    s = std::to_string(flat % n) + (s.empty() ? "" : ", ") + s;
    flat /= n;
  }
  return "[" + s + "]";
}

// "<op>: index 7 at indices[1, 2] is out of range for dim 1 of data f32[2, 3] (expected -3 to 2)"
[[noreturn]] void bad_index(const char* op, int64_t i, const Tensor& indices, int64_t flat, int dim,
                            const Tensor& data) {
  const int64_t n = data.dim(dim);
  fail_trap(std::string(op) + ": index " + std::to_string(i) + " at indices" +
            index_text(indices.shape(), flat) + " is out of range for dim " + std::to_string(dim) +
            " of data " + data.type_string() +
            (n == 0 ? std::string(", which is empty")
                    : " (expected " + std::to_string(-n) + " to " + std::to_string(n - 1) + ")"));
}

inline bool in_range(int64_t i, int64_t n) {
  return i >= -n && i < n;
}

// The reductions of the scatters, applied to one element of the result.
template <class T, class Choice>
inline T combine(Choice r, T old, T u) {
  switch (r) {
    case Choice::add:
      if constexpr (std::is_same_v<T, bool>) return old;
      else return wrap_add(old, u);
    case Choice::mul:
      if constexpr (std::is_same_v<T, bool>) return old;
      else return wrap_mul(old, u);
    case Choice::max:
      return (u > old || u != u) ? u : old;  // a NaN on either side gives NaN
    case Choice::min:
      return (u < old || u != u) ? u : old;
    default:
      return u;
  }
}

// A fresh contiguous copy of data: the scatters' result before the updates.
Tensor copy_of_data(KernelContext& ctx, const TensorType& t) {
  Tensor y = ctx.output(t.dtype, t.dims);
  if (y.numel() > 0) copy_into(ctx.in[0], y);
  return y;
}

// Index tuples of gather_nd / scatter_nd: the element offset in a contiguous tensor of
// `data`'s shape of the slice that tuple `tuple` (k entries, dims b .. b+k-1) names.
int64_t tuple_offset(const char* op, const std::vector<int64_t>& idx, int64_t tuple, int64_t k,
                     int64_t b, const Tensor& data, const Dims& cstrides, const Tensor& indices) {
  int64_t off = 0;
  for (int64_t j = 0; j < k; ++j) {
    const int dim = int(b + j);
    int64_t i = idx[std::size_t(tuple * k + j)];
    if (!in_range(i, data.dim(dim))) bad_index(op, i, indices, tuple * k + j, dim, data);
    if (i < 0) i += data.dim(dim);
    off += i * cstrides[dim];
  }
  return off;
}

}  // namespace

// y[i...] = data[i_0, ..., indices[i...], ..., i_{r-1}] (the index replaces dim `axis`).
void run_gather_elements(KernelContext& ctx) {
  const TensorType t = infer_at_run_time(ctx, infer_gather_elements);
  const Tensor &data = ctx.in[0], &indices = ctx.in[1];
  const int axis = normalize_axis(ctx.attrs.get<gather_elements_attrs>().axis, data.rank(),
                                  "gather_elements: axis");
  Tensor y = ctx.output(t.dtype, t.dims);
  if (y.numel() > 0) {
    const int64_t n = data.dim(axis);
    std::atomic<bool> bad{false};
    if (n > 0) {
      Dims st = data.strides();
      st[axis] = 0;
      const Tensor dv = data.with_layout(indices.shape(), st, data.offset());
      const int64_t sa = data.strides()[axis] * data.itemsize();
      visit_index_dtype(indices.dtype(), [&](auto itag) {
        using I = decltype(itag);
        visit_elem_size(data.itemsize(), [&](auto size) {
          using E = bits_t<decltype(size)::value>;
          for_each_run_parallel<3>(ctx.env.pool, indices.shape(), {&y, &indices, &dv},
                                   [&](auto p, int64_t cnt, auto s) {
            for (int64_t k = 0; k < cnt; ++k, p[0] += s[0], p[1] += s[1], p[2] += s[2]) {
              int64_t i = load<I>(p[1]);
              if (!in_range(i, n)) {
                bad.store(true, std::memory_order_relaxed);
                return;
              }
              if (i < 0) i += n;
              store<E>(p[0], load<E>(p[2] + i * sa));
            }
          });
        });
      });
    }
    if (n == 0 || bad.load()) {  // find the first bad index in row-major order
      const std::vector<int64_t> idx = read_ints(indices);
      for (std::size_t k = 0; k < idx.size(); ++k)
        if (!in_range(idx[k], n)) bad_index("gather_elements", idx[k], indices, int64_t(k), axis, data);
    }
  }
  ctx.out[0] = y;
}

// y[batch, tuple, ...] = data[batch, indices[batch, tuple, :], ...]: with b batch dims and
// k-entry tuples, each tuple names a slice of data's dims b+k...
void run_gather_nd(KernelContext& ctx) {
  const TensorType t = infer_at_run_time(ctx, infer_gather_nd);
  const Tensor& indices = ctx.in[1];
  const int64_t b = ctx.attrs.get<gather_nd_attrs>().batch_dims;
  Tensor y = ctx.output(t.dtype, t.dims);
  const int q = indices.rank();
  const int64_t k = indices.dim(q - 1);
  int64_t total = 1;  // index tuples
  for (int d = 0; d < q - 1; ++d) total *= indices.dim(d);
  if (total > 0) {  // every tuple is checked, even when the slices are empty
    const Tensor data = contiguous(ctx.in[0], ctx.env.budget);
    const Dims cs = contiguous_strides(data.shape());
    const std::vector<int64_t> idx = read_ints(indices);
    int64_t batches = 1, slice = 1;
    for (int d = 0; d < b; ++d) batches *= data.dim(d);
    for (int d = int(b + k); d < data.rank(); ++d) slice *= data.dim(d);
    const int64_t tuples = total / batches;  // per batch
    const int64_t batch_stride = b > 0 ? cs[int(b - 1)] : 0, isz = data.itemsize();
    const std::byte* src = data.raw_data();
    std::byte* dst = y.raw_data();
    for (int64_t tuple = 0; tuple < total; ++tuple) {
      if ((tuple & 1023) == 1023) poll_cancel();
      const int64_t off = (tuple / tuples) * batch_stride +
                          tuple_offset("gather_nd", idx, tuple, k, b, data, cs, indices);
      if (slice > 0) std::memcpy(dst + tuple * slice * isz, src + off * isz, std::size_t(slice * isz));
    }
  }
  ctx.out[0] = y;
}

// y = copy of data; then for every element of updates, in row-major order,
// y[i_0, ..., indices[i...], ..., i_{r-1}] = reduction(that element, updates[i...]).
void run_scatter_elements(KernelContext& ctx) {
  const TensorType t = infer_at_run_time(ctx, infer_scatter_elements);
  const Tensor &data = ctx.in[0], &indices = ctx.in[1], &updates = ctx.in[2];
  const auto& a = ctx.attrs.get<scatter_elements_attrs>();
  const int axis = normalize_axis(a.axis, data.rank(), "scatter_elements: axis");
  Tensor y = copy_of_data(ctx, t);
  if (indices.numel() > 0) {
    const int64_t n = data.dim(axis);
    if (n == 0) bad_index("scatter_elements", read_ints(indices)[0], indices, 0, axis, data);
    Dims st = y.strides();
    st[axis] = 0;
    const Tensor yv = y.with_layout(indices.shape(), st, 0);
    const int64_t sa = y.strides()[axis] * y.itemsize();
    // Row-major order: no reordering or flipping of dims.
    auto L = plan_strided_loop<3>(indices.shape(), std::array<const Tensor*, 3>{&updates, &indices, &yv},
                                  LoopOptions{false, false});
    visit_index_dtype(indices.dtype(), [&](auto itag) {
      using I = decltype(itag);
      visit_dtype(data.dtype(), [&](auto tag) {
        using T = storage_t<typename decltype(tag)::type>;
        using V = std::conditional_t<std::is_same_v<typename decltype(tag)::type, bool_tag>, bool, T>;
        int64_t flat = 0;
        in_cancellable_blocks(L.outer_count(), L.inner_count(), [&](int64_t b0, int64_t e0) {
          for_each_run(L, {updates.raw_data(), indices.raw_data(), yv.raw_data()}, b0, e0,
                       [&](auto p, int64_t cnt, auto s) {
            for (int64_t k = 0; k < cnt; ++k, ++flat, p[0] += s[0], p[1] += s[1], p[2] += s[2]) {
              int64_t i = load<I>(p[1]);
              if (!in_range(i, n)) bad_index("scatter_elements", i, indices, flat, axis, data);
              if (i < 0) i += n;
              std::byte* o = p[2] + i * sa;
              store<T>(o, T(combine<V>(a.reduction, V(load<T>(o)), V(load<T>(p[0])))));
            }
          });
        });
      });
    });
  }
  ctx.out[0] = y;
}

// y = copy of data; then for every index tuple, in row-major order, the slice it names is
// combined with the matching slice of updates.
void run_scatter_nd(KernelContext& ctx) {
  const TensorType t = infer_at_run_time(ctx, infer_scatter_nd);
  const Tensor &data = ctx.in[0], &indices = ctx.in[1];
  const auto reduction = ctx.attrs.get<scatter_nd_attrs>().reduction;
  Tensor y = copy_of_data(ctx, t);
  const int q = indices.rank();
  const int64_t k = indices.dim(q - 1);
  int64_t tuples = 1;
  for (int d = 0; d < q - 1; ++d) tuples *= indices.dim(d);
  if (tuples > 0) {
    const Tensor updates = contiguous(ctx.in[2], ctx.env.budget);
    const Dims cs = contiguous_strides(data.shape());
    const std::vector<int64_t> idx = read_ints(indices);
    int64_t slice = 1;
    for (int d = int(k); d < data.rank(); ++d) slice *= data.dim(d);
    visit_dtype(data.dtype(), [&](auto tag) {
      using T = storage_t<typename decltype(tag)::type>;
      using V = std::conditional_t<std::is_same_v<typename decltype(tag)::type, bool_tag>, bool, T>;
      T* o = y.template data<T>();
      const T* u = updates.template data<T>();
      for (int64_t ti = 0; ti < tuples; ++ti) {
        if ((ti & 1023) == 1023) poll_cancel();
        T* dst = o + tuple_offset("scatter_nd", idx, ti, k, 0, data, cs, indices);
        const T* src = u + ti * slice;
        for (int64_t e = 0; e < slice; ++e) dst[e] = T(combine<V>(reduction, V(dst[e]), V(src[e])));
      }
    });
  }
  ctx.out[0] = y;
}

}  // namespace mlvm
