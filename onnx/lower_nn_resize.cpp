// Upsample (opsets 7-9) and Resize (10+) where they are mlvm's `upsampling`: mode nearest,
// integer scales of H and W of a rank-4 input (N and C unscaled), and a coordinate transform
// and nearest rounding that pick source index floor(i / scale) for every output index i
// (checked at import). Everything else fails with the reason.
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
  else if (rounding == "round_prefer_ceil") r = tie ? std::ceil(x) : std::round(x);
  else r = tie ? std::floor(x) : std::round(x);  // round_prefer_floor
  return std::clamp<int64_t>(int64_t(r), 0, in - 1);
}

// `scales` (one per dim) as upsampling's (SH, SW), or fail with why not.
Val upsample(NodeContext& c, Val x, const std::vector<double>& scales, const std::string& coord,
             const std::string& rounding) {
  const int r = c.e.rank(x);
  if (int(scales.size()) != r)
    c.fail("scales has " + std::to_string(scales.size()) + " entries for an input of rank " + std::to_string(r));
  bool identity = true;
  for (double s : scales)
    if (s != 1.0) identity = false;
  if (identity) return x;
  if (r != 4) c.fail("scaling a rank-" + std::to_string(r) + " input is not supported (rank 4 (N, C, H, W) only)");
  if (scales[0] != 1.0 || scales[1] != 1.0)
    c.fail("scales (" + fmt(scales[0]) + ", " + fmt(scales[1]) + ") of N and C are not supported (only 1)");
  std::vector<int64_t> factor;
  for (int k = 2; k < 4; ++k) {
    double s = scales[std::size_t(k)];
    if (s < 1.0 || s != std::floor(s) || s > double(int64_t(1) << 31))
      c.fail("scale " + fmt(s) + " of dim " + std::to_string(k) +
             " is not supported (only integer upscaling, the nearest-neighbour replication of `upsampling`)");
    factor.push_back(int64_t(s));
  }
  if (coord != "asymmetric" || rounding != "floor") {
    // Not plain replication in general: check every output index against floor(i / s).
    for (int k = 2; k < 4; ++k) {
      int64_t s = factor[std::size_t(k - 2)];
      if (s == 1) continue;
      int64_t in = static_dim(c, x, k, "coordinate_transformation_mode=" + coord);
      for (int64_t i = 0; i < in * s; ++i)
        if (nearest_source(coord, rounding, i, double(s), in, in * s) != i / s)
          c.fail("coordinate_transformation_mode=" + coord + " with nearest_mode=" + rounding +
                 " and scale " + std::to_string(s) + " is not supported (it is not plain "
                 "replication; output " + std::to_string(i) + " of dim " + std::to_string(k) +
                 " reads input " + std::to_string(nearest_source(coord, rounding, i, double(s), in, in * s)) + ")");
    }
  }
  return c.e.emit("upsampling", {x}, {attr_ints("scale", factor)});
}

void require_nearest(NodeContext& c) {
  std::string mode = c.attr_string("mode", "nearest");
  if (mode != "nearest") c.fail("mode=" + mode + " is not supported (only nearest)");
}

std::vector<Val> lower_upsample(NodeContext& c) {
  require_nearest(c);
  std::vector<double> scales = c.opset >= 9 ? c.e.doubles(c.input(1), "Upsample's scales")
                                            : c.attr_floats("scales");
  return one(upsample(c, c.input(0), scales, "asymmetric", "floor"));
}

std::vector<Val> lower_resize(NodeContext& c) {
  require_nearest(c);
  Val x = c.input(0);
  std::string coord = "asymmetric", rounding = "floor";  // opset 10: Upsample's rule
  Val scales_in = c.input(1), sizes_in;
  if (c.opset >= 11) {
    coord = c.attr_string("coordinate_transformation_mode", "half_pixel");
    rounding = c.attr_string("nearest_mode", "round_prefer_floor");
    scales_in = c.input(2);
    sizes_in = c.input(3);
  }
  const std::string coords[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                "tf_half_pixel_for_nn"};
  if (std::find(std::begin(coords), std::end(coords), coord) == std::end(coords))
    c.fail("coordinate_transformation_mode=" + coord + " is not supported");
  if (rounding != "round_prefer_floor" && rounding != "round_prefer_ceil" && rounding != "floor" &&
      rounding != "ceil")
    c.fail("nearest_mode=" + rounding + " is not supported");
  std::vector<double> scales;
  if (scales_in.present()) scales = c.e.doubles(scales_in, "Resize's scales");
  if (scales.empty()) {
    if (!sizes_in.present()) c.fail("neither scales nor sizes is given");
    std::vector<int64_t> sizes = c.e.ints(sizes_in, "Resize's sizes");
    if (int(sizes.size()) != c.e.rank(x))
      c.fail("sizes has " + std::to_string(sizes.size()) + " entries for an input of rank " +
             std::to_string(c.e.rank(x)));
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      int64_t in = static_dim(c, x, int(k), "Resize with sizes");
      if (in == 0 || sizes[k] % in != 0)
        c.fail("sizes entry " + std::to_string(sizes[k]) + " of dim " + std::to_string(k) + " is not a multiple of the input's " +
               std::to_string(in) + " (only integer upscaling is supported)");
      scales.push_back(double(sizes[k] / in));
    }
  }
  return one(upsample(c, x, scales, coord, rounding));
}

constexpr LoweringEntry kTable[] = {
    {"Upsample", 7, lower_upsample},
    {"Resize", 10, lower_resize},
};

}  // namespace

std::span<const LoweringEntry> resize_table() { return kTable; }

}  // namespace mlvm::nn
