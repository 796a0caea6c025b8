// The execution plan: everything the run loop needs per instruction, resolved once after
// verification, so that executing an instruction does no lookups (no op-table search, no
// attribute resolution, no liveness analysis).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bytecode/module.hpp"
#include "bytecode/verifier.hpp"

namespace mlvm {

enum class StepKind : uint8_t { kernel, jmp, br, halt, print };

struct PlannedInstruction {
  StepKind kind = StepKind::halt;
  Opcode op = Opcode::halt;
  const char* name = "";         // the op's name (points into the op table)
  KernelFn run = nullptr;        // kernels only
  const Attrs* attrs = nullptr;  // points into the module's instruction
  std::vector<int32_t> args;     // registers read (kNoRegister: omitted optional)
  std::vector<int32_t> results;  // registers written
  // Distinct argument registers whose value dies here (released by the verifier, or
  // overwritten by this very instruction): the run loop drops them before calling the kernel
  // so that a sole owner can donate its storage.
  std::vector<int32_t> dying_args;
  // Bit k: argument k's register is in dying_args and appears only once among the arguments.
  uint32_t may_donate = 0;
  // Registers to drop after the instruction (VerifyResult::release_after minus dying_args).
  std::vector<int32_t> release;
  // The verified static types of the results (empty when the verifier saw none).
  std::vector<TensorType> result_types;
  int32_t target = -1;  // jmp/br
  uint32_t line = 0;    // source line, 0 if unknown
};

struct ExecPlan {
  std::vector<PlannedInstruction> code;
  int32_t num_registers = 0;
};

// Builds the plan of a module that verify_module accepted (`verified` is its result).
ExecPlan build_plan(const Module& module, const VerifyResult& verified);

// "instruction 4 (line 9)" or "instruction 4" when the line is unknown.
std::string instruction_location(std::size_t pc, uint32_t line);

}  // namespace mlvm
