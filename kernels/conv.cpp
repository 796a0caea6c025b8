// conv2d (NCHW) over the blocked GEMM core, per (image, group):
// y[n, g] (OCg x OH·OW) = w[g] (OCg x Cg·KH·KW) · col (Cg·KH·KW x OH·OW) + b, where col is the
// im2col matrix of x[n, g]. Stride 1 (the common case) never builds col: the GEMM packs its B
// panels straight from a zero-padded copy of the input (conv_group_implicit). Strided
// convolutions build col in chunks; one input channel per group (depthwise) has a direct
// kernel (kernels/simd/conv_depthwise.hpp). The static rule is in ir/infer_conv.cpp; the
// attribute and shape rules it shares with the kernel are in ir/nn_rules.hpp.
#include <algorithm>
#include <vector>

#include "ir/nn_rules.hpp"
#include "kernels/gemm.hpp"
#include "kernels/run_table.hpp"
#include "kernels/run_time_type.hpp"
#include "kernels/simd/conv_depthwise.hpp"
#include "kernels/thread_pool.hpp"
#include "tensor/copy.hpp"

namespace mlvm {

namespace {

// Writes rows [oh0, oh1) of the im2col matrix of one (image, group): row (c, kh, kw), column
// (oh - oh0)·OW + ow holds x[c, oh·SH - top + kh·DH, ow·SW - left + kw·DW], 0 in the padding.
template <class T>
void im2col(const T* x, int64_t cg, int64_t h, int64_t w, int64_t kh_n, int64_t kw_n, const ConvParams& p,
            int64_t oh0, int64_t oh1, int64_t ow_n, T* col) {
  const int64_t cols = (oh1 - oh0) * ow_n;
  for (int64_t c = 0; c < cg; ++c) {
    const T* plane = x + c * h * w;
    for (int64_t kh = 0; kh < kh_n; ++kh) {
      for (int64_t kw = 0; kw < kw_n; ++kw) {
        T* dst = col + ((c * kh_n + kh) * kw_n + kw) * cols;
        // Output columns whose input column lies inside [0, w).
        const int64_t off = kw * p.dw - p.left;
        int64_t lo = off >= 0 ? 0 : (-off + p.sw - 1) / p.sw;
        int64_t hi = w - 1 - off < 0 ? 0 : (w - 1 - off) / p.sw + 1;
        hi = std::min(hi, ow_n);
        lo = std::min(lo, hi);
        for (int64_t oh = oh0; oh < oh1; ++oh, dst += ow_n) {
          const int64_t ih = oh * p.sh - p.top + kh * p.dh;
          if (ih < 0 || ih >= h) {
            std::fill(dst, dst + ow_n, T(0));
            continue;
          }
          const T* row = plane + ih * w;
          std::fill(dst, dst + lo, T(0));
          if (p.sw == 1) std::copy(row + (off + lo), row + (off + hi), dst + lo);
          else
            for (int64_t ow = lo; ow < hi; ++ow) dst[ow] = row[off + ow * p.sw];
          std::fill(dst + hi, dst + ow_n, T(0));
        }
      }
    }
  }
}


struct ConvShape {
  int64_t n, c, h, w;       // input
  int64_t oc, cg, kh, kw;   // weights (cg = C / groups)
  int64_t oh, ow;           // output plane
  int64_t groups, ocg;      // ocg = OC / groups
};

template <class T>
struct ConvData {
  const T* x;
  const T* w;
  const gemm_out_t<T>* bias;  // null: none
  int64_t bias_stride;
  gemm_out_t<T>* y;
};

// Per-thread scratch kept between calls (the padded input and the wide output of the implicit
// GEMM, the explicit im2col matrix), so repeated convolutions do not pay for fresh pages.
template <class E>
E* conv_scratch(int slot, int64_t count) {
  thread_local std::vector<E> bufs[2];
  if (int64_t(bufs[slot].size()) < count) bufs[slot].resize(std::size_t(count));
  return bufs[slot].data();
}

// Copies the cg input planes of one (image, group) into a zero-bordered (hp x wp) layout.
template <class T>
void pad_planes(const T* x, const ConvShape& s, const ConvParams& p, int64_t hp, int64_t wp, T* xp) {
  for (int64_t c = 0; c < s.cg; ++c)
    for (int64_t r = 0; r < hp; ++r) {
      T* dst = xp + (c * hp + r) * wp;
      const int64_t ih = r - p.top;
      if (ih < 0 || ih >= s.h) {
        std::fill(dst, dst + wp, T(0));
        continue;
      }
      std::fill(dst, dst + p.left, T(0));
      std::copy(x + (c * s.h + ih) * s.w, x + (c * s.h + ih + 1) * s.w, dst + p.left);
      std::fill(dst + p.left + s.w, dst + wp, T(0));
    }
}

// One (image, group) of a stride-1 convolution as an implicit GEMM over the padded input xp:
// with output pixels numbered j = oh·wp + ow (a "wide" output row of wp columns), the im2col
// element for k = (c, i, j') is xp[koff(k) + j], koff(k) = c·hp·wp + i·dh·wp + j'·dw, so the
// GEMM packs B straight from xp. The columns ow >= OW of each wide row are computed and
// dropped (wp - OW of every wp, e.g. 2 of 58 for 3x3 pad 1 on 56x56).
template <class T>
void conv_group_implicit(const ConvShape& s, const ConvParams& p, const ConvData<T>& d, int64_t n, int64_t g,
                         ThreadPool* pool) {
  using Out = gemm_out_t<T>;
  const int64_t hp = s.h + p.top + p.bottom, wp = s.w + p.left + p.right;
  const int64_t kg = s.cg * s.kh * s.kw;
  const T* xg = d.x + (n * s.c + g * s.cg) * s.h * s.w;
  const bool unpadded = hp == s.h && wp == s.w;
  const T* xp = xg;
  if (!unpadded) {
    T* buf = conv_scratch<T>(0, s.cg * hp * wp);
    pad_planes(xg, s, p, hp, wp, buf);
    xp = buf;
  }
  std::vector<int64_t> koff(static_cast<std::size_t>(kg));
  for (int64_t c = 0, k = 0; c < s.cg; ++c)
    for (int64_t i = 0; i < s.kh; ++i)
      for (int64_t j = 0; j < s.kw; ++j) koff[k++] = c * hp * wp + i * p.dh * wp + j * p.dw;
  const int64_t wide_n = (s.oh - 1) * wp + s.ow;
  Out* yg = d.y + (n * s.oc + g * s.ocg) * s.oh * s.ow;
  const bool direct_out = wp == s.ow;  // 1x1 windows: the wide rows are the output rows
  Out* out = direct_out ? yg : conv_scratch<Out>(1, s.ocg * wide_n);
  GemmArgs<T> a;
  a.m = s.ocg;
  a.n = wide_n;
  a.k = kg;
  a.a = d.w + g * s.ocg * kg;
  a.rsa = kg;
  a.csa = 1;
  a.b = xp;
  a.b_row_offsets = koff.data();
  a.csb = 1;
  a.c = out;
  a.ldc = wide_n;
  if (d.bias) {
    a.bias = d.bias + g * s.ocg * d.bias_stride;
    a.bias_stride = d.bias_stride;
    a.bias_per_row = true;
  }
  gemm(a, pool);
  if (!direct_out)
    for (int64_t o = 0; o < s.ocg; ++o)
      for (int64_t r = 0; r < s.oh; ++r)
        std::copy(out + o * wide_n + r * wp, out + o * wide_n + r * wp + s.ow, yg + (o * s.oh + r) * s.ow);
}

// One (image, group) of a strided convolution: an explicit im2col matrix (in chunks of output
// rows, bounding the scratch to ~2M elements) fed to the GEMM.
template <class T>
void conv_group_im2col(const ConvShape& s, const ConvParams& p, const ConvData<T>& d, int64_t n, int64_t g,
                       ThreadPool* pool) {
  using Out = gemm_out_t<T>;
  const int64_t kg = s.cg * s.kh * s.kw;
  const int64_t rows_per_chunk = std::clamp<int64_t>((int64_t(1) << 21) / std::max<int64_t>(1, kg * s.ow), 1, s.oh);
  const T* xg = d.x + (n * s.c + g * s.cg) * s.h * s.w;
  Out* yg = d.y + (n * s.oc + g * s.ocg) * s.oh * s.ow;
  GemmArgs<T> a;
  a.m = s.ocg;
  a.k = kg;
  a.a = d.w + g * s.ocg * kg;
  a.rsa = kg;
  a.csa = 1;
  a.csb = 1;
  a.ldc = s.oh * s.ow;
  if (d.bias) {
    a.bias = d.bias + g * s.ocg * d.bias_stride;
    a.bias_stride = d.bias_stride;
    a.bias_per_row = true;
  }
  for (int64_t r0 = 0; r0 < s.oh; r0 += rows_per_chunk) {
    const int64_t r1 = std::min(s.oh, r0 + rows_per_chunk);
    a.n = (r1 - r0) * s.ow;
    T* col = conv_scratch<T>(0, kg * a.n);
    im2col(xg, s.cg, s.h, s.w, s.kh, s.kw, p, r0, r1, s.ow, col);
    a.b = col;
    a.rsb = a.n;
    a.c = yg + r0 * s.ow;
    gemm(a, pool);
  }
}

// Every output plane of one input channel per group (depthwise): the direct kernel.
template <class T>
void conv_depthwise(const ConvShape& s, const ConvParams& p, const ConvData<T>& d, ExecEnv& env) {
  const simd::DepthwiseGeometry geo{s.h, s.w, s.kh, s.kw, s.oh, s.ow, p.top, p.left, p.sh, p.sw, p.dh, p.dw};
  const int64_t planes = s.n * s.oc;
  const int64_t grain = std::max<int64_t>(1, (int64_t(1) << 16) / std::max<int64_t>(1, s.oh * s.ow * s.kh * s.kw));
  parallel_for(env.pool, planes, grain, [&](int64_t f, int64_t l) {
    for (int64_t t = f; t < l; ++t) {
      if ((t - f) % 64 == 0) env.check_cancelled();
      const int64_t n = t / s.oc, o = t % s.oc, g = o / s.ocg;
      simd::depthwise_plane<T>(d.x + (n * s.c + g) * s.h * s.w, d.w + o * s.kh * s.kw,
                               d.bias ? d.bias + o * d.bias_stride : nullptr, geo, d.y + t * s.oh * s.ow);
    }
  });
}

template <class T>
void run_conv(const ConvShape& s, const ConvParams& p, const ConvData<T>& d, ExecEnv& env) {
  if (s.cg == 1 && s.groups > 1) return conv_depthwise<T>(s, p, d, env);
  const bool implicit = p.sh == 1 && p.sw == 1;
  const int64_t jobs = s.n * s.groups;
  auto job = [&](int64_t t, ThreadPool* pool) {
    env.check_cancelled();
    if (implicit) conv_group_implicit<T>(s, p, d, t / s.groups, t % s.groups, pool);
    else conv_group_im2col<T>(s, p, d, t / s.groups, t % s.groups, pool);
  };
  // Small per-job GEMMs share the pool across jobs; big ones use it inside each GEMM. Either
  // way every output element is computed the same way.
  const bool small = double(s.ocg) * double(s.oh * s.ow) * double(s.cg * s.kh * s.kw) < 4.0e6;
  if (small && jobs > 1)
    parallel_for(env.pool, jobs, 1, [&](int64_t f, int64_t l) {
      for (int64_t t = f; t < l; ++t) job(t, nullptr);
    });
  else
    for (int64_t t = 0; t < jobs; ++t) job(t, env.pool);
}

}  // namespace

void run_conv2d(KernelContext& ctx) {
  const TensorType ot = infer_at_run_time(ctx, infer_conv2d);
  const ConvParams p = conv_params(ctx.attrs.get<conv2d_attrs>());
  const Tensor x = contiguous(ctx.in[0], ctx.env.budget);
  const Tensor w = contiguous(ctx.in[1], ctx.env.budget);
  const Tensor* b = ctx.in.size() > 2 && ctx.in[2].defined() ? &ctx.in[2] : nullptr;
  Tensor y = ctx.output(ot.dtype, ot.dims);
  if (y.numel() == 0) {
    ctx.out[0] = y;
    return;
  }
  ConvShape s;
  s.n = x.dim(0), s.c = x.dim(1), s.h = x.dim(2), s.w = x.dim(3);
  s.oc = w.dim(0), s.cg = w.dim(1), s.kh = w.dim(2), s.kw = w.dim(3);
  s.oh = ot.dims[2], s.ow = ot.dims[3];
  s.groups = p.groups, s.ocg = s.oc / s.groups;
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    using Out = gemm_out_t<T>;
    ConvData<T> d{x.template data<T>(), w.template data<T>(), nullptr, 0, y.template data<Out>()};
    if (b) {
      d.bias = b->template data<Out>();
      d.bias_stride = b->strides()[0];
    }
    run_conv<T>(s, p, d, ctx.env);
  });
  ctx.out[0] = y;
}

}  // namespace mlvm
