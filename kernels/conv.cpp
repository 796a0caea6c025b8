// conv2d (NCHW): per (image, group) an im2col matrix fed to the blocked GEMM core,
// y[n, g] (OCg x OH·OW) = w[g] (OCg x Cg·KH·KW) · col (Cg·KH·KW x OH·OW) + b.
#include "kernels/conv.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "kernels/gemm.hpp"
#include "kernels/thread_pool.hpp"
#include "tensor/copy.hpp"

namespace mlvm {

namespace {

// Attribute values above this are rejected so that size arithmetic cannot overflow.
constexpr int64_t kMaxWindowAttr = int64_t(1) << 31;

std::string dim_str(int64_t d) { return d == kDynamic ? "?" : std::to_string(d); }
bool dims_conflict(int64_t a, int64_t b) { return a != kDynamic && b != kDynamic && a != b; }

std::string tuple_str(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + ")";
}

// A (height, width) pair from a 1- or 2-element tuple; each in [lo, kMaxWindowAttr].
std::array<int64_t, 2> hw_pair(const Attrs& attrs, int k, const char* name, int64_t lo) {
  const auto& v = attrs.ints(k);
  if (v.size() != 1 && v.size() != 2)
    fail_invalid(std::string("conv2d: ") + name + " must be an int or a pair (h, w), got " + tuple_str(v));
  for (int64_t x : v)
    if (x < lo || x > kMaxWindowAttr)
      fail_invalid(std::string("conv2d: ") + name + " must be >= " + std::to_string(lo) + " (and at most 2^31), got " +
                   tuple_str(v));
  return {v[0], v.size() == 2 ? v[1] : v[0]};
}

struct ConvParams {
  int64_t top, left, bottom, right;
  int64_t sh, sw, dh, dw;
  int64_t groups;
};

ConvParams conv_params(const Attrs& attrs) {
  ConvParams p;
  const auto& pad = attrs.ints(0);
  if (pad.size() != 1 && pad.size() != 2 && pad.size() != 4)
    fail_invalid("conv2d: padding must be an int, (PH, PW) or (top, left, bottom, right), got " + tuple_str(pad));
  for (int64_t x : pad)
    if (x < 0 || x > kMaxWindowAttr)
      fail_invalid("conv2d: padding must be >= 0 (and at most 2^31), got " + tuple_str(pad));
  if (pad.size() == 4) {
    p.top = pad[0], p.left = pad[1], p.bottom = pad[2], p.right = pad[3];
  } else {
    p.top = p.bottom = pad[0];
    p.left = p.right = pad.size() == 2 ? pad[1] : pad[0];
  }
  auto s = hw_pair(attrs, 1, "strides", 1);
  auto d = hw_pair(attrs, 2, "dilation", 1);
  p.sh = s[0], p.sw = s[1], p.dh = d[0], p.dw = d[1];
  p.groups = attrs.i(3);
  if (p.groups < 1) fail_invalid("conv2d: groups must be >= 1, got " + std::to_string(p.groups));
  return p;
}

// floor((in + pads - dil·(k-1) - 1) / stride) + 1, or kDynamic; an error when the dilated
// window does not fit the padded input (we do not produce empty outputs for that).
int64_t conv_out_dim(int64_t in, int64_t pad0, int64_t pad1, int64_t k, int64_t dil, int64_t stride,
                     const char* what, const TensorType& x, const TensorType& w) {
  if (in == kDynamic || k == kDynamic) return kDynamic;
  const int64_t span = dil * (k - 1) + 1;
  const int64_t padded = in + pad0 + pad1;
  if (padded < span)
    fail_invalid(std::string("conv2d: the dilated kernel ") + what + " " + std::to_string(span) +
                 " is larger than the padded input " + what + " " + std::to_string(padded) + " (x " + x.to_string() +
                 ", w " + w.to_string() + ")");
  return (padded - span) / stride + 1;
}

TensorType infer_at_run_time(const KernelContext& ctx, InferFn infer) {
  std::vector<TensorType> types;
  for (const Tensor& t : ctx.in) {
    TensorType ty;
    if (t.defined()) ty = type_of(t);
    else ty.present = false;
    types.push_back(ty);
  }
  InferContext ic{types, ctx.attrs, {}, {}};
  try {
    infer(ic);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::invalid) fail_trap(e.message());
    throw;
  }
  return ic.out.at(0);
}

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

}  // namespace

void infer_conv2d(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  const TensorType& w = ctx.in[1];
  const TensorType* b = ctx.in.size() > 2 && ctx.in[2].present ? &ctx.in[2] : nullptr;
  check_gemm_dtypes("conv2d", x, w);
  if (x.dims.size() != 4) fail_invalid("conv2d: x must have rank 4 (N, C, H, W), got " + x.to_string());
  if (w.dims.size() != 4) fail_invalid("conv2d: w must have rank 4 (OC, C/groups, KH, KW), got " + w.to_string());
  const ConvParams p = conv_params(ctx.attrs);
  const int64_t c = x.dims[1], oc = w.dims[0], icg = w.dims[1];
  const std::string g = std::to_string(p.groups);
  if (c != kDynamic && c % p.groups != 0)
    fail_invalid("conv2d: groups = " + g + " does not divide the " + std::to_string(c) + " input channels of x " +
                 x.to_string());
  if (oc != kDynamic && oc % p.groups != 0)
    fail_invalid("conv2d: groups = " + g + " does not divide the " + std::to_string(oc) +
                 " output channels of w " + w.to_string());
  if (c != kDynamic && icg != kDynamic && icg * p.groups != c)
    fail_invalid("conv2d: channel mismatch: x " + x.to_string() + " has " + std::to_string(c) + " channels, w " +
                 w.to_string() + " expects C/groups = " + std::to_string(icg) + " with groups = " + g);
  const DType od = gemm_result_dtype(x.dtype);
  int64_t out_c = oc;
  if (b) {
    if (b->dtype != od)
      fail_invalid("conv2d: bias must be " + std::string(dtype_name(od)) + " for " +
                   std::string(dtype_name(x.dtype)) + " inputs, got " + b->to_string());
    if (b->dims.size() != 1 || dims_conflict(b->dims[0], oc))
      fail_invalid("conv2d: bias must have shape [" + dim_str(oc) + "] (OC of w " + w.to_string() + "), got " +
                   b->to_string());
    if (out_c == kDynamic) out_c = b->dims[0];
  }
  TensorType out;
  out.dtype = od;
  out.dims = Dims{x.dims[0], out_c,
                  conv_out_dim(x.dims[2], p.top, p.bottom, w.dims[2], p.dh, p.sh, "height", x, w),
                  conv_out_dim(x.dims[3], p.left, p.right, w.dims[3], p.dw, p.sw, "width", x, w)};
  int64_t k = kDynamic;
  if (icg != kDynamic && w.dims[2] != kDynamic && w.dims[3] != kDynamic) k = icg * w.dims[2] * w.dims[3];
  out.precision = gemm_result_precision(x, w, b, k);
  ctx.out.assign(1, out);
}

void run_conv2d(KernelContext& ctx) {
  const TensorType ot = infer_at_run_time(ctx, infer_conv2d);
  const ConvParams p = conv_params(ctx.attrs);
  const Tensor x = contiguous(ctx.in[0], ctx.env.budget);
  const Tensor w = contiguous(ctx.in[1], ctx.env.budget);
  const Tensor* b = ctx.in.size() > 2 && ctx.in[2].defined() ? &ctx.in[2] : nullptr;
  Tensor y = ctx.output(ot.dtype, ot.dims);
  const int64_t n_img = x.dim(0), c = x.dim(1), h = x.dim(2), wd = x.dim(3);
  const int64_t oc = w.dim(0), cg = w.dim(1), kh = w.dim(2), kw = w.dim(3);
  const int64_t oh = ot.dims[2], ow = ot.dims[3];
  const int64_t groups = p.groups, ocg = oc / groups, kg = cg * kh * kw;
  const int64_t jobs = n_img * groups;
  if (y.numel() == 0) {
    ctx.out[0] = y;
    return;
  }
  // A 1x1 kernel with stride 1 and no padding reads x itself as the column matrix.
  const bool direct = kh == 1 && kw == 1 && p.sh == 1 && p.sw == 1 && p.top == 0 && p.left == 0 &&
                      p.bottom == 0 && p.right == 0;

  visit_dtype(x.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    using Out = gemm_out_t<T>;
    // Bound the im2col scratch to ~2M elements by taking output rows in chunks.
    const int64_t rows_per_chunk =
        std::clamp<int64_t>((int64_t(1) << 21) / std::max<int64_t>(1, kg * ow), 1, oh);
    const bool small = double(ocg) * double(oh * ow) * double(kg) < 1.0e6;
    auto run_jobs = [&](int64_t first, int64_t last, ThreadPool* inner_pool) {
      std::vector<T> col;
      for (int64_t job = first; job < last; ++job) {
        ctx.env.check_cancelled();
        const int64_t n = job / groups, g = job % groups;
        const T* xg = x.template data<T>() + (n * c + g * cg) * h * wd;
        GemmArgs<T> a;
        a.k = kg;
        a.a = w.template data<T>() + g * ocg * kg;
        a.rsa = kg;
        a.csa = 1;
        a.csb = 1;
        a.ldc = oh * ow;
        if (b) {
          a.bias = b->template data<Out>() + g * ocg * b->strides()[0];
          a.bias_stride = b->strides()[0];
          a.bias_per_row = true;
        }
        Out* yg = y.template data<Out>() + (n * oc + g * ocg) * oh * ow;
        for (int64_t r0 = 0; r0 < oh; r0 += rows_per_chunk) {
          const int64_t r1 = std::min(oh, r0 + rows_per_chunk);
          a.m = ocg;
          a.n = (r1 - r0) * ow;
          if (direct) {
            a.b = xg + r0 * ow;
            a.rsb = h * wd;
          } else {
            col.resize(std::size_t(kg * a.n));
            im2col(xg, cg, h, wd, kh, kw, p, r0, r1, ow, col.data());
            a.b = col.data();
            a.rsb = a.n;
          }
          a.c = yg + r0 * ow;
          gemm(a, inner_pool);
        }
      }
    };
    if (small && jobs > 1)
      parallel_for(ctx.env.pool, jobs, 1, [&](int64_t f, int64_t l) { run_jobs(f, l, nullptr); });
    else run_jobs(0, jobs, ctx.env.pool);
  });
  ctx.out[0] = y;
}

}  // namespace mlvm
