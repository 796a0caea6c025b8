// Kernel of pad (docs/ops.md, "Transforms"): NumPy's pad in modes constant, edge and reflect,
// as one index map per axis for the gather engine (kernels/gather_axes.hpp), with -1 (the fill
// value) on constant mode's border. The result shape comes from ir/transform_rules.hpp, as in
// the static rule.
#include "ir/transform_rules.hpp"
#include "kernels/gather_axes.hpp"
#include "kernels/run_table.hpp"

namespace mlvm {

namespace {

// NumPy's reflect: position j relative to the first element (may be < 0 or >= n) mirrors
// without repeating the edge, periodically for pads longer than n - 1; n == 1 repeats the
// single element (NumPy's legacy behaviour for singleton dims).
int64_t reflect_index(int64_t j, int64_t n) {
  if (n == 1) return 0;
  const int64_t period = 2 * (n - 1);
  int64_t r = j % period;
  if (r < 0) r += period;
  return r < n ? r : period - r;
}

}  // namespace

void run_pad(KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const auto& a = ctx.attrs.get<pad_attrs>();
  const PadMode mode = a.mode;
  Dims y_dims = pad_dims(x.dtype(), x.shape(), a.pad_width, a.value, mode, ErrorKind::trap);
  Tensor y = ctx.output(x.dtype(), y_dims);
  if (y.numel() > 0) {
    std::vector<IndexMap> maps;
    for (int d = 0; d < x.rank(); ++d) {
      const int64_t n = x.dim(d), before = a.pad_width[std::size_t(d)][0];
      IndexMap m(static_cast<std::size_t>(y_dims[d]));
      for (std::size_t k = 0; k < m.size(); ++k) {
        const int64_t j = int64_t(k) - before;  // position relative to x's first element
        if (j >= 0 && j < n)
          m[k] = j;
        else if (mode == PadMode::constant)
          m[k] = -1;
        else if (mode == PadMode::edge)
          m[k] = j < 0 ? 0 : n - 1;
        else
          m[k] = reflect_index(j, n);
      }
      maps.push_back(std::move(m));
    }
    gather_axes(ctx.env, x, y, std::move(maps), a.value);
  }
  ctx.out[0] = std::move(y);
}

}  // namespace mlvm
