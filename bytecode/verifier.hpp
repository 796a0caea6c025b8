// The verifier: proves, before anything runs, that a decoded module is well-typed and safe
// (see docs/bytecode.md, "Verification"). It is the one place that checks a module's
// structure (arity, registers, attributes, jump targets) and dataflow (registers assigned
// before use, types where paths meet, outputs at every halt), and it computes what the VM's
// planner needs: every instruction's checked attributes and result types, and the registers
// that die after each instruction.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bytecode/module.hpp"
#include "tensor/scalar.hpp"

namespace mlvm {

struct VerifyOptions {
  bool precision_check = true;    // docs/ops.md, "Integer precision"; off with --no-precision-check
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
  // Index into Module::constants: the constant at fault, or (with `instruction`) the constant
  // the instruction tried to assign.
  int32_t constant = -1;
  std::string message;       // says what was found and what was expected
};

struct VerifyResult {
  std::vector<VerifyDiagnostic> errors;  // empty when the module is valid
  // Per instruction: its attributes, checked (an empty Attrs where they are not valid).
  std::vector<Attrs> attrs;
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
  // Per ModuleGaps::literals entry: its type where its instruction reads it (present = false
  // where that instruction is not typed: unreachable, or after an error).
  std::vector<TensorType> literal_types;

  bool ok() const { return errors.empty(); }
};

// A module a front end could lower only in part, because of errors it has reported itself
// (the assembler after a syntax or name error). The verifier checks everything else as usual
// and reports nothing that only follows from a gap, so one mistake is reported once.
enum class Gap : uint8_t {
  none,
  // Its attributes could not be resolved: its structure is checked, its attributes and types
  // are not, and its results get values of unknown type.
  attributes,
  // Its op and results are known but its arguments are not: its results are checked, its
  // arguments only read (each must be assigned), its results get values of unknown type, and
  // control goes where the op says (a jmp or br whose target is -1 has no jump edge).
  operands,
  // A line that could not be read, or whose op is unknown: its arguments are only read, its
  // results get values of unknown type, its opcode is ignored and control falls through.
  unknown,
  // As `unknown`, and it may have jumped or halted: every register is of unknown value after it.
  flow,
  // A jmp or br whose label is unknown (target -1): checked as usual, but that edge leads
  // nowhere and is not followed.
  target,
};

// A constant standing for a number written as an argument (`add x, 1.5`), read by exactly one
// instruction: where it is read, its type is the dtype of the instruction's first other
// register argument, dims [1], and the precision of `value` in that dtype; a value that does
// not fit that dtype, or no other register argument, is an error on that operand. Its
// declared type and data are placeholders.
struct LiteralConstant {
  int32_t constant = -1;  // index into Module::constants
  Scalar value;
};

struct ModuleGaps {
  std::vector<Gap> code;                   // per instruction (shorter, or empty: no gap)
  std::vector<int32_t> unknown_registers;  // of unknown value from the start (a broken declaration)
  std::vector<LiteralConstant> literals;   // not gaps: hints that type literals where read

  Gap at(std::size_t pc) const { return pc < code.size() ? code[pc] : Gap::none; }
  bool any() const {
    for (Gap g : code)
      if (g != Gap::none) return true;
    return !unknown_registers.empty();
  }
};

// `gaps` (optional) describes what a front end could not lower; a module with gaps never
// runs, so its result is for diagnostics only.
VerifyResult verify_module(const Module& module, const VerifyOptions& options = {},
                           const ModuleGaps* gaps = nullptr);

// Where a diagnostic points: "instruction N (line L)", "input 'x'", "constant 'w'",
// "output 'y'" or "module".
std::string diagnostic_location(const Module& module, const VerifyDiagnostic& d);

// verify_module, throwing Error(invalid) for the first error with location
// "instruction N (line L)" (or the declaration's name).
VerifyResult verify_or_throw(const Module& module, const VerifyOptions& options = {});

}  // namespace mlvm
