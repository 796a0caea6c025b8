#include "quantize/layer_bits.hpp"

#include <algorithm>
#include <cmath>

#include "quantize/fold.hpp"
#include "tensor/tensor.hpp"

namespace mlvm::quant {

namespace {

// The value the layer's requantized result stands for: after its fused muls, adds and relu.
int32_t layer_end(const Graph& g, const QuantPlan& p, const GraphNode& n) {
  const int32_t relu = p.fused_relu[std::size_t(n.pc)];
  if (relu >= 0) return g.nodes[std::size_t(relu)].results[0];
  const std::vector<int32_t>& affine = p.fused_affine[std::size_t(n.pc)];
  return affine.empty() ? n.results[0] : g.nodes[std::size_t(affine.back())].results[0];
}

}  // namespace

double input_rounding_noise(const Graph& g, const QuantPlan& p, const std::vector<ValueStats>& stats,
                            const GraphNode& n) {
  if ((n.op != Opcode::conv2d && n.op != Opcode::dense) || n.args.size() < 2) return -1;
  const GraphValue& wv = g.values[std::size_t(n.args[1])];
  if (wv.constant < 0 || wv.type.dtype != DType::f32 || wv.type.dims.empty()) return -1;
  const ValueStats& sx = stats[std::size_t(n.args[0])];
  const ValueStats& sy = stats[std::size_t(layer_end(g, p, n))];
  if (!(sx.max_abs > 0) || !(sy.max_abs > 0)) return 0;
  const Folded f = fold_affine(g, p, n, {});
  const int64_t channels = f.dims[0];
  if (channels <= 0) return 0;
  const std::size_t per = f.w.size() / std::size_t(channels);
  double worst = 0;
  for (int64_t o = 0; o < channels; ++o) {
    double s = 0;
    for (std::size_t k = 0; k < per; ++k) s += double(f.w[std::size_t(o) * per + k]) * f.w[std::size_t(o) * per + k];
    worst = std::max(worst, s);
  }
  const int ex = activation_exponent(sx, 8), ey = activation_exponent(sy, 8);
  return worst * std::ldexp(1.0, 2 * (ey - ex));
}

int narrow_layer_inputs(const Graph& g, QuantPlan& p, const std::vector<ValueStats>& stats, double max_noise) {
  int narrowed = 0;
  for (const GraphNode& n : g.nodes) {
    if (p.role[std::size_t(n.pc)] != NodeRole::layer || !p.chain[std::size_t(n.pc)].empty()) continue;
    if (n.args.empty() || n.args[0] == kNoValue || p.bits[std::size_t(n.args[0])] <= 8) continue;
    const double noise = input_rounding_noise(g, p, stats, n);
    if (noise < 0 || noise > max_noise) continue;
    p.input_cap[std::size_t(n.pc)] = 8;
    ++narrowed;
  }
  if (narrowed > 0) assign_bits(g, p);
  return narrowed;
}

}  // namespace mlvm::quant
