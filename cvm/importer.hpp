// CVM import: a CVM runtime model — graph JSON ("symbol") + binary params — becomes an
// ordinary verified mlvm Module (../shared/spec/cvm_format.md). The one entry point for
// mlvm-cvm, mlvm-run --cvm and Program::from_cvm is import_cvm_files (import_cvm for bytes).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bytecode/module.hpp"
#include "bytecode/verifier.hpp"

namespace mlvm {

struct CvmImportOptions {
  std::string program_name = "cvm_model";
};

struct CvmImport {
  Module module;             // verified with strict precision: proven free of overflow
  VerifyResult verified;     // that verification's result: running it needs no second one
  std::string version;       // "cvm_1.0.0" or "cvm_1.1.0"
  std::string postprocess;   // "", "argmax" or "detection"
  int input_precision = -1;  // the precision the graph declares for `data` (-1: none)
  std::vector<std::string> outputs;  // the module's output names, in order
};

// Error(malformed) for bytes that do not decode (not JSON, a JSON value of the wrong type, an
// unknown key, a truncated params file, a wrong magic), located at "symbol byte N", the JSON
// path, or "params byte N"; Error(invalid) for a well-formed graph that is wrong (an unknown
// op, an id out of range, a cycle, a shape that disagrees with mlvm's inference, a parameter
// outside its precision, a program whose precision mlvm cannot prove), located at
// "symbol node N 'name'" (or at the parameter). Never anything else.
CvmImport import_cvm(std::span<const uint8_t> symbol_json, std::span<const uint8_t> params,
                     const CvmImportOptions& options = {});

// Error(io) when a file cannot be read; errors inside a file are located in it
// ("model.params: byte 40", "model.json: node 3 'conv0'").
CvmImport import_cvm_files(const std::string& symbol_path, const std::string& params_path,
                           const CvmImportOptions& options = {});

// A program name (an mlvm identifier) from a file's stem: "resnet-50" -> "resnet_50".
std::string cvm_program_name(const std::string& stem);

// Every CVM op the importer lowers (the names func_name may carry, without _<digits>).
std::vector<std::string> supported_cvm_ops();

}  // namespace mlvm
