// The shape ops with shape arguments known only at run time (onnx/lower_shape_dyn.hpp).
#include "onnx/lower_shape_dyn.hpp"

#include <algorithm>
#include <numeric>

#include "tensor/error.hpp"

namespace mlvm {

namespace {

// perm's inverse: dim perm[k] of the original is dim k of the permuted tensor.
std::vector<int64_t> inverse(const std::vector<int64_t>& perm) {
  std::vector<int64_t> inv(perm.size());
  for (std::size_t k = 0; k < perm.size(); ++k) inv[std::size_t(perm[k])] = int64_t(k);
  return inv;
}

bool is_identity(const std::vector<int64_t>& perm) {
  for (std::size_t k = 0; k < perm.size(); ++k)
    if (perm[k] != int64_t(k)) return false;
  return true;
}

// `front` (distinct dims) first, then the other dims of a rank-r tensor in order.
std::vector<int64_t> front_perm(const std::vector<int64_t>& front, int r) {
  std::vector<int64_t> perm = front;
  for (int64_t d = 0; d < r; ++d)
    if (std::find(front.begin(), front.end(), d) == front.end()) perm.push_back(d);
  return perm;
}

Val transpose(NodeContext& c, Val x, const std::vector<int64_t>& perm) {
  if (is_identity(perm)) return x;
  return c.e.emit(op::transpose, {x}, {.axes = perm});
}

}  // namespace

int64_t arg_length(NodeContext& c, Val v, const std::string& what) {
  if (c.e.scalar(v)) return 1;
  const Dims& d = c.e.dims(v);
  if (d.size() != 1) c.fail(what + " must be a 1-D tensor, got " + c.e.type(v).to_string());
  return d[0] == kDynamic ? -1 : d[0];
}

int64_t static_arg_length(NodeContext& c, Val v, const std::string& what) {
  const int64_t n = arg_length(c, v, what);
  if (n < 0)
    c.fail(what + " has a dynamic length (" + c.e.type(v).to_string() +
           "); the result's rank depends on it, so it must be known at import time");
  return n;
}

Val reshape_dynamic(NodeContext& c, Val x, Val shape, bool allowzero) {
  if (static_arg_length(c, shape, "Reshape's shape") == 0) {  // an ONNX scalar
    Val r = c.e.emit(op::reshape, {x}, {.shape = {1}});
    return c.e.with_scalar(r, true);
  }
  return c.e.emit(op::reshape_dyn, {x, shape}, {.allowzero = allowzero});
}

Val slice_dynamic(NodeContext& c, Val x, Val starts, Val ends, Val axes, Val steps) {
  const int r = c.e.rank(x);
  if (axes.present() && !c.e.is_const(axes)) return c.e.emit(op::slice_dyn, {x, starts, ends, axes, steps});
  // Known axes: bring them to the front, slice the leading dims there, and put them back, so
  // that every dim not sliced keeps its static size. That needs the arguments' lengths.
  int64_t n = arg_length(c, starts, "Slice's starts");
  for (Val v : {ends, steps}) {
    if (!v.present()) continue;
    const int64_t m = arg_length(c, v, "Slice's ends and steps");
    if (n >= 0 && m >= 0 && m != n) c.fail("starts, ends, axes and steps differ in length");
    if (n < 0) n = m;
  }
  std::vector<int64_t> front;
  if (axes.present()) {
    std::vector<int64_t> a = c.e.ints(axes, "Slice's axes");
    if (n >= 0 && int64_t(a.size()) != n) c.fail("starts, ends, axes and steps differ in length");
    for (int64_t v : a) {
      const int64_t d = c.axis(v, r);
      if (std::find(front.begin(), front.end(), d) != front.end())
        c.fail("axis " + std::to_string(d) + " repeated");
      front.push_back(d);
    }
  } else {
    if (n < 0) return c.e.emit(op::slice_dyn, {x, starts, ends, Val{}, steps});
    if (n > r) c.fail("starts has " + std::to_string(n) + " entries for rank " + std::to_string(r));
    for (int64_t d = 0; d < n; ++d) front.push_back(d);
  }
  if (n < 0) {  // lengths unknown: the slice checks them against axes at run time
    return c.e.emit(op::slice_dyn, {x, starts, ends, c.e.int_vector(front), steps});
  }
  const std::vector<int64_t> perm = front_perm(front, r);
  Val y = c.e.emit(op::slice_dyn, {transpose(c, x, perm), starts, ends, Val{}, steps});
  return transpose(c, y, inverse(perm));
}

std::vector<Val> split_dynamic(NodeContext& c, Val x, int64_t axis, Val sizes, int outputs) {
  const int64_t n = static_arg_length(c, sizes, "Split's split");
  if (n != outputs)
    c.fail("split has " + std::to_string(n) + " sizes for " + std::to_string(outputs) + " outputs");
  const std::vector<int64_t> perm = front_perm({axis}, c.e.rank(x));
  Val xt = transpose(c, x, perm);
  Val s = c.e.with_scalar(sizes, false);
  Val ends = c.e.emit(op::cumsum, {s}, {.axis = 0});
  Val starts = c.e.emit(op::cumsum, {s}, {.axis = 0, .exclusive = true});
  std::vector<Val> out;
  for (int64_t k = 0; k < n; ++k) {
    auto at = [&](Val v) {
      return c.e.emit(op::strided_slice, {v}, {.begin = {k}, .end = {k + 1}});
    };
    Val y = c.e.emit(op::slice_dyn, {xt, at(starts), at(ends)});
    out.push_back(transpose(c, y, inverse(perm)));
  }
  return out;
}

Val expand_dynamic(NodeContext& c, Val x, Val shape) {
  if (static_arg_length(c, shape, "Expand's shape") == 0) return x;
  return c.e.emit(op::broadcast_dyn, {x, shape});
}

Val constant_of_shape_dynamic(NodeContext& c, Val value, Val shape) {
  if (static_arg_length(c, shape, "ConstantOfShape's shape") == 0) return c.e.with_scalar(value, true);
  return c.e.emit(op::broadcast_dyn, {c.e.with_scalar(value, false), shape});
}

Val tile_dynamic(NodeContext& c, Val x, Val repeats) {
  const int64_t n = arg_length(c, repeats, "Tile's repeats");
  if (n >= 0 && n != c.e.rank(x)) c.fail("repeats must have one entry per dim");
  if (c.e.scalar(x)) return x;
  return c.e.emit(op::tile_dyn, {x, repeats});
}

Val pad_dynamic(NodeContext& c, Val x, Val pads, Val value, const std::string& mode) {
  const int64_t n = arg_length(c, pads, "Pad's pads");
  if (n >= 0 && n != 2 * int64_t(c.e.rank(x))) c.fail("pads must have 2 entries per dim");
  if (c.e.scalar(x)) return x;
  if (value.present() && c.e.dtype(value) != c.e.dtype(x))
    c.fail("constant_value has dtype " + std::string(dtype_name(c.e.dtype(value))) + " but data is " +
           std::string(dtype_name(c.e.dtype(x))));
  return c.e.emit(op::pad_dyn, {x, pads, value}, {.mode = mode});
}

Val squeeze_dynamic(NodeContext& c, Val x, Val axes) {
  const int64_t m = static_arg_length(c, axes, "Squeeze's axes");
  const int r = c.e.rank(x);
  if (m > r) c.fail("axes has " + std::to_string(m) + " entries for rank " + std::to_string(r));
  Val y = c.e.emit(op::squeeze_dyn, {x, axes});
  return c.e.with_scalar(y, m == r);
}

Val unsqueeze_dynamic(NodeContext& c, Val x, Val axes) {
  const int64_t m = static_arg_length(c, axes, "Unsqueeze's axes");
  if (m == 0) return x;
  if (c.e.scalar(x)) {  // a scalar's unsqueeze is all ones, whatever the axes
    Val y = c.e.emit(op::reshape, {x}, {.shape = std::vector<int64_t>(std::size_t(m), 1)});
    return c.e.with_scalar(y, false);
  }
  return c.e.emit(op::expand_dims_dyn, {x, axes});
}

}  // namespace mlvm
