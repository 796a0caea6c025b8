// The embedding API (include/mlvm/mlvm.hpp): Program and Session over the interpreter.
#include <algorithm>

#include "kernels/thread_pool.hpp"

#include <system_error>
#include "mlvm/mlvm.hpp"
#include "vm/compiled.hpp"
#include "vm/interpreter.hpp"
#include "vm/render.hpp"

namespace mlvm {

namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Assembler diagnostics as one Error(invalid): located at the first diagnostic's
// "file:line:col", with its message, followed by the others fully rendered.
[[noreturn]] void throw_diagnostics(const AssembleResult& r, const std::string& name) {
  if (r.diagnostics.empty()) throw Error(ErrorKind::invalid, "assembly failed", name);
  const Diagnostic& first = r.diagnostics.front();
  std::string loc = first.file.empty() ? name : first.file;
  if (first.line) {
    loc += ':';
    loc += std::to_string(first.line);
    loc += ':';
    loc += std::to_string(first.col);
  }
  std::string msg = first.message;
  for (std::size_t k = 1; k < r.diagnostics.size(); ++k) {
    msg += '\n';
    msg += r.diagnostics[k].render();
  }
  throw Error(ErrorKind::invalid, msg, loc);
}

// Imported integer arithmetic wraps as ONNX's does; no precision proof is claimed for it.
VerifyOptions onnx_verify_options() {
  VerifyOptions o;
  o.precision_check = false;
  return o;
}

}  // namespace

const char* version() {
#ifdef MLVM_VERSION_STRING
  return MLVM_VERSION_STRING;
#else
  return "unknown";
#endif
}

void print_tensor(std::ostream& os, std::string_view name, const Tensor& t) {
  render_tensor(os, name, t);
}

// --- Program ---------------------------------------------------------------------------------

Program Program::assemble(std::string_view source, const std::string& name,
                          const AssembleOptions& options) {
  AssembleResult r = mlvm::assemble(source, name, options);
  if (!r.ok()) throw_diagnostics(r, name);
  // The assembler verified the module (with options.verify): its result is the plan's input.
  return Program(CompiledProgram::from_verified(std::move(*r.module), std::move(r.verify)));
}

Program Program::assemble_file(const std::string& path, const AssembleOptions& options) {
  AssembleResult r = mlvm::assemble_file(path, options);
  if (!r.ok()) throw_diagnostics(r, path);
  return Program(CompiledProgram::from_verified(std::move(*r.module), std::move(r.verify)));
}

Program Program::load(std::span<const uint8_t> bytes, const VerifyOptions& options) {
  return Program(CompiledProgram::compile(decode_module(bytes), options));
}

Program Program::load_file(const std::string& path, const VerifyOptions& options) {
  // Constants are used in place: the module's bytes stay alive as long as a constant does.
  std::shared_ptr<Storage> storage = read_file_storage(path);
  try {
    std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(storage->data()),
                                   std::size_t(storage->bytes()));
    return Program(CompiledProgram::compile(decode_module(bytes, storage), options));
  } catch (const Error& e) {
    // Name the file: "prog.mlbc: byte 12" / "prog.mlbc: instruction 3 (line 7)".
    throw Error(e.kind(), e.what(), e.location().empty() ? path : path + ": " + e.location());
  }
}

Program Program::from_onnx(const std::string& path, const OnnxImportOptions& options) {
  try {
    return from_module(import_onnx_file(path, options).module, onnx_verify_options());
  } catch (const Error& e) {
    throw Error(e.kind(), e.what(), e.location().empty() ? path : path + ": " + e.location());
  }
}

Program Program::from_onnx(std::span<const uint8_t> bytes, const OnnxImportOptions& options) {
  return from_module(import_onnx(bytes, options).module, onnx_verify_options());
}

Program Program::open(const std::string& path) {
  if (ends_with(path, ".mlasm")) return assemble_file(path);
  if (ends_with(path, ".onnx")) return from_onnx(path);
  return load_file(path);
}

Program Program::from_module(Module module, const VerifyOptions& options) {
  return Program(CompiledProgram::compile(std::move(module), options));
}

const CompiledProgram& Program::impl() const {
  if (!impl_)
    throw Error(ErrorKind::usage, "empty Program (made by Program() rather than assemble/load)");
  return *impl_;
}

const std::string& Program::name() const {
  return impl().module.name;
}
const Module& Program::module() const {
  return impl().module;
}
std::vector<uint8_t> Program::to_bytes() const {
  return encode_module(impl().module);
}

std::vector<ValueInfo> Program::inputs() const {
  std::vector<ValueInfo> v;
  for (const InputDecl& d : impl().module.inputs) v.push_back({d.name, d.type});
  return v;
}

std::vector<ValueInfo> Program::outputs() const {
  const CompiledProgram& p = impl();
  std::vector<ValueInfo> v;
  for (std::size_t k = 0; k < p.module.outputs.size(); ++k) {
    const OutputDecl& d = p.module.outputs[k];
    TensorType t = k < p.verified.output_types.size() ? p.verified.output_types[k] : d.type;
    v.push_back({d.name, t});
  }
  return v;
}

// --- Session ---------------------------------------------------------------------------------

Session::Session(Program program, SessionOptions options)
    : program_(std::move(program)), options_(std::move(options)) {
  if (!program_.valid()) throw Error(ErrorKind::usage, "Session needs a loaded Program");
  if (options_.threads < 0) throw Error(ErrorKind::usage, "threads must be >= 0 (0: all cores)");
  if (options_.max_memory < 0) throw Error(ErrorKind::usage, "max_memory must be >= 0");
  if (options_.max_steps < 0) throw Error(ErrorKind::usage, "max_steps must be >= 0 (0: no limit)");
  interpreter_ = std::make_unique<Interpreter>(program_.impl_);
  try {
    pool_ = std::make_unique<ThreadPool>(options_.threads);
  } catch (const std::system_error& e) {  // the OS refused the worker threads
    throw Error(ErrorKind::limit, "cannot start " + std::to_string(options_.threads) +
                                      " threads: " + e.what());
  }
}

Session::~Session() = default;
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;

std::vector<Tensor> Session::run(std::span<const Tensor> inputs) {
  if (!interpreter_) throw Error(ErrorKind::usage, "Session was moved from");
  ExecEnv env;
  env.pool = pool_.get();
  env.budget =
      options_.budget ? options_.budget : std::make_shared<MemoryBudget>(options_.max_memory);
  env.cancel = options_.cancel ? options_.cancel->flag() : nullptr;
  RunConfig config;
  config.max_steps = options_.max_steps;
  config.print = options_.print;
  config.profile = options_.profile;
  const int64_t live_before = env.budget->live();
  if (options_.budget) env.budget->reset_peak();
  stats_ = RunStats{};
  std::vector<Tensor> out = interpreter_->run(inputs, env, config, &stats_);
  stats_.peak_bytes = env.budget->peak() - (options_.budget ? live_before : 0);
  return out;
}

TensorMap Session::run(const TensorMap& inputs) {
  const Module& m = program_.module();
  // A wrong name is fixed in the host's call: say which program, and every input it declares.
  const std::string program =
      "program " + (m.source_name.empty() ? m.name : m.source_name);
  std::string declared;
  for (const InputDecl& d : m.inputs)
    declared += (declared.empty() ? "" : ", ") + d.name + " : " + d.type.to_string();
  if (declared.empty()) declared = "none";
  std::vector<Tensor> ordered(m.inputs.size());
  for (const auto& entry : inputs) {
    // Not a structured binding: clang 14 cannot capture one in the lambda below.
    const std::string& name = entry.first;
    auto it = std::find_if(m.inputs.begin(), m.inputs.end(),
                           [&](const InputDecl& d) { return d.name == name; });
    if (it == m.inputs.end())
      throw Error(ErrorKind::usage,
                  "unknown input " + name + ": " + program + " declares the inputs " + declared,
                  "input " + name);
    ordered[std::size_t(it - m.inputs.begin())] = entry.second;
  }
  for (std::size_t k = 0; k < m.inputs.size(); ++k)
    if (!ordered[k].defined())
      throw Error(ErrorKind::usage,
                  "missing input " + m.inputs[k].name + " : " + m.inputs[k].type.to_string() +
                      ": " + program + " declares the inputs " + declared,
                  "input " + m.inputs[k].name);
  std::vector<Tensor> out = run(std::span<const Tensor>(ordered));
  TensorMap result;
  for (std::size_t k = 0; k < out.size(); ++k) result.emplace(m.outputs[k].name, std::move(out[k]));
  return result;
}

}  // namespace mlvm
