// The views of tensor/views.hpp: each a new shape / strides / offset over the same storage,
// from the shape rules in tensor/view_shapes.cpp.
#include "tensor/views.hpp"

#include <algorithm>
#include <string>

#include "tensor/copy.hpp"

namespace mlvm {

// ---------------------------------------------------------------------------------------------
// Views.

Tensor transpose(const Tensor& x, IntList axes) {
  Dims perm = transpose_perm(x.rank(), axes), shape, strides;
  for (int64_t p : perm) {
    shape.push_back(x.dim(int(p)));
    strides.push_back(x.strides()[int(p)]);
  }
  return x.with_layout(shape, strides, x.offset());
}

Tensor broadcast_to(const Tensor& x, IntList target, ErrorKind mismatch) {
  Dims shape = broadcast_to_shape(x.dtype(), x.shape(), target, mismatch);
  const int lead = shape.size() - x.rank();
  Dims strides = Dims::filled(shape.size(), 0);
  for (int i = 0; i < x.rank(); ++i)
    if (x.dim(i) == shape[lead + i]) strides[lead + i] = x.strides()[i];
  return x.with_layout(shape, strides, x.offset());
}

Tensor expand_dims(const Tensor& x, int64_t axis, int64_t num_newaxis) {
  Dims shape = expand_dims_shape(x.shape(), axis, num_newaxis);
  const int a = int(axis < 0 ? axis + x.rank() + 1 : axis);
  // A size-1 dim's stride is never used; pick what a contiguous layout would have.
  int64_t s = 1;
  if (a < x.rank() && __builtin_mul_overflow(x.strides()[a], x.dim(a), &s)) s = 1;
  Dims strides = x.strides();
  for (int64_t k = 0; k < num_newaxis; ++k) strides.insert(a, s);
  return x.with_layout(shape, strides, x.offset());
}

Tensor squeeze(const Tensor& x, IntList axes, ErrorKind mismatch) {
  uint32_t mask = squeeze_mask(x.dtype(), x.shape(), axes, mismatch);
  Dims shape, strides;
  for (int d = 0; d < x.rank(); ++d) {
    if (mask >> d & 1u) continue;
    shape.push_back(x.dim(d));
    strides.push_back(x.strides()[d]);
  }
  if (shape.empty()) shape.push_back(1), strides.push_back(1);
  return x.with_layout(shape, strides, x.offset());
}

// NumPy's no-copy reshape rule, written from its definition: split old (size-1 dims dropped)
// and new shapes into the smallest groups with equal element products; each old group must be
// one uniformly strided block (stride[k] == stride[k+1] * shape[k+1], C order), and then the
// new dims of the group get the strides that walk that block in C order.
std::optional<Tensor> reshape_view(const Tensor& x, const Dims& shape) {
  check_shape(shape);
  const int64_t numel = checked_numel(shape);
  if (numel != x.numel())
    fail_invalid("reshape: cannot reshape " + x.type_string() + " (" + std::to_string(x.numel()) +
                 " elements) to " + dims_to_string(shape) + " (" + std::to_string(numel) +
                 " elements)");
  if (numel == 0) return x.with_layout(shape, contiguous_strides(shape), x.offset());
  int64_t old_shape[kMaxRank], old_strides[kMaxRank];
  int n_old = 0;
  for (int d = 0; d < x.rank(); ++d) {
    if (x.dim(d) == 1) continue;
    old_shape[n_old] = x.dim(d);
    old_strides[n_old++] = x.strides()[d];
  }
  const int n_new = shape.size();
  Dims strides = Dims::filled(n_new, 1);
  int oi = 0, ni = 0;
  while (oi < n_old && ni < n_new) {
    int oj = oi + 1, nj = ni + 1;
    int64_t op = old_shape[oi], np = shape[ni];
    while (op != np) {
      // Products stay <= numel, so they cannot overflow; the bounds guard is belt and braces.
      if (np < op) {
        if (nj >= n_new) return std::nullopt;
        np *= shape[nj++];
      } else {
        if (oj >= n_old) return std::nullopt;
        op *= old_shape[oj++];
      }
    }
    for (int k = oi; k + 1 < oj; ++k)
      if (old_strides[k] != old_strides[k + 1] * old_shape[k + 1]) return std::nullopt;
    strides[nj - 1] = old_strides[oj - 1];
    for (int k = nj - 1; k > ni; --k)
      if (__builtin_mul_overflow(strides[k], shape[k], &strides[k - 1])) return std::nullopt;
    oi = oj;
    ni = nj;
  }
  // Any new dims left over have size 1; their stride (1) is never used.
  return x.with_layout(shape, strides, x.offset());
}

Tensor reshape(const Tensor& x, IntList target, bool* copied, std::shared_ptr<MemoryBudget> budget,
               ErrorKind mismatch) {
  Dims shape = reshape_shape(x.dtype(), x.shape(), target, mismatch);
  if (auto v = reshape_view(x, shape)) {
    if (copied) *copied = false;
    return *v;
  }
  if (copied) *copied = true;
  Tensor c = clone(x, std::move(budget));
  return Tensor::make_view(c.storage(), x.dtype(), shape, contiguous_strides(shape), 0,
                           ValueMode::owned);
}

Tensor flatten(const Tensor& x, bool* copied, std::shared_ptr<MemoryBudget> budget) {
  const int64_t all[1] = {-1};
  return reshape(x, all, copied, std::move(budget));
}

Tensor strided_slice(const Tensor& x, IntList begin, IntList end, IntList strides, IntList axes) {
  auto plan = strided_slice_plan(x.shape(), begin, end, strides, axes);
  Dims shape = x.shape(), st = x.strides();
  int64_t offset = x.offset();
  for (int d = 0; d < x.rank(); ++d) {
    const SliceDim& s = plan[d];
    shape[d] = s.size;
    offset += s.start * x.strides()[d];  // start < n: inside the reachable range
    if (s.size > 1 && __builtin_mul_overflow(x.strides()[d], s.step, &st[d]))
      fail_invalid("strided_slice: stride overflow");  // unreachable: the elements exist
  }
  return x.with_layout(shape, st, offset);
}

Tensor slice_like(const Tensor& x, const Dims& like, IntList axes, ErrorKind mismatch) {
  Dims shape = slice_like_shape(x.dtype(), x.shape(), like, axes, mismatch);
  return x.with_layout(shape, x.strides(), x.offset());
}

Tensor flip(const Tensor& x, int64_t axis) {
  const int a = flip_axis(x.shape(), axis);
  Dims strides = x.strides();
  int64_t offset = x.offset();
  if (x.dim(a) > 0) offset += (x.dim(a) - 1) * strides[a];
  strides[a] = -strides[a];
  return x.with_layout(x.shape(), strides, offset);
}

Tensor rot90(const Tensor& x, int64_t k, IntList axes) {
  auto [a0, a1] = rot90_axes(x.shape(), axes);
  const int64_t turns = ((k % 4) + 4) % 4;
  if (turns == 0) return x.with_layout(x.shape(), x.strides(), x.offset());
  if (turns == 2) return flip(flip(x, a0), a1);
  Dims perm;
  for (int d = 0; d < x.rank(); ++d) perm.push_back(d);
  std::swap(perm[a0], perm[a1]);
  if (turns == 1) return transpose(flip(x, a1), perm.span());
  return flip(transpose(x, perm.span()), a1);
}

bool same_elements(const Tensor& a, const Tensor& b) {
  if (a.raw_data() != b.raw_data() || !(a.shape() == b.shape())) return false;
  for (int d = 0; d < a.rank(); ++d)
    if (a.dim(d) > 1 && a.strides()[d] != b.strides()[d]) return false;
  return true;
}

Tensor zeros(DType dtype, const Dims& shape) {
  return constant_tensor(dtype, constant_shape("zeros", shape.span()), Scalar::from_int(0));
}

Tensor ones(DType dtype, const Dims& shape) {
  return constant_tensor(dtype, constant_shape("ones", shape.span()), Scalar::from_int(1));
}

Tensor full(DType dtype, const Dims& shape, const Scalar& value) {
  Dims s = constant_shape("full", shape.span());
  if (!scalar_fits(value, dtype))
    fail_invalid("full: value " + value.to_string() + " is not representable in " +
                 std::string(dtype_name(dtype)));
  return constant_tensor(dtype, s, value);
}

}  // namespace mlvm
