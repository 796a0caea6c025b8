// The execution plan: everything the run loop needs per instruction, resolved once after
// verification, so that executing an instruction does no lookups (no op-table search, no
// attribute resolution, no liveness analysis).
//
// It is laid out for the cache: one 64-byte PlannedInstruction per instruction, its register
// lists in one shared pool, its result types interned. A program of 10,000 one-element
// instructions then touches about 1 MB, not the ~4 MB of per-instruction vectors, which
// matters as soon as the host does anything else between runs.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bytecode/module.hpp"
#include "bytecode/verifier.hpp"
#include "kernels/fused_activation.hpp"
#include "kernels/op_api.hpp"

namespace mlvm {

// fused: an activation folded into the kernel step before it (vm/fuse.cpp); runs nothing.
// small: a kernel step the run loop may do itself, in place (vm/small_steps.cpp).
enum class StepKind : uint8_t { kernel, jmp, br, halt, print, fused, small, trap };

// No static type for this result (the verifier saw none).
inline constexpr int32_t kNoType = -1;

struct alignas(64) PlannedInstruction {  // one cache line each
  KernelFn run = nullptr;        // kernels only
  const Attrs* attrs = nullptr;  // points into the verifier's result (VerifyResult::attrs)
  // The register lists, consecutive in ExecPlan::regs from `regs`:
  //   args        registers read (kNoRegister: omitted optional); kernels read them in place
  //   results     registers written
  //   dying       distinct argument registers whose value dies here (released by the
  //               verifier, or overwritten by this very instruction), dropped after it; while
  //               a kernel runs such a register may be its storage's only owner and so
  //               donate that storage to the result
  //   release     registers to drop after the instruction (the verifier's release_after
  //               minus dying)
  //   result types  one ExecPlan::types index per result, or kNoType
  uint32_t regs = 0;
  uint32_t num_args = 0, num_results = 0, num_dying = 0, num_release = 0;
  // Bit k: argument k's register is dying and appears only once among the arguments.
  uint32_t may_donate = 0;
  int32_t target = -1;  // jmp/br
  uint32_t line = 0;    // source line, 0 if unknown
  // The imported model's node ("Conv 'conv1'") from Module::origins, or null; points into the
  // module, which outlives the plan.
  const char* origin = nullptr;
  Opcode op = Opcode::halt;
  StepKind kind = StepKind::halt;
  // This step's entry in ExecPlan::extras (what the passes after planning gave it: prepared
  // constants, a fused activation, a placement), or -1: the run loop reads a side table only
  // for the steps that have something there.
  int32_t extra = -1;

  const int32_t* args(const int32_t* pool) const { return pool + regs; }
  const int32_t* results(const int32_t* pool) const { return args(pool) + num_args; }
  const int32_t* dying(const int32_t* pool) const { return results(pool) + num_results; }
  const int32_t* release(const int32_t* pool) const { return dying(pool) + num_dying; }
  const int32_t* result_types(const int32_t* pool) const { return release(pool) + num_release; }
  const char* name() const { return op_info(op).name.c_str(); }  // for messages
};
static_assert(sizeof(PlannedInstruction) == 64, "a planned instruction is one cache line");

// A concatenation whose parts are written straight into their slices of its result
// (vm/place.cpp): the first part's step allocates the result, each part's step gets its
// slice as the kernel's destination, and the concatenate finds its inputs in place.
struct PlacedConcat {
  DType dtype = DType::f32;
  Dims dims;                   // the concatenation's result
  std::vector<Dims> parts;     // each part's shape, in argument order
  std::vector<int64_t> at;     // each part's first element in the result
};

// What a step does with a placed concatenation: writes part `part` of `group`, or (part -1)
// is the group's concatenate.
struct Placement {
  int32_t group = -1;
  int32_t part = -1;
};

// An elementwise step on a few elements whose result may be written over a dying argument
// (vm/small_steps.cpp). When at run time that argument's register is the only owner of
// contiguous, writable storage and the operands are contiguous, the run loop calls the SIMD
// run its kernel would call, straight on the registers' data, and the argument's tensor
// becomes the result; otherwise the step runs its kernel as usual.
//
// The entry holds all the run loop needs, so that a stretch of small steps reads nothing
// else: on a program of one-element instructions, the bytes of plan a run reads are what its
// time depends on once the host has used the caches in between. Two to a cache line.
struct alignas(32) SmallStep {
  int16_t n = 0;          // elements of the result (and of the donor); 0: not a small step
  bool releases = false;  // the step has registers to release (its PlannedInstruction's)
  bool unary = false;     // y = op(a), else y = a op b
  uint8_t op = 0;         // simd::UnaryOp or simd::BinaryOp: its run in simd::ew_kernels()
  uint8_t elem = 0;       // simd::Elem
  uint8_t splat = 0;      // simd::Splat (binary)
  int32_t a = 0, b = -1;  // argument registers (b: binary only)
  int32_t donor = 0;      // the argument register whose storage becomes the result
  int32_t result = 0;     // the result register
  // The other argument register whose value dies here (-1: none): all the step's dying
  // registers are the donor and this one.
  int32_t also_dying = -1;
};
static_assert(sizeof(SmallStep) == 32, "two small steps to a cache line");

// What the passes after planning give a kernel step, beyond its PlannedInstruction.
struct StepExtras {
  // What its kernel prepared from constant inputs (kernels/prepare.hpp: packed weights),
  // shared by every session of the program; null when nothing was.
  std::shared_ptr<const void> prepared;
  std::optional<FusedActivation> activation;  // fused into it (vm/fuse.cpp)
  Placement placement;                        // its role in a placed concatenation (vm/place.cpp)
};

struct ExecPlan {
  std::vector<PlannedInstruction> code;
  std::vector<int32_t> regs;      // every instruction's register lists
  std::vector<TensorType> types;  // distinct result types (precision dropped: not checked)
  int32_t num_registers = 0;
  int max_args = 0, max_results = 0;
  // The steps' extras, each step's at its PlannedInstruction::extra.
  std::vector<StepExtras> extras;
  std::vector<PlacedConcat> concats;
  // Per instruction, its small step (n = 0 for the others); empty when there is none. A table
  // of its own, not an extra: a stretch of small steps reads only these 32-byte entries.
  std::vector<SmallStep> small;

  // Step pc's extras, or null when it has none.
  const StepExtras* extras_of(std::size_t pc) const {
    return code[pc].extra >= 0 ? &extras[std::size_t(code[pc].extra)] : nullptr;
  }
  // Step pc's extras, made empty when it had none.
  StepExtras& extras_for(std::size_t pc) {
    if (code[pc].extra < 0) {
      code[pc].extra = int32_t(extras.size());
      extras.emplace_back();
    }
    return extras[std::size_t(code[pc].extra)];
  }
};

// Builds the plan of a module that verify_module accepted (`verified` is its result). The plan
// points into `verified` (its checked attributes), which must outlive it and not move.
ExecPlan build_plan(const Module& module, const VerifyResult& verified);

// Per step (and one past the last), whether some jmp or br lands on it: such a step can be
// reached without the one before it, so the passes below join steps only where none lands
// between them.
std::vector<bool> jump_targets(const Module& module, std::size_t steps);

// Whether register r is among the `count` registers from `first` (a step's list in ExecPlan::regs).
inline bool lists_register(const int32_t* first, uint32_t count, int32_t r) {
  for (uint32_t k = 0; k < count; ++k)
    if (first[k] == r) return true;
  return false;
}

// Folds each relu, clip or silu (sigmoid then mul) that alone reads a conv2d, dense or
// matmul's float result into that instruction (vm/fuse.cpp); build_plan calls it last.
void fuse_activations(ExecPlan& plan, const Module& module);

// Finds the concatenations whose parts can be written in place (vm/place.cpp) and fills the
// steps' placements (StepExtras) and plan.concats; build_plan calls it after fuse_activations.
void place_concatenations(ExecPlan& plan, const Module& module);

// Turns the elementwise kernel steps that may run in place on a few elements into small
// steps (vm/small_steps.cpp); build_plan calls it last, after the passes above.
void plan_small_steps(ExecPlan& plan, const VerifyResult& verified);

// Runs the preparers of the plan's instructions over their constant inputs (`constants`, one
// per module constant) and fills the steps' StepExtras::prepared. A preparer that fails leaves
// its instruction unprepared: preparing only saves work.
void prepare_constants(ExecPlan& plan, const Module& module, const std::vector<Tensor>& constants);

// "instruction 4 (line 9)" or "instruction 4" when the line is unknown; with an origin,
// "instruction 4 (Conv 'conv1')".
std::string instruction_location(std::size_t pc, uint32_t line, const char* origin = nullptr);

}  // namespace mlvm
