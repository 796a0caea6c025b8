// Static rules of the indexing ops (docs/ops.md, "Indexing"): gather_elements, gather_nd,
// scatter_elements, scatter_nd (kernels/gather_scatter.cpp), one_hot, trilu, nonzero, range,
// compress (kernels/index.cpp) and unique (kernels/unique.cpp). The kernels re-apply these rules to the concrete types
// (kernels/run_time_type.hpp), so a shape disagreement that a `?` dim hid traps there with the
// same message; what depends on the data (an index out of range, a count) is the kernels' own.
//
// nonzero, range, compress and unique have a result dim that only the data fixes: it is `?` here.
#include <algorithm>
#include <string>

#include "ir/elementwise_rules.hpp"
#include "ir/infer.hpp"
#include "ir/nn_rules.hpp"
#include "ir/rules.hpp"

namespace mlvm {

namespace {

using namespace ew;

inline constexpr DTypeSet kIndexDTypes = dset(DType::i32) | dset(DType::i64);
inline constexpr const char* kIndexWhy = "indices are i32 or i64";

int64_t merge_dim(int64_t a, int64_t b) {
  return a == kDynamic ? b : a;
}

// Error(invalid) for a result rank past 8.
void check_result_rank(const char* op, int rank) {
  if (rank > kMaxRank)
    fail_invalid(std::string(op) + ": the result would have rank " + std::to_string(rank) +
                 "; at most " + std::to_string(kMaxRank) + " is allowed");
}

// gather_elements / scatter_elements: indices of data's rank, each dim but `axis` no larger
// than data's. Returns the normalized axis.
int check_elements_indices(const char* op, const TensorType& data, const TensorType& idx,
                           int64_t axis_attr) {
  require_dtype(op, "indices", idx.dtype, kIndexDTypes, kIndexWhy);
  const int r = data.dims.size();
  if (idx.dims.size() != r)
    fail_invalid(std::string(op) + ": indices " + idx.to_string() + " must have the rank of data " +
                 data.to_string());
  const int axis = normalize_axis(axis_attr, r, (std::string(op) + ": axis").c_str());
  for (int d = 0; d < r; ++d)
    if (d != axis && idx.dims[d] != kDynamic && data.dims[d] != kDynamic &&
        idx.dims[d] > data.dims[d])
      fail_invalid(std::string(op) + ": indices " + idx.to_string() + " is larger than data " +
                   data.to_string() + " in dim " + std::to_string(d) + " (" +
                   std::to_string(idx.dims[d]) + " vs " + std::to_string(data.dims[d]) +
                   "); only the axis may be");
  return axis;
}

// gather_nd / scatter_nd: k = the last dim of indices (static), with b batch dims.
int64_t check_nd_indices(const char* op, const TensorType& data, const TensorType& idx, int64_t b) {
  require_dtype(op, "indices", idx.dtype, kIndexDTypes, kIndexWhy);
  const int r = data.dims.size(), q = idx.dims.size();
  if (b >= std::min(r, q))
    fail_invalid(std::string(op) + ": batch_dims " + std::to_string(b) +
                 " must be less than the ranks of data " + data.to_string() + " and indices " +
                 idx.to_string());
  const int64_t k = idx.dims[q - 1];
  if (k == kDynamic)
    fail_invalid(std::string(op) + ": the last dim of indices " + idx.to_string() +
                 " (the index tuple's length) must be static");
  if (k > r - b)
    fail_invalid(std::string(op) + ": index tuples of " + std::to_string(k) + " entries (indices " +
                 idx.to_string() + ") exceed the " + std::to_string(r - b) +
                 " indexable dims of data " + data.to_string());
  for (int d = 0; d < b; ++d)
    if (dims_conflict(data.dims[d], idx.dims[d]))
      fail_invalid(std::string(op) + ": batch dim " + std::to_string(d) + " of data " +
                   data.to_string() + " and indices " + idx.to_string() + " differ");
  return k;
}

// indices.dims[0 : q-1] ++ data.dims[b + k :], the batch dims merged.
Dims nd_slices_dims(const char* op, const TensorType& data, const TensorType& idx, int64_t b,
                    int64_t k) {
  Dims out;
  const int r = data.dims.size(), q = idx.dims.size();
  check_result_rank(op, int(q - 1 + r - b - k));
  for (int d = 0; d < q - 1; ++d) out.push_back(d < b ? merge_dim(idx.dims[d], data.dims[d]) : idx.dims[d]);
  for (int d = int(b + k); d < r; ++d) out.push_back(data.dims[d]);
  return out.empty() ? Dims{1} : out;  // no rank 0
}

int max_precision(const TensorType& a, const TensorType& b) {
  if (a.precision == kUnknownPrecision || b.precision == kUnknownPrecision) return kUnknownPrecision;
  return std::max(a.precision, b.precision);
}

template <class Choice>
void check_scatter_common(const char* op, const TensorType& data, const TensorType& updates,
                          Choice reduction) {
  if (updates.dtype != data.dtype)
    fail_invalid(std::string(op) + ": updates " + updates.to_string() + " must have data's dtype (" +
                 data.to_string() + ")");
  if (data.dtype == DType::boolean && (reduction == Choice::add || reduction == Choice::mul))
    fail_invalid(std::string(op) + ": reduction \"" + (reduction == Choice::add ? "add" : "mul") +
                 "\" is not defined on bool (no arithmetic on bool; cast first)");
}

// Precision of a scatter: none, max, min keep values of data or updates; add and mul: unknown.
template <class Choice>
int scatter_precision(const TensorType& data, const TensorType& updates, Choice reduction) {
  if (reduction == Choice::add || reduction == Choice::mul) return kUnknownPrecision;
  return max_precision(data, updates);
}

// range's inputs: one element each (every static dim 1).
void check_one_element(const TensorType& t, const char* what) {
  for (int64_t d : t.dims)
    if (d != 1 && d != kDynamic)
      fail_invalid(std::string("range: ") + what + " must have one element, got " + t.to_string());
}

}  // namespace

void infer_gather_elements(InferContext& ctx) {
  require_inputs("gather_elements", ctx.in.size(), 2);
  const TensorType &data = ctx.in[0], &idx = ctx.in[1];
  check_elements_indices("gather_elements", data, idx, ctx.attrs.get<gather_elements_attrs>().axis);
  set_result(ctx, result_type(data.dtype, idx.dims, data.precision));
}

void infer_gather_nd(InferContext& ctx) {
  require_inputs("gather_nd", ctx.in.size(), 2);
  const TensorType &data = ctx.in[0], &idx = ctx.in[1];
  const int64_t b = ctx.attrs.get<gather_nd_attrs>().batch_dims;
  const int64_t k = check_nd_indices("gather_nd", data, idx, b);
  set_result(ctx, result_type(data.dtype, nd_slices_dims("gather_nd", data, idx, b, k), data.precision));
}

void infer_scatter_elements(InferContext& ctx) {
  require_inputs("scatter_elements", ctx.in.size(), 3);
  const TensorType &data = ctx.in[0], &idx = ctx.in[1], &upd = ctx.in[2];
  const auto& a = ctx.attrs.get<scatter_elements_attrs>();
  check_elements_indices("scatter_elements", data, idx, a.axis);
  check_scatter_common("scatter_elements", data, upd, a.reduction);
  if (upd.dims.size() != idx.dims.size())
    fail_invalid("scatter_elements: updates " + upd.to_string() + " must have the shape of indices " +
                 idx.to_string());
  for (int d = 0; d < idx.dims.size(); ++d)
    if (dims_conflict(upd.dims[d], idx.dims[d]))
      fail_invalid("scatter_elements: updates " + upd.to_string() +
                   " must have the shape of indices " + idx.to_string() + " (dim " +
                   std::to_string(d) + " differs)");
  set_result(ctx, result_type(data.dtype, data.dims, scatter_precision(data, upd, a.reduction)));
}

void infer_scatter_nd(InferContext& ctx) {
  require_inputs("scatter_nd", ctx.in.size(), 3);
  const TensorType &data = ctx.in[0], &idx = ctx.in[1], &upd = ctx.in[2];
  const auto& a = ctx.attrs.get<scatter_nd_attrs>();
  const int64_t k = check_nd_indices("scatter_nd", data, idx, 0);
  check_scatter_common("scatter_nd", data, upd, a.reduction);
  const Dims want = nd_slices_dims("scatter_nd", data, idx, 0, k);
  bool ok = upd.dims.size() == want.size();
  for (int d = 0; ok && d < want.size(); ++d) ok = !dims_conflict(upd.dims[d], want[d]);
  if (!ok)
    fail_invalid("scatter_nd: updates " + upd.to_string() + " must have shape " +
                 dims_to_string(want) + " (indices.shape[:-1] + data.shape[k:] for indices " +
                 idx.to_string() + " and data " + data.to_string() + ")");
  set_result(ctx, result_type(data.dtype, data.dims, scatter_precision(data, upd, a.reduction)));
}

void infer_one_hot(InferContext& ctx) {
  if (ctx.in.size() != 2) require_inputs("one_hot", ctx.in.size(), 3);  // the depth input optional
  const bool depth_at_run_time = attr_input("one_hot", ctx.in, 2, "depth");
  const TensorType &idx = ctx.in[0], &values = ctx.in[1];
  require_dtype("one_hot", "indices", idx.dtype, kNumeric, kNoBool);
  if (values.dims.size() != 1 || (values.dims[0] != 2 && values.dims[0] != kDynamic))
    fail_invalid("one_hot: values must be [off, on], two elements, got " + values.to_string());
  const auto& a = ctx.attrs.get<one_hot_attrs>();
  const int r = idx.dims.size();
  if (a.axis < -r - 1 || a.axis > r)
    fail_invalid("one_hot: axis " + std::to_string(a.axis) + " is out of range for indices of rank " +
                 std::to_string(r) + " (expected " + std::to_string(-r - 1) + " to " +
                 std::to_string(r) + ")");
  const int axis = int(a.axis < 0 ? a.axis + r + 1 : a.axis);
  check_result_rank("one_hot", r + 1);
  Dims out = idx.dims;
  out.insert(axis, depth_at_run_time ? kDynamic : a.depth);
  set_result(ctx, result_type(values.dtype, out, values.precision));
}

void infer_trilu(InferContext& ctx) {
  if (ctx.in.size() != 1) require_inputs("trilu", ctx.in.size(), 2);  // the k input optional
  attr_input("trilu", ctx.in, 1, "k");
  const TensorType& x = ctx.in[0];
  if (x.dims.size() < 2) fail_invalid("trilu: x must have rank >= 2, got " + x.to_string());
  set_result(ctx, result_type(x.dtype, x.dims, x.precision));
}

void infer_nonzero(InferContext& ctx) {
  require_inputs("nonzero", ctx.in.size(), 1);
  const TensorType& x = ctx.in[0];
  set_result(ctx, result_type(DType::i64, Dims{int64_t(x.dims.size()), kDynamic}, kUnknownPrecision));
}

void infer_range(InferContext& ctx) {
  require_inputs("range", ctx.in.size(), 3);
  const TensorType &start = ctx.in[0], &limit = ctx.in[1], &delta = ctx.in[2];
  const DTypeSet allowed = kFloats | dset(DType::i16) | dset(DType::i32) | dset(DType::i64);
  require_dtype("range", "start", start.dtype, allowed);
  if (limit.dtype != start.dtype || delta.dtype != start.dtype)
    fail_invalid("range: start, limit and delta must have one dtype, got " + start.to_string() +
                 ", " + limit.to_string() + ", " + delta.to_string());
  check_one_element(start, "start");
  check_one_element(limit, "limit");
  check_one_element(delta, "delta");
  set_result(ctx, result_type(start.dtype, Dims{kDynamic}, kUnknownPrecision));
}

void infer_compress(InferContext& ctx) {
  require_inputs("compress", ctx.in.size(), 2);
  const TensorType &x = ctx.in[0], &cond = ctx.in[1];
  if (cond.dtype != DType::boolean || cond.dims.size() != 1)
    fail_invalid("compress: condition must be a bool vector, got " + cond.to_string());
  const auto& a = ctx.attrs.get<compress_attrs>();
  Dims out{kDynamic};
  if (a.axis) {
    out = x.dims;
    out[normalize_axis(*a.axis, x.dims.size(), "compress: axis")] = kDynamic;
  }
  set_result(ctx, result_type(x.dtype, out, x.precision));
}

// y: x's distinct elements ([?]) or distinct slices along axis (x's dims, that one `?`);
// indices and counts [?]; inverse_indices one entry per element (per slice along axis).
void infer_unique(InferContext& ctx) {
  require_inputs("unique", ctx.in.size(), 1);
  const TensorType& x = ctx.in[0];
  const auto& a = ctx.attrs.get<unique_attrs>();
  Dims y{kDynamic};
  int64_t n = 1;
  if (a.axis) {
    const int axis = normalize_axis(*a.axis, x.dims.size(), "unique: axis");
    y = x.dims;
    y[axis] = kDynamic;
    n = x.dims[axis];
  } else {
    for (int64_t d : x.dims) n = d == kDynamic || n == kDynamic ? kDynamic : n * d;
  }
  const TensorType counted = result_type(DType::i64, Dims{kDynamic}, kUnknownPrecision);
  ctx.out = {result_type(x.dtype, y, x.precision), counted,
             result_type(DType::i64, Dims{n}, kUnknownPrecision), counted};
}

}  // namespace mlvm
