#include "assembler/assembler.hpp"

namespace mlvm {

// Placeholders until the assembler lands.
std::string Diagnostic::render() const { return file + ":" + std::to_string(line) + ":" + std::to_string(col) + ": error: " + message; }
AssembleResult assemble(std::string_view, const std::string& file_name, const AssembleOptions&) {
  AssembleResult r;
  r.diagnostics.push_back(Diagnostic{file_name, 0, 0, "assembler is not implemented yet", ""});
  return r;
}
Module assemble_or_throw(std::string_view, const std::string&, const AssembleOptions&) { fail_invalid("assembler is not implemented yet"); }
AssembleResult assemble_file(const std::string& path, const AssembleOptions& o) { return assemble("", path, o); }

}  // namespace mlvm
