// The verifier: proves, before anything runs, that a decoded module is well-typed and safe
// (see docs/bytecode.md, "Verification"). It also computes what the VM's planner needs:
// every instruction's result types and the registers that die after each instruction.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bytecode/module.hpp"

namespace mlvm {

struct VerifyOptions {
  bool precision_check = true;    // ops.md §2; off with --no-precision-check
  bool strict_precision = false;  // --strict-precision
  int max_errors = 20;            // stop collecting after this many
};

struct VerifyDiagnostic {
  int32_t instruction = -1;  // index into Module::code, or -1 for a declaration
  int32_t operand = -1;      // which argument of the instruction is at fault (-1: the whole)
  int32_t result = -1;       // which result (destination) of the instruction is at fault
  int32_t attribute = -1;    // which attribute (declared order) is at fault (-1: none)
  int32_t output = -1;       // index into Module::outputs when an .output is at fault
  int32_t input = -1;        // index into Module::inputs
  int32_t constant = -1;     // index into Module::constants
  std::string message;       // says what was found and what was expected
};

struct VerifyResult {
  std::vector<VerifyDiagnostic> errors;  // empty when the module is valid
  // Per instruction: the inferred types of its results (empty for control ops and for
  // unreachable instructions).
  std::vector<std::vector<TensorType>> result_types;
  // Per instruction: the types of its arguments as the verifier saw them.
  std::vector<std::vector<TensorType>> arg_types;
  // Per instruction: registers whose value is dead once the instruction has run (read or
  // written there, not live afterwards on any path). The VM releases them.
  std::vector<std::vector<int32_t>> release_after;
  // Per output: its type where the program halts (joined over every halting path).
  std::vector<TensorType> output_types;

  bool ok() const { return errors.empty(); }
};

VerifyResult verify_module(const Module& module, const VerifyOptions& options = {});

// Where a diagnostic points: "instruction N (line L)", "input 'x'", "constant 'w'",
// "output 'y'" or "module".
std::string diagnostic_location(const Module& module, const VerifyDiagnostic& d);

// verify_module, throwing Error(invalid) for the first error with location
// "instruction N (line L)" (or the declaration's name).
VerifyResult verify_or_throw(const Module& module, const VerifyOptions& options = {});

}  // namespace mlvm
