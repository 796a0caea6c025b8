// The assembler: .mlasm text -> a verified Module, with diagnostics a person is glad to read
// ("file:line:col: error: ..." + the source line + a caret).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bytecode/module.hpp"
#include "bytecode/verifier.hpp"

namespace mlvm {

struct AssembleOptions {
  VerifyOptions verify;  // precision checks, as mlvm-asm's flags set them
  std::string base_dir;  // where load("x.npy") paths are resolved; "" = the file's folder
  int max_errors = 20;   // report at most this many independent errors
};

struct Diagnostic {
  std::string file;
  int line = 0;  // 1-based; 0 when the error has no position
  int col = 0;   // 1-based, counted in bytes
  std::string message;
  std::string source_line;  // the offending line's text (a window of it when very long)
  int source_col = 0;       // caret column within source_line (1-based); 0: same as col
  // "file:line:col: error: message\n  source line\n  ^"
  std::string render() const;
};

struct AssembleResult {
  std::optional<Module> module;         // set when there were no errors
  std::vector<Diagnostic> diagnostics;  // every independent error found (up to max_errors)
  // The verifier's result for `module` (set with it): checked attributes, types and liveness
  // per instruction, for --print-types and for planning without verifying again.
  VerifyResult verify;
  bool ok() const { return module.has_value() && diagnostics.empty(); }
};

// Never throws for anything in `source`; I/O problems with load("...") become diagnostics.
AssembleResult assemble(std::string_view source, const std::string& file_name,
                        const AssembleOptions& options = {});

// assemble(), throwing Error(invalid) whose message is every rendered diagnostic when it fails.
Module assemble_or_throw(std::string_view source, const std::string& file_name,
                         const AssembleOptions& options = {});

// Reads `path` (Error(io) if unreadable) and assembles it with base_dir = its folder.
AssembleResult assemble_file(const std::string& path, const AssembleOptions& options = {});

}  // namespace mlvm
