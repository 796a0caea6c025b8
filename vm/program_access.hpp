// The tools' and importers' way past the public Program API: the module behind a Program, and
// Programs made from modules already built in memory. Not installed; hosts never need it.
#pragma once

#include "bytecode/module.hpp"
#include "bytecode/verifier.hpp"
#include "mlvm/program.hpp"
#include "vm/compiled.hpp"

namespace mlvm {

struct ProgramAccess {
  static const CompiledProgram& compiled(const Program& p) { return p.impl(); }
  static Program make(std::shared_ptr<const CompiledProgram> impl) { return Program(std::move(impl)); }
};

// The verified module a Program runs.
inline const Module& program_module(const Program& p) { return ProgramAccess::compiled(p).module; }
// Verifies a module built in memory (Error(invalid) located at the instruction).
Program program_from_module(Module module, const VerifyOptions& options = {});
// A module its front end verified, with the verifier's result (run with the options the
// module is meant for): planned without verifying again.
Program program_from_verified(Module module, VerifyResult verified);
// The verifier options that LoadOptions stands for.
VerifyOptions verify_options(const LoadOptions& options);

}  // namespace mlvm
