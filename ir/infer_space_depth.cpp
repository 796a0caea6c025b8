// Static rules of depth_to_space and space_to_depth (ONNX DepthToSpace / SpaceToDepth on
// NCHW, any dtype); their kernels are in kernels/space_depth.cpp.
#include <limits>
#include <string>

#include "ir/infer.hpp"
#include "ir/nn_rules.hpp"

namespace mlvm {

namespace {

// blocksize (>= 1 by its attribute range) at most 2^31, so that b·b fits.
int64_t block(const char* op, int64_t b) {
  if (b > (int64_t(1) << 31))
    fail_invalid(std::string(op) + ": blocksize " + std::to_string(b) + " is above 2^31");
  return b;
}

void check_rank4(const char* op, const TensorType& x) {
  if (x.dims.size() != 4)
    fail_invalid(std::string(op) + ": x must have rank 4 (N, C, H, W), got " + x.to_string());
}

// d·f, or kDynamic; Error(invalid) on overflow.
int64_t scaled(const char* op, int64_t d, int64_t f, const TensorType& x) {
  if (d == kDynamic) return kDynamic;
  if (d > 0 && f > std::numeric_limits<int64_t>::max() / d)
    fail_invalid(std::string(op) + ": the output of x " + x.to_string() + " overflows");
  return d * f;
}

}  // namespace

void infer_depth_to_space(InferContext& ctx) {
  const char* op = "depth_to_space";
  const TensorType& x = ctx.in[0];
  check_rank4(op, x);
  const int64_t b = block(op, ctx.attrs.get<depth_to_space_attrs>().blocksize);
  const int64_t c = x.dims[1];
  if (c != kDynamic && c % (b * b) != 0)
    fail_invalid(std::string(op) + ": the " + std::to_string(c) + " channels of x " +
                 x.to_string() + " are not a multiple of blocksize^2 = " + std::to_string(b * b));
  TensorType out = x;
  out.dims[1] = c == kDynamic ? kDynamic : c / (b * b);
  out.dims[2] = scaled(op, x.dims[2], b, x);
  out.dims[3] = scaled(op, x.dims[3], b, x);
  ctx.out.assign(1, out);
}

void infer_space_to_depth(InferContext& ctx) {
  const char* op = "space_to_depth";
  const TensorType& x = ctx.in[0];
  check_rank4(op, x);
  const int64_t b = block(op, ctx.attrs.get<space_to_depth_attrs>().blocksize);
  TensorType out = x;
  for (int d = 2; d < 4; ++d) {
    const int64_t n = x.dims[d];
    if (n != kDynamic && n % b != 0)
      fail_invalid(std::string(op) + ": the " + (d == 2 ? "height " : "width ") +
                   std::to_string(n) + " of x " + x.to_string() +
                   " is not a multiple of blocksize " + std::to_string(b));
    out.dims[d] = n == kDynamic ? kDynamic : n / b;
  }
  out.dims[1] = scaled(op, x.dims[1], b * b, x);
  ctx.out.assign(1, out);
}

}  // namespace mlvm
