// Kernels of the reductions (docs/ops.md, "Reductions"); their static rules, with the table of
// accepted dtypes, are in ir/infer_reduce.cpp; both compute the reduced axes and the result
// shape with ir/reduce_rules.hpp. Reducing an empty dim with max, min, argmax or argmin traps here
// (the static rule rejects it when the dim is known).
//
// Kernel layout (after NumPy): the result is seen as a view over the input's shape with
// stride 0 on the reduced dims, and the strided planner walks input and result in the input's
// memory order. An inner run then either reduces into one accumulator (result stride 0: the
// reduced dim is the run) or combines a whole row of accumulators elementwise (result stride
// non-zero) — no per-element index arithmetic either way.
//
// Float sums: a contiguous run that is reduced into one accumulator is summed by the SIMD fold
// (kernels/simd/reduce.hpp: SIMD partial sums over blocks of 1024, blocks combined pairwise),
// a strided one pairwise (blocks of 128 with 8 partial sums); either way the error is
// O(eps·(block/lanes + log n))·Σ|x|. Runs combined across an outer reduced dim add
// sequentially (SIMD across the row, same order per element), error O(eps·m)·Σ|x| for m such
// rows. Tests allow 2e-5·Σ|x| (f32). Integer sums, max and min are exact whatever the order.
#include <cmath>
#include <limits>

#include "ir/reduce_rules.hpp"
#include "kernels/elementwise_loop.hpp"
#include "kernels/reduce_loop.hpp"
#include "kernels/run_table.hpp"
#include "kernels/simd/reduce.hpp"

namespace mlvm {

namespace {

using namespace ew;

// ---------------------------------------------------------------------------------------------
// Accumulation.
template <class T, bool Contiguous>
T pairwise_sum(const std::byte* p, int64_t n, int64_t stride) {
  auto at = [&](int64_t k) {
    if constexpr (Contiguous)
      return reinterpret_cast<const T*>(p)[k];
    else
      return load<T>(p + k * stride);
  };
  if (n <= 128) {
    T acc[8] = {};
    int64_t k = 0;
    for (; k + 8 <= n; k += 8)
      for (int j = 0; j < 8; ++j) acc[j] += at(k + j);
    T r = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    for (; k < n; ++k) r += at(k);
    return r;
  }
  const int64_t half = (n / 2) & ~int64_t(7);
  return pairwise_sum<T, Contiguous>(p, half, stride) +
         pairwise_sum<T, Contiguous>(p + half * stride, n - half, stride);
}

template <class T, ReduceKind K>
struct Reducer {
  static T identity() {
    if constexpr (K == ReduceKind::max)
      return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                  : std::numeric_limits<T>::lowest();
    else if constexpr (K == ReduceKind::min)
      return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                  : std::numeric_limits<T>::max();
    else
      return T(0);
  }
  // NaN sticks: once acc is NaN it stays (x > NaN is false); a NaN x replaces acc.
  static T combine(T acc, T x) {
    if constexpr (K == ReduceKind::max)
      return (x > acc || x != x) ? x : acc;
    else if constexpr (K == ReduceKind::min)
      return (x < acc || x != x) ? x : acc;
    else
      return wrap_add(acc, x);
  }
  // Reduces one run of n elements to one value.
  static T run(const std::byte* p, int64_t n, int64_t stride) {
    if constexpr ((K == ReduceKind::sum || K == ReduceKind::mean) && std::is_floating_point_v<T>) {
      return stride == int64_t(sizeof(T)) ? pairwise_sum<T, true>(p, n, stride)
                                          : pairwise_sum<T, false>(p, n, stride);
    } else {
      T acc = identity();
      if (stride == int64_t(sizeof(T))) {
        const T* q = reinterpret_cast<const T*>(p);
        for (int64_t k = 0; k < n; ++k) acc = combine(acc, q[k]);
      } else {
        for (int64_t k = 0; k < n; ++k, p += stride) acc = combine(acc, load<T>(p));
      }
      return acc;
    }
  }
};

// The SIMD runs of kind K for x's dtype (bool max/min compare 0/1 bytes exactly as u8).
template <ReduceKind K>
simd::ReduceOp simd_reduce_op() {
  if constexpr (K == ReduceKind::max)
    return simd::ReduceOp::max;
  else if constexpr (K == ReduceKind::min)
    return simd::ReduceOp::min;
  else
    return simd::ReduceOp::sum;
}
inline int simd_elem(DType t) {
  return t == DType::boolean ? int(DType::u8) : int(t);
}

// Folds x into `acc`, a view of the result over x's shape with stride 0 on reduced dims.
// Contiguous runs go to the SIMD runs of kernels/simd/reduce.hpp: a fold when the run is
// reduced (acc stride 0), an accumulate when it is not. The loop and its split across the pool
// are kernels/reduce_loop.hpp's.
template <class T, ReduceKind K>
void reduce_into(ThreadPool* pool, const Tensor& x, const Tensor& acc) {
  using R = Reducer<T, K>;
  constexpr int64_t s = sizeof(T);
  const simd::ReduceTable& table = simd::reduce_kernels();
  const simd::FoldRun fold = table.fold[int(simd_reduce_op<K>())][simd_elem(x.dtype())];
  const simd::AccumulateRun accumulate =
      table.accumulate[int(simd_reduce_op<K>())][simd_elem(x.dtype())];
  auto L = plan_strided_loop<2>(x.shape(), std::array<const Tensor*, 2>{&x, &acc});
  const std::array<std::byte*, 2> base{x.raw_data(), acc.raw_data()};
  auto run = [&](auto p, int64_t n, auto st) {
    if (st[1] == 0) {
      if (st[0] == s && fold) return fold(p[1], p[0], n);
      T* o = reinterpret_cast<T*>(p[1]);
      *o = R::combine(*o, R::run(p[0], n, st[0]));
    } else if (st[0] == s && st[1] == s) {
      if (accumulate) return accumulate(p[1], p[0], n);
      const T* q = reinterpret_cast<const T*>(p[0]);
      T* o = reinterpret_cast<T*>(p[1]);
      for (int64_t k = 0; k < n; ++k) o[k] = R::combine(o[k], q[k]);
    } else {
      const std::byte* q = p[0];
      std::byte* o = p[1];
      for (int64_t k = 0; k < n; ++k, q += st[0], o += st[1])
        store<T>(o, R::combine(load<T>(o), load<T>(q)));
    }
  };
  for_each_reduce_run<2>(pool, L, base, run);
}

// ---------------------------------------------------------------------------------------------
void run_reduce(KernelContext& ctx, ReduceKind kind) {
  const char* op = reduce_kind_name(kind);
  require_inputs(op, ctx.in.size(), 1);
  const Tensor& x = ctx.in[0];
  require_dtype(op, "x", x.dtype(), reduce_kind_dtypes(kind), reduce_kind_why(kind));
  const auto& a = ctx.attrs.get<reduce_attrs>();
  ReducePlan P = make_reduce_plan(op, x.shape(), a.axes, a.keepdims, a.exclude);
  int64_t count = 1;
  for (int k = 0; k < P.rank; ++k) {
    if (!P.reduced[k]) continue;
    if (x.dim(k) == 0 && (kind == ReduceKind::max || kind == ReduceKind::min))
      fail_trap(std::string(op) + ": cannot reduce dim " + std::to_string(k) + " of " +
                x.type_string() + ": it is empty, and " + op + " of no elements is undefined");
    count *= x.dim(k);
  }
  // Never reuses x: the accumulators are initialized before x is read.
  Tensor y = ctx.output(x.dtype(), P.out_shape);
  if (y.numel() > 0) {
    Dims acc_strides = contiguous_strides(P.keep_shape);
    for (int k = 0; k < P.rank; ++k)
      if (P.reduced[k]) acc_strides[k] = 0;
    const Tensor acc = y.with_layout(x.shape(), acc_strides, 0);
    visit_dtype(x.dtype(), [&](auto tag) {
      using T = storage_t<typename decltype(tag)::type>;
      auto with_kind = [&](auto kind_tag) {
        constexpr ReduceKind K = decltype(kind_tag)::value;
        T* o = y.data<T>();
        const T init = Reducer<T, K>::identity();
        for (int64_t k = 0; k < y.numel(); ++k) o[k] = init;
        reduce_into<T, K>(ctx.env.pool, x, acc);
        if constexpr (K == ReduceKind::mean && std::is_floating_point_v<T>) {
          const T divisor = T(count);
          for (int64_t k = 0; k < y.numel(); ++k) o[k] = o[k] / divisor;
        }
      };
      switch (kind) {
        case ReduceKind::sum:
          if constexpr (!std::is_same_v<typename decltype(tag)::type, bool_tag>)
            with_kind(std::integral_constant<ReduceKind, ReduceKind::sum>{});
          break;
        case ReduceKind::max:
          with_kind(std::integral_constant<ReduceKind, ReduceKind::max>{});
          break;
        case ReduceKind::min:
          with_kind(std::integral_constant<ReduceKind, ReduceKind::min>{});
          break;
        case ReduceKind::mean:
          if constexpr (std::is_floating_point_v<T>)
            with_kind(std::integral_constant<ReduceKind, ReduceKind::mean>{});
          break;
      }
    });
  }
  ctx.out[0] = y;
}

// ---------------------------------------------------------------------------------------------
// argmax / argmin: the first index of the extreme along `axis` (select_last_index: the last);
// a NaN is extreme (the first NaN; the last one with select_last_index).
template <class T, bool Max, bool Last>
int64_t arg_scan(const std::byte* p, int64_t n, int64_t stride) {
  T best = load<T>(p);
  bool nan = best != best;
  if (!Last && nan) return 0;
  int64_t bi = 0;
  p += stride;
  for (int64_t i = 1; i < n; ++i, p += stride) {
    const T v = load<T>(p);
    if (v != v) {
      if (!Last) return i;
      bi = i;
      nan = true;
    } else if (!nan && (Max ? (Last ? v >= best : v > best) : (Last ? v <= best : v < best))) {
      best = v;
      bi = i;
    }
  }
  return bi;
}

template <bool Max>
void run_arg(KernelContext& ctx, const char* op) {
  require_inputs(op, ctx.in.size(), 1);
  const Tensor& x = ctx.in[0];
  const int rank = x.rank();
  const auto& attrs = ctx.attrs.get<arg_reduce_attrs>();
  const int64_t a = attrs.axis;
  if (a < -rank || a >= rank)
    fail_invalid(std::string(op) + ": axis " + std::to_string(a) + " is out of range for rank " +
                 std::to_string(rank));
  const int axis = int(a < 0 ? a + rank : a);
  const int64_t n = x.dim(axis);
  if (n == 0)
    fail_trap(std::string(op) + ": cannot reduce dim " + std::to_string(axis) + " of " +
              x.type_string() + ": it is empty");
  Tensor y = ctx.output(DType::i64, arg_out_dims(x.shape(), axis, attrs.keepdims));
  if (y.numel() > 0) {
    Dims keep = x.shape();
    keep[axis] = 1;
    const Tensor xs = x.with_layout(keep, x.strides(), x.offset());  // element 0 of each line
    const Tensor ys = y.with_layout(keep, contiguous_strides(keep), 0);
    const int64_t stride = x.strides()[axis] * x.itemsize();
    visit_dtype(x.dtype(), [&](auto tag) {
      using T = storage_t<typename decltype(tag)::type>;
      auto scan_lines = [&](auto last) {
        for_each_run_parallel<2>(ctx.env.pool, keep, {&ys, &xs}, [&](auto p, int64_t cnt, auto st) {
          std::byte* o = p[0];
          const std::byte* q = p[1];
          for (int64_t k = 0; k < cnt; ++k, o += st[0], q += st[1])
            store<int64_t>(o, arg_scan<T, Max, decltype(last)::value>(q, n, stride));
        });
      };
      if (attrs.select_last_index)
        scan_lines(std::true_type{});
      else
        scan_lines(std::false_type{});
    });
  }
  ctx.out[0] = y;
}

}  // namespace

void run_sum(KernelContext& ctx) {
  run_reduce(ctx, ReduceKind::sum);
}
void run_max(KernelContext& ctx) {
  run_reduce(ctx, ReduceKind::max);
}
void run_min(KernelContext& ctx) {
  run_reduce(ctx, ReduceKind::min);
}
void run_mean(KernelContext& ctx) {
  run_reduce(ctx, ReduceKind::mean);
}
void run_argmax(KernelContext& ctx) {
  run_arg<true>(ctx, "argmax");
}
void run_argmin(KernelContext& ctx) {
  run_arg<false>(ctx, "argmin");
}

}  // namespace mlvm
