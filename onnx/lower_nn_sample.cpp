// GridSample (opset 16; 20 renames bilinear/bicubic linear/cubic and adds 5-D volumes, linear
// or nearest, sampled the same way over (x, y, z)) as ONNX Runtime
// computes it (its port of PyTorch's grid_sample), decomposed into elementwise ops and row
// gathers: the grid's (x, y) in [-1, 1] become input coordinates (align_corners: -1 and 1 are
// the corner pixels' centres; else their outer edges); nearest rounds them half to even; a
// point outside [x_min, x_max] x [y_min, y_max] is clamped to the image (padding_mode
// "border"; bicubic clamps its taps only) or reflected at those bounds ("reflection"); then
// each tap (1 for nearest, 2x2 bilinear, 4x4 bicubic with a = -0.75) reads x at an integer
// pixel, which outside the image is 0 ("zeros"), the clamped pixel ("border") or the reflected
// one ("reflection"). The taps are gathered as rows of C values from x seen as (N·H·W, C).
// RoiAlign and DeformConv (19) sample the same way; AffineGrid (20) makes the grids
// GridSample reads.
#include <onnx/onnx_pb.h>

#include <array>

#include "onnx/lower_nn_util.hpp"

namespace mlvm::nn {

namespace {

struct Sampler {
  NodeContext& c;
  DType dt;
  int64_t n, ch, h, w, oh, ow;
  std::string padding;
  double x_min, x_max, y_min, y_max;
  Val rows;       // x as (N·H·W, C)  (N·D·H·W for a volume)
  Val offset;     // (N, 1, 1): n·H·W  ((N, 1, 1, 1): n·D·H·W)
  int64_t d = 1;  // a volume's depth (5-D GridSample); 1 for images
  double z_min = 0, z_max = 0;

  Val k(double v) { return c.e.scalar_const(dt, v); }
  Val apply(Opcode code, Val a, Val b) { return c.e.emit(code, {a, b}); }
  Val apply(Opcode code, Val a) { return c.e.emit(code, {a}); }

  // ORT's GsReflect: v folded into [lo, hi] by reflections at the bounds.
  Val reflect(Val v, double lo, double hi) {
    const double range = hi - lo;
    if (range <= 0) return apply(Opcode::mul, v, k(0.0));  // a single pixel: lo = 0
    Val t = c.e.emit(op::mod, {apply(Opcode::sub, v, k(lo)), k(2 * range)});
    return apply(Opcode::sub, k(lo + range), apply(Opcode::abs, apply(Opcode::sub, t, k(range))));
  }

  // The (N, Ho, Wo, C) values at integer pixel (xi, yi) (float tensors (N, Ho, Wo)); with zi,
  // the (N, Do, Ho, Wo, C) values at voxel (xi, yi, zi) of a volume.
  Val pixel(Val xi, Val yi, Val zi = Val{}) {
    Val valid;
    auto inside = [&](Val v, int64_t len) {
      return c.e.emit(op::logical_and, {apply(Opcode::greater_equal, v, k(0)),
                                        apply(Opcode::less_equal, v, k(double(len - 1)))});
    };
    if (padding == "zeros") {
      valid = c.e.emit(op::logical_and, {inside(xi, w), inside(yi, h)});
      if (zi.present()) valid = c.e.emit(op::logical_and, {valid, inside(zi, d)});
    } else if (padding == "reflection") {
      xi = reflect(xi, x_min, x_max);
      yi = reflect(yi, y_min, y_max);
      if (zi.present()) zi = reflect(zi, z_min, z_max);
    }
    // Clamped to the image: border's rule, and a safe read for the others.
    auto as_i64 = [&](Val v, int64_t len) {
      return c.e.emit(op::cast, {c.e.emit(op::clip, {v}, {.a_min = 0.0, .a_max = double(len - 1)})},
                      {.dtype = DType::i64});
    };
    auto i64 = [&](int64_t v) { return c.e.scalar_const(DType::i64, double(v)); };
    Val lin = apply(Opcode::add, apply(Opcode::mul, as_i64(yi, h), i64(w)), as_i64(xi, w));
    if (zi.present()) lin = apply(Opcode::add, lin, apply(Opcode::mul, as_i64(zi, d), i64(h * w)));
    lin = apply(Opcode::add, lin, offset);
    Val g = c.e.emit(op::take, {rows, lin}, {.axis = 0});  // (N, Ho, Wo, C) / (N, Do, Ho, Wo, C)
    if (valid.present())
      g = c.e.emit(op::where,
                   {c.e.emit(op::expand_dims, {valid}, {.axis = c.e.rank(valid)}), g, k(0)});
    return g;
  }

  Val weighted(Val g, Val weight) {
    return apply(Opcode::mul, g, c.e.emit(op::expand_dims, {weight}, {.axis = c.e.rank(weight)}));
  }

  // The 2x2x2 taps of a volume around (px, py, pz) weighted by their distances.
  Val trilinear(Val px, Val py, Val pz) {
    Val lo[3] = {apply(Opcode::floor, px), apply(Opcode::floor, py), apply(Opcode::floor, pz)};
    Val p[3] = {px, py, pz};
    Val y;
    for (int corner = 0; corner < 8; ++corner) {
      Val at[3], weight;
      for (int a = 0; a < 3; ++a) {
        const bool high = (corner >> a) & 1;
        at[a] = high ? apply(Opcode::add, lo[a], k(1)) : lo[a];
        // the far corner's distance: p - lo for the high tap, lo + 1 - p for the low one
        Val wa = high ? apply(Opcode::sub, p[a], lo[a])
                      : apply(Opcode::sub, apply(Opcode::add, lo[a], k(1)), p[a]);
        weight = weight.present() ? apply(Opcode::mul, weight, wa) : wa;
      }
      Val t = weighted(pixel(at[0], at[1], at[2]), weight);
      y = y.present() ? apply(Opcode::add, y, t) : t;
    }
    return y;
  }

  // The 2x2 taps around (px, py) weighted by their distances.
  Val bilinear(Val px, Val py) {
    Val x1 = apply(Opcode::floor, px), y1 = apply(Opcode::floor, py);
    Val x2 = apply(Opcode::add, x1, k(1)), y2 = apply(Opcode::add, y1, k(1));
    Val dx1 = apply(Opcode::sub, px, x1), dx2 = apply(Opcode::sub, x2, px);
    Val dy1 = apply(Opcode::sub, py, y1), dy2 = apply(Opcode::sub, y2, py);
    Val top = apply(Opcode::add, weighted(pixel(x1, y1), dx2), weighted(pixel(x2, y1), dx1));
    Val bottom = apply(Opcode::add, weighted(pixel(x1, y2), dx2), weighted(pixel(x2, y2), dx1));
    return apply(Opcode::add, weighted(top, dy2), weighted(bottom, dy1));
  }

  // ORT's GsGetCubicCoeffs for t in [0, 1): the weights of taps -1, 0, 1, 2.
  std::vector<Val> cubic(Val t) {
    const double a = -0.75;
    Val t1 = apply(Opcode::add, t, k(1)), u = apply(Opcode::sub, k(1), t), u1 = apply(Opcode::sub, k(2), t);
    auto outer = [&](Val s) {  // ((a·s − 5a)·s + 8a)·s − 4a
      return apply(Opcode::sub,
                   apply(Opcode::mul,
                         apply(Opcode::add,
                               apply(Opcode::mul,
                                     apply(Opcode::sub, apply(Opcode::mul, s, k(a)), k(5 * a)), s),
                               k(8 * a)),
                         s),
                   k(4 * a));
    };
    auto inner = [&](Val s) {  // ((a + 2)·s − (a + 3))·s·s + 1
      return apply(Opcode::add,
                   apply(Opcode::mul,
                         apply(Opcode::mul,
                               apply(Opcode::sub, apply(Opcode::mul, s, k(a + 2)), k(a + 3)), s),
                         s),
                   k(1));
    };
    return {outer(t1), inner(t), inner(u), outer(u1)};
  }
};

std::vector<Val> lower_grid_sample(NodeContext& c) {
  Val x = c.input(0), grid = c.input(1);
  require_float(c, x);
  const int r = c.e.rank(x);
  // Opset 20 allows volumes: (N, C, D, H, W) sampled by a grid (N, Do, Ho, Wo, 3).
  if (r != 4 && (r != 5 || c.opset < 20))
    c.fail("the input must be 4-D (N, C, H, W)" + std::string(c.opset >= 20 ? " or 5-D" : "") +
           ", got rank " + std::to_string(r));
  const int nd = r - 2;
  if (c.e.rank(grid) != r) c.fail("the grid must have the input's rank");
  std::string mode = c.attr_string("mode", c.opset >= 20 ? "linear" : "bilinear");
  // Opset 20 renamed the modes.
  if (c.opset >= 20 && (mode == "linear" || mode == "cubic"))
    mode = mode == "linear" ? "bilinear" : "bicubic";
  else if (c.opset >= 20 && mode != "nearest")
    c.fail("mode=" + mode + " is not supported");
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic") c.fail("mode=" + mode + " is not supported");
  if (nd == 3 && mode == "bicubic") c.fail("mode=cubic is only defined for 4-D inputs");
  const std::string padding = c.attr_string("padding_mode", "zeros");
  if (padding != "zeros" && padding != "border" && padding != "reflection")
    c.fail("padding_mode=" + padding + " is not supported");
  const bool align = c.attr_int("align_corners", 0) != 0;
  const DType dt = c.e.dtype(x);
  auto dim = [&](Val v, int k) { return static_dim(c, v, k, "GridSample"); };
  Sampler s{c,
            dt,
            dim(x, 0),
            dim(x, 1),
            dim(x, r - 2),
            dim(x, r - 1),
            dim(grid, r - 3),
            dim(grid, r - 2),
            padding,
            0,
            0,
            0,
            0,
            {},
            {}};
  if (nd == 3) s.d = dim(x, 2);
  if (dim(grid, 0) != s.n || dim(grid, r - 1) != nd)
    c.fail("the grid must be (N, <output dims>, " + std::to_string(nd) + ") with x's N");
  const double lo = align ? 0.0 : -0.5;
  auto hi = [&](int64_t len) { return align ? double(len - 1) : double(len) - 0.5; };
  s.x_min = s.y_min = s.z_min = lo;
  s.x_max = hi(s.w), s.y_max = hi(s.h), s.z_max = hi(s.d);
  s.rows = reshape(c,
                   c.e.emit(op::transpose, {x},
                            {.axes = nd == 2 ? std::vector<int64_t>{0, 2, 3, 1}
                                             : std::vector<int64_t>{0, 2, 3, 4, 1}}),
                   {s.n * s.d * s.h * s.w, s.ch});
  std::vector<int64_t> offsets;
  for (int64_t i = 0; i < s.n; ++i) offsets.push_back(i * s.d * s.h * s.w);
  std::vector<int64_t> coord_dims = {s.n};  // (N, <output dims>)
  for (int k = 1; k <= nd; ++k) coord_dims.push_back(dim(grid, k));
  std::vector<int64_t> offset_dims(std::size_t(nd + 1), 1);
  offset_dims[0] = s.n;
  s.offset = reshape(c, c.e.int_vector(offsets), offset_dims);
  if (c.e.dtype(grid) != dt) grid = c.e.emit(op::cast, {grid}, {.dtype = dt});
  auto coordinate = [&](int64_t k, int64_t len) {
    Val g = reshape(
        c, c.e.emit(op::strided_slice, {grid}, {.begin = {k}, .end = {k + 1}, .axes = {r - 1}}),
        coord_dims);
    Val g1 = s.apply(Opcode::add, g, s.k(1));
    return align ? s.apply(Opcode::mul, g1, s.k(0.5 * double(len - 1)))
                 : s.apply(Opcode::mul,
                           s.apply(Opcode::sub, s.apply(Opcode::mul, g1, s.k(double(len))), s.k(1)),
                           s.k(0.5));
  };
  Val px = coordinate(0, s.w), py = coordinate(1, s.h), pz = nd == 3 ? coordinate(2, s.d) : Val{};
  if (mode == "nearest") {
    px = s.apply(Opcode::round, px);
    py = s.apply(Opcode::round, py);
    if (pz.present()) pz = s.apply(Opcode::round, pz);
  }
  // Bicubic leaves an outside point where it is: its taps are clamped (or reflected) one by one
  // (ONNX Runtime 1.30 and PyTorch; clamping the point first moved border samples).
  if (padding != "zeros" && (mode != "bicubic" || padding == "reflection")) {
    auto outside = [&](Val v, double a, double b) {
      return c.e.emit(op::logical_or,
                      {s.apply(Opcode::less, v, s.k(a)), s.apply(Opcode::greater, v, s.k(b))});
    };
    Val oob =
        c.e.emit(op::logical_or, {outside(px, s.x_min, s.x_max), outside(py, s.y_min, s.y_max)});
    if (pz.present()) oob = c.e.emit(op::logical_or, {oob, outside(pz, s.z_min, s.z_max)});
    auto fold = [&](Val v, int64_t len, double a, double b) {
      Val q = padding == "border"
                  ? c.e.emit(op::clip, {v}, {.a_min = 0.0, .a_max = double(len - 1)})
                  : s.reflect(v, a, b);
      return c.e.emit(op::where, {oob, q, v});
    };
    px = fold(px, s.w, s.x_min, s.x_max);
    py = fold(py, s.h, s.y_min, s.y_max);
    if (pz.present()) pz = fold(pz, s.d, s.z_min, s.z_max);
  }
  Val y;
  if (mode == "nearest") {
    y = s.pixel(px, py, pz);
  } else if (mode == "bilinear") {
    y = nd == 3 ? s.trilinear(px, py, pz) : s.bilinear(px, py);
  } else {
    Val fx = s.apply(Opcode::floor, px), fy = s.apply(Opcode::floor, py);
    std::vector<Val> cx = s.cubic(s.apply(Opcode::sub, px, fx)), cy = s.cubic(s.apply(Opcode::sub, py, fy));
    for (int i = 0; i < 4; ++i) {
      Val row;
      Val yi = s.apply(Opcode::add, fy, s.k(double(i - 1)));
      for (int j = 0; j < 4; ++j) {
        Val t = s.weighted(s.pixel(s.apply(Opcode::add, fx, s.k(double(j - 1))), yi), cx[std::size_t(j)]);
        row = row.present() ? s.apply(Opcode::add, row, t) : t;
      }
      row = s.weighted(row, cy[std::size_t(i)]);
      y = y.present() ? s.apply(Opcode::add, y, row) : row;
    }
  }
  return one(c.e.emit(
      op::transpose, {y},
      {.axes = nd == 2 ? std::vector<int64_t>{0, 3, 1, 2} : std::vector<int64_t>{0, 4, 1, 2, 3}}));
}

// AffineGrid (20): the sampling grid (N, H, W, 2) — or (N, D, H, W, 3) — of the affine maps
// theta (N, 2, 3) or (N, 3, 4): each output position's normalized coordinates (x, y[, z], 1),
// pixel centres from -1 to 1 (align_corners: the corner pixels at -1 and 1), times thetaᵀ.
// The size must be known at import; the base grid is a constant.
std::vector<Val> lower_affine_grid(NodeContext& c) {
  Val theta = c.input(0);
  require_float(c, theta);
  const DType dt = c.e.dtype(theta);
  std::vector<int64_t> size = c.e.ints(c.input(1), "AffineGrid's size");
  if (size.size() != 4 && size.size() != 5) c.fail("size must be (N, C, H, W) or (N, C, D, H, W)");
  const std::size_t nd = size.size() - 2;
  if (c.e.rank(theta) != 3 || static_dim(c, theta, 1, "AffineGrid") != int64_t(nd) ||
      static_dim(c, theta, 2, "AffineGrid") != int64_t(nd + 1))
    c.fail("theta must be (N, " + std::to_string(nd) + ", " + std::to_string(nd + 1) + ")");
  const bool align = c.attr_int("align_corners", 0) != 0;
  std::vector<int64_t> spatial(size.begin() + 2, size.end());
  // The base grid is built at import, (nd + 1) values a point: at most 2^22 points (a
  // 2048 x 2048 image), so that a hostile size cannot make the import take seconds.
  constexpr int64_t kMaxPoints = int64_t(1) << 22;
  int64_t points = 1;
  for (int64_t d : spatial) {
    if (d < 1 || d > kMaxPoints) c.fail("size holds a dim below 1 or above 2^22");
    points *= d;
    if (points > kMaxPoints) break;  // refused below, before it can overflow
  }
  if (points > kMaxPoints)
    c.fail("a grid of more than " + std::to_string(kMaxPoints) + " points is too large to build at import");
  auto coord = [&](int64_t i, int64_t n) {
    if (align) return n == 1 ? -1.0 : -1.0 + 2.0 * double(i) / double(n - 1);
    return -1.0 + (2.0 * double(i) + 1.0) / double(n);
  };
  std::vector<double> base;
  base.reserve(std::size_t(points) * (nd + 1));
  for (int64_t p = 0; p < points; ++p) {
    std::array<int64_t, 3> at{};
    for (int64_t k = int64_t(nd) - 1, rest = p; k >= 0; --k) {
      at[std::size_t(k)] = rest % spatial[std::size_t(k)];
      rest /= spatial[std::size_t(k)];
    }
    for (int64_t k = int64_t(nd) - 1; k >= 0; --k)  // x (the last dim) first
      base.push_back(coord(at[std::size_t(k)], spatial[std::size_t(k)]));
    base.push_back(1.0);
  }
  Val grid = const_values(c, dt, base, {points, int64_t(nd + 1)});
  Val y = c.e.emit(op::matmul, {grid, c.e.emit(op::transpose, {theta}, {.axes = {0, 2, 1}})});
  std::vector<int64_t> out = {c.e.dims(theta)[0]};
  out.insert(out.end(), spatial.begin(), spatial.end());
  out.push_back(int64_t(nd));
  return one(reshape(c, y, out));
}

// DeformConv (19, 2-D): a convolution whose every tap (i, j) at output (oh, ow) reads x at
// (oh·s - pad + i·d + dy, ow·s - pad + j·d + dx), the offsets (dy, dx) given per tap and
// position (offset (N, G·2·kH·kW, OH, OW), one set per offset group of C / G channels), by
// bilinear interpolation with zeros outside (ONNX Runtime's and torchvision's rule), times the
// optional mask; the sampled columns (N, C·kH·kW, OH·OW) then meet W in a (grouped) matmul.
std::vector<Val> lower_deform_conv(NodeContext& c) {
  Val x = c.input(0), w = c.input(1), off = c.input(2), b = c.input(3), mask = c.input(4);
  require_float(c, x);
  const DType dt = c.e.dtype(x);
  if (c.e.rank(x) != 4 || c.e.rank(w) != 4)
    c.fail("only 2-D DeformConv (4-D X and W) is supported");
  auto dim = [&](Val v, int k) { return static_dim(c, v, k, "DeformConv"); };
  // The batch may be dynamic (kDynamic is the one -1 of each reshape below).
  const int64_t n = c.e.dims(x)[0], ch = dim(x, 1), h = dim(x, 2), wd = dim(x, 3);
  const int64_t oc = dim(w, 0), kh = dim(w, 2), kw = dim(w, 3), taps = kh * kw;
  const int64_t group = c.attr_int("group", 1), og = c.attr_int("offset_group", 1);
  if (group < 1 || ch % group != 0 || oc % group != 0 || dim(w, 1) != ch / group)
    c.fail("group=" + std::to_string(group) + " does not fit C=" + std::to_string(ch) + " and W");
  if (og < 1 || ch % og != 0)
    c.fail("offset_group=" + std::to_string(og) + " does not divide C=" + std::to_string(ch));
  std::vector<int64_t> st = c.attr_ints("strides", {1, 1}), dil = c.attr_ints("dilations", {1, 1}),
                       pads = c.attr_ints("pads", {0, 0, 0, 0});
  if (st.size() != 2 || dil.size() != 2 || pads.size() != 4)
    c.fail("strides, dilations and pads must fit 2-D");
  const int64_t oh = (h + pads[0] + pads[2] - dil[0] * (kh - 1) - 1) / st[0] + 1;
  const int64_t ow = (wd + pads[1] + pads[3] - dil[1] * (kw - 1) - 1) / st[1] + 1;
  if (oh < 1 || ow < 1) c.fail("the kernel does not fit in the padded input");
  if (taps > (int64_t(1) << 16) || oh > (int64_t(1) << 24) || ow > (int64_t(1) << 24) ||
      oh * ow > (int64_t(1) << 24) || taps * oh * ow > (int64_t(1) << 26))
    c.fail("a DeformConv of " + std::to_string(taps) + " taps over " + std::to_string(oh * ow) +
           " positions is too large to build its sampling positions at import");
  std::vector<int64_t> od = onnx_dims(c, off);
  if (od.size() == 4 && (od[0] == kDynamic || n == kDynamic)) od[0] = n;
  if (od != std::vector<int64_t>{n, og * 2 * taps, oh, ow})
    c.fail("offset must be (N, offset_group·2·kH·kW, OH, OW)");
  if (c.e.dtype(off) != dt) off = c.e.emit(op::cast, {off}, {.dtype = dt});
  if (mask.present() && c.e.dtype(mask) != dt) mask = c.e.emit(op::cast, {mask}, {.dtype = dt});
  // The taps' base positions (K·OH, OW) as constants.
  std::vector<double> by, bx;
  for (int64_t i = 0; i < kh; ++i)
    for (int64_t j = 0; j < kw; ++j)
      for (int64_t r = 0; r < oh; ++r)
        for (int64_t q = 0; q < ow; ++q) {
          by.push_back(double(r * st[0] - pads[0] + i * dil[0]));
          bx.push_back(double(q * st[1] - pads[1] + j * dil[1]));
        }
  Val base_y = const_values(c, dt, by, {taps * oh, ow}),
      base_x = const_values(c, dt, bx, {taps * oh, ow});
  Val rows = reshape(c, c.e.emit(op::transpose, {x}, {.axes = {0, 2, 3, 1}}),
                     {n == kDynamic ? kDynamic : n * h * wd, ch});
  // Each image's first row in `rows`: i·H·W, for a dynamic batch a range at run time.
  Val offset;
  if (n != kDynamic) {
    std::vector<int64_t> starts;
    for (int64_t i = 0; i < n; ++i) starts.push_back(i * h * wd);
    offset = reshape(c, c.e.int_vector(starts), {n, 1, 1});
  } else {
    Val batch =
        c.e.emit(op::strided_slice, {c.e.emit(op::shape_of, {x})}, {.begin = {0}, .end = {1}});
    Val step = c.e.scalar_const(DType::i64, double(h * wd));
    Val limit = c.e.emit(op::mul, {batch, c.e.int_vector({h * wd})});
    offset = reshape(c, c.e.emit(op::range, {c.e.scalar_const(DType::i64, 0), limit, step}),
                     {kDynamic, 1, 1});
  }
  const int64_t cg = ch / og;
  std::vector<Val> parts;
  for (int64_t g = 0; g < og; ++g) {
    Val group_rows = og == 1 ? rows
                             : c.e.emit(op::strided_slice, {rows},
                                        {.begin = {g * cg}, .end = {(g + 1) * cg}, .axes = {1}});
    Sampler s{c, dt, n, cg, h, wd, taps * oh, ow, "zeros", 0, 0, 0, 0, group_rows, offset};
    // offset channels of group g: (dy, dx) per tap -> (N, K, 2, OH, OW)
    Val o = reshape(c,
                    c.e.emit(op::strided_slice, {off},
                             {.begin = {g * 2 * taps}, .end = {(g + 1) * 2 * taps}, .axes = {1}}),
                    {n, taps, 2, oh, ow});
    auto coord = [&](int64_t k, Val base) {
      Val d =
          reshape(c, c.e.emit(op::strided_slice, {o}, {.begin = {k}, .end = {k + 1}, .axes = {2}}),
                  {n, taps * oh, ow});
      return c.e.emit(op::add, {d, base});
    };
    Val v = s.bilinear(coord(1, base_x), coord(0, base_y));  // (N, K·OH, OW, C/G)
    if (mask.present()) {
      Val m = reshape(c,
                      c.e.emit(op::strided_slice, {mask},
                               {.begin = {g * taps}, .end = {(g + 1) * taps}, .axes = {1}}),
                      {n, taps * oh, ow});
      v = s.weighted(v, m);
    }
    parts.push_back(v);
  }
  Val v = parts.size() == 1 ? parts[0]
                            : c.e.emit(op::concatenate, parts, {.axis = 3});  // (N, K·OH, OW, C)
  v = c.e.emit(op::transpose, {reshape(c, v, {n, taps, oh * ow, ch})},
               {.axes = {0, 3, 1, 2}});  // (N, C, K, L)
  Val cols = reshape(c, v, {n, group, (ch / group) * taps, oh * ow});
  if (c.e.dtype(w) != dt) w = c.e.emit(op::cast, {w}, {.dtype = dt});
  Val wg = reshape(c, w, {group, oc / group, (ch / group) * taps});
  Val y = reshape(c, c.e.emit(op::matmul, {wg, cols}), {n, oc, oh, ow});
  if (b.present()) {
    if (c.e.dtype(b) != dt) b = c.e.emit(op::cast, {b}, {.dtype = dt});
    y = c.e.emit(op::add, {y, per_channel(c, b, 4)});
  }
  return one(y);
}

// RoiAlign (opsets 10, 16) as ONNX Runtime computes it: each output bin of a region of
// interest (x1, y1, x2, y2) · spatial_scale (− 0.5 with half_pixel; else each side at least 1)
// holds sampling_ratio² points, each bilinearly interpolated (a point beyond [-1, H] x [-1, W]
// counts 0; coordinates below 0 read 0, at or beyond the last row or column the last one),
// then averaged ("avg") or, per ONNX Runtime, the maximum over the points of the largest of
// their four weighted corner values ("max"). sampling_ratio 0 (adaptive, a count per region
// known only at run time) is refused.
std::vector<Val> lower_roi_align(NodeContext& c) {
  Val x = c.input(0), rois = c.input(1), batch = c.input(2);
  require_float(c, x);
  if (c.e.rank(x) != 4) c.fail("the input must be 4-D (N, C, H, W), got rank " + std::to_string(c.e.rank(x)));
  if (c.e.rank(rois) != 2 || c.e.rank(batch) != 1) c.fail("rois must be (num_rois, 4) and batch_indices (num_rois)");
  const std::string mode = c.attr_string("mode", "avg");
  if (mode != "avg" && mode != "max") c.fail("mode=" + mode + " is not supported");
  const std::string coord = c.opset >= 16 ? c.attr_string("coordinate_transformation_mode", "half_pixel")
                                          : "output_half_pixel";
  if (coord != "half_pixel" && coord != "output_half_pixel")
    c.fail("coordinate_transformation_mode=" + coord + " is not supported");
  const int64_t oh = c.attr_int("output_height", 1), ow = c.attr_int("output_width", 1);
  const int64_t sr = c.attr_int("sampling_ratio", 0);
  if (oh < 1 || ow < 1) c.fail("output_height and output_width must be >= 1");
  if (sr < 1)
    c.fail("sampling_ratio=" + std::to_string(sr) + " is not supported (0, adaptive, gives each region its own "
           "number of points, known only at run time)");
  const double scale = c.attr_float("spatial_scale", 1.0);
  const DType dt = c.e.dtype(x);
  Sampler s{c, dt, static_dim(c, x, 0, "RoiAlign"), static_dim(c, x, 1, "RoiAlign"), static_dim(c, x, 2, "RoiAlign"),
            static_dim(c, x, 3, "RoiAlign"), oh, ow, "zeros", 0, 0, 0, 0, {}, {}};
  const int64_t r = static_dim(c, rois, 0, "RoiAlign");
  s.rows = reshape(c, c.e.emit(op::transpose, {x}, {.axes = {0, 2, 3, 1}}), {s.n * s.h * s.w, s.ch});
  if (c.e.dtype(rois) != dt) rois = c.e.emit(op::cast, {rois}, {.dtype = dt});
  const double off = coord == "half_pixel" ? 0.5 : 0.0;
  auto column = [&](int64_t k) {  // rois[:, k] · scale − offset, (R, 1)
    Val v = c.e.emit(op::strided_slice, {rois}, {.begin = {k}, .end = {k + 1}, .axes = {1}});
    return s.apply(Opcode::sub, s.apply(Opcode::mul, v, s.k(scale)), s.k(off));
  };
  // The sample coordinates along one axis, (R, bins · sr), and whether each is inside.
  auto axis = [&](int64_t k, int64_t bins, int64_t len, Val& valid, Val& lo, Val& hi, Val& frac) {
    Val start = column(k), size = s.apply(Opcode::sub, column(k + 2), start);
    if (coord != "half_pixel") size = s.apply(Opcode::maximum, size, s.k(1));
    std::vector<double> t;
    for (int64_t b = 0; b < bins; ++b)
      for (int64_t i = 0; i < sr; ++i) t.push_back(double(b) + (double(i) + 0.5) / double(sr));
    Val pos = s.apply(Opcode::add, start, s.apply(Opcode::mul, s.apply(Opcode::div, size, s.k(double(bins))),
                                      const_values(c, dt, t, {1, bins * sr})));
    valid = c.e.emit(op::logical_and, {s.apply(Opcode::greater_equal, pos, s.k(-1)),
                                       s.apply(Opcode::less_equal, pos, s.k(double(len)))});
    pos = s.apply(Opcode::maximum, pos, s.k(0));
    Val low = s.apply(Opcode::floor, pos);
    Val last = s.apply(Opcode::greater_equal, low, s.k(double(len - 1)));
    lo = s.apply(Opcode::minimum, low, s.k(double(len - 1)));
    hi = s.apply(Opcode::minimum, s.apply(Opcode::add, lo, s.k(1)), s.k(double(len - 1)));
    frac = c.e.emit(op::where, {last, s.k(0), s.apply(Opcode::sub, pos, lo)});
  };
  Val vy, ylo, yhi, ly, vx, xlo, xhi, lx;
  axis(1, oh, s.h, vy, ylo, yhi, ly);
  axis(0, ow, s.w, vx, xlo, xhi, lx);
  auto col = [&](Val v) { return c.e.emit(op::expand_dims, {v}, {.axis = 2}); };  // (R, Sy, 1)
  auto row = [&](Val v) { return c.e.emit(op::expand_dims, {v}, {.axis = 1}); };  // (R, 1, Sx)
  Val valid = c.e.emit(op::logical_and, {col(vy), row(vx)});
  Val hy = s.apply(Opcode::sub, s.k(1), ly), hx = s.apply(Opcode::sub, s.k(1), lx);
  auto as_i64 = [&](Val v) { return c.e.emit(op::cast, {v}, {.dtype = DType::i64}); };
  Val base = s.apply(Opcode::mul, reshape(c, as_i64(batch), {r, 1, 1}),
                     c.e.scalar_const(DType::i64, double(s.h * s.w)));
  auto corner = [&](Val yi, Val xi, Val wy, Val wx) {
    Val pos =
        s.apply(Opcode::add,
                s.apply(Opcode::mul, col(as_i64(yi)), c.e.scalar_const(DType::i64, double(s.w))),
                row(as_i64(xi)));
    pos = s.apply(Opcode::add, c.e.emit(op::where, {valid, pos, c.e.scalar_const(DType::i64, 0)}), base);
    Val weight = c.e.emit(op::where, {valid, s.apply(Opcode::mul, col(wy), row(wx)), s.k(0)});
    return s.weighted(c.e.emit(op::take, {s.rows, pos}, {.axis = 0}), weight);  // (R, Sy, Sx, C)
  };
  Val v1 = corner(ylo, xlo, hy, hx), v2 = corner(ylo, xhi, hy, lx), v3 = corner(yhi, xlo, ly, hx),
      v4 = corner(yhi, xhi, ly, lx);
  const bool avg = mode == "avg";
  Val v = avg ? s.apply(Opcode::add, s.apply(Opcode::add, v1, v2), s.apply(Opcode::add, v3, v4))
              : s.apply(Opcode::maximum, s.apply(Opcode::maximum, v1, v2), s.apply(Opcode::maximum, v3, v4));
  v = reshape(c, v, {r, oh, sr, ow, sr, s.ch});
  v = reduce(c, avg ? Opcode::sum : Opcode::max, v, {2, 4}, false);
  if (avg) v = s.apply(Opcode::div, v, s.k(double(sr * sr)));
  return one(c.e.emit(op::transpose, {v}, {.axes = {0, 3, 1, 2}}));
}

constexpr LoweringEntry kTable[] = {
    {"AffineGrid", 20, lower_affine_grid},
    {"DeformConv", 19, lower_deform_conv},
    {"GridSample", 16, lower_grid_sample},
    {"RoiAlign", 10, lower_roi_align},
};

}  // namespace

std::span<const LoweringEntry> sample_table() { return kTable; }

}  // namespace mlvm::nn
