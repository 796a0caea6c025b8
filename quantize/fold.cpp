#include "quantize/fold.hpp"

#include <cmath>

#include "tensor/tensor.hpp"

namespace mlvm::quant {

// The conv's float weights and bias with the fused per-channel muls and adds applied:
// (conv(x, w) + b) * c + d = conv(x, w * c) + (b * c + d), channel by channel. `range` (the
// calibrated |conv output| per channel) becomes a bound of the folded output's.
Folded fold_affine(const Graph& g, const QuantPlan& p, const GraphNode& n, std::vector<double> range) {
  const Module& m = *g.module;
  const Tensor& wt = m.constants[std::size_t(g.values[std::size_t(n.args[1])].constant)].value;
  Folded f{to_vector<float>(wt), {}, std::move(range), wt.shape()};
  const int64_t channels = f.dims[0], per = channels ? int64_t(f.w.size()) / channels : 0;
  f.b.assign(std::size_t(channels), 0.0F);
  if (n.args.size() > 2 && n.args[2] != kNoValue)
    f.b = to_vector<float>(m.constants[std::size_t(g.values[std::size_t(n.args[2])].constant)].value);
  int32_t cur = n.results[0];
  for (int32_t pc : p.fused_affine[std::size_t(n.pc)]) {
    const GraphNode& a = g.nodes[std::size_t(pc)];
    const int32_t cv = a.args[a.args[0] == cur ? 1 : 0];
    const std::vector<float> c = to_vector<float>(m.constants[std::size_t(g.values[std::size_t(cv)].constant)].value);
    for (int64_t o = 0; o < channels; ++o) {
      const float k = c[c.size() == 1 ? 0 : std::size_t(o)];
      if (a.op == Opcode::mul) {
        for (int64_t i = 0; i < per; ++i) f.w[std::size_t(o * per + i)] *= k;
        f.b[std::size_t(o)] *= k;
        if (std::size_t(o) < f.range.size()) f.range[std::size_t(o)] *= std::abs(double(k));
      } else {
        f.b[std::size_t(o)] += k;
        if (std::size_t(o) < f.range.size()) f.range[std::size_t(o)] += std::abs(double(k));
      }
    }
    cur = a.results[0];
  }
  return f;
}

}  // namespace mlvm::quant
