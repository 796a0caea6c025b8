// Kernel of concatenate (docs/ops.md, "Transforms"): contiguous inputs are joined by block
// copies; any other mix is copied input by input into its slice of the result. The result
// shape comes from ir/transform_rules.hpp, as in the static rule; a `?` dim that turns out
// different at run time traps.
#include <algorithm>
#include <cstring>

#include "ir/transform_rules.hpp"
#include "kernels/run_table.hpp"
#include "tensor/copy.hpp"

namespace mlvm {

namespace {

// Contiguous inputs: y seen as [outer, sum of the inputs' axis·inner] is, row by row, each
// input's [outer, axis·inner] row in turn, so it is memcpy's of whole blocks (one per input
// when the axis is the leading non-trivial dim).
void concatenate_contiguous(const TensorArgs& in, const Tensor& y, int axis, const ExecEnv& env) {
  if (y.numel() == 0) return;
  int64_t outer = 1;
  for (int d = 0; d < axis; ++d) outer *= y.dim(d);
  const std::size_t item = std::size_t(y.itemsize());
  const std::size_t row_bytes = std::size_t(y.numel() / outer) * item;
  std::byte* out = y.raw_data();
  std::size_t at = 0;  // byte offset of the current input's block within a row
  for (const Tensor& t : in) {
    const std::size_t block = std::size_t(t.numel() / outer) * item;
    if (block > 0) {
      const std::byte* src = t.raw_data();
      for (int64_t o = 0; o < outer; ++o) {
        if ((o & 1023) == 0) env.check_cancelled();
        std::memcpy(out + std::size_t(o) * row_bytes + at, src + std::size_t(o) * block, block);
      }
    }
    at += block;
  }
}

}  // namespace

void run_concatenate(KernelContext& ctx) {
  const int64_t axis_attr = ctx.attrs.get<concatenate_attrs>().axis;
  std::vector<TensorType> types;
  for (const Tensor& t : ctx.in) types.push_back(type_of(t));
  Dims y_dims = concatenate_dims(types, axis_attr, ErrorKind::trap);
  const int axis = normalize_axis(axis_attr, y_dims.size(), "concatenate: axis");
  Tensor y = ctx.output(types[0].dtype, y_dims);
  if (std::all_of(ctx.in.begin(), ctx.in.end(), [](const Tensor& t) { return t.is_contiguous(); })) {
    concatenate_contiguous(ctx.in, y, axis, ctx.env);
    ctx.out[0] = std::move(y);
    return;
  }
  const Dims y_strides = y.strides();
  int64_t at = 0;
  for (const Tensor& t : ctx.in) {
    if (t.numel() > 0) {
      Tensor part = y.with_layout(t.shape(), y_strides, at * y_strides[axis]);
      copy_into(t, part);
    }
    at += t.dim(axis);
  }
  ctx.out[0] = std::move(y);
}

}  // namespace mlvm
