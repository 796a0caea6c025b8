// Kernel of roll (docs/ops.md, "Transforms"): a cyclic shift along each named axis,
// Y[k] = X[(k - shift) mod n], as one index map per axis for the gather engine
// (kernels/gather_axes.hpp). The axes are checked by ir/transform_rules.hpp, as in the static
// rule.
#include "ir/transform_rules.hpp"
#include "kernels/gather_axes.hpp"
#include "kernels/run_table.hpp"

namespace mlvm {

void run_roll(KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const auto& a = ctx.attrs.get<roll_attrs>();
  const std::vector<int64_t>& shift = a.shift;
  std::vector<int> axes = roll_axes(x.rank(), shift, a.axis);
  Tensor y = ctx.output(x.dtype(), x.shape());
  if (y.numel() > 0) {
    std::vector<IndexMap> maps = identity_maps(x.shape());
    for (std::size_t i = 0; i < axes.size(); ++i) {
      const int64_t n = x.dim(axes[i]);
      int64_t s = shift[i] % n;  // Y[k] = X[(k - shift) mod n]
      if (s < 0) s += n;
      IndexMap& m = maps[std::size_t(axes[i])];
      for (int64_t k = 0; k < n; ++k) m[std::size_t(k)] = k >= s ? k - s : k - s + n;
    }
    gather_axes(ctx.env, x, y, std::move(maps), Scalar::from_int(0));
  }
  ctx.out[0] = std::move(y);
}

}  // namespace mlvm
