// Program's loaders (include/mlvm/program.hpp) over the front ends: assembling text, importing
// ONNX and CVM models, and opening a file by its kind. Each front end verifies the module it
// makes and hands back the verifier's result with it, so a loaded program is verified once.
#include <memory>
#include <span>

#include "api/open.hpp"
#include "bytecode/codec.hpp"
#include "cvm/importer.hpp"
#include "onnx/importer.hpp"
#include "tensor/file_read.hpp"
#include "vm/program_access.hpp"

namespace mlvm {

namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// import_onnx_file finds the model's folder (external data) itself.
OnnxImportOptions onnx_options(const LoadOptions& options) {
  OnnxImportOptions o;
  o.input_shapes = options.input_shapes;
  return o;
}

AssembleOptions assemble_options(const LoadOptions& options) {
  AssembleOptions o;
  o.verify = verify_options(options);
  o.base_dir = options.base_dir;
  return o;
}

// Names the file in an error from inside it: "prog.mlbc: byte 12".
[[noreturn]] void rethrow_in(const Error& e, const std::string& path) {
  throw Error(e.kind(), e.what(), e.location().empty() ? path : path + ": " + e.location());
}

Program from_onnx_import(OnnxImport imported) {
  return program_from_verified(std::move(imported.module), std::move(imported.verified));
}

Program from_cvm_import(CvmImport imported) {
  return program_from_verified(std::move(imported.module), std::move(imported.verified));
}

// Constants are used in place: the module's bytes stay alive as long as a constant does.
Program open_module_file(const std::string& path, const LoadOptions& options) {
  std::shared_ptr<Storage> storage = read_file_storage(path);
  try {
    std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(storage->data()),
                                   std::size_t(storage->bytes()));
    return program_from_module(decode_module(bytes, storage), verify_options(options));
  } catch (const Error& e) {
    rethrow_in(e, path);
  }
}

}  // namespace

Program program_from_assembly(AssembleResult r, const std::string& name) {
  if (!r.ok()) {
    if (r.diagnostics.empty()) throw Error(ErrorKind::invalid, "assembly failed", name);
    // One Error(invalid): located at the first diagnostic's "file:line:col", with its
    // message, followed by the others fully rendered.
    const Diagnostic& first = r.diagnostics.front();
    std::string loc = first.file.empty() ? name : first.file;
    if (first.line) loc += ':' + std::to_string(first.line) + ':' + std::to_string(first.col);
    std::string msg = first.message;
    for (std::size_t k = 1; k < r.diagnostics.size(); ++k) msg += '\n' + r.diagnostics[k].render();
    throw Error(ErrorKind::invalid, msg, loc);
  }
  return program_from_verified(std::move(*r.module), std::move(r.verify));
}

Program open_program_file(const std::string& path, const LoadOptions& options,
                          std::vector<Diagnostic>* diagnostics) {
  if (ends_with(path, ".mlasm")) {
    AssembleResult r = assemble_file(path, assemble_options(options));
    if (!r.ok() && diagnostics) *diagnostics = r.diagnostics;
    return program_from_assembly(std::move(r), path);
  }
  if (ends_with(path, ".onnx")) return Program::from_onnx(path, options);
  return open_module_file(path, options);
}

Program Program::assemble(std::string_view text, const std::string& filename,
                          const LoadOptions& options) {
  return program_from_assembly(mlvm::assemble(text, filename, assemble_options(options)), filename);
}

Program Program::load_file(const std::string& path, const LoadOptions& options) {
  return open_program_file(path, options);
}

Program Program::from_onnx(const std::string& path, const LoadOptions& options) {
  try {
    return from_onnx_import(import_onnx_file(path, onnx_options(options)));
  } catch (const Error& e) {
    rethrow_in(e, path);
  }
}

Program Program::from_onnx_bytes(std::span<const uint8_t> bytes, const LoadOptions& options) {
  return from_onnx_import(import_onnx(bytes, onnx_options(options)));
}

// The importer proves the program free of overflow (strict precision) whatever `options` say.
Program Program::from_cvm(const std::string& symbol_path, const std::string& params_path,
                          const LoadOptions&) {
  return from_cvm_import(import_cvm_files(symbol_path, params_path));
}

Program Program::from_cvm_bytes(std::span<const uint8_t> symbol_json,
                                std::span<const uint8_t> params, const LoadOptions&) {
  return from_cvm_import(import_cvm(symbol_json, params));
}

}  // namespace mlvm
