#include "quantize/report.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace mlvm::quant {

namespace {

std::string format(const char* fmt, double a, double b = 0) {
  char buf[96];
  std::snprintf(buf, sizeof buf, fmt, a, b);
  return buf;
}

std::string pad(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string requant_text(const LayerReport& l) {
  if (!l.float_reason.empty()) return "float";
  if (l.requantized)
    return ">>" + std::to_string(l.pre_shift) + " *[" + std::to_string(l.multiplier_min) + ", " +
           std::to_string(l.multiplier_max) + "] >>" + std::to_string(l.shift);
  return l.rescale.empty() ? "-" : l.rescale;
}

}  // namespace

void print_report(std::ostream& os, const std::vector<LayerReport>& layers) {
  std::size_t w_layer = 5, w_op = 2, w_result = 6, w_requant = 24;
  std::vector<const LayerReport*> floats;
  for (const LayerReport& l : layers) {
    if (!l.float_reason.empty()) floats.push_back(&l);
    w_requant = std::max(w_requant, requant_text(l).size());
    w_layer = std::max(w_layer, l.layer.size());
    w_op = std::max(w_op, l.op.size());
    w_result = std::max(w_result, l.result.size());
  }
  os << pad("layer", w_layer) << "  " << pad("op", w_op) << "  " << pad("result", w_result) << "  "
     << pad("weight scales", 23) << "  " << pad("scale", 7) << "  " << pad("bits", 4) << "  "
     << pad("requantize", w_requant) << "  " << pad("in bits", 7) << "  " << pad("in noise", 9) << "  "
     << pad("max|float|", 10) << "  max|float-int|\n";
  for (const LayerReport& l : layers) {
    const bool floating = !l.float_reason.empty();
    const std::string weights =
        l.has_weights ? format("%.3g..%.3g", l.weight_scale_min, l.weight_scale_max) : "-";
    os << pad(l.layer, w_layer) << "  " << pad(l.op, w_op) << "  " << pad(l.result, w_result) << "  "
       << pad(weights, 23) << "  " << pad(floating ? "f32" : "2^" + std::to_string(-l.exponent), 7) << "  "
       << pad(floating ? "32" : std::to_string(l.bits), 4) << "  " << pad(requant_text(l), w_requant) << "  "
       << pad(l.input_bits > 0 ? std::to_string(l.input_bits) : "-", 7) << "  "
       << pad(l.input_noise < 0 ? std::string("-") : format("%.3g", l.input_noise), 9) << "  "
       << pad(format("%.4g", l.float_max), 10) << "  "
       << (l.max_error < 0 ? std::string("-") : format("%.4g", l.max_error)) << "\n";
  }
  if (floats.empty()) return;
  os << "ops kept in float (" << floats.size() << "):\n";
  for (const LayerReport* l : floats)
    os << "  " << pad(l->layer, w_layer) << "  " << pad(l->op, w_op) << "  " << l->float_reason << "\n";
}

}  // namespace mlvm::quant
