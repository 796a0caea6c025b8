// Running the float program (and the integer one) on the calibration batches to look inside:
// a probe is a variant of a module whose outputs are every activation, in SSA form (each
// definition its own register), taking the activation input as its only input. The
// interpreter is not changed: the probe is an ordinary module.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bytecode/module.hpp"
#include "mlvm/session.hpp"
#include "quantize/calibration.hpp"
#include "quantize/histogram.hpp"
#include "quantize/plan.hpp"

namespace mlvm::quant {

struct ProbeOutput {
  int32_t value = kNoValue;  // the float program's value
  std::string name;          // the probe's output
  int exponent = 0;          // integer probes: the output is q * 2^-exponent
};

struct Probe {
  Module module;
  std::string input;  // the one input: the activation input's name
  std::vector<ProbeOutput> outputs;
};

// The float program cut down to what the activations need, every activation an output.
// Error(invalid) when they need another input of the module besides the activation input.
Probe float_probe(const Graph& g, const QuantPlan& p);

struct ValueStats {
  double max_abs = 0, max_pos = 0;
  // conv2d, dense and matmul results: the same per output channel (conv2d's axis 1, the
  // others' last).
  std::vector<double> channel_abs, channel_pos;
  // NCHW values (rank 4): the mean per channel (axis 1) over the samples and positions, which
  // a conv2d reading the value corrects its bias by (the weights' rounding times it).
  std::vector<double> channel_mean;
  double count = 0;  // elements per channel summed into channel_mean so far
  // The activation's magnitudes (collect_stats with histograms; else null).
  std::shared_ptr<MagnitudeHistogram> histogram;
};

// The exponent of an activation held in `bits` bits: the finest that holds its calibrated
// maximum (pow2_exponent); for 8 bits or fewer when its histogram was kept, the one of the
// least squared error over its calibrated values (MagnitudeHistogram::best_exponent), which
// clips rare large values.
int activation_exponent(const ValueStats& s, int bits);

// Every activation's range over all batches (per value id; non-activations stay zero), and
// with `histograms` its magnitudes' histogram.
std::vector<ValueStats> collect_stats(const Graph& g, const Probe& probe,
                                      const CalibrationBatches& batches, int threads, bool histograms);

// Per value id: max |float - q * 2^-exponent| over all batches, from the float probe and an
// integer probe of the same program (-1 where the integer probe has no output).
std::vector<double> measure_errors(const Graph& g, const Probe& float_probe, const Probe& int_probe,
                                   const CalibrationBatches& batches, int threads);

}  // namespace mlvm::quant
