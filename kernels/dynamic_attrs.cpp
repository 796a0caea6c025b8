// Kernels of the run-time shape-argument ops that run a static op with attributes read from
// tensors (docs/ops.md, "Run-time shape arguments"): tile_dyn, pad_dyn, reduce_dyn. (A scalar
// attribute given at run time — topk's k, cumsum's axis, trilu's k, one_hot's depth — is an
// optional input of the op itself.) Each reads its arguments, handles what the static op does
// not take (tile's 0 repeats, pad's negative pads, reduce's noop), then checks the attributes,
// applies the static op's rule to the concrete types and runs its kernel: an error there is a
// trap of the _dyn op naming the values read.
#include <cmath>
#include <string>
#include <vector>

#include "ir/dynamic_shape_rules.hpp"
#include "kernels/run_table.hpp"
#include "kernels/run_time_type.hpp"
#include "tensor/views.hpp"

namespace mlvm {

namespace {

// Runs the static op `op` on `in` with `attrs`, writing ctx's results.
void run_static(KernelContext& ctx, const char* dyn, Opcode op, std::vector<NamedAttr> attrs,
                std::vector<Tensor> in, const std::string& note) {
  const std::string name = op_info(op).name;
  renaming_errors(name.c_str(), dyn, true, note, [&] {
    const Attrs a = named_attrs_for(op, attrs);
    KernelContext sub{TensorArgs(in), ctx.out, a, ctx.env};
    infer_at_run_time(sub, infer_fn(op));
    kernel_fn(op)(sub);
  });
}

// The one element of `t` (a one-element argument) as an integer.
int64_t one_int(const char* op, const char* what, const Tensor& t) {
  if (t.numel() != 1)
    fail_trap(std::string(op) + ": " + what + " must have one element, got " + t.type_string());
  return read_ints(t)[0];
}

std::vector<int64_t> zero_index(const Tensor& t) {
  return std::vector<int64_t>(std::size_t(t.rank()), 0);
}

}  // namespace

// tile with one repeat count per dim of x; a count of 0 gives an empty dim.
void run_tile_dyn(KernelContext& ctx) {
  infer_at_run_time(ctx, infer_tile_dyn);
  const Tensor& x = ctx.in[0];
  const std::vector<int64_t> reps = read_ints(ctx.in[1]);
  const std::string note = "repeats " + values_text(reps);
  if (int(reps.size()) != x.rank())
    fail_trap("tile_dyn: repeats has " + std::to_string(reps.size()) +
              " entries but x " + x.type_string() + " has rank " + std::to_string(x.rank()) +
              " (" + note + ")");
  bool empty = false;
  Dims shape = x.shape();
  for (int k = 0; k < x.rank(); ++k) {
    if (reps[std::size_t(k)] < 0)
      fail_trap("tile_dyn: repeat " + std::to_string(reps[std::size_t(k)]) + " is negative (" +
                note + ")");
    if (__builtin_mul_overflow(shape[k], reps[std::size_t(k)], &shape[k]))
      fail_trap("tile_dyn: result dim " + std::to_string(k) + " overflows int64 (" + note + ")");
    empty = empty || shape[k] == 0;
  }
  if (empty) {
    ctx.out[0] = ctx.output(x.dtype(), shape);
    return;
  }
  run_static(ctx, "tile_dyn", Opcode::tile, {{"reps", AttrValue::int_tuple(reps)}}, {x}, note);
}

// ONNX Pad: pads = [begins..., ends...]; a negative entry removes elements (a view of the
// rest), a positive one adds them by pad's `mode`, filled with `value` (default 0).
void run_pad_dyn(KernelContext& ctx) {
  infer_at_run_time(ctx, infer_pad_dyn);
  const Tensor& x = ctx.in[0];
  const int r = x.rank();
  const std::vector<int64_t> pads = read_ints(ctx.in[1]);
  const std::string note = "pads " + values_text(pads);
  if (int64_t(pads.size()) != 2 * int64_t(r))
    fail_trap("pad_dyn: pads has " + std::to_string(pads.size()) +
              " entries; expected two (begin, end) per dim of x " + x.type_string() + " (" +
              note + ")");
  // Cropping first: a negative begin/end removes that many elements of the dim.
  std::vector<int64_t> begin, end, axes;
  bool grow = false;
  for (int k = 0; k < r; ++k) {
    const int64_t lo = pads[std::size_t(k)], hi = pads[std::size_t(k + r)], n = x.dim(k);
    grow = grow || lo > 0 || hi > 0;
    if (lo >= 0 && hi >= 0) continue;
    const int64_t cut_lo = lo < 0 ? (lo == INT64_MIN ? INT64_MAX : -lo) : 0;
    const int64_t cut_hi = hi < 0 ? (hi == INT64_MIN ? INT64_MAX : -hi) : 0;
    if (cut_lo > n || cut_hi > n - cut_lo)
      fail_trap("pad_dyn: pads remove " + std::to_string(cut_lo) + " + " + std::to_string(cut_hi) +
                " elements from dim " + std::to_string(k) + " of x " + x.type_string() +
                ", which has " + std::to_string(n) + " (" + note + ")");
    axes.push_back(k);
    begin.push_back(cut_lo);
    end.push_back(n - cut_hi);
  }
  const Tensor cropped = axes.empty() ? x : strided_slice(x, begin, end, {}, axes);
  if (!grow) {
    ctx.out[0] = cropped;
    return;
  }
  AttrValue width = AttrValue::tuple({});
  for (int k = 0; k < r; ++k)
    width.items.push_back(AttrValue::int_tuple(
        {std::max<int64_t>(pads[std::size_t(k)], 0), std::max<int64_t>(pads[std::size_t(k + r)], 0)}));
  AttrValue value = AttrValue::integer(0);
  if (ctx.in.size() > 2 && ctx.in[2].defined()) {
    const Tensor& v = ctx.in[2];
    if (v.numel() != 1)
      fail_trap("pad_dyn: value must have one element, got " + v.type_string());
    value = is_float(v.dtype()) ? AttrValue::floating(v.get_double(zero_index(v)))
                                : AttrValue::integer(v.get_int(zero_index(v)));
  }
  static constexpr const char* kModes[] = {"constant", "edge", "reflect"};
  const char* mode = kModes[int(ctx.attrs.get<pad_dyn_attrs>().mode)];
  run_static(ctx, "pad_dyn", Opcode::pad,
             {{"pad_width", width}, {"value", value}, {"mode", AttrValue::string(mode)}},
             {cropped}, note);
}

// The reduction `op` over the axes listed (none: every axis, or x itself with
// noop_with_empty_axes).
void run_reduce_dyn(KernelContext& ctx) {
  infer_at_run_time(ctx, infer_reduce_dyn);
  const auto& a = ctx.attrs.get<reduce_dyn_attrs>();
  const std::vector<int64_t> axes = read_ints(ctx.in[1]);
  if (axes.empty() && a.noop_with_empty_axes) {
    ctx.out[0] = ctx.in[0];
    return;
  }
  run_static(ctx, "reduce_dyn", reduce_dyn_op(a),
             {{"axes", AttrValue::int_tuple(axes)}, {"keepdims", AttrValue::boolean(a.keepdims)}},
             {ctx.in[0]}, "axes " + values_text(axes));
}

}  // namespace mlvm
