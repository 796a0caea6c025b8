// Static rules of the run-time shape-argument ops (docs/ops.md, "Run-time shape arguments"):
// reshape_dyn, slice_dyn, broadcast_dyn, tile_dyn, pad_dyn, squeeze_dyn, expand_dims_dyn,
// reduce_dyn. The values of their shape
// arguments are known only at run time, so a result dim they decide is `?`; a dim they cannot
// change keeps x's size. The length of a vector argument is static where the result's rank
// depends on it. Where a `_dyn` op runs a static op with attributes filled in at run time
// (tile, pad, the reductions, topk, one_hot, cumsum, trilu), its rule runs that op's rule with
// placeholder attributes, so dtypes and axes are checked here the way that op checks them.
#include <algorithm>
#include <string>

#include "ir/dynamic_shape_rules.hpp"
#include "ir/infer.hpp"
#include "ir/op_table.hpp"
#include "ir/precision.hpp"

namespace mlvm {

namespace {

using namespace ew;

void set_results(InferContext& ctx, std::vector<TensorType> out) {
  ctx.out = std::move(out);
}

// x's type with new dims (a view: dtype and precision carried).
TensorType view_type(const TensorType& x, const Dims& dims) {
  TensorType t = x;
  t.dims = dims;
  t.present = true;
  if (!is_signed_int(t.dtype)) t.precision = kUnknownPrecision;
  return t;
}

// x's dims, each `?` unless it is a static 0 (no slice, tile or pad can make an empty dim
// non-empty, except pad, which does not use this).
Dims unknown_unless_empty(const Dims& x) {
  Dims d = x;
  for (int k = 0; k < d.size(); ++k)
    if (d[k] != 0) d[k] = kDynamic;
  return d;
}

// The static op's rule on x's type with placeholder attributes; its errors name the _dyn op.
std::vector<TensorType> static_rule(const char* from, const char* to, Opcode op,
                                    std::span<const TensorType> in,
                                    const std::vector<NamedAttr>& attrs) {
  return renaming_errors(from, to, false, {}, [&] {
    Attrs a = named_attrs_for(op, attrs);
    InferContext ic{in, a, {}, {}};
    ic.options.precision_check = false;
    infer_fn(op)(ic);
    return ic.out;
  });
}

// Input k, or null when it is omitted.
const TensorType* optional_input(const InferContext& ctx, std::size_t k) {
  return k < ctx.in.size() && ctx.in[k].present ? &ctx.in[k] : nullptr;
}

}  // namespace

// ONNX Reshape. The result's rank is len(shape); its dims are `?` (one entry: x's element count
// when that is static).
void infer_reshape_dyn(InferContext& ctx) {
  require_inputs("reshape_dyn", ctx.in.size(), 2);
  const TensorType& x = ctx.in[0];
  const int64_t n = static_vector_arg("reshape_dyn", "shape", ctx.in[1], 1, kMaxRank);
  Dims out = Dims::filled(int(n), kDynamic);
  if (n == 1 && !x.has_dynamic_dims()) out[0] = checked_numel(x.dims);
  set_results(ctx, {view_type(x, out)});
}

// ONNX Slice: starts, ends (and axes, steps if given) of one length. Without axes the slots are
// the leading dims, and the dims after them keep x's sizes.
void infer_slice_dyn(InferContext& ctx) {
  const char* op = "slice_dyn";
  const TensorType& x = ctx.in[0];
  int64_t n = kDynamic;
  const char* names[] = {"starts", "ends", "axes", "steps"};
  std::string first;
  for (std::size_t k = 1; k < 5; ++k) {
    const TensorType* t = optional_input(ctx, k);
    if (!t) continue;
    const int64_t len = int_vector_arg(op, names[k - 1], *t);
    if (len == kDynamic) continue;
    if (n != kDynamic && len != n)
      fail_invalid(std::string(op) + ": " + names[k - 1] + " " + t->to_string() + " and " + first +
                   " differ in length; expected one entry per sliced axis");
    n = len;
    first = std::string(names[k - 1]) + " " + t->to_string();
  }
  const int r = x.dims.size();
  if (n != kDynamic && n > r)
    fail_invalid(std::string(op) + ": " + first + " names " + std::to_string(n) +
                 " axes but x " + x.to_string() + " has rank " + std::to_string(r));
  Dims out = unknown_unless_empty(x.dims);
  if (!optional_input(ctx, 3) && n != kDynamic)
    for (int k = int(n); k < r; ++k) out[k] = x.dims[k];
  set_results(ctx, {view_type(x, out)});
}

// ONNX Expand: rank max(rank(x), len(shape)); a dim where x has a static size other than 1 keeps
// it (the shape's entry must be 1 or that size), every other is `?`.
void infer_broadcast_dyn(InferContext& ctx) {
  require_inputs("broadcast_dyn", ctx.in.size(), 2);
  const TensorType& x = ctx.in[0];
  const int64_t n = static_vector_arg("broadcast_dyn", "shape", ctx.in[1], 0, kMaxRank);
  const int r = x.dims.size(), R = std::max(r, int(n));
  Dims out = Dims::filled(R, kDynamic);
  for (int k = 0; k < r; ++k) {
    const int64_t a = x.dims[k];
    if (a != kDynamic && a != 1) out[R - r + k] = a;
  }
  set_results(ctx, {view_type(x, out)});
}

// tile with reps from a tensor of one entry per dim of x (ONNX Tile; 0 allowed).
void infer_tile_dyn(InferContext& ctx) {
  require_inputs("tile_dyn", ctx.in.size(), 2);
  const TensorType& x = ctx.in[0];
  const int64_t n = int_vector_arg("tile_dyn", "repeats", ctx.in[1]);
  if (n != kDynamic && n != x.dims.size())
    fail_invalid("tile_dyn: repeats " + ctx.in[1].to_string() + " must have one entry per dim of x " +
                 x.to_string());
  set_results(ctx, {view_type(x, unknown_unless_empty(x.dims))});
}

// ONNX Pad: pads = [begin_0, ..., begin_{r-1}, end_0, ..., end_{r-1}]; value (optional, one
// element of x's dtype) fills mode "constant".
void infer_pad_dyn(InferContext& ctx) {
  const char* op = "pad_dyn";
  const TensorType& x = ctx.in[0];
  const int64_t n = int_vector_arg(op, "pads", ctx.in[1]);
  if (n != kDynamic && n != 2 * int64_t(x.dims.size()))
    fail_invalid(std::string(op) + ": pads " + ctx.in[1].to_string() +
                 " must have two entries (begin, end) per dim of x " + x.to_string());
  TensorType y = view_type(x, Dims::filled(x.dims.size(), kDynamic));
  if (const TensorType* value = optional_input(ctx, 2)) {
    const TensorType& v = *value;
    one_element_arg(op, "value", v, kAnyDType, "");
    if (v.dtype != x.dtype)
      fail_invalid(std::string(op) + ": value " + v.to_string() + " must have x's dtype (x is " +
                   x.to_string() + ")");
    if (y.precision != kUnknownPrecision)
      y.precision = v.precision == kUnknownPrecision ? kUnknownPrecision
                                                     : std::max(y.precision, v.precision);
  }
  set_results(ctx, {y});
}

// Drops the len(axes) dims axes names (each must be 1). When x is static and has exactly that
// many size-1 dims, the result is known; otherwise its dims are `?`.
void infer_squeeze_dyn(InferContext& ctx) {
  require_inputs("squeeze_dyn", ctx.in.size(), 2);
  const TensorType& x = ctx.in[0];
  const int r = x.dims.size();
  const int64_t m = static_vector_arg("squeeze_dyn", "axes", ctx.in[1], 1, r);
  int ones = 0, maybe = 0;
  Dims rest;
  for (int64_t d : x.dims) {
    if (d == 1) ++ones;
    if (d == 1 || d == kDynamic) ++maybe;
    if (d != 1) rest.push_back(d);
  }
  if (maybe < m)
    fail_invalid("squeeze_dyn: axes " + ctx.in[1].to_string() + " drops " + std::to_string(m) +
                 " dims but x " + x.to_string() + " has only " + std::to_string(maybe) +
                 " that can be 1");
  Dims out;
  if (!x.has_dynamic_dims() && ones == m)
    out = rest;
  else
    out = Dims::filled(int(r - m), kDynamic);
  if (out.empty()) out.push_back(1);
  set_results(ctx, {view_type(x, out)});
}

// ONNX Unsqueeze: size-1 dims at the result positions axes names; rank rank(x) + len(axes).
void infer_expand_dims_dyn(InferContext& ctx) {
  require_inputs("expand_dims_dyn", ctx.in.size(), 2);
  const TensorType& x = ctx.in[0];
  const int r = x.dims.size();
  const int64_t m = static_vector_arg("expand_dims_dyn", "axes", ctx.in[1], 1, kMaxRank - r);
  const bool all_ones = std::all_of(x.dims.begin(), x.dims.end(), [](int64_t d) { return d == 1; });
  set_results(ctx, {view_type(x, Dims::filled(int(r + m), all_ones ? 1 : kDynamic))});
}

// A reduction over the axes a tensor lists (ONNX ReduceSum-13 and the opset-18 reductions).
// dtype and precision are the op's over every axis (a bound for any subset); keepdims keeps the
// rank, otherwise len(axes) must be static. Empty axes reduce everything, or nothing with
// noop_with_empty_axes.
void infer_reduce_dyn(InferContext& ctx) {
  require_inputs("reduce_dyn", ctx.in.size(), 2);
  const TensorType& x = ctx.in[0];
  const auto& a = ctx.attrs.get<reduce_dyn_attrs>();
  const Opcode op = reduce_dyn_op(a);
  const std::string name = op_info(op).name;
  const int64_t m = int_vector_arg("reduce_dyn", "axes", ctx.in[1]);
  TensorType y = static_rule(name.c_str(), "reduce_dyn", op, ctx.in.subspan(0, 1),
                             {{"axes", AttrValue::int_tuple({})},
                              {"keepdims", AttrValue::boolean(a.keepdims)}})[0];
  const int r = x.dims.size();
  if (m == 0) {
    if (a.noop_with_empty_axes) y = view_type(x, x.dims);
    set_results(ctx, {y});
    return;
  }
  if (a.keepdims) {
    Dims out = x.dims;
    for (int k = 0; k < r; ++k)
      if (out[k] != 1) out[k] = kDynamic;
    y.dims = out;
  } else {
    if (m == kDynamic)
      fail_invalid("reduce_dyn: axes " + ctx.in[1].to_string() +
                   " has a ? length; with keepdims=false it fixes the result's rank and must be "
                   "static");
    if (m > r)
      fail_invalid("reduce_dyn: axes " + ctx.in[1].to_string() + " names more axes than x " +
                   x.to_string() + " has");
    y.dims = m == r ? Dims{1} : Dims::filled(int(r - m), kDynamic);
  }
  set_results(ctx, {y});
}

}  // namespace mlvm
