// A verified, planned module: immutable after construction, shared by every run of it.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "bytecode/module.hpp"
#include "bytecode/verifier.hpp"
#include "mlvm/signature.hpp"
#include "vm/plan.hpp"

namespace mlvm {

struct CompiledProgram;

// A program made per run: an imported model whose control flow depends on input dims it
// leaves open (an ONNX If whose branches differ in rank), or whose nodes need the values of
// small inputs (STFT's frame_step fed as an input), is imported again with each run's dims
// (and those values) fixed, by the loader's `make` (the VM knows no front end). The last few
// programs are kept, by input shapes and those values, for every session of the program.
class Specializer {
 public:
  // A program for a run's inputs, and the positions of the inputs whose values it depends on
  // (`by_value` as given, or more: then every program is keyed by those from now on).
  struct Made {
    std::shared_ptr<const CompiledProgram> program;
    std::vector<std::size_t> by_value;
  };
  using Make = std::function<Made(std::span<const Tensor> inputs, const std::vector<std::size_t>& by_value)>;
  // `why` completes "imported again for each run's ..." in messages (Program::to_bytes).
  Specializer(Make make, std::vector<std::size_t> by_value, std::string why)
      : make_(std::move(make)), by_value_(std::move(by_value)), why_(std::move(why)) {}
  // The program for these inputs' shapes and values (made now, or kept from an earlier run).
  std::shared_ptr<const CompiledProgram> get(std::span<const Tensor> inputs) const;
  const std::string& why() const { return why_; }

 private:
  struct Key {
    std::vector<Dims> shapes;
    std::string values;  // the by_value inputs' dtypes and bytes
    bool operator==(const Key&) const = default;
  };
  Key key_of(std::span<const Tensor> inputs) const;
  static constexpr std::size_t kKept = 8;
  Make make_;
  mutable std::vector<std::size_t> by_value_;
  std::string why_;
  mutable std::mutex mutex_;
  mutable std::vector<std::pair<Key, std::shared_ptr<const CompiledProgram>>> kept_;
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
