// Kernels of repeat and tile (docs/ops.md, "Transforms"): both repeat x's elements, so both are
// one index map per axis for the gather engine (kernels/gather_axes.hpp). Result shapes come
// from ir/transform_rules.hpp, as in their static rules.
#include "ir/transform_rules.hpp"
#include "kernels/gather_axes.hpp"
#include "kernels/run_table.hpp"

namespace mlvm {

void run_repeat(KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const auto& a = ctx.attrs.get<repeat_attrs>();
  const int64_t repeats = a.repeats;
  Dims y_dims = repeat_dims(x.shape(), repeats, a.axis);
  const int axis = normalize_axis(a.axis, x.rank(), "repeat: axis");
  Tensor y = ctx.output(x.dtype(), y_dims);
  if (y.numel() > 0) {
    std::vector<IndexMap> maps = identity_maps(x.shape());
    IndexMap& m = maps[std::size_t(axis)];
    m.resize(std::size_t(y_dims[axis]));
    for (std::size_t k = 0; k < m.size(); ++k) m[k] = int64_t(k) / repeats;  // floor(k / repeats)
    gather_axes(ctx.env, x, y, std::move(maps), Scalar::from_int(0));
  }
  ctx.out[0] = std::move(y);
}

void run_tile(KernelContext& ctx) {
  const Tensor& x0 = ctx.in[0];
  Dims y_dims = tile_dims(x0.shape(), ctx.attrs.get<tile_attrs>().reps);
  Tensor y = ctx.output(x0.dtype(), y_dims);
  if (y.numel() > 0) {
    // x seen with leading 1s up to the result's rank (reps longer than the rank).
    Dims xs, st;
    for (int i = 0; i < y_dims.size() - x0.rank(); ++i) {
      xs.push_back(1);
      st.push_back(0);
    }
    for (int i = 0; i < x0.rank(); ++i) {
      xs.push_back(x0.dim(i));
      st.push_back(x0.strides()[i]);
    }
    Tensor x = x0.with_layout(xs, st, x0.offset());
    std::vector<IndexMap> maps;
    for (int d = 0; d < y_dims.size(); ++d) {
      IndexMap m(static_cast<std::size_t>(y_dims[d]));
      for (std::size_t k = 0; k < m.size(); ++k) m[k] = int64_t(k) % xs[d];  // k mod n
      maps.push_back(std::move(m));
    }
    gather_axes(ctx.env, x, y, std::move(maps), Scalar::from_int(0));
  }
  ctx.out[0] = std::move(y);
}

}  // namespace mlvm
