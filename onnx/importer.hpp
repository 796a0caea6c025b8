// ONNX import: an ONNX model (bytes or a file) becomes an ordinary verified mlvm Module
// (../shared/spec/onnx.md). Used by mlvm-onnx, mlvm-run MODEL.onnx and Program::from_onnx.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bytecode/module.hpp"
#include "bytecode/verifier.hpp"
#include "tensor/error.hpp"
#include "tensor/tensor.hpp"

namespace mlvm {

struct OnnxImportOptions {
  // Fixed dims for graph inputs, by ONNX name or mlvm name (--input-shape NAME=D0,D1,...).
  std::map<std::string, std::vector<int64_t>> input_shapes;
  // The model's folder, where external data may be read from ("" = none may be read).
  std::string model_dir;
  // The program name when the graph has none.
  std::string default_name = "onnx_model";
  // Graph inputs whose values the import takes as known, by ONNX name: they stay declared
  // inputs of the module, and the module is right only for runs given these values (Program
  // imports such a model per run, keyed by them).
  std::map<std::string, Tensor> input_values;
};

// A graph input or output: its ONNX name, its type (a rank-0 value as [1]) and rank-0 mark.
struct OnnxValue {
  std::string name;
  TensorType type;
  bool scalar = false;
};

struct OnnxImport {
  Module module;
  // The verifier's result for `module` (without the precision proof: imported integer
  // arithmetic wraps as ONNX's does), so that running it needs no second verification.
  VerifyResult verified;
  // (ONNX name, mlvm name) for every graph input or output whose name had to change.
  std::vector<std::pair<std::string, std::string>> renamed;
  int opset = 0;           // the model's default-domain opset (after any upgrade)
  int original_opset = 0;  // as the file declared it
  // The import chose between If branches by input dims the options leave open (`?`): the
  // module holds traps where a branch could not be built, and the model is better imported
  // again with each run's input shapes fixed (Program does so).
  bool shape_dependent = false;
  // Set when nodes could be imported only with the values of these small graph inputs known
  // (STFT's frame_step, MelWeightMatrix's sizes, MaxUnpool's output_shape fed as inputs): the
  // import failed (OnnxShapeDependent), and Program imports the model per run with them fixed.
  std::vector<std::string> value_inputs;
  std::vector<OnnxValue> inputs, outputs;  // the interface, as imported
};

// An import that failed where it had to choose between If branches of different ranks by
// input dims the options leave open, or where nodes need the values of small graph inputs:
// with those dims or values fixed it may well succeed. Carries the
// interface as the model declares it. An Error(invalid) listing the nodes, as any other.
struct OnnxShapeDependent : Error {
  OnnxShapeDependent(const Error& e, const OnnxImport& partial);
  std::vector<OnnxValue> inputs, outputs;
  std::vector<std::string> value_inputs;  // empty: the input dims decide, not values
};

// Error(malformed) for bytes that are not an ONNX model (or hostile ones), Error(invalid)
// listing every node that cannot be imported.
OnnxImport import_onnx(std::span<const uint8_t> bytes, const OnnxImportOptions& options = {});
// Error(io) when the file cannot be read; model_dir defaults to the file's folder.
OnnxImport import_onnx_file(const std::string& path, OnnxImportOptions options = {});

// Runs `import` with options.input_values growing: each time it fails for want of inputs'
// values (OnnxShapeDependent::value_inputs, one at a time as the nodes ask: STFT's
// frame_step, then its frame_length), value_of(that input as declared) gives each it can
// (nullopt: none) and the import runs again; when it gives none new, the failure stands.
// `options` is left holding the values the import was given.
OnnxImport import_giving_values(const std::function<OnnxImport(const OnnxImportOptions&)>& import,
                                OnnxImportOptions& options,
                                const std::function<std::optional<Tensor>(const OnnxValue&)>& value_of);

// Every ONNX op type the importer lowers, with the opsets it accepts ("Conv", "1-17").
std::vector<std::pair<std::string, std::string>> supported_onnx_ops();

}  // namespace mlvm
