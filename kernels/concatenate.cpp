// Kernel of concatenate (docs/ops.md, "Transforms"): contiguous inputs are joined by block
// copies; any other mix is copied input by input into its slice of the result. The result
// shape comes from ir/transform_rules.hpp, as in the static rule; a `?` dim that turns out
// different at run time traps.
#include <algorithm>
#include <cstring>
#include <vector>

#include "ir/transform_rules.hpp"
#include "kernels/parallel_items.hpp"
#include "kernels/run_table.hpp"
#include "tensor/copy.hpp"
#include "tensor/views.hpp"

namespace mlvm {

namespace {

// Contiguous inputs: y seen as [outer, sum of the inputs' axis·inner] is, row by row, each
// input's [outer, axis·inner] row in turn, so it is memcpy's of whole blocks (one per input
// when the axis is the leading non-trivial dim). Blocks are copied in pieces of at most 64 KiB
// that the pool's threads share (a channel concat of two 55 x 55 x 64 maps is two 775 KB
// copies).
void concatenate_contiguous(const TensorArgs& in, const Tensor& y, int axis, const ExecEnv& env) {
  if (y.numel() == 0) return;
  int64_t outer = 1;
  for (int d = 0; d < axis; ++d) outer *= y.dim(d);
  const std::size_t item = std::size_t(y.itemsize());
  const std::size_t row_bytes = std::size_t(y.numel() / outer) * item;
  constexpr std::size_t kPiece = std::size_t(64) << 10;
  ThreadPool* pool = std::size_t(y.numel()) * item >= 2 * kPiece ? env.pool : nullptr;
  // Input blocks by row: block[i] bytes of input i, at offset at[i] of each row.
  std::vector<std::size_t> block, at;
  std::size_t offset = 0;
  for (const Tensor& t : in) {
    block.push_back(std::size_t(t.numel() / outer) * item);
    at.push_back(offset);
    offset += block.back();
  }
  std::byte* out = y.raw_data();
  if (outer >= 8) {  // rows in groups of about 64 KiB
    const int64_t rows = int64_t(std::max<std::size_t>(1, kPiece / std::max<std::size_t>(1, row_bytes)));
    for_each_item(pool, (outer + rows - 1) / rows, [&](int64_t t) {
      env.check_cancelled();
      for (int64_t o = t * rows; o < std::min(outer, (t + 1) * rows); ++o)
        for (std::size_t i = 0; i < in.size(); ++i)
          if (block[i] > 0)
            std::memcpy(out + std::size_t(o) * row_bytes + at[i], in[i].raw_data() + std::size_t(o) * block[i], block[i]);
    });
    return;
  }
  // A few rows: each input's block in pieces of 64 KiB.
  struct Piece {
    int64_t o;
    std::size_t i, off;
  };
  std::vector<Piece> pieces;
  for (int64_t o = 0; o < outer; ++o)
    for (std::size_t i = 0; i < in.size(); ++i)
      for (std::size_t off = 0; off < block[i]; off += kPiece) pieces.push_back({o, i, off});
  for_each_item(pool, int64_t(pieces.size()), [&](int64_t t) {
    env.check_cancelled();
    const Piece& p = pieces[std::size_t(t)];
    std::memcpy(out + std::size_t(p.o) * row_bytes + at[p.i] + p.off,
                in[p.i].raw_data() + std::size_t(p.o) * block[p.i] + p.off, std::min(kPiece, block[p.i] - p.off));
  });
}

}  // namespace

void run_concatenate(KernelContext& ctx) {
  const int64_t axis_attr = ctx.attrs.get<concatenate_attrs>().axis;
  std::vector<TensorType> types;
  for (const Tensor& t : ctx.in) types.push_back(type_of(t));
  Dims y_dims = concatenate_dims(types, axis_attr, ErrorKind::trap);
  const int axis = normalize_axis(axis_attr, y_dims.size(), "concatenate: axis");
  Tensor y = ctx.output(types[0].dtype, y_dims);
  // An input may already be in its slice of y: the step that made it wrote it there (vm/place.cpp
  // hands such steps their slice as the destination, and y to this one).
  const bool shares = std::any_of(ctx.in.begin(), ctx.in.end(), [&](const Tensor& t) { return t.storage() == y.storage(); });
  if (!shares && std::all_of(ctx.in.begin(), ctx.in.end(), [](const Tensor& t) { return t.is_contiguous(); })) {
    concatenate_contiguous(ctx.in, y, axis, ctx.env);
    ctx.out[0] = std::move(y);
    return;
  }
  // Input by input into its slice. One that sits in its slice already is skipped; any other
  // view of y's storage is copied out first, before any slice is written (copy_into needs
  // source and destination apart).
  const Dims y_strides = y.strides();
  std::vector<Tensor> parts, sources;
  int64_t at = 0;
  for (const Tensor& t : ctx.in) {
    Tensor part = y.with_layout(t.shape(), y_strides, y.offset() + at * y_strides[axis]);
    at += t.dim(axis);
    if (t.numel() == 0) continue;
    if (t.storage() == y.storage()) {
      if (same_elements(t, part)) continue;
      sources.push_back(clone(t, ctx.env.budget));
    } else {
      sources.push_back(t);
    }
    parts.push_back(std::move(part));
  }
  for (std::size_t k = 0; k < parts.size(); ++k) copy_into(sources[k], parts[k]);
  ctx.out[0] = std::move(y);
}

}  // namespace mlvm
