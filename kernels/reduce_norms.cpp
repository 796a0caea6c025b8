// Kernels of prod, sum_square, l1, l2, log_sum and logsumexp (docs/ops.md, "Reductions"); their
// static rules are in ir/infer_reduce_norms.cpp, and both compute the reduced axes and the result
// shape with ir/reduce_rules.hpp, as sum does.
//
// Layout as in kernels/reduce.cpp: the accumulators are seen as a view over x's shape with
// stride 0 on the reduced dims, walked with x in x's memory order by kernels/reduce_loop.hpp
// (which also splits the work across the pool so that each accumulator sees its elements in one
// order whatever the thread count). Accumulators: f64 for float inputs (f32 results are rounded
// once, at the end), x's own dtype for integers (wrapping, as sum).
//
//   prod        a = 1;  a *= x
//   sum_square  a = 0;  a += x·x
//   l1          a = 0;  a += |x|           (integers: |MIN| wraps to MIN, as `abs`)
//   l2          sqrt(sum_square)
//   log_sum     log(sum)                   (empty: log 0 = -inf)
//   logsumexp   m + log(Σ exp(x − m)), m the maximum (a first pass), replaced by 0 when it is
//               not finite: all −inf (or empty) gives −inf, a +inf gives +inf, a NaN gives NaN.
#include <cmath>
#include <limits>
#include <type_traits>

#include "ir/reduce_norm_rules.hpp"
#include "ir/reduce_rules.hpp"
#include "kernels/elementwise_loop.hpp"
#include "kernels/reduce_loop.hpp"
#include "kernels/run_table.hpp"

namespace mlvm {

namespace {

using namespace ew;

template <class T>
using acc_t = std::conditional_t<std::is_floating_point_v<T>, double, T>;

// One kind's accumulation: A step(A acc, T x), the identity, and the result from the final
// accumulator (`m` is logsumexp's shift, 0 for the others).
template <class T, ReduceNormKind K>
struct Fold {
  using A = acc_t<T>;
  static A identity() { return K == ReduceNormKind::prod ? A(1) : A(0); }
  static A step(A a, T x, A m) {
    if constexpr (K == ReduceNormKind::prod) {
      return wrap_mul(a, A(x));
    } else if constexpr (K == ReduceNormKind::sum_square || K == ReduceNormKind::l2) {
      return wrap_add(a, wrap_mul(A(x), A(x)));
    } else if constexpr (K == ReduceNormKind::l1) {
      if constexpr (std::is_floating_point_v<T>)
        return a + std::fabs(A(x));
      else if constexpr (std::is_signed_v<T>)
        return wrap_add(a, x < 0 ? wrap_sub(A(0), A(x)) : A(x));
      else
        return wrap_add(a, A(x));
    } else if constexpr (K == ReduceNormKind::log_sum) {
      return a + A(x);
    } else {
      return a + std::exp(A(x) - m);
    }
  }
  static T finish(A a, A m) {
    if constexpr (K == ReduceNormKind::l2)
      return T(std::sqrt(a));
    else if constexpr (K == ReduceNormKind::log_sum)
      return T(std::log(a));
    else if constexpr (K == ReduceNormKind::logsumexp)
      return T(m + std::log(a));
    else
      return T(a);
  }
};

// Folds x into the accumulators `acc` (a view over x's shape, stride 0 on reduced dims);
// `shift` (logsumexp only) is a view of the same form over the per-result maxima, else null.
template <class T, ReduceNormKind K>
void fold_into(ThreadPool* pool, const Tensor& x, const Tensor* shift, const Tensor& acc) {
  using F = Fold<T, K>;
  using A = acc_t<T>;
  auto run = [&](auto p, int64_t n, auto st) {
    constexpr int S = sizeof(p) / sizeof(p[0]) - 1;  // the shift operand, if any
    const std::byte* q = p[0];
    std::byte* o = p[S];
    auto shift_at = [&](const std::byte* s) {
      if constexpr (S == 2) return load<A>(s);
      else return A(0);
    };
    if (st[S] == 0) {
      A a = load<A>(o);
      const A m = shift_at(p[1]);
      for (int64_t k = 0; k < n; ++k, q += st[0]) a = F::step(a, load<T>(q), m);
      store<A>(o, a);
    } else {
      const std::byte* s = p[1];
      for (int64_t k = 0; k < n; ++k, q += st[0], o += st[S], s += st[1])
        store<A>(o, F::step(load<A>(o), load<T>(q), shift_at(s)));
    }
  };
  if (shift) {
    auto L = plan_strided_loop<3>(x.shape(), std::array<const Tensor*, 3>{&x, shift, &acc});
    for_each_reduce_run<3>(pool, L, {x.raw_data(), shift->raw_data(), acc.raw_data()}, run);
  } else {
    auto L = plan_strided_loop<2>(x.shape(), std::array<const Tensor*, 2>{&x, &acc});
    for_each_reduce_run<2>(pool, L, {x.raw_data(), acc.raw_data()}, run);
  }
}

// logsumexp's first pass: the maximum into `acc` (stride 0 on reduced dims); a NaN sticks.
template <class T>
void max_into(ThreadPool* pool, const Tensor& x, const Tensor& acc) {
  auto L = plan_strided_loop<2>(x.shape(), std::array<const Tensor*, 2>{&x, &acc});
  for_each_reduce_run<2>(pool, L, {x.raw_data(), acc.raw_data()}, [&](auto p, int64_t n, auto st) {
    const std::byte* q = p[0];
    std::byte* o = p[1];
    for (int64_t k = 0; k < n; ++k, q += st[0], o += st[1]) {
      const double v = double(load<T>(q)), a = load<double>(o);
      if (v > a || v != v) store<double>(o, v);
    }
  });
}

void run_reduce_norms(KernelContext& ctx, ReduceNormKind kind) {
  const char* op = reduce_norm_name(kind);
  require_inputs(op, ctx.in.size(), 1);
  const Tensor& x = ctx.in[0];
  require_dtype(op, "x", x.dtype(), reduce_norm_dtypes(kind), reduce_norm_why(kind));
  const auto& a = ctx.attrs.get<reduce_attrs>();
  const ReducePlan P = make_reduce_plan(op, x.shape(), a.axes, a.keepdims, a.exclude);
  Tensor y = ctx.output(x.dtype(), P.out_shape);
  const int64_t n_out = y.numel();
  if (n_out > 0) {
    Dims acc_strides = contiguous_strides(P.keep_shape);
    for (int k = 0; k < P.rank; ++k)
      if (P.reduced[k]) acc_strides[k] = 0;
    visit_dtype(x.dtype(), [&](auto tag) {
      using T = storage_t<typename decltype(tag)::type>;
      if constexpr (!std::is_same_v<typename decltype(tag)::type, bool_tag>) {
        using A = acc_t<T>;
        auto with_kind = [&](auto kind_tag) {
          constexpr ReduceNormKind K = decltype(kind_tag)::value;
          using F = Fold<T, K>;
          // Scratch accumulators (and maxima), one per result, in the result's order.
          Tensor acc = ctx.output(dtype_of<A>::value, P.keep_shape);
          Tensor shift;
          A* pa = acc.template data<A>();
          for (int64_t k = 0; k < n_out; ++k) pa[k] = F::identity();
          if constexpr (K == ReduceNormKind::logsumexp) {
            shift = ctx.output(DType::f64, P.keep_shape);
            double* m = shift.template data<double>();
            for (int64_t k = 0; k < n_out; ++k) m[k] = -std::numeric_limits<double>::infinity();
            max_into<T>(ctx.env.pool, x, shift.with_layout(x.shape(), acc_strides, 0));
            for (int64_t k = 0; k < n_out; ++k)
              if (!std::isfinite(m[k])) m[k] = 0;  // -inf, +inf or NaN: no shift
            const Tensor sv = shift.with_layout(x.shape(), acc_strides, 0);
            fold_into<T, K>(ctx.env.pool, x, &sv, acc.with_layout(x.shape(), acc_strides, 0));
          } else {
            fold_into<T, K>(ctx.env.pool, x, nullptr, acc.with_layout(x.shape(), acc_strides, 0));
          }
          T* o = y.template data<T>();
          const A* m = shift.defined() ? shift.template data<A>() : nullptr;
          for (int64_t k = 0; k < n_out; ++k) o[k] = F::finish(pa[k], m ? m[k] : A(0));
        };
        switch (kind) {
          case ReduceNormKind::prod:
            with_kind(std::integral_constant<ReduceNormKind, ReduceNormKind::prod>{});
            break;
          case ReduceNormKind::sum_square:
            with_kind(std::integral_constant<ReduceNormKind, ReduceNormKind::sum_square>{});
            break;
          case ReduceNormKind::l1:
            with_kind(std::integral_constant<ReduceNormKind, ReduceNormKind::l1>{});
            break;
          default:
            if constexpr (std::is_floating_point_v<T>) {
              if (kind == ReduceNormKind::l2)
                with_kind(std::integral_constant<ReduceNormKind, ReduceNormKind::l2>{});
              else if (kind == ReduceNormKind::log_sum)
                with_kind(std::integral_constant<ReduceNormKind, ReduceNormKind::log_sum>{});
              else
                with_kind(std::integral_constant<ReduceNormKind, ReduceNormKind::logsumexp>{});
            }
            break;
        }
      }
    });
  }
  ctx.out[0] = y;
}

}  // namespace

void run_prod(KernelContext& ctx) {
  run_reduce_norms(ctx, ReduceNormKind::prod);
}
void run_sum_square(KernelContext& ctx) {
  run_reduce_norms(ctx, ReduceNormKind::sum_square);
}
void run_l1(KernelContext& ctx) {
  run_reduce_norms(ctx, ReduceNormKind::l1);
}
void run_l2(KernelContext& ctx) {
  run_reduce_norms(ctx, ReduceNormKind::l2);
}
void run_log_sum(KernelContext& ctx) {
  run_reduce_norms(ctx, ReduceNormKind::log_sum);
}
void run_logsumexp(KernelContext& ctx) {
  run_reduce_norms(ctx, ReduceNormKind::logsumexp);
}

}  // namespace mlvm
