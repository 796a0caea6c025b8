// Opening a program by its kind: the one place that picks the assembler, an importer or the
// decoder for a file. Program's loaders (include/mlvm/program.hpp) are defined on it, and the
// tools use it where they need more than a Program (every assembler diagnostic as written).
// Not installed.
#pragma once

#include <string>
#include <vector>

#include "assembler/assembler.hpp"
#include "mlvm/program.hpp"

namespace mlvm {

// A file by its extension: .mlasm assembled, .onnx imported, a CVM model is two files
// (Program::from_cvm), anything else decoded as a module (.mlbc). Errors are those of
// Program::load_file. When the assembler rejects an .mlasm file and `diagnostics` is not
// null, it also receives every diagnostic, for a tool that prints each with its source line.
Program open_program_file(const std::string& path, const LoadOptions& options = {},
                          std::vector<Diagnostic>* diagnostics = nullptr);

// An assembler's result as a Program: a successful one is planned without verifying again
// (the assembler ran the verifier); a failed one is Error(invalid) located at the first
// diagnostic's "file:line:col", with every diagnostic in its message (`name` locates it when
// there are none).
Program program_from_assembly(AssembleResult result, const std::string& name);

}  // namespace mlvm
