// lp_pool2d and max_pool2d_indices over NCHW planes, directly: each output cell walks its
// window's taps inside the input (the padding contributes nothing). The static rules are in
// ir/infer_pool.cpp; the window parameters and output sizes they share with these kernels are
// in ir/nn_rules.hpp.
#include <cmath>
#include <limits>
#include <vector>

#include "ir/nn_rules.hpp"
#include "kernels/run_table.hpp"
#include "kernels/run_time_type.hpp"
#include "kernels/thread_pool.hpp"
#include "tensor/copy.hpp"

namespace mlvm {

namespace {

// Window taps k in [0, K) with start + k·dil inside [0, n): [lo, hi).
std::pair<int64_t, int64_t> taps(int64_t start, int64_t k, int64_t dil, int64_t n) {
  int64_t lo = start >= 0 ? 0 : (-start + dil - 1) / dil;
  int64_t hi = start > n - 1 ? 0 : (n - 1 - start) / dil + 1;
  hi = std::min(hi, k);
  return {std::min(lo, hi), hi};
}

struct Geometry {
  int64_t planes, h, w, oh, ow;
};

// Calls f(plane, i, j, h0, h1, w0, w1, hs, ws) for every output cell of planes [first, last):
// the window's valid taps are a in [h0, h1), b in [w0, w1), at input (hs + a·dh, ws + b·dw).
template <class F>
void for_windows(const Geometry& g, const PoolParams& p, int64_t first, int64_t last, F&& f) {
  for (int64_t plane = first; plane < last; ++plane)
    for (int64_t i = 0; i < g.oh; ++i) {
      const int64_t hs = i * p.sh - p.top;
      const auto [h0, h1] = taps(hs, p.kh, p.dh, g.h);
      for (int64_t j = 0; j < g.ow; ++j) {
        const int64_t ws = j * p.sw - p.left;
        const auto [w0, w1] = taps(ws, p.kw, p.dw, g.w);
        f(plane, i, j, h0, h1, w0, w1, hs, ws);
      }
    }
}

int64_t window_grain(const Geometry& g, const PoolParams& p) {
  return std::max<int64_t>(1, 65536 / std::max<int64_t>(1, g.oh * g.ow * p.kh * p.kw));
}

}  // namespace

// y = (Σ |x|^p)^(1/p) over the window's cells inside x, summed in f64.
void run_lp_pool2d(KernelContext& ctx) {
  const TensorType ot = infer_at_run_time(ctx, infer_lp_pool2d);
  const lp_pool2d_attrs& at = ctx.attrs.get<lp_pool2d_attrs>();
  const PoolParams p = pool_params(at);
  const Tensor x = contiguous(ctx.in[0], ctx.env.budget);
  Tensor y = ctx.output(ot.dtype, ot.dims);
  const Geometry g{x.dim(0) * x.dim(1), x.dim(2), x.dim(3), ot.dims[2], ot.dims[3]};
  const int64_t pw = at.p;
  const double inv_p = 1.0 / double(pw);
  auto run = [&]<class T>() {
    const T* xs = x.template data<T>();
    T* ys = y.template data<T>();
    parallel_for(ctx.env.pool, g.planes, window_grain(g, p), [&](int64_t f, int64_t l) {
      for_windows(g, p, f, l, [&](int64_t plane, int64_t i, int64_t j, int64_t h0, int64_t h1,
                                  int64_t w0, int64_t w1, int64_t hs, int64_t ws) {
        const T* xp = xs + plane * g.h * g.w;
        double s = 0;
        for (int64_t a = h0; a < h1; ++a) {
          const T* row = xp + (hs + a * p.dh) * g.w + ws;
          for (int64_t b = w0; b < w1; ++b) {
            const double v = std::fabs(double(row[b * p.dw]));
            s += pw == 1 ? v : pw == 2 ? v * v : std::pow(v, double(pw));
          }
        }
        ys[(plane * g.oh + i) * g.ow + j] = T(pw == 1 ? s : pw == 2 ? std::sqrt(s) : std::pow(s, inv_p));
      });
    });
  };
  if (y.numel() > 0) {
    if (x.dtype() == DType::f32) run.template operator()<float>();
    else run.template operator()<double>();
  }
  ctx.out[0] = y;
}

// max_pool2d's values, and the flat index (n·C·H·W + c·H·W + h·W + w) into x of each: the first
// maximum in row-major window order (the first NaN, if any, as max_pool2d lets NaN win), -1
// for a window with no cell inside x (its value is the dtype's lowest, as max_pool2d's).
void run_max_pool2d_indices(KernelContext& ctx) {
  const TensorType ot = infer_at_run_time(ctx, infer_max_pool2d_indices);
  const PoolParams p = pool_params(ctx.attrs.get<max_pool2d_attrs>());
  const Tensor x = contiguous(ctx.in[0], ctx.env.budget);
  Tensor y = ctx.output(ot.dtype, ot.dims);
  Tensor idx = ctx.output(DType::i64, ot.dims);
  const Geometry g{x.dim(0) * x.dim(1), x.dim(2), x.dim(3), ot.dims[2], ot.dims[3]};
  if (y.numel() > 0)
    visit_dtype(x.dtype(), [&](auto tag) {
      using T = storage_t<typename decltype(tag)::type>;
      const T* xs = x.template data<T>();
      T* ys = y.template data<T>();
      int64_t* is = idx.template data<int64_t>();
      const T lowest = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                            : std::numeric_limits<T>::lowest();
      parallel_for(ctx.env.pool, g.planes, window_grain(g, p), [&](int64_t f, int64_t l) {
        for_windows(g, p, f, l, [&](int64_t plane, int64_t i, int64_t j, int64_t h0, int64_t h1,
                                    int64_t w0, int64_t w1, int64_t hs, int64_t ws) {
          T best = lowest;
          int64_t at = -1;
          bool nan = false;
          for (int64_t a = h0; a < h1 && !nan; ++a) {
            const int64_t h = hs + a * p.dh;
            for (int64_t b = w0; b < w1; ++b) {
              const int64_t k = (plane * g.h + h) * g.w + ws + b * p.dw;
              const T v = xs[k];
              if (at < 0 || v > best || v != v) {
                best = v;
                at = k;
                if (v != v) {
                  nan = true;
                  break;
                }
              }
            }
          }
          const int64_t o = (plane * g.oh + i) * g.ow + j;
          ys[o] = best;
          is[o] = at;
        });
      });
    });
  ctx.out[0] = y;
  ctx.out[1] = idx;
}

}  // namespace mlvm
