// Kernels of the run-time shape-argument views (docs/ops.md, "Run-time shape arguments"):
// reshape_dyn, slice_dyn, broadcast_dyn, squeeze_dyn, expand_dims_dyn. Each reads its shape
// argument, checks it against x's concrete shape, and builds the view with tensor/views.hpp, as
// the static op with those values as attributes would (reshape_dyn copies when the strides
// forbid a view). Bad values are traps naming the op and the values; the static rules are in
// ir/infer_dynamic_shape.cpp and are re-applied first to the concrete types.
#include <string>
#include <vector>

#include "ir/dynamic_shape_rules.hpp"
#include "kernels/run_table.hpp"
#include "kernels/run_time_type.hpp"
#include "tensor/copy.hpp"
#include "tensor/views.hpp"

namespace mlvm {

namespace {

constexpr ErrorKind kRunTime = ErrorKind::trap;

// Runs f(); an invalid or trap Error from the view rules (which name the static op `from`) is
// a trap of `to` noting the values read.
template <class F>
decltype(auto) checked(const char* from, const char* to, const std::string& note, F&& f) {
  return renaming_errors(from, to, true, note, std::forward<F>(f));
}

}  // namespace

// ONNX Reshape: entry k of shape is the result's dim k; 0 copies x's dim k (unless allowzero),
// one -1 is inferred. A view when the strides allow one, else a contiguous copy.
void run_reshape_dyn(KernelContext& ctx) {
  infer_at_run_time(ctx, infer_reshape_dyn);
  const Tensor& x = ctx.in[0];
  const std::vector<int64_t> shape = read_ints(ctx.in[1]);
  const bool allowzero = ctx.attrs.get<reshape_dyn_attrs>().allowzero;
  const std::string note = "shape " + values_text(shape);
  Dims target;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    int64_t v = shape[k];
    if (v == 0 && !allowzero) {
      if (int(k) >= x.rank())
        fail_trap("reshape_dyn: shape entry " + std::to_string(k) + " is 0 (copy x's dim " +
                  std::to_string(k) + ") but x " + x.type_string() + " has rank " +
                  std::to_string(x.rank()) + " (" + note + ")");
      v = x.dim(int(k));
    }
    target.push_back(v);
  }
  const Dims y = checked("reshape", "reshape_dyn", note, [&] {
    return reshape_shape(x.dtype(), x.shape(), target.span(), kRunTime);
  });
  if (auto v = reshape_view(x, y)) {
    ctx.out[0] = *v;
    return;
  }
  Tensor out = ctx.output(x.dtype(), y);
  copy_into(x, out.with_layout(x.shape(), contiguous_strides(x.shape()), 0));
  ctx.out[0] = out;
}

// ONNX Slice: starts, ends, axes (default 0, 1, ...) and steps (default 1) entry by entry, with
// strided_slice's clamping (ONNX's).
void run_slice_dyn(KernelContext& ctx) {
  infer_at_run_time(ctx, infer_slice_dyn);
  const Tensor& x = ctx.in[0];
  auto optional = [&](std::size_t k) {
    return k < ctx.in.size() && ctx.in[k].defined() ? read_ints(ctx.in[k]) : std::vector<int64_t>{};
  };
  const std::vector<int64_t> starts = read_ints(ctx.in[1]), ends = read_ints(ctx.in[2]);
  std::vector<int64_t> axes = optional(3), steps = optional(4);
  const bool has_axes = ctx.in.size() > 3 && ctx.in[3].defined();
  const bool has_steps = ctx.in.size() > 4 && ctx.in[4].defined();
  std::string note = "starts " + values_text(starts) + ", ends " + values_text(ends);
  if (has_axes) note += ", axes " + values_text(axes);
  if (has_steps) note += ", steps " + values_text(steps);
  if (ends.size() != starts.size() || (has_axes && axes.size() != starts.size()) ||
      (has_steps && steps.size() != starts.size()))
    fail_trap("slice_dyn: starts, ends, axes and steps differ in length (" + note + ")");
  if (!has_axes)
    for (std::size_t k = 0; k < starts.size(); ++k) axes.push_back(int64_t(k));
  if (!has_steps) steps.assign(starts.size(), 1);
  for (std::size_t k = 0; k < steps.size(); ++k)
    if (steps[k] == 0)
      fail_trap("slice_dyn: step " + std::to_string(k) + " is 0; a step must be non-zero (" + note + ")");
  ctx.out[0] = checked("strided_slice", "slice_dyn", note, [&] {
    if (axes.size() > std::size_t(x.rank()))
      fail_invalid("slice_dyn: " + std::to_string(axes.size()) + " axes but x " + x.type_string() +
                   " has rank " + std::to_string(x.rank()));
    return strided_slice(x, starts, ends, steps, axes);
  });
}

// ONNX Expand: x and shape aligned on the right, each dim the larger where the other is 1
// (equal otherwise); a stride-0 view.
void run_broadcast_dyn(KernelContext& ctx) {
  infer_at_run_time(ctx, infer_broadcast_dyn);
  const Tensor& x = ctx.in[0];
  const std::vector<int64_t> shape = read_ints(ctx.in[1]);
  const std::string note = "shape " + values_text(shape);
  const int r = x.rank(), n = int(shape.size()), R = std::max(r, n);
  Dims out = Dims::filled(R, 1);
  for (int k = 0; k < R; ++k) {
    const int64_t a = k >= R - r ? x.dim(k - (R - r)) : 1;
    const int64_t b = k >= R - n ? shape[std::size_t(k - (R - n))] : 1;
    if (b < 0)
      fail_trap("broadcast_dyn: shape entry " + std::to_string(b) + " is negative (" + note + ")");
    if (a != b && a != 1 && b != 1)
      fail_trap("broadcast_dyn: x " + x.type_string() + " and shape " + values_text(shape) +
                " cannot broadcast (result dim " + std::to_string(k) + ": " + std::to_string(a) +
                " vs " + std::to_string(b) + "; a dim must be equal or 1)");
    out[k] = a == 1 ? b : a;
  }
  ctx.out[0] = checked("broadcast_to", "broadcast_dyn", note,
                       [&] { return broadcast_to(x, out.span(), kRunTime); });
}

// Drops the dims axes names (negative counts from the end; each must be 1, none repeated).
void run_squeeze_dyn(KernelContext& ctx) {
  infer_at_run_time(ctx, infer_squeeze_dyn);
  const std::vector<int64_t> axes = read_ints(ctx.in[1]);
  ctx.out[0] = checked("squeeze", "squeeze_dyn", "axes " + values_text(axes),
                       [&] { return squeeze(ctx.in[0], axes, kRunTime); });
}

// ONNX Unsqueeze: the result has rank r + len(axes); the positions axes names (in
// [-(r + m), r + m), negative from the end, none repeated) are size-1 dims, x's dims fill the
// others in order.
void run_expand_dims_dyn(KernelContext& ctx) {
  infer_at_run_time(ctx, infer_expand_dims_dyn);
  const Tensor& x = ctx.in[0];
  const std::vector<int64_t> axes = read_ints(ctx.in[1]);
  const std::string note = "axes " + values_text(axes);
  const int R = x.rank() + int(axes.size());
  bool inserted[kMaxRank] = {};
  for (int64_t a : axes) {
    const int k = checked("", "expand_dims_dyn", note,
                          [&] { return normalize_axis(a, R, "axis"); });
    if (inserted[k])
      fail_trap("expand_dims_dyn: axis " + std::to_string(a) + " is repeated (" + note + ")");
    inserted[k] = true;
  }
  Dims shape, strides;
  int next = 0;
  for (int k = 0; k < R; ++k) {
    if (inserted[k]) {
      // A size-1 dim's stride is never used; take what a contiguous layout would have.
      int64_t s = 1;
      if (next < x.rank() && __builtin_mul_overflow(x.strides()[next], x.dim(next), &s)) s = 1;
      shape.push_back(1);
      strides.push_back(s);
    } else {
      shape.push_back(x.dim(next));
      strides.push_back(x.strides()[next]);
      ++next;
    }
  }
  ctx.out[0] = x.with_layout(shape, strides, x.offset());
}

}  // namespace mlvm
