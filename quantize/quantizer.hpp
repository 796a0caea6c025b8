// mlvm-quantize's library entry point: a float program and calibration samples in, an integer
// program in the CVM discipline out (i8 activations, i32 accumulators, cvm_right_shift
// requantization, cvm_clip), verified with strict precision: every integer is proven to fit.
// docs/quantize.md describes the method, the report and the limits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bytecode/module.hpp"
#include "mlvm/program.hpp"
#include "quantize/report.hpp"
#include "tensor/tensor.hpp"

namespace mlvm::quant {

// QuantizeOptions::input_noise for `--layer-input-bits auto`: where PP-OCRv4's recognizer reads
// 7 of docs/quantize.md's 8 evaluation lines like the float program (8 reads 6), its detector
// agrees on 99.56 % of pixels and ResNet-18 and MobileNet-V2 keep cosines above 0.9997.
inline constexpr double kAutoInputNoise = 16.0;

struct QuantizeOptions {
  // The f32 input (or f32 constant, e.g. a program's baked-in test images) to quantize; "" =
  // the program's only f32 input.
  std::string input;
  int64_t max_samples = 0;       // calibration samples used; 0: all
  int threads = 0;               // kernel threads for the calibration runs; 0: all cores
  bool measure_errors = true;    // run both programs once more for the report's errors
  // Instructions kept in float even when they have an integer lowering: shell-style patterns
  // matched against op names, result registers and origins (ONNX node names); see
  // PlanOptions.
  std::vector<std::string> keep_float;
  // Pointwise chains (ops of one activation and scalar constants: a hard-swish as Add, Clip,
  // Mul, Div) become one lookup table; off, each op is lowered on its own.
  bool pointwise_tables = true;
  // The widest (8..16 bits) a conv2d or dense input is held where its accumulator has room:
  // more bits, less rounding error; 8 keeps every such layer on the i8 kernels (faster).
  int layer_input_bits = 16;
  // When > 0, a conv2d or dense still reads an 8-bit input where rounding it adds at most
  // this many times the result's own 8-bit rounding noise (input_rounding_noise): the wide
  // inputs only where they pay (`--layer-input-bits auto`).
  double input_noise = 0;
  // How an 8-bit activation's power-of-two scale is chosen: the finest that holds its
  // calibrated maximum, or (least_squares) the one of the least squared error over the
  // calibration values, which clips rare large values (activation_exponent).
  bool least_squares_scales = false;
  // The bits of every layer's weights: 8 (|q| <= 127), or 7 (|q| <= 63), which CPUs without
  // VNNI (AVX2) multiply by any i8 activation with vpmaddubsw, the activation shifted to u8,
  // without the sign trick's extra instruction: faster there, at a bit of weight precision
  // (ONNX Runtime's quantizer calls it reduce_range).
  int weight_bits = 8;
};

struct QuantizeResult {
  Module module;                    // verified: precision checked, strictly
  std::vector<LayerReport> layers;  // the input first, then each layer in program order
  std::string input;                // the activation input's name
  int64_t samples = 0;              // calibration samples used
};

// Ops without an integer lowering run in float (their rows in `layers` say why). Error(invalid)
// for a program the quantizer cannot handle (naming the instruction), for
// samples that do not fit the input (saying what was expected), and for an integer program
// the verifier cannot prove (naming the float layer). The program must outlive the call.
QuantizeResult quantize_program(const Program& program, const Tensor& samples,
                                const QuantizeOptions& options = {});

// As quantize_program, reading the samples from a .npy, or from a .npz member named after the
// input (or its only member). Errors about the samples are located at `calibration_path`.
QuantizeResult quantize_program(const Program& program, const std::string& calibration_path,
                                const QuantizeOptions& options = {});

}  // namespace mlvm::quant
