// Kernels of the ops along one axis: cumsum, log_softmax, hardmax, topk (docs/ops.md, "Scans and
// selections along an axis"). Their static rules are in ir/infer_scan.cpp; each kernel re-applies
// its rule to the concrete types (kernels/run_time_type.hpp), which also normalizes the axis.
//
// Every op works line by line: a line is the elements of x along `axis` with the other indices
// fixed, read through x's own strides (no copy of x); results are fresh and contiguous. Lines are
// shared across the pool (each line is computed by one thread, in one order, so results do not
// depend on the thread count).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/elementwise_loop.hpp"
#include "kernels/run_table.hpp"
#include "kernels/run_time_type.hpp"

namespace mlvm {

namespace {

using namespace ew;

// Calls fn(ptrs) for every line along `axis`, ptrs[k] pointing at operand k's first element of
// the line. The operands have one shape except along `axis`, where each must be non-empty.
template <int N, class Fn>
void for_each_line(ThreadPool* pool, int axis, const std::array<const Tensor*, N>& ops,
                   const Fn& fn) {
  Dims keep = ops[0]->shape();
  keep[axis] = 1;
  std::array<Tensor, N> views;
  std::array<const Tensor*, N> vp;
  for (int k = 0; k < N; ++k) {
    views[k] = ops[k]->with_layout(keep, ops[k]->strides(), ops[k]->offset());
    vp[k] = &views[k];
  }
  for_each_run_parallel<N>(pool, keep, vp, [&](auto p, int64_t cnt, auto st) {
    for (int64_t i = 0; i < cnt; ++i) {
      fn(p);
      for (int k = 0; k < N; ++k) p[k] += st[k];
    }
  });
}

int64_t axis_bytes(const Tensor& t, int axis) {
  return t.strides()[axis] * t.itemsize();
}

template <class T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return v != v;
  else
    return false;
}

template <class T>
using acc_t = std::conditional_t<std::is_floating_point_v<T>, double, T>;

// NaN is the largest value (the first NaN is a line's maximum, as in argmax).
template <class T>
int64_t first_max(const std::byte* p, int64_t n, int64_t s) {
  T best = load<T>(p);
  if (best != best) return 0;
  int64_t bi = 0;
  for (int64_t i = 1; i < n; ++i) {
    const T v = load<T>(p + i * s);
    if (v != v) return i;
    if (v > best) {
      best = v;
      bi = i;
    }
  }
  return bi;
}

}  // namespace

// y[j] = Σ x[i] over i <= j (exclusive: i < j; reverse: i >= j, i > j). Floats add in f64 and
// round each result; integers wrap in x's dtype.
void run_cumsum(KernelContext& ctx) {
  if (run_with_attr_input(ctx, Opcode::cumsum, 1, 0, run_cumsum)) return;
  const TensorType t = infer_at_run_time(ctx, infer_cumsum);
  const Tensor& x = ctx.in[0];
  const auto& a = ctx.attrs.get<cumsum_attrs>();
  const int axis = normalize_axis(a.axis, x.rank(), "cumsum: axis");
  Tensor y = ctx.output(t.dtype, t.dims);
  const int64_t n = x.dim(axis);
  if (y.numel() > 0) {
    const int64_t sx = axis_bytes(x, axis), sy = axis_bytes(y, axis);
    visit_dtype(x.dtype(), [&](auto tag) {
      using T = storage_t<typename decltype(tag)::type>;
      if constexpr (!std::is_same_v<typename decltype(tag)::type, bool_tag>) {
        using A = acc_t<T>;
        for_each_line<2>(ctx.env.pool, axis, {&x, &y}, [&](auto p) {
          A acc = 0;
          for (int64_t i = 0; i < n; ++i) {
            const int64_t j = a.reverse ? n - 1 - i : i;
            const A v = A(load<T>(p[0] + j * sx));
            if (a.exclusive) {
              store<T>(p[1] + j * sy, T(acc));
              acc = wrap_add(acc, v);
            } else {
              acc = wrap_add(acc, v);
              store<T>(p[1] + j * sy, T(acc));
            }
          }
        });
      }
    });
  }
  ctx.out[0] = y;
}

// y = x − m − log Σ exp(x − m), m the line's maximum, in f64. The sum is 1 (the first maximum's
// term) plus the others, so the log is log1p(others): exact for lines dominated by one element.
// A NaN in the line, or an infinite maximum, makes the line NaN (as ONNX's definition,
// Sub(x, ReduceMax) then Log(ReduceSum(Exp))).
void run_log_softmax(KernelContext& ctx) {
  const TensorType t = infer_at_run_time(ctx, infer_log_softmax);
  const Tensor& x = ctx.in[0];
  const int axis = normalize_axis(ctx.attrs.get<softmax_attrs>().axis, x.rank(), "log_softmax: axis");
  Tensor y = ctx.output(t.dtype, t.dims);
  const int64_t n = x.dim(axis);
  if (y.numel() > 0) {
    const int64_t sx = axis_bytes(x, axis), sy = axis_bytes(y, axis);
    visit_dtype(x.dtype(), [&](auto tag) {
      using T = storage_t<typename decltype(tag)::type>;
      if constexpr (std::is_floating_point_v<T>) {
        for_each_line<2>(ctx.env.pool, axis, {&x, &y}, [&](auto p) {
          const int64_t im = first_max<T>(p[0], n, sx);
          const double m = double(load<T>(p[0] + im * sx));
          if (!std::isfinite(m)) {
            for (int64_t i = 0; i < n; ++i) store<T>(p[1] + i * sy, std::numeric_limits<T>::quiet_NaN());
            return;
          }
          double others = 0;
          for (int64_t i = 0; i < n; ++i)
            if (i != im) others += std::exp(double(load<T>(p[0] + i * sx)) - m);
          const double ls = std::log1p(others);
          for (int64_t i = 0; i < n; ++i)
            store<T>(p[1] + i * sy, T((double(load<T>(p[0] + i * sx)) - m) - ls));
        });
      }
    });
  }
  ctx.out[0] = y;
}

// 1 at the line's first maximum (its first NaN if it has one), 0 elsewhere.
void run_hardmax(KernelContext& ctx) {
  const TensorType t = infer_at_run_time(ctx, infer_hardmax);
  const Tensor& x = ctx.in[0];
  const int axis = normalize_axis(ctx.attrs.get<softmax_attrs>().axis, x.rank(), "hardmax: axis");
  Tensor y = ctx.output(t.dtype, t.dims);
  const int64_t n = x.dim(axis);
  if (y.numel() > 0) {
    const int64_t sx = axis_bytes(x, axis), sy = axis_bytes(y, axis);
    visit_dtype(x.dtype(), [&](auto tag) {
      using T = storage_t<typename decltype(tag)::type>;
      if constexpr (std::is_floating_point_v<T>) {
        for_each_line<2>(ctx.env.pool, axis, {&x, &y}, [&](auto p) {
          const int64_t m = first_max<T>(p[0], n, sx);
          for (int64_t i = 0; i < n; ++i) store<T>(p[1] + i * sy, T(i == m ? 1 : 0));
        });
      }
    });
  }
  ctx.out[0] = y;
}

// The k largest (smallest) elements of each line and their indices, in order: larger (smaller)
// values first, equal values by lower index, NaN larger than every number (first when largest,
// last when smallest). `sorted=false` gives the same order.
void run_topk(KernelContext& ctx) {
  if (run_with_attr_input(ctx, Opcode::topk, 1, 0, run_topk)) return;
  const TensorType t = infer_at_run_time(ctx, infer_topk);
  const Tensor& x = ctx.in[0];
  const auto& a = ctx.attrs.get<topk_attrs>();
  const int axis = normalize_axis(a.axis, x.rank(), "topk: axis");
  Tensor values = ctx.output(t.dtype, t.dims);
  Tensor indices = ctx.output(DType::i64, t.dims);
  const int64_t n = x.dim(axis), k = a.k;
  if (values.numel() > 0) {
    const int64_t sx = axis_bytes(x, axis), sv = axis_bytes(values, axis),
                  si = axis_bytes(indices, axis);
    const bool largest = a.largest;
    visit_dtype(x.dtype(), [&](auto tag) {
      using T = storage_t<typename decltype(tag)::type>;
      if constexpr (!std::is_same_v<typename decltype(tag)::type, bool_tag>) {
        auto select = [&](auto largest_tag) {
          constexpr bool kLargest = decltype(largest_tag)::value;
          using Item = std::pair<T, int64_t>;
          // a before b: the total order of docs/ops.md (NaN above every number, ties by index).
          auto before = [](const Item& u, const Item& w) {
            const bool nu = is_nan(u.first), nw = is_nan(w.first);
            if (nu || nw) return nu && nw ? u.second < w.second : (kLargest ? nu : nw);
            if (u.first != w.first) return kLargest ? u.first > w.first : u.first < w.first;
            return u.second < w.second;
          };
          for_each_line<3>(ctx.env.pool, axis, {&x, &values, &indices}, [&](auto p) {
            thread_local std::vector<Item> items;
            items.resize(std::size_t(n));
            for (int64_t i = 0; i < n; ++i) items[std::size_t(i)] = {load<T>(p[0] + i * sx), i};
            std::partial_sort(items.begin(), items.begin() + k, items.end(), before);
            for (int64_t i = 0; i < k; ++i) {
              store<T>(p[1] + i * sv, items[std::size_t(i)].first);
              store<int64_t>(p[2] + i * si, items[std::size_t(i)].second);
            }
          });
        };
        if (largest)
          select(std::true_type{});
        else
          select(std::false_type{});
      }
    });
  }
  ctx.out[0] = values;
  ctx.out[1] = indices;
}

}  // namespace mlvm
