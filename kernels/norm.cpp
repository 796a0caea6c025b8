// The normalization ops over contiguous copies of their inputs: batch_norm, instance_norm
// (per (n, c) plane of an (N, C, S...) tensor), layer_norm (per row of the (outer, inner)
// matrix split at `axis`), mean_variance_normalization (per group of the kept dims) and lrn
// (across channels). Statistics are taken in f64 in two passes (mean, then squared deviations:
// no cancellation); y is computed in x's dtype from per-channel or per-row factors. The static
// rules are in ir/infer_norm.cpp, the attribute rules they share in ir/norm_rules.hpp.
#include <cmath>
#include <type_traits>
#include <vector>

#include "ir/norm_rules.hpp"
#include "kernels/run_table.hpp"
#include "kernels/run_time_type.hpp"
#include "kernels/simd/norm.hpp"
#include "kernels/thread_pool.hpp"
#include "tensor/copy.hpp"

namespace mlvm {

namespace {

// The values of a float tensor (any strides) in row-major order, as f64.
std::vector<double> read_doubles(const Tensor& t, const std::shared_ptr<MemoryBudget>& budget) {
  std::vector<double> v(std::size_t(t.numel()));
  if (v.empty()) return v;
  const Tensor c = contiguous(t, budget);
  visit_dtype(c.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    const T* p = c.template data<T>();
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = double(p[k]);
  });
  return v;
}

// The level's row runs for T (float or double).
template <class T>
const simd::NormRuns<T>& norm_runs() {
  if constexpr (std::is_same_v<T, float>) return simd::norm_kernels().f32;
  else return simd::norm_kernels().f64;
}

// Calls f.template operator()<T>() with T = float or double for a float dtype.
template <class F>
void visit_float(DType dt, F&& f) {
  if (dt == DType::f32) f.template operator()<float>();
  else f.template operator()<double>();
}

// The (N, C, S) split of an (N, C, ...) shape.
struct Planes {
  int64_t n, c, s;
};
Planes planes_of(const Tensor& x) {
  int64_t s = 1;
  for (int d = 2; d < x.rank(); ++d) s *= x.dim(d);
  return {x.dim(0), x.dim(1), s};
}

// Mean and biased variance of a row, in f64, two passes (kernels/simd/norm.hpp).
template <class T>
std::pair<double, double> mean_var(const T* p, int64_t n) {
  double mean, var;
  norm_runs<T>().mean_var(p, n, &mean, &var);
  return {mean, var};
}

// A mean as two values of the dtype, hi + lo, so that x - mean is (x - hi) - lo: exact for x
// near the mean in f32 too (x - hi is exact there), where x - T(mean) would lose the mean's
// rounding error against a small deviation.
template <class T>
struct Split {
  T hi, lo;
  explicit Split(double m) : hi(T(m)), lo(T(m - double(T(m)))) {}
};

// y[i] = (x[i] - m)·a + b over one run.
template <class T>
void affine(const T* x, T* y, int64_t n, Split<T> m, T a, T b) {
  norm_runs<T>().affine(x, y, n, m.hi, m.lo, a, b);
}

int64_t plane_grain(int64_t s) { return std::max<int64_t>(1, 32768 / std::max<int64_t>(1, s)); }

}  // namespace

void run_batch_norm(KernelContext& ctx) {
  const TensorType ot = infer_at_run_time(ctx, infer_batch_norm);
  const double eps = ctx.attrs.get<epsilon_attrs>().epsilon.as_double();
  const Tensor x = contiguous(ctx.in[0], ctx.env.budget);
  Tensor y = ctx.output(ot.dtype, ot.dims, x.storage() == ctx.in[0].storage() ? 0 : -1);
  const Planes p = planes_of(x);
  std::vector<double> v[4];
  for (int k = 0; k < 4; ++k) v[k] = read_doubles(ctx.in[k + 1], ctx.env.budget);
  if (y.numel() > 0)
    visit_float(x.dtype(), [&]<class T>() {
      // y = (x - mean) · scale / sqrt(var + eps) + bias, the factor taken per channel in f64.
      std::vector<Split<T>> m;
      std::vector<T> a(std::size_t(p.c)), b(std::size_t(p.c));
      for (int64_t c = 0; c < p.c; ++c) {
        m.emplace_back(v[2][c]);
        a[c] = T(v[0][c] / std::sqrt(v[3][c] + eps));
        b[c] = T(v[1][c]);
      }
      const T* xs = x.template data<T>();
      T* ys = y.template data<T>();
      parallel_for(ctx.env.pool, p.n * p.c, plane_grain(p.s), [&](int64_t f, int64_t l) {
        for (int64_t t = f; t < l; ++t) {
          const int64_t c = t % p.c;
          affine(xs + t * p.s, ys + t * p.s, p.s, m[c], a[c], b[c]);
        }
      });
    });
  ctx.out[0] = y;
}

void run_instance_norm(KernelContext& ctx) {
  const TensorType ot = infer_at_run_time(ctx, infer_instance_norm);
  const double eps = ctx.attrs.get<epsilon_attrs>().epsilon.as_double();
  const Tensor x = contiguous(ctx.in[0], ctx.env.budget);
  Tensor y = ctx.output(ot.dtype, ot.dims, x.storage() == ctx.in[0].storage() ? 0 : -1);
  const Planes p = planes_of(x);
  const std::vector<double> scale = read_doubles(ctx.in[1], ctx.env.budget);
  const std::vector<double> bias = read_doubles(ctx.in[2], ctx.env.budget);
  if (y.numel() > 0)
    visit_float(x.dtype(), [&]<class T>() {
      const T* xs = x.template data<T>();
      T* ys = y.template data<T>();
      parallel_for(ctx.env.pool, p.n * p.c, plane_grain(p.s), [&](int64_t f, int64_t l) {
        for (int64_t t = f; t < l; ++t) {
          const int64_t c = t % p.c;
          const auto [mean, var] = mean_var(xs + t * p.s, p.s);
          affine(xs + t * p.s, ys + t * p.s, p.s, Split<T>(mean), T(scale[c] / std::sqrt(var + eps)),
                 T(bias[c]));
        }
      });
    });
  ctx.out[0] = y;
}

namespace {

// t (layer_norm's scale or bias) broadcast one way to `target` and copied contiguous.
Tensor expand_to(const Tensor& t, const Dims& target, const std::shared_ptr<MemoryBudget>& budget) {
  const int k = target.size(), r = t.rank();
  Dims strides = Dims::filled(k, 0);
  for (int i = k - r; i < k; ++i) {
    const int j = i - (k - r);
    strides[i] = t.dim(j) == target[i] ? t.strides()[j] : 0;
  }
  return contiguous(t.with_layout(target, strides, t.offset()), budget);
}

}  // namespace

void run_layer_norm(KernelContext& ctx) {
  const TensorType ot = infer_at_run_time(ctx, infer_layer_norm);
  const layer_norm_attrs& at = ctx.attrs.get<layer_norm_attrs>();
  const double eps = at.epsilon.as_double();
  const Tensor x = contiguous(ctx.in[0], ctx.env.budget);
  const int axis = layer_norm_axis(at, x.rank());
  Dims normalized, stats_dims = x.shape();
  int64_t rows = 1, cols = 1;
  for (int d = 0; d < x.rank(); ++d) {
    if (d < axis) {
      rows *= x.dim(d);
    } else {
      normalized.push_back(x.dim(d));
      cols *= x.dim(d);
      stats_dims[d] = 1;
    }
  }
  const bool has_bias = ctx.in.size() > 2 && ctx.in[2].defined();
  const Tensor scale = expand_to(ctx.in[1], normalized, ctx.env.budget);
  const Tensor bias = has_bias ? expand_to(ctx.in[2], normalized, ctx.env.budget) : Tensor();
  Tensor y = ctx.output(ot.dtype, ot.dims, x.storage() == ctx.in[0].storage() ? 0 : -1);
  Tensor mean_out = ctx.output(DType::f32, stats_dims);
  Tensor inv_out = ctx.output(DType::f32, stats_dims);
  visit_float(x.dtype(), [&]<class T>() {
    const T* xs = x.template data<T>();
    const T* sc = scale.template data<T>();
    const T* bs = has_bias ? bias.template data<T>() : nullptr;
    T* ys = y.template data<T>();
    float* ms = mean_out.template data<float>();
    float* is = inv_out.template data<float>();
    parallel_for(ctx.env.pool, rows, plane_grain(cols), [&](int64_t f, int64_t l) {
      for (int64_t r = f; r < l; ++r) {
        const T* xr = xs + r * cols;
        T* yr = ys + r * cols;
        const auto [mean, var] = mean_var(xr, cols);
        const double inv = 1.0 / std::sqrt(var + eps);
        ms[r] = float(mean);
        is[r] = float(inv);
        const Split<T> m(mean);
        norm_runs<T>().scaled(xr, yr, cols, m.hi, m.lo, T(inv), sc, bs);
      }
    });
  });
  ctx.out[0] = y;
  ctx.out[1] = mean_out;
  ctx.out[2] = inv_out;
}

void run_lrn(KernelContext& ctx) {
  const TensorType ot = infer_at_run_time(ctx, infer_lrn);
  const lrn_attrs& at = ctx.attrs.get<lrn_attrs>();
  const Tensor x = contiguous(ctx.in[0], ctx.env.budget);
  Tensor y = ctx.output(ot.dtype, ot.dims);  // not in place: planes are read across channels
  const Planes p = planes_of(x);
  // ONNX LRN: the window of channel c is [c - floor((size-1)/2), c + ceil((size-1)/2)].
  const int64_t before = (at.size - 1) / 2, after = at.size / 2;
  const double alpha = at.alpha.as_double() / double(at.size), beta = at.beta.as_double(),
               bias = at.bias.as_double();
  if (y.numel() > 0)
    visit_float(x.dtype(), [&]<class T>() {
      const T* xs = x.template data<T>();
      T* ys = y.template data<T>();
      parallel_for(ctx.env.pool, p.n * p.c, plane_grain(p.s * std::min<int64_t>(at.size, p.c)),
                   [&](int64_t f, int64_t l) {
                     std::vector<double> acc(std::size_t(p.s));
                     for (int64_t t = f; t < l; ++t) {
                       const int64_t n = t / p.c, c = t % p.c;
                       const int64_t lo = std::max<int64_t>(0, c - before);
                       const int64_t hi = std::min<int64_t>(p.c - 1, c + after);
                       std::fill(acc.begin(), acc.end(), 0.0);
                       for (int64_t k = lo; k <= hi; ++k) {
                         const T* src = xs + (n * p.c + k) * p.s;
                         for (int64_t i = 0; i < p.s; ++i) acc[i] += double(src[i]) * double(src[i]);
                       }
                       const T* xp = xs + t * p.s;
                       T* yp = ys + t * p.s;
                       if (beta == 0.75)  // the default: b^0.75 = sqrt(b)·sqrt(sqrt(b))
                         for (int64_t i = 0; i < p.s; ++i) {
                           const double b = bias + alpha * acc[i], r = std::sqrt(b);
                           yp[i] = T(double(xp[i]) / (r * std::sqrt(r)));
                         }
                       else
                         for (int64_t i = 0; i < p.s; ++i)
                           yp[i] = T(double(xp[i]) / std::pow(bias + alpha * acc[i], beta));
                     }
                   });
    });
  ctx.out[0] = y;
}

void run_mean_variance_normalization(KernelContext& ctx) {
  const TensorType ot = infer_at_run_time(ctx, infer_mean_variance_normalization);
  const Tensor x = contiguous(ctx.in[0], ctx.env.budget);
  const std::vector<bool> reduced = mvn_reduced_dims(ctx.attrs.get<mvn_attrs>(), x.rank());
  Tensor y = ctx.output(ot.dtype, ot.dims, x.storage() == ctx.in[0].storage() ? 0 : -1);
  const int r = x.rank();
  // Group of an element: its index over the kept dims (gstride 0 on reduced dims).
  std::vector<int64_t> gstride(std::size_t(r), 0);
  int64_t groups = 1;
  for (int d = r - 1; d >= 0; --d)
    if (!reduced[std::size_t(d)]) {
      gstride[std::size_t(d)] = groups;
      groups *= x.dim(d);
    }
  if (y.numel() == 0) {
    ctx.out[0] = y;
    return;
  }
  const int64_t per_group = x.numel() / groups, inner = x.dim(r - 1), gin = gstride[std::size_t(r - 1)];
  // Calls f(row offset, group of the row's first element) for every row of the last dim.
  auto for_rows = [&](auto&& f) {
    std::vector<int64_t> idx(std::size_t(r), 0);
    int64_t g = 0;
    for (int64_t off = 0; off < x.numel(); off += inner) {
      f(off, g);
      for (int d = r - 2; d >= 0; --d) {
        g += gstride[std::size_t(d)];
        if (++idx[std::size_t(d)] < x.dim(d)) break;
        g -= gstride[std::size_t(d)] * x.dim(d);
        idx[std::size_t(d)] = 0;
      }
    }
  };
  visit_float(x.dtype(), [&]<class T>() {
    const T* xs = x.template data<T>();
    T* ys = y.template data<T>();
    std::vector<double> mean(std::size_t(groups), 0.0), var(std::size_t(groups), 0.0);
    for_rows([&](int64_t off, int64_t g) {
      for (int64_t j = 0; j < inner; ++j) mean[std::size_t(g + j * gin)] += double(xs[off + j]);
    });
    for (double& m : mean) m /= double(per_group);
    for_rows([&](int64_t off, int64_t g) {
      for (int64_t j = 0; j < inner; ++j) {
        const double d = double(xs[off + j]) - mean[std::size_t(g + j * gin)];
        var[std::size_t(g + j * gin)] += d * d;
      }
    });
    // ONNX: (X - E[X]) / (sqrt(E[X^2] - E[X]^2) + 1e-9); the variance is taken as
    // E[(X - E[X])^2], equal in exact arithmetic and never negative.
    for (double& v : var) v = 1.0 / (std::sqrt(v / double(per_group)) + 1e-9);
    for_rows([&](int64_t off, int64_t g) {
      for (int64_t j = 0; j < inner; ++j) {
        const std::size_t k = std::size_t(g + j * gin);
        ys[off + j] = T((double(xs[off + j]) - mean[k]) * var[k]);
      }
    });
  });
  ctx.out[0] = y;
}

}  // namespace mlvm
