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

// How the run loop hands argument k of a kernel to it. Registers are moved into the kernel's
// argument slots and (when they live on) moved back afterwards, so passing an argument costs
// no reference-count traffic: on a one-element tensor those atomic increments and decrements
// are most of an instruction's cost.
enum class ArgPass : uint8_t {
  absent,  // omitted optional input (kNoRegister): the slot stays undefined
  lend,    // the register lives on: moved in, moved back after the kernel
  take,    // the value dies here: moved in and dropped after the kernel (may be donated)
  repeat,  // the same register as an earlier argument (`add x, x`): a copy of that slot
};

struct ArgPlan {
  ArgPass pass = ArgPass::absent;
  int32_t reg = -1;    // the register read
  int32_t first = -1;  // for repeat: the earlier argument with the same register
};

struct PlannedInstruction {
  StepKind kind = StepKind::halt;
  Opcode op = Opcode::halt;
  const char* name = "";         // the op's name (points into the op table)
  KernelFn run = nullptr;        // kernels only
  const Attrs* attrs = nullptr;  // points into the module's instruction
  std::vector<int32_t> args;     // registers read (kNoRegister: omitted optional)
  std::vector<ArgPlan> arg_plan; // kernels: how each argument is passed (one per args entry)
  std::vector<int32_t> results;  // registers written
  // Distinct argument registers whose value dies here (released by the verifier, or
  // overwritten by this very instruction). A kernel takes them (ArgPass::take), so that a sole
  // owner can donate its storage; other steps (br, print) drop them afterwards.
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
