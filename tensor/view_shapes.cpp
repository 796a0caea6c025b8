// The shape rules of tensor/views.hpp, shared by the verifier's static rules
// (ir/infer_views.cpp) and the run-time views (tensor/views.cpp).
#include "tensor/views.hpp"

#include <algorithm>
#include <string>


namespace mlvm {

namespace {

std::string list_str(IntList v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  return s + ")";
}

std::string type_str(DType t, const Dims& d) {
  return std::string(dtype_name(t)) + dims_to_string(d);
}

// Normalizes `axes` against `rank`, rejecting repeats; returns the dims as a bit mask.
uint32_t axes_mask(IntList axes, int rank, const char* op) {
  uint32_t mask = 0;
  std::string what = std::string(op) + ": axis";
  for (int64_t a : axes) {
    int d = normalize_axis(a, rank, what.c_str());
    if (mask >> d & 1u)
      fail_invalid(std::string(op) + ": axis " + std::to_string(a) + " is repeated in axes " +
                   list_str(axes));
    mask |= 1u << d;
  }
  return mask;
}

// A target shape attribute (reshape/broadcast_to/constants): rank 1..8.
void check_target_rank(const char* op, IntList shape) {
  if (shape.empty() || shape.size() > std::size_t(kMaxRank))
    fail_invalid(std::string(op) + ": shape " + list_str(shape) + " has rank " +
                 std::to_string(shape.size()) + "; expected rank 1 to " + std::to_string(kMaxRank));
}

int64_t ceil_div_pos(__int128 a, __int128 b) {
  return int64_t((a + b - 1) / b);
}  // a > 0, b > 0

}  // namespace

// ---------------------------------------------------------------------------------------------
// Shape rules.

Dims transpose_perm(int rank, IntList axes) {
  Dims perm;
  if (axes.empty()) {
    for (int i = rank - 1; i >= 0; --i) perm.push_back(i);
    return perm;
  }
  if (int(axes.size()) != rank)
    fail_invalid("transpose: axes " + list_str(axes) + " has " + std::to_string(axes.size()) +
                 " entries but x has rank " + std::to_string(rank) +
                 "; expected a permutation of 0.." + std::to_string(rank - 1) + " or ()");
  axes_mask(axes, rank, "transpose");  // range and repeats
  for (int64_t a : axes) perm.push_back(a < 0 ? a + rank : a);
  return perm;
}

Dims transpose_shape(const Dims& x, IntList axes) {
  Dims perm = transpose_perm(x.size(), axes), y;
  for (int64_t p : perm) y.push_back(x[int(p)]);
  return y;
}

Dims broadcast_to_shape(DType dtype, const Dims& x, IntList target, ErrorKind mismatch) {
  check_target_rank("broadcast_to", target);
  int64_t n = 1;
  for (int64_t t : target) {
    if (t < 0)
      fail_invalid("broadcast_to: shape " + list_str(target) +
                   " has a negative dim; expected dims >= 0");
    if (__builtin_mul_overflow(n, t, &n))
      fail_invalid("broadcast_to: shape " + list_str(target) +
                   " has more elements than int64 can count");
  }
  Dims y(target);
  const int lead = y.size() - x.size();
  if (lead < 0)
    fail_invalid("broadcast_to: cannot broadcast " + type_str(dtype, x) + " to " +
                 dims_to_string(y) + ": the target rank " + std::to_string(y.size()) +
                 " is smaller than " + std::to_string(x.size()));
  for (int i = 0; i < x.size(); ++i) {
    int64_t xd = x[i], td = y[lead + i];
    if (xd == td || xd == 1 || xd == kDynamic) continue;
    fail(mismatch, "broadcast_to: cannot broadcast " + type_str(dtype, x) + " to " +
                       dims_to_string(y) + " (dim " + std::to_string(lead + i) + ": " +
                       std::to_string(xd) + " vs " + std::to_string(td) +
                       "; a dim must be equal or 1)");
  }
  return y;
}

Dims expand_dims_shape(const Dims& x, int64_t axis, int64_t num_newaxis) {
  const int n = x.size();
  if (num_newaxis < 0 || num_newaxis > kMaxRank)
    fail_invalid("expand_dims: num_newaxis " + std::to_string(num_newaxis) +
                 " is out of range; expected 0 to " + std::to_string(kMaxRank));
  int64_t a = axis < 0 ? axis + n + 1 : axis;
  if (a < 0 || a > n)
    fail_invalid("expand_dims: axis " + std::to_string(axis) + " is out of range for rank " +
                 std::to_string(n) + " (expected " + std::to_string(-n - 1) + " to " +
                 std::to_string(n) + ")");
  if (n + num_newaxis > kMaxRank)
    fail_invalid("expand_dims: result rank " + std::to_string(n + num_newaxis) +
                 " exceeds the maximum rank " + std::to_string(kMaxRank));
  Dims y = x;
  for (int64_t k = 0; k < num_newaxis; ++k) y.insert(int(a), 1);
  return y;
}

uint32_t squeeze_mask(DType dtype, const Dims& x, IntList axes, ErrorKind mismatch) {
  uint32_t mask = 0;
  if (axes.empty()) {
    for (int d = 0; d < x.size(); ++d) {
      if (x[d] == kDynamic)
        fail_invalid("squeeze: axes=() needs every dim known, but dim " + std::to_string(d) +
                     " of " + type_str(dtype, x) + " is ?; name the axes to drop");
      if (x[d] == 1) mask |= 1u << d;
    }
    return mask;
  }
  mask = axes_mask(axes, x.size(), "squeeze");
  for (int d = 0; d < x.size(); ++d)
    if ((mask >> d & 1u) && x[d] != 1 && x[d] != kDynamic)
      fail(mismatch, "squeeze: dim " + std::to_string(d) + " has size " + std::to_string(x[d]) +
                         ", not 1 (x is " + type_str(dtype, x) + ")");
  return mask;
}

Dims squeeze_shape(DType dtype, const Dims& x, IntList axes, ErrorKind mismatch) {
  uint32_t mask = squeeze_mask(dtype, x, axes, mismatch);
  Dims y;
  for (int d = 0; d < x.size(); ++d)
    if (!(mask >> d & 1u)) y.push_back(x[d]);
  if (y.empty()) y.push_back(1);
  return y;
}

Dims reshape_shape(DType dtype, const Dims& x, IntList target, ErrorKind mismatch) {
  check_target_rank("reshape", target);
  int infer_at = -1;
  int64_t known = 1;  // product of the target's dims other than -1
  for (std::size_t i = 0; i < target.size(); ++i) {
    int64_t t = target[i];
    if (t == -1) {
      if (infer_at >= 0)
        fail_invalid("reshape: shape " + list_str(target) +
                     " has more than one -1; only one dim can be inferred");
      infer_at = int(i);
      continue;
    }
    if (t < 0)
      fail_invalid("reshape: dim " + std::to_string(i) + " of shape " + list_str(target) + " is " +
                   std::to_string(t) + "; expected >= 0 or a single -1");
    if (__builtin_mul_overflow(known, t, &known))
      fail_invalid("reshape: shape " + list_str(target) +
                   " has more elements than int64 can count");
  }
  // x's element count, if known: a static 0 dim makes it 0 even beside `?` dims.
  bool numel_known = true, has_zero = false;
  int64_t numel = 1;
  for (int64_t d : x) {
    if (d == kDynamic)
      numel_known = false;
    else if (d == 0)
      has_zero = true;
  }
  if (has_zero)
    numel = 0, numel_known = true;
  else if (numel_known)
    numel = checked_numel(x);

  Dims y(target);
  if (infer_at >= 0) {
    if (known == 0)
      fail_invalid("reshape: cannot infer the -1 in shape " + list_str(target) +
                   " because the other dims multiply to 0");
    if (!numel_known) {
      y[infer_at] = kDynamic;
      return y;
    }
    if (numel % known != 0)
      fail(mismatch, "reshape: cannot reshape " + type_str(dtype, x) + " (" +
                         std::to_string(numel) + " elements) to " + list_str(target) + ": " +
                         std::to_string(numel) + " is not a multiple of " + std::to_string(known));
    y[infer_at] = numel / known;
    return y;
  }
  if (numel_known && numel != known)
    fail(mismatch, "reshape: cannot reshape " + type_str(dtype, x) + " (" + std::to_string(numel) +
                       " elements) to " + dims_to_string(y) + " (" + std::to_string(known) +
                       " elements)");
  return y;
}

Dims flatten_shape(const Dims& x) {
  bool dynamic = false;
  for (int64_t d : x) {
    if (d == 0) return Dims{0};
    if (d == kDynamic) dynamic = true;
  }
  return dynamic ? Dims{kDynamic} : Dims{checked_numel(x)};
}

std::array<SliceDim, kMaxRank> strided_slice_plan(const Dims& x, IntList begin, IntList end,
                                                  IntList strides, IntList axes) {
  const int n_dims = x.size();
  std::array<SliceDim, kMaxRank> plan{};
  for (int d = 0; d < n_dims; ++d) plan[d] = SliceDim{0, 1, x[d]};
  std::size_t slots = std::max({begin.size(), end.size(), strides.size()});
  int dim_of_slot[kMaxRank] = {};
  if (axes.empty()) {
    if (slots > std::size_t(n_dims))
      fail_invalid("strided_slice: begin " + list_str(begin) + ", end " + list_str(end) +
                   " and strides " + list_str(strides) + " name up to " + std::to_string(slots) +
                   " dims but x has rank " + std::to_string(n_dims));
    for (int k = 0; k < int(slots); ++k) dim_of_slot[k] = k;
  } else {
    axes_mask(axes, n_dims, "strided_slice");  // range and repeats (so axes.size() <= rank)
    if (slots > axes.size())
      fail_invalid("strided_slice: begin " + list_str(begin) + ", end " + list_str(end) +
                   " and strides " + list_str(strides) +
                   " must have at most one entry per axis of axes " + list_str(axes));
    slots = axes.size();
    for (int k = 0; k < int(slots); ++k)
      dim_of_slot[k] = int(axes[k] < 0 ? axes[k] + n_dims : axes[k]);
  }
  for (int k = 0; k < int(slots); ++k) {
    const int d = dim_of_slot[k];
    const int64_t step = std::size_t(k) < strides.size() ? strides[k] : 1;
    if (step == 0)
      fail_invalid("strided_slice: strides " + list_str(strides) + " has a step of 0 for dim " +
                   std::to_string(d) + "; a step must be non-zero");
    const bool has_b = std::size_t(k) < begin.size(), has_e = std::size_t(k) < end.size();
    const int64_t n = x[d];
    if (n == kDynamic) {
      plan[d] = SliceDim{0, step, kDynamic};
      continue;
    }
    // NumPy: negative indices count from the end; then clamp to [0, n] (step > 0) or
    // [-1, n-1] (step < 0). A missing entry takes the whole dim in the step's direction.
    auto norm = [&](int64_t v, int64_t lo, int64_t hi) {
      __int128 w = v < 0 ? __int128(v) + n : __int128(v);
      return int64_t(w < lo ? lo : w > hi ? hi : w);
    };
    int64_t b, e, size;
    if (step > 0) {
      b = has_b ? norm(begin[k], 0, n) : 0;
      e = has_e ? norm(end[k], 0, n) : n;
      size = e > b ? ceil_div_pos(__int128(e) - b, step) : 0;
    } else {
      b = has_b ? norm(begin[k], -1, n - 1) : n - 1;
      e = has_e ? norm(end[k], -1, n - 1) : -1;
      size = b > e ? ceil_div_pos(__int128(b) - e, -__int128(step)) : 0;
    }
    plan[d] = SliceDim{size > 0 ? b : 0, step, size};
  }
  return plan;
}

Dims strided_slice_shape(const Dims& x, IntList begin, IntList end, IntList strides, IntList axes) {
  auto plan = strided_slice_plan(x, begin, end, strides, axes);
  Dims y;
  for (int d = 0; d < x.size(); ++d) y.push_back(plan[d].size);
  return y;
}

Dims slice_like_shape(DType dtype, const Dims& x, const Dims& like, IntList axes,
                      ErrorKind mismatch) {
  const int n = x.size(), m = like.size();
  uint32_t mask = 0;
  if (axes.empty()) {
    if (m > n)
      fail_invalid("slice_like: like " + dims_to_string(like) + " has rank " + std::to_string(m) +
                   " but x " + type_str(dtype, x) + " has rank " + std::to_string(n) +
                   "; pass axes to pick dims");
    mask = m >= 32 ? ~0u : (1u << m) - 1;
  } else {
    mask = axes_mask(axes, n, "slice_like");
    for (int64_t a : axes) {
      int d = int(a < 0 ? a + n : a);
      if (d >= m)
        fail_invalid("slice_like: axis " + std::to_string(a) + " names dim " + std::to_string(d) +
                     ", which like " + dims_to_string(like) + " (rank " + std::to_string(m) +
                     ") does not have");
    }
  }
  Dims y = x;
  for (int d = 0; d < n; ++d) {
    if (!(mask >> d & 1u)) continue;
    int64_t want = like[d], have = x[d];
    if (want != kDynamic && have != kDynamic && want > have)
      fail(mismatch, "slice_like: like " + dims_to_string(like) + " has " + std::to_string(want) +
                         " in dim " + std::to_string(d) + " but x " + type_str(dtype, x) +
                         " has only " + std::to_string(have));
    y[d] = want;
  }
  return y;
}

int flip_axis(const Dims& x, int64_t axis) {
  return normalize_axis(axis, x.size(), "flip: axis");
}

std::pair<int, int> rot90_axes(const Dims& x, IntList axes) {
  const int64_t default_axes[2] = {0, 1};
  if (axes.empty()) axes = default_axes;
  if (axes.size() != 2)
    fail_invalid("rot90: axes " + list_str(axes) + " must name exactly two dims");
  if (x.size() < 2)
    fail_invalid("rot90: x " + dims_to_string(x) + " has rank " + std::to_string(x.size()) +
                 "; rot90 needs rank 2 or more");
  int a0 = normalize_axis(axes[0], x.size(), "rot90: axis");
  int a1 = normalize_axis(axes[1], x.size(), "rot90: axis");
  if (a0 == a1) fail_invalid("rot90: axes " + list_str(axes) + " must name two different dims");
  return {a0, a1};
}

Dims rot90_shape(const Dims& x, int64_t k, IntList axes) {
  auto [a0, a1] = rot90_axes(x, axes);
  Dims y = x;
  if (k % 2 != 0) std::swap(y[a0], y[a1]);
  return y;
}

Dims constant_shape(const char* op, IntList shape) {
  check_target_rank(op, shape);
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      fail_invalid(std::string(op) + ": shape " + list_str(shape) +
                   " has a negative dim; expected dims >= 0");
    if (__builtin_mul_overflow(n, d, &n))
      fail_invalid(std::string(op) + ": shape " + list_str(shape) +
                   " has more elements than int64 can count");
  }
  return Dims(shape);
}

}  // namespace mlvm
