// A verified, planned module: immutable after construction, shared by every run of it.
#pragma once

#include <memory>
#include <vector>

#include "bytecode/module.hpp"
#include "bytecode/verifier.hpp"
#include "mlvm/signature.hpp"
#include "vm/plan.hpp"

namespace mlvm {

struct CompiledProgram {
  Module module;
  VerifyResult verified;
  // The inputs as declared and the outputs as the verifier typed them, made once for every
  // host face (Program::signature).
  Signature signature;
  ExecPlan plan;
  // Per constant: its value as a read-only tensor over the module's own bytes (no copy), so
  // that neither a kernel nor a host holding an output that aliases it can write into the
  // module that other runs share.
  std::vector<Tensor> constant_values;

  // Verifies `module` (Error(invalid) with the instruction location on failure) and plans it.
  static std::shared_ptr<const CompiledProgram> compile(Module module,
                                                        const VerifyOptions& options = {});
  // For a module verify_module accepted, with its result (from the front end that made it,
  // which verified it with the options it is meant for): plans it without verifying again.
  static std::shared_ptr<const CompiledProgram> from_verified(Module module, VerifyResult verified);
};

}  // namespace mlvm
