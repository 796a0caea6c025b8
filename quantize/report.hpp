// What the quantizer chose for each layer, and how far the integers are from the floats.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace mlvm::quant {

struct LayerReport {
  int32_t value = -1;      // the graph value it describes (internal)
  std::string layer;       // where: "input 'x'", "instruction 3 (line 17)", "instruction 0 (Conv '/c1')"
  std::string op;          // "input", "conv2d+relu", "dense", "max_pool2d", "add", ...
  std::string result;      // the float program's register
  bool has_weights = false;
  double weight_scale_min = 0, weight_scale_max = 0;  // per output channel
  int exponent = 0;        // the result is q * 2^-exponent
  int bits = 8;            // its precision: 8 (i8) or 16 (i32, read only by outputs / argmax)
  int input_bits = 0;      // conv2d, dense: the precision of the input it reads (0: not such a layer)
  double input_noise = -1; // conv2d, dense: input_rounding_noise (layer_bits.hpp); -1: none
  bool requantized = false;  // a multiplier requantization (conv2d, dense, avg_pool2d)
  int pre_shift = 0, shift = 0;
  int32_t multiplier_min = 0, multiplier_max = 0;
  std::string rescale;     // add, concatenate: the shifts that align their inputs and result
  double float_max = 0;    // max |float value| over the calibration set
  std::string float_reason;  // an op that stayed float: why ("no integer lowering", ...)
  double max_error = -1;   // max |float - q * 2^-exponent| over the calibration set; -1: not measured
};

// The report as a table, one line per layer, with a header line; then the ops kept in float,
// each with its reason.
void print_report(std::ostream& os, const std::vector<LayerReport>& layers);

}  // namespace mlvm::quant
