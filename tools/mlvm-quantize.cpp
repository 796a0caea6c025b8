// mlvm-quantize: a float model (.mlbc, .mlasm or .onnx) and calibration samples (.npy/.npz)
// -> an integer module in the CVM discipline, proven overflow-free with strict precision
// (docs/quantize.md). Exit codes: tools/exit_codes.hpp (0 ok, 1 usage or file error, 2 a model
// or calibration file the quantizer cannot use, or an integer program it cannot prove).
#include <algorithm>
#include <boost/program_options.hpp>
#include <cctype>
#include <cmath>

#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>

#include "mlvm/mlvm.hpp"
#include "mlvm/version.hpp"
#include "quantize/quantizer.hpp"
#include "tools/exit_codes.hpp"
#include "tools/parse_args.hpp"
#include "tools/write_asm.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;
using namespace mlvm;
using namespace mlvm::tools;

namespace {

// Where an error is: the calibration file's errors carry its path; the quantizer's carry an
// instruction of the model ("instruction 3 (line 17)"), which is put in the model's file.
std::string located(const Error& e, const std::string& model, const std::string& calib) {
  const std::string& loc = e.location();
  if (loc.empty()) return model;
  if (loc.rfind(calib, 0) == 0 || loc.rfind(model, 0) == 0) return loc;
  return model + ": " + loc;
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description visible(
      "Usage: mlvm-quantize MODEL (.mlbc|.mlasm|.onnx) --calib FILE.npy|FILE.npz [options]\n\n"
      "Quantizes a float model to the CVM integer discipline (i8 activations, i32 accumulators,\n"
      "cvm_right_shift requantization), calibrated on the samples, and proves the result\n"
      "overflow-free (strict precision). Ops without an integer lowering run in float between a\n"
      "dequantization and a quantization (--report lists them). The program keeps the model's\n"
      "inputs and outputs.\n\nOptions");
  std::ostringstream default_noise;  // the help's default is the quantizer's own constant
  default_noise << quant::kAutoInputNoise;
  const std::string input_noise_help =
      "with --layer-input-bits auto: the most noise (a multiple of the result's own 8-bit rounding noise; the "
      "report's 'in noise') an 8-bit input may add to a layer (default " + default_noise.str() +
      "); lower keeps more layers at 16 bits";
  visible.add_options()                          //
      ("help,h", "print this help and exit")     //
      ("version", "print the version and exit")  //
      ("calib", po::value<std::string>(), "calibration samples of the input along dim 0: .npy, or .npz with an array named after the input (or only one array)")  //
      ("input", po::value<std::string>(), "the f32 input to quantize, or an f32 constant holding the data (default: the only f32 input)")  //
      ("output,o", po::value<std::string>(), "write the module here (default: MODEL_int8.mlbc beside the model)")  //
      ("emit-asm", po::value<std::string>(), "also write the integer program as .mlasm (large constants as .npy files beside it)")  //
      ("report", "print each layer's scale, shifts and the largest float-vs-integer error on the calibration set")  //
      ("keep-float", po::value<std::vector<std::string>>()->composing(), "keep these instructions in float (repeatable): a shell pattern (*, ?) matched against op names (sigmoid), result registers, and ONNX node names (/layer4/*)")  //
      ("max-samples", po::value<int64_t>(), "use at most N calibration samples (default: all)")  //
      ("layer-input-bits", po::value<std::string>()->default_value("16"), "the widest (8..16) a conv or dense input is held where its i32 accumulator has room: more bits, less error; 8, the i8 kernels (faster); auto: 16 only for the layers whose error an 8-bit input would raise (the rest on the i8 kernels)")  //
      ("input-noise", po::value<double>(), input_noise_help.c_str())  //
      ("scales", po::value<std::string>()->default_value("max"), "how an 8-bit activation's power-of-two scale is chosen: max (the finest that holds the calibrated maximum) or mse (the least squared error over the calibration values: rare large values are clipped)")  //
      ("weight-bits", po::value<int>()->default_value(8), "bits of every layer's weights: 8, or 7 (|w| <= 63), which CPUs without VNNI (AVX2) multiply with any i8 activation in fewer instructions: faster there, a bit less precise")  //
      ("threads", po::value<int>()->default_value(0), "kernel threads for the calibration runs (0: all cores)");
  po::variables_map vm;
  if (!mlvm::tools::parse_args("mlvm-quantize", argc, argv, visible, "model", vm)) return kExitUsage;
  if (vm.count("help")) {
    std::cout << visible
              << "\nExit codes: 0 ok, 1 usage or file error, 2 a model or calibration file that cannot be "
                 "used, or an integer program that cannot be proven.\n";
    return kExitOk;
  }
  if (vm.count("version")) {
    std::cout << "mlvm-quantize (mlvm) " << version() << "\n";
    return kExitOk;
  }
  if (!vm.count("model") || vm["model"].as<std::vector<std::string>>().size() != 1) {
    std::cerr << "mlvm-quantize: expected exactly one MODEL\nTry 'mlvm-quantize --help'.\n";
    return kExitUsage;
  }
  if (!vm.count("calib")) {
    std::cerr << "mlvm-quantize: --calib FILE is required (samples of the input, .npy or .npz)\n"
                 "Try 'mlvm-quantize --help'.\n";
    return kExitUsage;
  }
  const std::string model = vm["model"].as<std::vector<std::string>>()[0];
  const std::string calib = vm["calib"].as<std::string>();
  quant::QuantizeOptions options;
  if (vm.count("input")) options.input = vm["input"].as<std::string>();
  if (vm.count("keep-float")) options.keep_float = vm["keep-float"].as<std::vector<std::string>>();
  if (vm.count("max-samples")) options.max_samples = vm["max-samples"].as<int64_t>();
  options.threads = vm["threads"].as<int>();
  const std::string bits = vm["layer-input-bits"].as<std::string>();
  if (bits == "auto") {
    options.layer_input_bits = 16;
    options.input_noise = vm.count("input-noise") ? vm["input-noise"].as<double>() : quant::kAutoInputNoise;
    if (!(options.input_noise > 0) || !std::isfinite(options.input_noise)) {
      std::cerr << "mlvm-quantize: --input-noise takes a number above 0, got " << options.input_noise << "\n";
      return kExitUsage;
    }
  } else if (vm.count("input-noise")) {
    std::cerr << "mlvm-quantize: --input-noise goes with --layer-input-bits auto\n";
    return kExitUsage;
  } else {
    const bool digits = !bits.empty() && bits.size() <= 2 && std::all_of(bits.begin(), bits.end(), ::isdigit);
    options.layer_input_bits = digits ? std::stoi(bits) : 0;
    if (options.layer_input_bits < 8 || options.layer_input_bits > 16) {
      std::cerr << "mlvm-quantize: --layer-input-bits takes 8 to 16 or auto, got '" << bits << "'\n";
      return kExitUsage;
    }
  }
  const std::string scales = vm["scales"].as<std::string>();
  if (scales != "max" && scales != "mse") {
    std::cerr << "mlvm-quantize: --scales takes max or mse, got '" << scales << "'\n";
    return kExitUsage;
  }
  options.least_squares_scales = scales == "mse";
  options.weight_bits = vm["weight-bits"].as<int>();
  if (options.weight_bits != 7 && options.weight_bits != 8) {
    std::cerr << "mlvm-quantize: --weight-bits takes 7 or 8, got " << options.weight_bits << "\n";
    return kExitUsage;
  }
  options.measure_errors = vm.count("report") != 0;
  if (options.max_samples < 0 || options.threads < 0) {
    std::cerr << "mlvm-quantize: --max-samples and --threads take a number >= 0\n";
    return kExitUsage;
  }
  try {
    const Program program = Program::load_file(model);
    const quant::QuantizeResult r = quant::quantize_program(program, calib, options);
    const fs::path p(model);
    const std::string out = fs::path(p).replace_filename(p.stem().string() + "_int8.mlbc").string();
    if (vm.count("report")) {
      std::cout << "mlvm-quantize: " << model << ": input '" << r.input << "' calibrated on " << r.samples
                << " samples; scale 2^-e means value = integer * 2^-e\n";
      quant::print_report(std::cout, r.layers);
    }
    write_outputs(r.module, vm, out);
    return kExitOk;
  } catch (const Error& e) {
    std::cerr << "mlvm-quantize: " << located(e, model, calib) << ": " << error_kind_name(e.kind()) << ": "
              << e.what() << "\n";
    return exit_code_of(e.kind());
  } catch (const std::bad_alloc&) {
    std::cerr << "mlvm-quantize: out of memory\n";
    return kExitLimit;
  }
}
