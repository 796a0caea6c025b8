// conv_transpose2d (NCHW, floats) as GEMM + col2im, per (image, group) and in chunks of input
// rows: col (OCg·KH·KW x rows·W) = w[g]ᵀ (OCg·KH·KW x Cg) · x[n, g] (Cg x rows·W) on the GEMM
// core, then each col row (oc, kh, kw) is added into output plane oc at
// (ih·SH − top + kh·DH, iw·SW − left + kw·DW), skipping positions outside the output. The
// planes start as the bias (or 0). The static rule is in ir/infer_conv_transpose.cpp; the
// attribute and shape rules it shares with this kernel are in ir/nn_rules.hpp.
#include <algorithm>
#include <vector>

#include "ir/nn_rules.hpp"
#include "kernels/gemm.hpp"
#include "kernels/run_table.hpp"
#include "kernels/run_time_type.hpp"
#include "kernels/thread_pool.hpp"
#include "tensor/copy.hpp"

namespace mlvm {

namespace {

struct Shape {
  int64_t n, c, h, w;      // input
  int64_t cg, ocg, kh, kw; // per group: input channels, output channels; kernel
  int64_t oh, ow, groups;  // output plane
};

template <class T>
T* scratch(int64_t count) {
  thread_local std::vector<T> buf;
  if (int64_t(buf.size()) < count) buf.resize(std::size_t(count));
  return buf.data();
}

// Output columns ow = iw·SW + off (off = kw·DW − left) inside [0, OW): iw in [lo, hi).
std::pair<int64_t, int64_t> valid_cols(int64_t off, int64_t sw, int64_t w, int64_t ow) {
  int64_t lo = off >= 0 ? 0 : (-off + sw - 1) / sw;
  int64_t hi = ow - 1 - off < 0 ? 0 : (ow - 1 - off) / sw + 1;
  hi = std::min(hi, w);
  return {std::min(lo, hi), hi};
}

// Adds rows [r0, r1) of one group's col matrix into output planes [o0, o1) of y (group-local).
template <class T>
void col2im(const T* col, int64_t r0, int64_t r1, int64_t o0, int64_t o1, const Shape& s,
            const ConvTransposeParams& p, T* y) {
  const int64_t ncols = (r1 - r0) * s.w;
  for (int64_t oc = o0; oc < o1; ++oc) {
    T* plane = y + oc * s.oh * s.ow;
    for (int64_t kh = 0; kh < s.kh; ++kh)
      for (int64_t kw = 0; kw < s.kw; ++kw) {
        const T* src = col + ((oc * s.kh + kh) * s.kw + kw) * ncols;
        const int64_t off = kw * p.dw - p.left;
        const auto [lo, hi] = valid_cols(off, p.sw, s.w, s.ow);
        if (lo == hi) continue;
        for (int64_t ih = r0; ih < r1; ++ih) {
          const int64_t oh = ih * p.sh - p.top + kh * p.dh;
          if (oh < 0 || oh >= s.oh) continue;
          const T* srow = src + (ih - r0) * s.w;
          T* yrow = plane + oh * s.ow;
          if (p.sw == 1)
            for (int64_t iw = lo; iw < hi; ++iw) yrow[iw + off] += srow[iw];
          else
            for (int64_t iw = lo; iw < hi; ++iw) yrow[iw * p.sw + off] += srow[iw];
        }
      }
  }
}

// Stride equal to the kernel, no dilation, padding or output padding (PP-OCRv4 det's 2x2 /2
// upsampling head): every output element takes exactly one col element, so each is written
// once as bias + col, the sum the bias fill and col2im's add make, without the fill pass and
// the read back (that was 60 % of the op, the GEMM 40 %).
bool one_tap_each(const Shape& s, const ConvTransposeParams& p) {
  return p.sh == s.kh && p.sw == s.kw && p.dh == 1 && p.dw == 1 && p.top == 0 && p.left == 0 &&
         s.oh == s.h * s.kh && s.ow == s.w * s.kw;
}

// Rows [r0, r1) of one group's col matrix written into output planes [o0, o1) of y (group-local)
// when one_tap_each: element (oc, kh, kw) of input pixel (ih, iw) at (ih·KH + kh, iw·KW + kw).
template <class T>
void col_to_tiles(const T* col, int64_t r0, int64_t r1, int64_t o0, int64_t o1, const Shape& s, const T* bias,
                  T* y) {
  const int64_t ncols = (r1 - r0) * s.w;
  for (int64_t oc = o0; oc < o1; ++oc) {
    const T b = bias ? bias[oc] : T(0);
    T* plane = y + oc * s.oh * s.ow;
    for (int64_t kh = 0; kh < s.kh; ++kh)
      for (int64_t ih = r0; ih < r1; ++ih) {
        T* yrow = plane + (ih * s.kh + kh) * s.ow;
        if (s.kw == 2) {  // two taps interleaved in one pass, which the compiler vectorizes
          const T* s0 = col + (oc * s.kh + kh) * 2 * ncols + (ih - r0) * s.w;
          const T* s1 = s0 + ncols;
          for (int64_t iw = 0; iw < s.w; ++iw) {
            yrow[2 * iw] = b + s0[iw];
            yrow[2 * iw + 1] = b + s1[iw];
          }
          continue;
        }
        for (int64_t kw = 0; kw < s.kw; ++kw) {
          const T* src = col + ((oc * s.kh + kh) * s.kw + kw) * ncols + (ih - r0) * s.w;
          for (int64_t iw = 0; iw < s.w; ++iw) yrow[iw * s.kw + kw] = b + src[iw];
        }
      }
  }
}

// One (image, group). `pool` (may be null) runs the GEMM and the col2im of each chunk.
template <class T>
void group_job(const T* x, const T* w, const T* bias, T* y, const Shape& s,
               const ConvTransposeParams& p, int64_t n, int64_t g, ThreadPool* pool) {
  const int64_t m = s.ocg * s.kh * s.kw;
  T* yg = y + (n * s.groups + g) * s.ocg * s.oh * s.ow;
  const bool tiles = one_tap_each(s, p) && s.cg > 0 && m > 0;
  if (!tiles)
    for (int64_t oc = 0; oc < s.ocg; ++oc)
      std::fill(yg + oc * s.oh * s.ow, yg + (oc + 1) * s.oh * s.ow, bias ? bias[g * s.ocg + oc] : T(0));
  if (s.cg == 0 || s.h * s.w == 0 || m == 0) return;
  const T* xg = x + (n * s.c + g * s.cg) * s.h * s.w;
  // Chunks of input rows bound the col scratch to about 2M elements.
  const int64_t rows = std::clamp<int64_t>((int64_t(1) << 21) / std::max<int64_t>(1, m * s.w), 1, s.h);
  GemmArgs<T> a;
  a.m = m;
  a.k = s.cg;
  a.a = w + g * s.cg * m;  // w[c, oc, kh, kw]: element (i = (oc, kh, kw), c) at c·m + i
  a.rsa = 1;
  a.csa = m;
  a.rsb = s.h * s.w;
  a.csb = 1;
  for (int64_t r0 = 0; r0 < s.h; r0 += rows) {
    const int64_t r1 = std::min(s.h, r0 + rows);
    a.n = (r1 - r0) * s.w;
    T* col = scratch<T>(m * a.n);
    a.b = xg + r0 * s.w;
    a.c = col;
    a.ldc = a.n;
    gemm(a, pool);
    parallel_for(pool, s.ocg, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, s.kh * s.kw * a.n)),
                 [&](int64_t f, int64_t l) {
                   if (tiles) col_to_tiles(col, r0, r1, f, l, s, bias ? bias + g * s.ocg : nullptr, yg);
                   else col2im(col, r0, r1, f, l, s, p, yg);
                 });
  }
}

}  // namespace

void run_conv_transpose2d(KernelContext& ctx) {
  const TensorType ot = infer_at_run_time(ctx, infer_conv_transpose2d);
  const ConvTransposeParams p = conv_transpose_params(ctx.attrs.get<conv_transpose2d_attrs>());
  const Tensor x = contiguous(ctx.in[0], ctx.env.budget);
  const Tensor w = contiguous(ctx.in[1], ctx.env.budget);
  const bool has_bias = ctx.in.size() > 2 && ctx.in[2].defined();
  const Tensor b = has_bias ? contiguous(ctx.in[2], ctx.env.budget) : Tensor();
  Tensor y = ctx.output(ot.dtype, ot.dims);
  if (y.numel() > 0) {
    Shape s;
    s.n = x.dim(0), s.c = x.dim(1), s.h = x.dim(2), s.w = x.dim(3);
    s.groups = p.groups, s.cg = s.c / s.groups, s.ocg = w.dim(1), s.kh = w.dim(2), s.kw = w.dim(3);
    s.oh = ot.dims[2], s.ow = ot.dims[3];
    auto run = [&]<class T>() {
      const T* xs = x.template data<T>();
      const T* ws = w.template data<T>();
      const T* bs = has_bias ? b.template data<T>() : nullptr;
      T* ys = y.template data<T>();
      const int64_t jobs = s.n * s.groups;
      // Small per-job work shares the pool across jobs; big jobs use it inside each one. The
      // GEMM's results do not depend on the pool, and each output plane is summed in one
      // order, so neither does y.
      const double work = double(s.ocg * s.kh * s.kw) * double(s.h * s.w) * double(std::max<int64_t>(1, s.cg));
      if (work < 4.0e6 && jobs > 1)
        parallel_for(ctx.env.pool, jobs, 1, [&](int64_t f, int64_t l) {
          for (int64_t t = f; t < l; ++t) {
            ctx.env.check_cancelled();
            group_job<T>(xs, ws, bs, ys, s, p, t / s.groups, t % s.groups, nullptr);
          }
        });
      else
        for (int64_t t = 0; t < jobs; ++t) {
          ctx.env.check_cancelled();
          group_job<T>(xs, ws, bs, ys, s, p, t / s.groups, t % s.groups, ctx.env.pool);
        }
    };
    if (x.dtype() == DType::f32) run.template operator()<float>();
    else run.template operator()<double>();
  }
  ctx.out[0] = y;
}

}  // namespace mlvm
