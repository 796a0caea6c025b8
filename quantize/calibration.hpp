// The calibration data: samples of the activation input, read from a .npy or .npz file,
// checked against the input's declared type and cut into the batches the float program is run
// on. Errors are Error(malformed) for an unreadable file (from the npy/npz readers) and
// Error(invalid) for data that does not fit the input, naming what was expected.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/types.hpp"
#include "tensor/tensor.hpp"

namespace mlvm::quant {

// The samples in `path`: a .npy array, or the member of a .npz archive named `input_name`
// (or its only member). Error(io) when the file cannot be read; Error(invalid) for another
// extension or a .npz without a fitting member (the members are listed).
Tensor read_calibration(const std::string& path, const std::string& input_name);

struct CalibrationBatches {
  std::vector<Tensor> batches;  // each of the input's type, f32, contiguous
  int64_t samples = 0;          // distinct samples used
};

// Samples along dim 0 (f32, or f64 converted), the other dims equal to the input's static
// ones; at most max_samples of them (0: all). An input whose dim 0 is static N runs in batches
// of N, the last one completed by repeating samples from the start (which changes no maximum);
// a `?` dim 0 runs in batches of up to 256. Every value must be finite. Error(invalid) naming
// the input, the shapes and the offending sample.
CalibrationBatches make_batches(const Tensor& samples, const TensorType& input_type,
                                const std::string& input_name, int64_t max_samples);

}  // namespace mlvm::quant
