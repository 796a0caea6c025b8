#include "ir/transform_rules.hpp"

#include <algorithm>
#include <string>

namespace mlvm {

namespace {

int64_t checked_add_dim(int64_t a, int64_t b, const char* op) {
  if (a == kDynamic || b == kDynamic) return kDynamic;
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    fail_invalid(std::string(op) + ": result dim " + std::to_string(a) + " + " + std::to_string(b) +
                 " overflows int64");
  return r;
}

int64_t checked_mul_dim(int64_t a, int64_t b, const char* op) {
  if (a == kDynamic || b == kDynamic) return kDynamic;
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    fail_invalid(std::string(op) + ": result dim " + std::to_string(a) + " * " + std::to_string(b) +
                 " overflows int64");
  return r;
}

// Every static dim product must fit in int64 (the element count of the result).
void check_result_numel(const Dims& d, const char* op) {
  int64_t n = 1;
  for (int64_t v : d) {
    if (v == kDynamic) continue;
    if (__builtin_mul_overflow(n, v, &n))
      fail_invalid(std::string(op) + ": result shape " + dims_to_string(d) +
                   " has too many elements");
  }
}

std::string type_text(DType t, const Dims& d) {
  return std::string(dtype_name(t)) + dims_to_string(d);
}

}  // namespace

Dims repeat_dims(const Dims& x, int64_t repeats, int64_t axis_attr) {
  int axis = normalize_axis(axis_attr, x.size(), "repeat: axis");
  Dims y = x;
  y[axis] = checked_mul_dim(x[axis], repeats, "repeat");
  check_result_numel(y, "repeat");
  return y;
}

Dims tile_dims(const Dims& x, std::span<const int64_t> reps) {
  for (int64_t r : reps)
    if (r < 1)
      fail_invalid("tile: reps element " + std::to_string(r) + " is out of range; expected >= 1");
  const int n = x.size(), m = int(reps.size()), k = std::max(n, m);
  if (k > kMaxRank)
    fail_invalid("tile: reps has " + std::to_string(m) +
                 " elements; the result rank would exceed " + std::to_string(kMaxRank));
  Dims y = Dims::filled(k, 1);
  for (int i = 0; i < k; ++i) {
    int64_t sx = i >= k - n ? x[i - (k - n)] : 1;
    int64_t sr = i >= k - m ? reps[std::size_t(i - (k - m))] : 1;
    y[i] = checked_mul_dim(sx, sr, "tile");
  }
  check_result_numel(y, "tile");
  return y;
}

Dims concatenate_dims(std::span<const TensorType> in, int64_t axis_attr, ErrorKind mismatch) {
  if (in.empty()) fail_invalid("concatenate: needs at least one input");
  const TensorType& first = in[0];
  int axis = normalize_axis(axis_attr, first.dims.size(), "concatenate: axis");
  Dims y = first.dims;
  for (std::size_t i = 1; i < in.size(); ++i) {
    const TensorType& t = in[i];
    if (t.dtype != first.dtype)
      fail_invalid("concatenate: input " + std::to_string(i) + " is " + type_text(t.dtype, t.dims) +
                   " but input 0 is " + type_text(first.dtype, first.dims) +
                   "; dtypes must be equal");
    if (t.dims.size() != first.dims.size())
      fail_invalid("concatenate: input " + std::to_string(i) + " " + type_text(t.dtype, t.dims) +
                   " has rank " + std::to_string(t.dims.size()) + " but input 0 " +
                   type_text(first.dtype, first.dims) + " has rank " +
                   std::to_string(first.dims.size()));
    for (int d = 0; d < y.size(); ++d) {
      if (d == axis) {
        y[d] = checked_add_dim(y[d], t.dims[d], "concatenate");
        continue;
      }
      if (t.dims[d] == kDynamic) continue;
      if (y[d] == kDynamic) {
        y[d] = t.dims[d];
      } else if (y[d] != t.dims[d]) {
        fail(mismatch, "concatenate: input " + std::to_string(i) + " " +
                           type_text(t.dtype, t.dims) + " does not match input 0 " +
                           type_text(first.dtype, first.dims) + " in dim " + std::to_string(d) +
                           " (" + std::to_string(t.dims[d]) + " vs " + std::to_string(y[d]) +
                           "); only axis " + std::to_string(axis) + " may differ");
      }
    }
  }
  check_result_numel(y, "concatenate");
  return y;
}

TakeAxis take_axis(const take_attrs& attrs, int rank) {
  TakeAxis a;
  if (attrs.axis) {
    a.flat = false;
    a.axis = normalize_axis(*attrs.axis, rank, "take: axis");
  }
  return a;
}

void check_index_dtype(const char* op, const char* what, DType t, const Dims& d) {
  if (!is_integer(t))
    fail_invalid(std::string(op) + ": " + what +
                 " must have an integer dtype (i8, u8, i16, i32, i64), got " + type_text(t, d));
}

Dims take_dims(const Dims& x, const Dims& indices, const TakeAxis& a) {
  if (a.flat) return indices;
  const int rank = x.size() + indices.size() - 1;
  if (rank > kMaxRank)
    fail_invalid("take: result rank " + std::to_string(rank) + " (input rank " +
                 std::to_string(x.size()) + " + indices rank " + std::to_string(indices.size()) +
                 " - 1) exceeds " + std::to_string(kMaxRank));
  Dims y;
  for (int d = 0; d < a.axis; ++d) y.push_back(x[d]);
  for (int64_t v : indices) y.push_back(v);
  for (int d = a.axis + 1; d < x.size(); ++d) y.push_back(x[d]);
  check_result_numel(y, "take");
  return y;
}

Dims pad_dims(DType dtype, const Dims& x, std::span<const std::array<int64_t, 2>> pad_width,
              const Scalar& value, PadMode mode, ErrorKind empty_kind) {
  if (int(pad_width.size()) != x.size())
    fail_invalid("pad: pad_width has " + std::to_string(pad_width.size()) +
                 " (before, after) pairs; expected " + std::to_string(x.size()) +
                 ", one per dim of " + type_text(dtype, x));
  for (const auto& pair : pad_width)
    for (int64_t v : pair)
      if (v < 0)
        fail_invalid("pad: pad_width element " + std::to_string(v) + " is negative; expected >= 0");
  if (!scalar_fits(value, dtype))
    fail_invalid("pad: value " + value.to_string() + " is not representable in " +
                 std::string(dtype_name(dtype)));
  Dims y = x;
  for (int d = 0; d < x.size(); ++d) {
    const auto [before, after] = pad_width[std::size_t(d)];
    if (mode != PadMode::constant && x[d] == 0 && (before > 0 || after > 0))
      fail(empty_kind, std::string("pad: mode ") + (mode == PadMode::edge ? "edge" : "reflect") +
                           " cannot extend dim " + std::to_string(d) + " of " +
                           type_text(dtype, x) +
                           ", which is empty; only mode constant pads an empty dim");
    y[d] = checked_add_dim(checked_add_dim(x[d], before, "pad"), after, "pad");
  }
  check_result_numel(y, "pad");
  return y;
}

std::vector<int> roll_axes(int rank, std::span<const int64_t> shift, std::span<const int64_t> axis) {
  if (shift.size() != axis.size())
    fail_invalid("roll: shift has " + std::to_string(shift.size()) + " elements but axis has " +
                 std::to_string(axis.size()) + "; expected one shift per axis");
  std::vector<int> axes;
  for (int64_t a : axis) {
    int n = normalize_axis(a, rank, "roll: axis");
    if (std::find(axes.begin(), axes.end(), n) != axes.end())
      fail_invalid("roll: axis " + std::to_string(a) + " is repeated");
    axes.push_back(n);
  }
  return axes;
}

}  // namespace mlvm
