// Program's loaders (include/mlvm/program.hpp) over the front ends: assembling text, importing
// ONNX and CVM models, and opening a file by its kind. Each front end verifies the module it
// makes and hands back the verifier's result with it, so a loaded program is verified once.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
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

ValueInfo value_info(const OnnxValue& v) {
  return ValueInfo{v.name, v.type.dtype, v.type.dims, 0, v.scalar};
}

// A model imported per run (vm/compiled.hpp, Specializer): its If branches are chosen by input
// dims it leaves open (TorchScript's `If (dim == 1) Squeeze else Identity`), as ONNX Runtime
// decides them per run, or its nodes need the values of small inputs (`value_inputs`: STFT's
// frame_step fed as an input). Each run's dims, and those values, are fixed and the model
// imported again. `bytes` is the model (kept for the runs).
Program per_run_onnx(std::shared_ptr<const std::vector<uint8_t>> bytes, OnnxImportOptions options,
                     const std::vector<OnnxValue>& inputs, const std::vector<OnnxValue>& outputs,
                     const std::vector<std::string>& value_inputs, const std::string& name) {
  auto p = std::make_shared<CompiledProgram>();
  p->module.name = name;
  std::vector<ValueInfo> ins, outs;
  for (const OnnxValue& v : inputs) ins.push_back(value_info(v));
  for (const OnnxValue& v : outputs) outs.push_back(value_info(v));
  p->signature = Signature(name, ins, outs);
  std::vector<std::string> names;
  std::vector<std::size_t> by_value;
  for (const OnnxValue& v : inputs) {
    if (std::find(value_inputs.begin(), value_inputs.end(), v.name) != value_inputs.end())
      by_value.push_back(names.size());
    names.push_back(v.name);
  }
  std::string why = "input shapes (an If in it chooses by dims its inputs leave open); fix the input shapes "
                    "(input_shapes, --input-shape NAME=D0,D1,...) to get one";
  if (!value_inputs.empty()) {
    why = "values of input";
    for (std::size_t k = 0; k < value_inputs.size(); ++k)
      why += (k ? ", '" : (value_inputs.size() > 1 ? "s '" : " '")) + value_inputs[k] + "'";
    why += " (nodes in it need them at import: their outputs' dims depend on them)";
  }
  // Each import may find that more inputs' values are needed (a node reads several: STFT's
  // frame_step, then its frame_length): they are added and the import tried again.
  p->specializer = std::make_shared<Specializer>(
      [bytes, options, names, ins](std::span<const Tensor> inputs, const std::vector<std::size_t>& by_value) {
        OnnxImportOptions o = options;
        for (std::size_t k = 0; k < names.size() && k < inputs.size(); ++k)
          if (!ins[k].scalar)
            o.input_shapes[names[k]] = std::vector<int64_t>(inputs[k].shape().begin(), inputs[k].shape().end());
        for (std::size_t k : by_value)
          if (k < inputs.size()) o.input_values[names[k]] = inputs[k];
        OnnxImport made = import_giving_values(
            [&](const OnnxImportOptions& given) { return import_onnx(*bytes, given); }, o,
            [&](const OnnxValue& in) -> std::optional<Tensor> {
              for (std::size_t k = 0; k < names.size() && k < inputs.size(); ++k)
                if (names[k] == in.name) return inputs[k];
              return std::nullopt;
            });
        std::vector<std::size_t> known;
        for (std::size_t k = 0; k < names.size(); ++k)
          if (o.input_values.count(names[k])) known.push_back(k);
        return Specializer::Made{CompiledProgram::from_verified(std::move(made.module), std::move(made.verified)),
                                 known};
      },
      by_value, why);
  return ProgramAccess::make(std::move(p));
}

std::string model_name(const std::string& path) {
  std::string stem = std::filesystem::path(path).stem().string();
  return stem.empty() ? "onnx_model" : stem;
}

// An import, or the model made per run when its branches depend on open input dims.
template <typename Import, typename Bytes>
Program onnx_program(Import import, Bytes bytes, OnnxImportOptions options, const std::string& name) {
  try {
    OnnxImport imported = import();
    if (!imported.shape_dependent)
      return program_from_verified(std::move(imported.module), std::move(imported.verified));
    return per_run_onnx(bytes(), options, imported.inputs, imported.outputs, {}, name);
  } catch (const OnnxShapeDependent& e) {
    return per_run_onnx(bytes(), options, e.inputs, e.outputs, e.value_inputs, name);
  }
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
    OnnxImportOptions o = onnx_options(options);
    std::filesystem::path p(path);
    o.model_dir = p.has_parent_path() ? p.parent_path().string() : ".";
    return onnx_program(
        [&] { return import_onnx_file(path, o); },
        [&] {
          std::shared_ptr<Storage> s = read_file_storage(path);
          const auto* b = reinterpret_cast<const uint8_t*>(s->data());
          return std::make_shared<const std::vector<uint8_t>>(b, b + s->bytes());
        },
        o, model_name(path));
  } catch (const Error& e) {
    rethrow_in(e, path);
  }
}

Program Program::from_onnx_bytes(std::span<const uint8_t> bytes, const LoadOptions& options) {
  return onnx_program([&] { return import_onnx(bytes, onnx_options(options)); },
                      [&] { return std::make_shared<const std::vector<uint8_t>>(bytes.begin(), bytes.end()); },
                      onnx_options(options), "onnx_model");
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
