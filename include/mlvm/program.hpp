// Program: a verified, planned module, ready to run. Immutable once made, cheap to copy
// (copies share it) and safe to share between any number of threads.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mlvm/dims.hpp"
#include "mlvm/dtype.hpp"
#include "mlvm/export.hpp"
#include "mlvm/signature.hpp"

namespace mlvm {

struct CompiledProgram;  // internal

// How a program is checked and imported when it is loaded. Every field has the tools' default.
struct LoadOptions {
  // Integer precision (docs/ops.md, "Integer precision"): checked unless turned off; strict
  // makes every integer op prove its result fits (mlvm-asm --strict-precision).
  bool precision_check = true;
  bool strict_precision = false;
  // .mlasm: where load("x.npy") paths are resolved ("" = the file's folder).
  std::string base_dir;
  // .onnx: fixed dims for graph inputs by name (mlvm-onnx --input-shape NAME=D0,D1,...).
  std::map<std::string, std::vector<int64_t>> input_shapes;
};

class MLVM_API Program {
 public:
  // Assembles .mlasm text. `filename` names it in diagnostics (and is where load("x.npy")
  // paths are resolved from unless options.base_dir says otherwise). Error(invalid) carries
  // every diagnostic, the first one's position as its location.
  static Program assemble(std::string_view text, const std::string& filename = "<memory>",
                          const LoadOptions& options = {});
  // A file by its extension: .mlasm assembled, .onnx imported (docs/onnx.md), anything else
  // decoded as a module (.mlbc). Error(io) when it cannot be read; Error(malformed/invalid)
  // located in the file otherwise.
  static Program load_file(const std::string& path, const LoadOptions& options = {});
  // Module bytes (.mlbc): Error(malformed) when they do not decode, Error(invalid) when the
  // module breaks a static rule.
  static Program load_bytes(std::span<const uint8_t> bytes, const LoadOptions& options = {});
  // An ONNX model from a file or from bytes (../shared/spec/onnx.md).
  static Program from_onnx(const std::string& path, const LoadOptions& options = {});
  static Program from_onnx_bytes(std::span<const uint8_t> bytes, const LoadOptions& options = {});
  // A CVM runtime model: graph JSON + binary params (docs/cvm.md). The program takes `data`
  // (i8 or i32 with the graph's precision) and is verified with strict precision, so it is
  // proven free of overflow. Error(io), or Error(malformed/invalid) located in either file.
  static Program from_cvm(const std::string& symbol_path, const std::string& params_path,
                          const LoadOptions& options = {});
  static Program from_cvm_bytes(std::span<const uint8_t> symbol_json,
                                std::span<const uint8_t> params, const LoadOptions& options = {});

  Program() = default;  // empty: valid() is false, every other call is Error(usage)
  bool valid() const { return impl_ != nullptr; }

  const std::string& name() const;  // .program NAME; "" when unnamed
  // Inputs and outputs by name, and the check of a host's inputs (made once, when loaded;
  // it lives as long as the program).
  const Signature& signature() const;
  std::vector<ValueInfo> inputs() const;  // signature().inputs()
  // Types as the verifier inferred them where the program halts.
  std::vector<ValueInfo> outputs() const;
  // The module in the .mlbc format (deterministic: the same program gives the same bytes).
  std::vector<uint8_t> to_bytes() const;

 private:
  explicit Program(std::shared_ptr<const CompiledProgram> impl) : impl_(std::move(impl)) {}
  const CompiledProgram& impl() const;
  std::shared_ptr<const CompiledProgram> impl_;
  friend class Session;
  friend struct ProgramAccess;  // vm/program_access.hpp: the tools' way in
};

}  // namespace mlvm
