// A verified, planned module: immutable after construction, shared by every run of it.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "bytecode/module.hpp"
#include "bytecode/verifier.hpp"
#include "mlvm/signature.hpp"
#include "vm/plan.hpp"

namespace mlvm {

struct CompiledProgram;

// A program made per run's input shapes: an imported model whose control flow depends on
// input dims it leaves open (an ONNX If whose branches differ in rank) is imported again with
// each run's dims fixed, by the loader's `make` (the VM knows no front end). The last few
// programs are kept, by input shapes, for every session of the program to share.
class Specializer {
 public:
  using Make = std::function<std::shared_ptr<const CompiledProgram>(const std::vector<Dims>&)>;
  explicit Specializer(Make make) : make_(std::move(make)) {}
  // The program for these input shapes (made now, or kept from an earlier run).
  std::shared_ptr<const CompiledProgram> get(const std::vector<Dims>& shapes) const;

 private:
  static constexpr std::size_t kKept = 8;
  Make make_;
  mutable std::mutex mutex_;
  mutable std::vector<std::pair<std::vector<Dims>, std::shared_ptr<const CompiledProgram>>> kept_;
};

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
  // Set for a program made per run's input shapes: `signature` is the model's declared
  // interface, `module` holds only the name, and each run goes to specializer->get(shapes).
  std::shared_ptr<const Specializer> specializer;

  // Verifies `module` (Error(invalid) with the instruction location on failure) and plans it.
  static std::shared_ptr<const CompiledProgram> compile(Module module,
                                                        const VerifyOptions& options = {});
  // For a module verify_module accepted, with its result (from the front end that made it,
  // which verified it with the options it is meant for): plans it without verifying again.
  static std::shared_ptr<const CompiledProgram> from_verified(Module module, VerifyResult verified);
};

}  // namespace mlvm
