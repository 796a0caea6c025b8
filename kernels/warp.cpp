// Kernels of the plane warps shear, affine and project (docs/ops.md, "Plane warps": the Task
// IR's SHEAR, AFFINE and PROJECT, seed 001). Shapes come from ir/warp_rules.hpp, as in the
// static rules.
//
// Every op moves whole elements and fills the rest with zeros, so the copying is done on bytes
// of the element's size for every dtype (all-zero bytes are 0, +0.0 and false). Each result
// cell takes the input cell the op's inverse map gives, or zero:
//   shear along one axis (a or b is 0): a view over the input held between zero borders
//     (tensor/shear_view.hpp), built in one pass; no element moves for the shear itself;
//   shear with both factors: result cell (x, y) takes u = (x' - a·y') / (1 - a·b),
//     v = (y' - b·x') / (1 - a·b) when both divide exactly (x', y' without the offsets);
//   affine, project: the matrix maps input (u, v, 1) to result (x, y, z) as the seed writes it;
//     the kernel samples the inverse, adj(H)·(x, y, 1) = (U, V, W), at the nearest cell
//     floor(U/W + 1/2), floor(V/W + 1/2) — exactly, in 128-bit integers, for an integer matrix.
#include <array>
#include <cmath>
#include <cstring>
#include <string>

#include "ir/warp_rules.hpp"
#include "kernels/run_table.hpp"
#include "tensor/copy.hpp"
#include "tensor/shear_view.hpp"

namespace mlvm {

namespace {

using Int128 = __int128;

// The result's dims other than the plane, walked as an odometer: f(x_offset, y_offset) in
// elements for every combination.
struct OuterDims {
  int n = 0;
  std::array<int64_t, kMaxRank> size{}, xs{}, ys{};
  int64_t count = 1;
};

OuterDims outer_dims(const Tensor& x, const Tensor& y, WarpPlane p) {
  OuterDims o;
  for (int d = 0; d < y.rank(); ++d) {
    if (d == p.rows || d == p.cols) continue;
    o.size[std::size_t(o.n)] = y.dim(d);
    o.xs[std::size_t(o.n)] = x.strides()[d];
    o.ys[std::size_t(o.n)] = y.strides()[d];
    o.count *= y.dim(d);
    ++o.n;
  }
  return o;
}

template <class E>
void copy_cell(const OuterDims& o, const E* src, E* dst) {
  std::array<int64_t, kMaxRank> idx{};
  int64_t xo = 0, yo = 0;
  for (int64_t k = 0; k < o.count; ++k) {
    dst[yo] = src[xo];
    for (int d = o.n - 1; d >= 0; --d) {
      const auto i = std::size_t(d);
      if (++idx[i] < o.size[i]) {
        xo += o.xs[i];
        yo += o.ys[i];
        break;
      }
      xo -= (o.size[i] - 1) * o.xs[i];
      yo -= (o.size[i] - 1) * o.ys[i];
      idx[i] = 0;
    }
  }
}

// y = a fresh zero-filled tensor; for each plane cell (r, c) of y, source(r, c, &u, &v) says
// which cell of x it takes (false: it stays zero). One pass over y's plane; the other dims are
// copied in the innermost loop (contiguous for the seed's [y][x][f] layout).
template <class E, class Source>
void gather_plane_typed(const ExecEnv& env, const Tensor& x, const Tensor& y, WarpPlane p,
                        const Source& source) {
  const OuterDims o = outer_dims(x, y, p);
  const E* xb = reinterpret_cast<const E*>(x.raw_data());
  E* yb = reinterpret_cast<E*>(y.raw_data());
  const int64_t rows = y.dim(p.rows), cols = y.dim(p.cols);
  for (int64_t r = 0; r < rows; ++r) {
    if ((r & 63) == 0) env.check_cancelled();
    for (int64_t c = 0; c < cols; ++c) {
      int64_t u = 0, v = 0;
      if (!source(r, c, &u, &v)) continue;
      copy_cell(o, xb + u * x.strides()[p.rows] + v * x.strides()[p.cols],
                yb + r * y.strides()[p.rows] + c * y.strides()[p.cols]);
    }
  }
}

template <class Source>
Tensor gather_plane(KernelContext& ctx, const Dims& dims, WarpPlane p, const Source& source) {
  const Tensor& x = ctx.in[0];
  Tensor y = ctx.output(x.dtype(), dims);
  if (y.numel() == 0) return y;
  std::memset(y.raw_data(), 0, std::size_t(y.numel() * y.itemsize()));
  if (x.numel() == 0) return y;
  switch (x.itemsize()) {
    case 1: gather_plane_typed<uint8_t>(ctx.env, x, y, p, source); break;
    case 2: gather_plane_typed<uint16_t>(ctx.env, x, y, p, source); break;
    case 4: gather_plane_typed<uint32_t>(ctx.env, x, y, p, source); break;
    default: gather_plane_typed<uint64_t>(ctx.env, x, y, p, source); break;
  }
  return y;
}

// ---- shear ----------------------------------------------------------------------------------

// A shear along one axis as a window over x between zero borders: `lo` = |f|·(n-1) cells
// before x and |f|·n after it along `axis`, so every diagonal the window reads stays inside.
Tensor shear_as_view(KernelContext& ctx, const Dims& dims, int axis, int along, int64_t factor,
                     int64_t offset) {
  const Tensor& x = ctx.in[0];
  const int64_t f = factor < 0 ? -factor : factor;
  const int64_t n = x.dim(along);
  const int64_t lo = f * (n - 1);
  Dims padded_dims = x.shape();
  padded_dims[axis] = lo + x.dim(axis) + f * n;
  Tensor padded = Tensor::zeros_owned(x.dtype(), padded_dims, ctx.env.budget);
  Dims inner = x.shape();
  copy_into(x, padded.with_layout(inner, padded.strides(), lo * padded.strides()[axis]));
  // Result cell r on `axis`, c on `along` reads x's cell r - offset - factor·c.
  return shear_window(padded, axis, along, factor, lo - offset, dims[axis]);
}

}  // namespace

void run_shear(KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const auto& attrs = ctx.attrs.get<shear_attrs>();
  const WarpPlane p = warp_plane("shear", x.rank(), attrs.axes);
  const Dims dims = shear_dims(x.shape(), attrs.a, attrs.b, attrs.axes, ErrorKind::trap);
  const int64_t m = x.dim(p.rows), n = x.dim(p.cols);
  const ShearMap s = shear_map(attrs.a, attrs.b, m, n);
  if (s.a == 0 && s.b == 0) {  // the identity: x itself
    ctx.out[0] = x;
    return;
  }
  if (x.numel() == 0) {  // nothing lands anywhere: a constant zero, no storage
    ctx.out[0] = constant_tensor(x.dtype(), dims, Scalar::from_int(0));
    return;
  }
  // A bound destination is written directly (the view would be copied into it anyway).
  if (ctx.destination == nullptr && (s.a == 0 || s.b == 0)) {
    ctx.out[0] = s.b == 0 ? shear_as_view(ctx, dims, p.rows, p.cols, s.a, s.row0)
                          : shear_as_view(ctx, dims, p.cols, p.rows, s.b, s.col0);
    return;
  }
  const Int128 det = 1 - Int128(s.a) * s.b;  // != 0 (check_shear_factors)
  ctx.out[0] = gather_plane(ctx, dims, p, [&](int64_t r, int64_t c, int64_t* u, int64_t* v) {
    const Int128 xr = Int128(r) - s.row0, yc = Int128(c) - s.col0;
    const Int128 un = xr - Int128(s.a) * yc, vn = yc - Int128(s.b) * xr;
    if (un % det != 0 || vn % det != 0) return false;
    const Int128 uu = un / det, vv = vn / det;
    if (uu < 0 || uu >= m || vv < 0 || vv >= n) return false;
    *u = int64_t(uu);
    *v = int64_t(vv);
    return true;
  });
}

namespace {

// ---- affine, project ------------------------------------------------------------------------

// The 3x3 matrix H (affine: its 2x3 matrix over (0, 0, 1)) and its adjugate, exact for integer
// matrices (entries within ±2^31, so cofactors fit easily in 128 bits), in double for floats.
struct WarpMatrix {
  bool exact = false;
  std::array<Int128, 9> iadj{};
  std::array<double, 9> fadj{};
};

template <class T>
std::array<T, 9> adjugate(const std::array<T, 9>& h) {
  auto at = [&](int r, int c) { return h[std::size_t(r * 3 + c)]; };
  std::array<T, 9> adj{};
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) {
      // cofactor of h(c, r), placed at (r, c): the transpose of the cofactor matrix
      const int r0 = (c + 1) % 3, r1 = (c + 2) % 3, c0 = (r + 1) % 3, c1 = (r + 2) % 3;
      adj[std::size_t(r * 3 + c)] = at(r0, c0) * at(r1, c1) - at(r0, c1) * at(r1, c0);
    }
  return adj;
}

template <class T>
T determinant(const std::array<T, 9>& h, const std::array<T, 9>& adj) {
  // first row of H times first column of adj(H)
  return h[0] * adj[0] + h[1] * adj[3] + h[2] * adj[6];
}

WarpMatrix read_matrix(const char* op, const Tensor& m, int rows) {
  check_warp_matrix(op, m.dtype(), m.shape(), rows, ErrorKind::trap);
  WarpMatrix w;
  w.exact = !is_float(m.dtype());
  std::array<Int128, 9> ih{0, 0, 0, 0, 0, 0, 0, 0, 1};
  std::array<double, 9> fh{0, 0, 0, 0, 0, 0, 0, 0, 1};
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < 3; ++c) {
      const int64_t idx[2] = {r, c};
      const auto k = std::size_t(r * 3 + c);
      if (w.exact) {
        const int64_t v = m.get_int(idx);
        if (v < -(int64_t(1) << 31) || v > (int64_t(1) << 31))
          fail_trap(std::string(op) + ": matrix entry (" + std::to_string(r) + ", " +
                    std::to_string(c) + ") = " + std::to_string(v) +
                    " is outside ±2^31, the range of an exact integer warp");
        ih[k] = v;
      } else {
        fh[k] = m.get_double(idx);
      }
    }
  bool singular = false;
  if (w.exact) {
    w.iadj = adjugate(ih);
    singular = determinant(ih, w.iadj) == 0;
  } else {
    w.fadj = adjugate(fh);
    singular = determinant(fh, w.fadj) == 0;
  }
  if (singular) fail_trap(std::string(op) + ": the matrix is singular (determinant 0): no inverse to sample");
  return w;
}

// floor(n / d + 1/2) for d != 0, exactly.
Int128 nearest_ratio(Int128 n, Int128 d) {
  if (d < 0) {
    n = -n;
    d = -d;
  }
  const Int128 num = 2 * n + d, den = 2 * d;
  Int128 q = num / den;
  if (num % den != 0 && num < 0) --q;  // C++ divides toward zero; floor wants down
  return q;
}

void run_matrix_warp(KernelContext& ctx, const char* op, int rows) {
  const Tensor& x = ctx.in[0];
  const auto& attrs = ctx.attrs.get<warp_attrs>();
  const WarpPlane p = warp_plane(op, x.rank(), attrs.axes);
  const Dims dims = warp_dims(op, x.shape(), attrs.size, attrs.axes);
  const WarpMatrix w = read_matrix(op, ctx.in[1], rows);
  const int64_t m = x.dim(p.rows), n = x.dim(p.cols);
  if (w.exact) {
    const auto& a = w.iadj;
    ctx.out[0] = gather_plane(ctx, dims, p, [&](int64_t r, int64_t c, int64_t* u, int64_t* v) {
      const Int128 U = a[0] * r + a[1] * c + a[2], V = a[3] * r + a[4] * c + a[5],
                   W = a[6] * r + a[7] * c + a[8];
      if (W == 0) return false;  // a point at infinity
      const Int128 uu = nearest_ratio(U, W), vv = nearest_ratio(V, W);
      if (uu < 0 || uu >= m || vv < 0 || vv >= n) return false;
      *u = int64_t(uu);
      *v = int64_t(vv);
      return true;
    });
    return;
  }
  const auto& a = w.fadj;
  ctx.out[0] = gather_plane(ctx, dims, p, [&](int64_t r, int64_t c, int64_t* u, int64_t* v) {
    const double dr = double(r), dc = double(c);
    const double U = a[0] * dr + a[1] * dc + a[2], V = a[3] * dr + a[4] * dc + a[5],
                 W = a[6] * dr + a[7] * dc + a[8];
    if (W == 0) return false;
    const double uu = std::floor(U / W + 0.5), vv = std::floor(V / W + 0.5);
    // NaN fails every comparison, so it stays zero too
    if (!(uu >= 0 && uu < double(m) && vv >= 0 && vv < double(n))) return false;
    *u = int64_t(uu);
    *v = int64_t(vv);
    return true;
  });
}

}  // namespace

void run_affine(KernelContext& ctx) {
  run_matrix_warp(ctx, "affine", 2);
}

void run_project(KernelContext& ctx) {
  run_matrix_warp(ctx, "project", 3);
}

}  // namespace mlvm
