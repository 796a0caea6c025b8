// The public Program (include/mlvm/program.hpp): programs from modules and module bytes, and
// what a host may ask of one. Loading by kind (text, ONNX, CVM, files) is api/load.cpp's.
#include "mlvm/program.hpp"
#include "bytecode/codec.hpp"
#include "vm/program_access.hpp"

namespace mlvm {

VerifyOptions verify_options(const LoadOptions& options) {
  VerifyOptions v;
  v.precision_check = options.precision_check;
  v.strict_precision = options.strict_precision;
  return v;
}

Program program_from_module(Module module, const VerifyOptions& options) {
  return ProgramAccess::make(CompiledProgram::compile(std::move(module), options));
}

Program program_from_verified(Module module, VerifyResult verified) {
  return ProgramAccess::make(CompiledProgram::from_verified(std::move(module), std::move(verified)));
}

Program Program::load_bytes(std::span<const uint8_t> bytes, const LoadOptions& options) {
  return Program(CompiledProgram::compile(decode_module(bytes), verify_options(options)));
}

const CompiledProgram& Program::impl() const {
  if (!impl_)
    throw Error(ErrorKind::usage, "empty Program (made by Program() rather than loaded)");
  return *impl_;
}

const std::string& Program::name() const { return impl().module.name; }

std::vector<uint8_t> Program::to_bytes() const {
  if (impl().specializer)
    throw Error(ErrorKind::usage, "program " + (name().empty() ? std::string("(unnamed)") : name()) +
                                      " is imported again for each run's " + impl().specializer->why() +
                                      ", so it has no one module to write");
  return encode_module(impl().module);
}

const Signature& Program::signature() const { return impl().signature; }

std::vector<ValueInfo> Program::inputs() const { return signature().inputs(); }

std::vector<ValueInfo> Program::outputs() const { return signature().outputs(); }

}  // namespace mlvm
