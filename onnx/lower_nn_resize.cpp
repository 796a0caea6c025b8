// Upsample (opsets 7-9) and Resize (10+) onto mlvm's `resize` (docs/ops.md §11a): every mode
// (nearest, linear, cubic) and coordinate transformation mode, nearest_mode, cubic_coeff_a,
// exclude_outside, extrapolation_value, and roi for tf_crop_and_resize (roi may be a run-time
// value). The output dims must be known at import: `sizes` a constant, or `scales` a constant
// with the input's dims static (sizes = floor(dims · scales), as ONNX computes them; the
// scales then go to `resize` too, whose coordinate formulas use them). Resize-10 and Upsample
// use asymmetric coordinates and the "simple" nearest rounding.
//
// Where the result is plain nearest-neighbour replication — rank 4, N and C unscaled, integer
// upscaling of H and W, a coordinate transform and rounding that pick source index
// floor(i / scale) for every output index i (checked at import) — the cheaper `upsampling`
// is emitted instead (it also takes a dynamic batch dim). All scales 1 is x itself.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>

#include "onnx/lower_nn_util.hpp"

namespace mlvm::nn {

namespace {

std::string fmt(double v) {
  std::string s = std::to_string(v);
  while (s.size() > 1 && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

// How the output positions map to the input (the attributes of `resize`).
struct Spec {
  std::string mode = "nearest", coord = "asymmetric", rounding = "simple";
  double cubic_a = -0.75, extrapolation = 0.0;
  bool exclude_outside = false;
  Val roi;
};

// The resize op's attributes for s; `sizes` the output's dims, or () when read at run time.
write::resize resize_attrs(const Spec& s, std::vector<int64_t> sizes) {
  write::resize a{.sizes = std::move(sizes), .mode = s.mode, .coordinate_transformation_mode = s.coord,
                  .nearest_mode = s.rounding};
  if (s.mode == "cubic") {
    a.cubic_coeff_a = s.cubic_a;
    a.exclude_outside = s.exclude_outside;
  }
  if (s.coord == "tf_crop_and_resize") a.extrapolation_value = s.extrapolation;
  return a;
}

// The source index ONNX's nearest mode reads for output index i (the reference's formulas).
int64_t nearest_source(const std::string& coord, const std::string& rounding, int64_t i,
                       double scale, int64_t in, int64_t out) {
  double x = double(i);
  if (coord == "half_pixel") x = (x + 0.5) / scale - 0.5;
  else if (coord == "pytorch_half_pixel") x = out > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
  else if (coord == "align_corners") x = out == 1 ? 0.0 : x * double(in - 1) / double(out - 1);
  else if (coord == "tf_half_pixel_for_nn") x = (x + 0.5) / scale;
  else x = x / scale;  // asymmetric
  double r;
  const bool tie = x - std::floor(x) == 0.5;
  if (rounding == "floor") r = std::floor(x);
  else if (rounding == "ceil") r = std::ceil(x);
  else if (rounding == "simple") r = scale < 1 ? std::ceil(x) : std::trunc(x);
  else if (rounding == "round_prefer_ceil") r = tie ? std::ceil(x) : std::round(x);
  else r = tie ? std::floor(x) : std::round(x);  // round_prefer_floor
  return std::clamp<int64_t>(int64_t(r), 0, in - 1);
}

// `upsampling`'s (SH, SW) when scaling x by `scales` is plain replication, else nothing.
std::optional<std::vector<int64_t>> replication(NodeContext& c, Val x, const std::vector<double>& scales,
                                                const Spec& s) {
  if (s.mode != "nearest" || s.coord == "tf_crop_and_resize" || s.coord == "half_pixel_symmetric" ||
      c.e.rank(x) != 4)
    return std::nullopt;
  if (scales[0] != 1.0 || scales[1] != 1.0) return std::nullopt;
  std::vector<int64_t> factor;
  for (int k = 2; k < 4; ++k) {
    double f = scales[std::size_t(k)];
    if (f < 1.0 || f != std::floor(f) || f > double(int64_t(1) << 31)) return std::nullopt;
    factor.push_back(int64_t(f));
  }
  if (s.coord == "asymmetric" && (s.rounding == "floor" || s.rounding == "simple")) return factor;
  // Otherwise check every output index against floor(i / s).
  for (int k = 2; k < 4; ++k) {
    const int64_t f = factor[std::size_t(k - 2)], in = c.e.dims(x)[std::size_t(k)];
    if (f == 1) continue;
    if (in == kDynamic) return std::nullopt;
    for (int64_t i = 0; i < in * f; ++i)
      if (nearest_source(s.coord, s.rounding, i, double(f), in, in * f) != i / f) return std::nullopt;
  }
  return factor;
}

// x resized by constant `scales` (sizes = floor(dims · scales)) or to constant `sizes`; both
// when opset 18's keep_aspect_ratio_policy has made the sizes and the one scale they share.
Val resize(NodeContext& c, Val x, const Spec& s, std::vector<double> scales, std::vector<int64_t> sizes) {
  const int r = c.e.rank(x);
  if (r == 0) c.fail("resizing a scalar is not defined");
  if (!is_float(c.e.dtype(x)) && s.mode != "nearest")
    c.fail("mode=" + s.mode + " needs a float input, got " + std::string(dtype_name(c.e.dtype(x))));
  const bool by_scales = !scales.empty();
  if (by_scales && !sizes.empty()) {
    if (int(sizes.size()) != r || int(scales.size()) != r)
      c.fail("internal: scales and sizes of another rank");
  } else if (by_scales) {
    if (int(scales.size()) != r)
      c.fail("scales has " + std::to_string(scales.size()) + " entries for an input of rank " + std::to_string(r));
    for (double f : scales)
      if (!(f > 0) || !std::isfinite(f)) c.fail("scale " + fmt(f) + " is not supported (scales must be > 0)");
  } else {
    if (int(sizes.size()) != r)
      c.fail("sizes has " + std::to_string(sizes.size()) + " entries for an input of rank " + std::to_string(r));
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      if (sizes[k] < 0) c.fail("sizes entry " + std::to_string(sizes[k]) + " is negative");
      const int64_t in = c.e.dims(x)[k];
      // The scale sizes/in only matters for the checks below; unknown dims are not replicated.
      scales.push_back(in == kDynamic ? 0.0 : in == 0 ? 1.0 : double(sizes[k]) / double(in));
    }
  }
  bool identity = s.coord != "tf_crop_and_resize";
  for (std::size_t k = 0; k < scales.size(); ++k)
    if (scales[k] != 1.0) identity = false;
  if (identity) return x;
  if (auto factor = replication(c, x, scales, s))
    return c.e.emit(op::upsampling, {x}, {.scale = *factor});
  if (by_scales && sizes.empty())
    for (int k = 0; k < r; ++k) {
      const int64_t in = static_dim(c, x, k, "Resize with scales (the output dims are floor(dims * scales))");
      const double v = std::floor(double(in) * scales[std::size_t(k)]);
      if (!(v >= 0 && v <= double(int64_t(1) << 40)))  // NaN too: checked before the conversion
        c.fail("axis " + std::to_string(k) + " of " + std::to_string(in) + " scaled by " +
               std::to_string(scales[std::size_t(k)]) + " gives no valid length");
      sizes.push_back(int64_t(v));
    }
  Val roi;
  if (s.coord == "tf_crop_and_resize" && s.roi.present()) {
    roi = c.e.with_scalar(s.roi, false);
    if (!is_float(c.e.dtype(roi))) roi = c.e.emit(op::cast, {roi}, {.dtype = DType::f32});
  }
  Val scale_in;
  if (by_scales) scale_in = const_values(c, DType::f32, scales, {int64_t(r)});
  return c.e.emit(op::resize, {x, roi, scale_in}, resize_attrs(s, sizes));
}

std::string read_mode(NodeContext& c, bool cubic_too) {
  std::string mode = c.attr_string("mode", "nearest");
  if (mode == "bilinear") mode = "linear";  // Upsample-1's name, kept by the upgrade
  if (mode != "nearest" && mode != "linear" && (mode != "cubic" || !cubic_too))
    c.fail("mode=" + mode + " is not supported");
  return mode;
}

// A constant 1-D input with no elements counts as absent (models pass scales=[] with sizes).
bool given(NodeContext& c, Val v) {
  if (!v.present()) return false;
  const Dims& d = c.e.dims(v);
  return !(d.size() == 1 && d[0] == 0);
}

// Scales or sizes known only at run time: the resize op reads them (sizes=()); its dims are `?`.
Val resize_at_run_time(NodeContext& c, Val x, const Spec& s, Val scales, Val sizes) {
  if (!is_float(c.e.dtype(x)) && s.mode != "nearest")
    c.fail("mode=" + s.mode + " needs a float input, got " + std::string(dtype_name(c.e.dtype(x))));
  Val roi;
  if (s.coord == "tf_crop_and_resize" && s.roi.present()) {
    roi = c.e.with_scalar(s.roi, false);
    if (!is_float(c.e.dtype(roi))) roi = c.e.emit(op::cast, {roi}, {.dtype = DType::f32});
  }
  if (scales.present()) scales = c.e.emit(op::cast, {scales}, {.dtype = DType::f32});
  if (sizes.present()) sizes = c.e.emit(op::cast, {sizes}, {.dtype = DType::i64});
  return c.e.emit(op::resize, {x, roi, scales, sizes}, resize_attrs(s, {}));
}

std::vector<Val> lower_upsample(NodeContext& c) {
  Spec s;
  s.mode = read_mode(c, false);
  if (c.opset >= 9 && !c.e.is_const(c.input(1))) {
    s.coord = "asymmetric";
    s.rounding = "simple";
    return one(resize_at_run_time(c, c.input(0), s, c.input(1), Val{}));
  }
  std::vector<double> scales = c.opset >= 9 ? c.e.doubles(c.input(1), "Upsample's scales")
                                            : c.attr_floats("scales");
  if (scales.empty()) c.fail("scales is empty");
  return one(resize(c, c.input(0), s, scales, {}));
}

// The source coordinate of output index i along an axis scaled by `scale` (ONNX Runtime's
// get_original_coordinate for each coordinate_transformation_mode but tf_crop_and_resize).
double source_coordinate(const std::string& coord, double i, double scale, double out, double in) {
  if (coord == "asymmetric") return i / scale;
  if (coord == "pytorch_half_pixel") return out > 1 ? (i + 0.5) / scale - 0.5 : 0.0;
  if (coord == "align_corners") return out == 1 ? 0.0 : i * (in - 1) / (out - 1);
  if (coord == "tf_half_pixel_for_nn") return (i + 0.5) / scale;
  if (coord == "half_pixel_symmetric") {
    const double adjustment = out / (scale * in), centre = in / 2;
    return centre * (1 - adjustment) + (i + 0.5) / scale - 0.5;
  }
  return (i + 0.5) / scale - 0.5;  // half_pixel
}

// Resize-18's antialias (linear and cubic): each axis is resized by an (out, in) matrix whose
// row i holds ONNX Runtime's antialiasing filter weights (upsample_antialias.h): the triangle
// or cubic filter stretched by in/out when downscaling, centred on i's source coordinate + 0.5,
// normalized to sum 1, a tap beyond the input reading its edge. The matrix is built at import; x
// meets it in a matmul along that axis.
Val resize_antialias(NodeContext& c, Val x, const Spec& s, const std::vector<double>& scales,
                     std::vector<int64_t> sizes) {
  const int r = c.e.rank(x);
  const DType dt = c.e.dtype(x);
  if (!is_float(dt))
    c.fail("antialias=1 with mode=" + s.mode + " needs a float input, got " + std::string(dtype_name(dt)));
  // A dim scaled by 1 is left alone and may be dynamic (a batch); the others must be static.
  std::vector<int64_t> dims = onnx_dims(c, x);
  for (int k = 0; k < r; ++k) {
    const bool kept = !scales.empty() && scales[std::size_t(k)] == 1.0 &&
                      (sizes.empty() || sizes[std::size_t(k)] == dims[std::size_t(k)]);
    if (!kept) dims[std::size_t(k)] = static_dim(c, x, k, "Resize with antialias");
  }
  // A hostile model may give any scale or size: each is checked before it sizes anything.
  constexpr double kMaxLength = double(int64_t(1) << 26);
  for (double sc : scales)
    if (!std::isfinite(sc) || !(sc > 0))
      c.fail("Resize with antialias: scale " + std::to_string(sc) + " is not a positive finite number");
  for (int64_t sz : sizes)
    if (sz < 0 || double(sz) > kMaxLength)
      c.fail("Resize with antialias: size " + std::to_string(sz) + " is outside 0.." +
             std::to_string(int64_t(kMaxLength)));
  if (sizes.empty())
    for (int k = 0; k < r; ++k) {
      if (dims[std::size_t(k)] == kDynamic) {
        sizes.push_back(kDynamic);
        continue;
      }
      const double v = std::floor(double(dims[std::size_t(k)]) * scales[std::size_t(k)]);
      if (v > kMaxLength)
        c.fail("Resize with antialias: axis " + std::to_string(k) + " would have " +
               std::to_string(v) + " elements, more than " + std::to_string(int64_t(kMaxLength)));
      sizes.push_back(int64_t(v));
    }
  const bool cubic = s.mode == "cubic";
  auto filter = [&](double t) {
    t = std::fabs(t);
    if (!cubic) return t < 1 ? 1 - t : 0.0;
    const double a = s.cubic_a;
    if (t < 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
    if (t < 2) return (((t - 5) * t + 8) * t - 4) * a;
    return 0.0;
  };
  for (int k = 0; k < r; ++k) {
    const int64_t in = dims[std::size_t(k)], out = sizes[std::size_t(k)];
    if (in == kDynamic) continue;  // kept, above
    const double rscale = scales.empty() ? double(float(out) / float(in)) : scales[std::size_t(k)];
    if (out == in && rscale == 1.0) continue;
    if (in > (int64_t(1) << 26) || out > (int64_t(1) << 26) || in * out > (int64_t(1) << 26))
      c.fail("antialias=1 over " + std::to_string(in) + " -> " + std::to_string(out) +
             " is too large");
    if (in <= 0 || !std::isfinite(rscale) || !(rscale > 0))
      c.fail("Resize with antialias: axis " + std::to_string(k) + " of " + std::to_string(in) +
             " cannot be resized to " + std::to_string(out) + " (scale " + std::to_string(rscale) + ")");
    const double down = 1.0 / rscale;  // > 1 when downscaling
    const double support = (cubic ? 2.0 : 1.0) * (down >= 1 ? down : 1.0);
    // The filter spans 2·support taps per output: bounded, so the weights are built in time.
    if (support > 2.0 * double(in) + 8.0)
      c.fail("Resize with antialias: scale " + std::to_string(rscale) + " over an axis of " +
             std::to_string(in) + " makes a filter wider than the axis");
    const double stretch = down >= 1 ? 1.0 / down : 1.0;
    std::vector<double> m(std::size_t(out * in), 0.0);
    for (int64_t i = 0; i < out; ++i) {
      const double centre = 0.5 + (down == 1.0 ? double(i)
                                               : source_coordinate(s.coord, double(i), rscale,
                                                                   double(out), double(in)));
      const int64_t lo = int64_t(std::floor(centre - support + 0.5));
      const int64_t hi = int64_t(std::floor(centre + support + 0.5));
      double total = 0;
      for (int64_t j = lo; j < hi; ++j) total += filter((double(j) - centre + 0.5) * stretch);
      if (total == 0) total = 1;
      for (int64_t j = lo; j < hi; ++j)  // a tap outside reads the edge
        m[std::size_t(i * in + std::clamp<int64_t>(j, 0, in - 1))] +=
            filter((double(j) - centre + 0.5) * stretch) / total;
    }
    Val mt = const_values(c, dt, m, {out, in});
    // x's axis k last, times mᵀ, back in place.
    std::vector<int64_t> perm = iota(0, r);
    std::swap(perm[std::size_t(k)], perm.back());
    Val t = k == r - 1 ? x : c.e.emit(op::transpose, {x}, {.axes = perm});
    t = c.e.emit(op::matmul, {t, c.e.emit(op::transpose, {mt}, {.axes = {1, 0}})});
    x = k == r - 1 ? t : c.e.emit(op::transpose, {t}, {.axes = perm});
  }
  return x;
}

// Resize-18 and later: scales or sizes (and roi) for the listed `axes` only, the sizes fitted
// to keep the aspect ratio (keep_aspect_ratio_policy not_larger / not_smaller: one scale, the
// smallest or largest sizes[i] / dims[i], and sizes round(scale · dims)), and antialias (linear
// and cubic: resize_antialias).
Val resize_18(NodeContext& c, Val x, Spec s, Val scales_in, Val sizes_in) {
  const int r = c.e.rank(x);
  std::vector<int64_t> axes = c.attr_ints("axes");
  for (int64_t& a : axes) a = c.axis(a, r, "axes entry");
  const std::string policy = c.attr_string("keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    c.fail("keep_aspect_ratio_policy=" + policy + " is not supported");
  const bool antialias = c.attr_int("antialias", 0) != 0 && s.mode != "nearest";
  const bool plain = axes.empty() && policy == "stretch" && !antialias;
  if (plain && scales_in.present() && !c.e.is_const(scales_in))
    return resize_at_run_time(c, x, s, scales_in, Val{});
  if (plain && sizes_in.present() && !c.e.is_const(sizes_in))
    return resize_at_run_time(c, x, s, Val{}, sizes_in);
  if (!scales_in.present() && !sizes_in.present()) c.fail("neither scales nor sizes is given");
  if (!c.e.is_const(scales_in.present() ? scales_in : sizes_in))
    c.fail(
        "axes, keep_aspect_ratio_policy or antialias with scales or sizes known only at run time "
        "is not supported");
  if (axes.empty()) axes = iota(0, r);
  const std::size_t na = axes.size();
  std::vector<double> scales;
  std::vector<int64_t> sizes;
  if (scales_in.present()) {
    std::vector<double> given = c.e.doubles(scales_in, "Resize's scales");
    if (given.size() != na)
      c.fail("scales has " + std::to_string(given.size()) + " entries for " + std::to_string(na) +
             " axes");
    scales.assign(std::size_t(r), 1.0);
    for (std::size_t k = 0; k < na; ++k) scales[std::size_t(axes[k])] = given[k];
  } else {
    std::vector<int64_t> given = c.e.ints(sizes_in, "Resize's sizes");
    if (given.size() != na)
      c.fail("sizes has " + std::to_string(given.size()) + " entries for " + std::to_string(na) +
             " axes");
    // Sizes for every dim, as the model gives them, need no dim of x (a batch may be dynamic).
    const bool all_given = policy == "stretch" && std::is_sorted(axes.begin(), axes.end()) &&
                           int(na) == r &&
                           std::adjacent_find(axes.begin(), axes.end()) == axes.end();
    for (int k = 0; k < r && !all_given; ++k)
      sizes.push_back(static_dim(c, x, k, "Resize with sizes for some axes"));
    if (all_given) {
      sizes = given;
    } else if (policy == "stretch") {
      for (std::size_t k = 0; k < na; ++k) sizes[std::size_t(axes[k])] = given[k];
    } else {
      double scale = policy == "not_larger" ? 1e300 : 0.0;
      for (std::size_t k = 0; k < na; ++k) {
        const double f = double(given[k]) / double(sizes[std::size_t(axes[k])]);
        scale = policy == "not_larger" ? std::min(scale, f) : std::max(scale, f);
      }
      scales.assign(std::size_t(r), 1.0);
      for (int64_t a : axes) {
        scales[std::size_t(a)] = scale;
        sizes[std::size_t(a)] = int64_t(std::round(scale * double(sizes[std::size_t(a)])));
      }
    }
  }
  if (antialias) {
    if (s.coord == "tf_crop_and_resize")
      c.fail("antialias=1 with tf_crop_and_resize is not supported");
    return resize_antialias(c, x, s, scales, sizes);
  }
  // roi for the listed axes only: the others keep the whole extent [0, 1].
  if (s.roi.present() && s.coord == "tf_crop_and_resize" && na != std::size_t(r)) {
    std::vector<double> given = c.e.doubles(s.roi, "Resize's roi");
    if (given.size() != 2 * na) c.fail("roi must have 2 entries per axis");
    std::vector<double> roi(std::size_t(2 * r), 0.0);
    for (int k = 0; k < r; ++k) roi[std::size_t(r + k)] = 1.0;
    for (std::size_t k = 0; k < na; ++k) {
      roi[std::size_t(axes[k])] = given[k];
      roi[std::size_t(r + axes[k])] = given[na + k];
    }
    s.roi = const_values(c, DType::f32, roi, {int64_t(2 * r)});
  }
  return resize(c, x, s, scales, sizes);
}

std::vector<Val> lower_resize(NodeContext& c) {
  Val x = c.input(0);
  Spec s;
  Val scales_in = c.input(1), sizes_in;
  if (c.opset >= 11) {
    s.mode = read_mode(c, true);
    s.coord = c.attr_string("coordinate_transformation_mode", "half_pixel");
    s.rounding = c.attr_string("nearest_mode", "round_prefer_floor");
    s.cubic_a = c.attr_float("cubic_coeff_a", -0.75);
    s.exclude_outside = c.attr_int("exclude_outside", 0) != 0;
    s.extrapolation = c.attr_float("extrapolation_value", 0.0);
    s.roi = c.input(1);
    scales_in = c.input(2);
    sizes_in = c.input(3);
    const std::string coords[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                  "tf_half_pixel_for_nn", "tf_crop_and_resize"};
    if (std::find(std::begin(coords), std::end(coords), s.coord) == std::end(coords) &&
        (s.coord != "half_pixel_symmetric" || c.opset < 19))
      c.fail("coordinate_transformation_mode=" + s.coord + " is not supported");
    const std::string roundings[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
    if (std::find(std::begin(roundings), std::end(roundings), s.rounding) == std::end(roundings))
      c.fail("nearest_mode=" + s.rounding + " is not supported");
    if (s.roi.present() && !given(c, s.roi)) s.roi = Val{};
  } else {
    s.mode = read_mode(c, false);  // opset 10: Upsample's rule
  }
  const bool has_scales = given(c, scales_in), has_sizes = given(c, sizes_in);
  if (has_scales && has_sizes) c.fail("both scales and sizes are given (only one may be)");
  if (c.opset < 11) {  // Resize-10 rounds as Upsample does
    s.coord = "asymmetric";
    s.rounding = "simple";
  }
  if (c.opset >= 18)
    return one(resize_18(c, x, s, has_scales ? scales_in : Val{}, has_sizes ? sizes_in : Val{}));
  if (has_scales && !c.e.is_const(scales_in)) return one(resize_at_run_time(c, x, s, scales_in, Val{}));
  if (has_sizes && !c.e.is_const(sizes_in)) return one(resize_at_run_time(c, x, s, Val{}, sizes_in));
  if (has_scales) return one(resize(c, x, s, c.e.doubles(scales_in, "Resize's scales"), {}));
  if (!has_sizes) c.fail("neither scales nor sizes is given");
  return one(resize(c, x, s, {}, c.e.ints(sizes_in, "Resize's sizes")));
}

constexpr LoweringEntry kTable[] = {
    {"Upsample", 7, lower_upsample},
    {"Resize", 10, lower_resize},
};

}  // namespace

std::span<const LoweringEntry> resize_table() { return kTable; }

}  // namespace mlvm::nn
