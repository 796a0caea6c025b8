// The public Program (include/mlvm/program.hpp): loading by kind, and what a host may ask.
#include <algorithm>

#include "mlvm/program.hpp"
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

// Imported integer arithmetic wraps as ONNX's does; no precision proof is claimed for it.
VerifyOptions onnx_verify_options() {
  VerifyOptions o;
  o.precision_check = false;
  return o;
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

}  // namespace

VerifyOptions verify_options(const LoadOptions& options) {
  VerifyOptions v;
  v.precision_check = options.precision_check;
  v.strict_precision = options.strict_precision;
  return v;
}

Program program_from_module(Module module, const VerifyOptions& options) {
  return ProgramAccess::make(CompiledProgram::compile(std::move(module), options));
}

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
  return ProgramAccess::make(CompiledProgram::from_verified(std::move(*r.module), std::move(r.verify)));
}

Program Program::assemble(std::string_view text, const std::string& filename,
                          const LoadOptions& options) {
  return program_from_assembly(mlvm::assemble(text, filename, assemble_options(options)), filename);
}

Program Program::load_file(const std::string& path, const LoadOptions& options) {
  if (ends_with(path, ".mlasm"))
    return program_from_assembly(mlvm::assemble_file(path, assemble_options(options)), path);
  if (ends_with(path, ".onnx")) return from_onnx(path, options);
  // Constants are used in place: the module's bytes stay alive as long as a constant does.
  std::shared_ptr<Storage> storage = read_file_storage(path);
  try {
    std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(storage->data()),
                                   std::size_t(storage->bytes()));
    return Program(CompiledProgram::compile(decode_module(bytes, storage), verify_options(options)));
  } catch (const Error& e) {
    rethrow_in(e, path);
  }
}

Program Program::load_bytes(std::span<const uint8_t> bytes, const LoadOptions& options) {
  return Program(CompiledProgram::compile(decode_module(bytes), verify_options(options)));
}

Program Program::from_onnx(const std::string& path, const LoadOptions& options) {
  try {
    return program_from_module(import_onnx_file(path, onnx_options(options)).module,
                               onnx_verify_options());
  } catch (const Error& e) {
    rethrow_in(e, path);
  }
}

Program Program::from_onnx_bytes(std::span<const uint8_t> bytes, const LoadOptions& options) {
  return program_from_module(import_onnx(bytes, onnx_options(options)).module,
                             onnx_verify_options());
}

// The importer verified the module with strict precision already; the plan verifies it again
// (one more pass over a small graph) so that a Program always holds the verifier's result.
Program Program::from_cvm(const std::string& symbol_path, const std::string& params_path,
                          const LoadOptions& options) {
  VerifyOptions strict = verify_options(options);
  strict.precision_check = true;
  strict.strict_precision = true;
  return program_from_module(import_cvm_files(symbol_path, params_path).module, strict);
}

Program Program::from_cvm_bytes(std::span<const uint8_t> symbol_json,
                                std::span<const uint8_t> params, const LoadOptions& options) {
  VerifyOptions strict = verify_options(options);
  strict.precision_check = true;
  strict.strict_precision = true;
  return program_from_module(import_cvm(symbol_json, params).module, strict);
}

const CompiledProgram& Program::impl() const {
  if (!impl_)
    throw Error(ErrorKind::usage, "empty Program (made by Program() rather than loaded)");
  return *impl_;
}

const std::string& Program::name() const { return impl().module.name; }

std::vector<uint8_t> Program::to_bytes() const { return encode_module(impl().module); }

std::vector<ValueInfo> Program::inputs() const {
  std::vector<ValueInfo> v;
  for (const InputDecl& d : impl().module.inputs) v.push_back({d.name, d.type.dtype, d.type.dims, d.type.precision});
  return v;
}

std::vector<ValueInfo> Program::outputs() const {
  const CompiledProgram& p = impl();
  std::vector<ValueInfo> v;
  for (std::size_t k = 0; k < p.module.outputs.size(); ++k) {
    const OutputDecl& d = p.module.outputs[k];
    const TensorType& t = k < p.verified.output_types.size() ? p.verified.output_types[k] : d.type;
    v.push_back({d.name, t.dtype, t.dims, t.precision});
  }
  return v;
}

std::string ValueInfo::type_string() const {
  TensorType t;
  t.dtype = dtype;
  t.dims = shape;
  t.precision = precision;
  return t.to_string();
}

std::string ValueInfo::to_string() const { return name + " : " + type_string(); }

}  // namespace mlvm
