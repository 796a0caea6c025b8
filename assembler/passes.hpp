// The assembler's passes after parsing (internal). Each has one job:
//   resolve   names: declarations, labels, ops, attribute names (put in the op's order), the
//             jump forms `jmp LABEL` and `br COND, LABEL` (resolve.cpp);
//   lower     registers by name, and the Module — with gaps where a line could not be lowered,
//             so the verifier checks the rest without reporting what follows from an error
//             already reported — and where each of its parts came from (lower.cpp);
//   map       a verifier finding to its source position (lower.cpp).
// The verifier, called once between lower and map, does every structural and dataflow check
// (arity, registers assigned before use, types, outputs at every halt).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "assembler/parser.hpp"
#include "bytecode/module.hpp"
#include "bytecode/verifier.hpp"

namespace mlvm::asm_detail {

struct ResolvedInstruction {
  const Stmt* stmt = nullptr;
  const OpInfo* op = nullptr;  // null: an unknown op, or a line that could not be parsed
  Gap gap = Gap::none;         // what could not be resolved
  std::vector<const NameRef*> args;  // the arguments (jmp/br: the condition only)
  std::vector<AttrValue> attrs;      // in the op's order, defaults filled
  int target = -1;                   // jmp/br: the instruction index of its label (-1: unknown)
};

// A number written for a tensor argument: a one-element constant with the dtype of the op's
// other tensor argument (found by the verifier), stored like a `.const` named `name`.
struct LiteralArg {
  const NameRef* ref = nullptr;
  std::string name;  // generated, unused by the program
  Tensor value;      // f32[1] placeholder until typed
  TensorType type;
};

struct ResolvedProgram {
  std::string name;                                  // .program
  bool no_precision_check = false;                   // .no_precision_check
  std::vector<const Stmt*> inputs, constants, outputs;
  std::vector<const Stmt*> unknown_decls;            // broken .input/.const lines' names
  std::vector<ResolvedInstruction> code;
  std::vector<std::pair<int, const Stmt*>> labels;   // instruction index, label
  std::vector<LiteralArg> literals;                  // in source order
};

using Report = std::function<void(Pos, std::string)>;

// Declarations and labels are collected whatever happens; `cross_line` (false when parsing
// stopped early, so some lines were never read) enables the checks that need every line
// (label references). `stop()` says when enough errors have been reported.
ResolvedProgram resolve(const ParsedSource& parsed, bool cross_line, const Report& report,
                        const std::function<bool()>& stop);

// Names every literal argument (lit0, lit1, ...: names the program does not use), with a
// placeholder f32[1] value; lower() tells the verifier which constants they are.
void name_literals(ResolvedProgram& program, const ParsedSource& parsed);
// Gives each literal constant of `module` the dtype the verifier found where it is read
// (VerifyResult::literal_types), so `module` is the one `vr` describes.
void materialize_literals(ResolvedProgram& program, Module& module, const VerifyResult& vr);

// Where each part of the module came from.
struct SourceMap {
  struct Instruction {
    Pos op;                    // the op (or the line, when it has none)
    std::vector<Pos> args;     // per module argument
    std::vector<Pos> results;  // per module result
    std::vector<Pos> attrs;    // per attribute in the op's order: its value, or the op
  };
  std::vector<Instruction> code;
  std::vector<const Stmt*> inputs, constants, outputs;
};

struct Lowered {
  Module module;
  ModuleGaps gaps;
  SourceMap map;
};

// `source_name` goes to the module's debug section.
Lowered lower(const ResolvedProgram& program, std::string source_name);

struct MappedDiagnostic {
  Pos pos;  // {0, 0}: no position
  std::string message;
};
MappedDiagnostic map_diagnostic(const SourceMap& map, const VerifyDiagnostic& d);

}  // namespace mlvm::asm_detail
