// mlvm_program: loading (file, bytes, text), the module's bytes, and the signature.
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "boundary.hpp"
#include "handles.hpp"

using namespace mlvm;
using namespace mlvm::capi;

namespace {

// The loaders share one shape: check `out`, clear it, load, hand the handle over.
template <class Load>
mlvm_status load(const char* call, mlvm_program** out, mlvm_error** err, Load&& load_program) {
  if (out) *out = nullptr;
  return guard(err, [&] {
    require(out, call, "out");
    *out = new mlvm_program{load_program()};
  });
}

const ValueInfo* value_at(const mlvm_program* p, bool input, size_t index) {
  if (!p) return nullptr;
  const Signature& signature = p->program.signature();
  const std::vector<ValueInfo>& values = input ? signature.inputs() : signature.outputs();
  return index < values.size() ? &values[index] : nullptr;
}

}  // namespace

extern "C" {

mlvm_status mlvm_program_load_file(const char* path, mlvm_program** out, mlvm_error** err) {
  return load("mlvm_program_load_file", out, err, [&] {
    require(path, "mlvm_program_load_file", "path");
    return Program::load_file(path);
  });
}

mlvm_status mlvm_program_load_bytes(const void* data, size_t size, mlvm_program** out,
                                    mlvm_error** err) {
  return load("mlvm_program_load_bytes", out, err, [&] {
    require(data, "mlvm_program_load_bytes", "data");
    return Program::load_bytes(std::span<const uint8_t>(static_cast<const uint8_t*>(data), size));
  });
}

mlvm_status mlvm_program_assemble(const char* text, size_t length, const char* filename,
                                  mlvm_program** out, mlvm_error** err) {
  return load("mlvm_program_assemble", out, err, [&] {
    require(text, "mlvm_program_assemble", "text");
    // `length` bytes, not a C string: the text need not end with a NUL.
    return Program::assemble(std::string_view(text, length), filename ? filename : "<memory>");
  });
}

void mlvm_program_free(mlvm_program* program) { delete program; }

const char* mlvm_program_name(const mlvm_program* program) {
  if (!program) return "";
  return program->program.name().c_str();
}

mlvm_status mlvm_program_to_bytes(const mlvm_program* program, void* buffer, size_t capacity,
                                  size_t* size, mlvm_error** err) {
  if (size) *size = 0;
  return guard(err, [&] {
    require(program, "mlvm_program_to_bytes", "program");
    require(size, "mlvm_program_to_bytes", "size");
    // Encoding is deterministic and cheap next to loading; a cached copy would double the
    // memory of every handle for a call hosts make once.
    const std::vector<uint8_t> bytes = program->program.to_bytes();
    *size = bytes.size();
    if (!buffer) return;  // the host asks for the size
    if (capacity < bytes.size())
      usage("mlvm_program_to_bytes: the module needs " + std::to_string(bytes.size()) +
            " bytes, the buffer holds " + std::to_string(capacity));
    std::memcpy(buffer, bytes.data(), bytes.size());
  });
}

size_t mlvm_program_input_count(const mlvm_program* program) {
  return program ? program->program.signature().inputs().size() : 0;
}

size_t mlvm_program_output_count(const mlvm_program* program) {
  return program ? program->program.signature().outputs().size() : 0;
}

const char* mlvm_program_input_name(const mlvm_program* program, size_t index) {
  const ValueInfo* v = value_at(program, true, index);
  return v ? v->name.c_str() : nullptr;
}

const char* mlvm_program_output_name(const mlvm_program* program, size_t index) {
  const ValueInfo* v = value_at(program, false, index);
  return v ? v->name.c_str() : nullptr;
}

// Out of range (or a NULL program): MLVM_F32, the enum's 0. C cannot hold a value outside
// the enum portably, so the host checks the index against the count, as for the name.
mlvm_dtype mlvm_program_input_dtype(const mlvm_program* program, size_t index) {
  const ValueInfo* v = value_at(program, true, index);
  return v ? from_dtype(v->dtype) : MLVM_F32;
}

mlvm_dtype mlvm_program_output_dtype(const mlvm_program* program, size_t index) {
  const ValueInfo* v = value_at(program, false, index);
  return v ? from_dtype(v->dtype) : MLVM_F32;
}

size_t mlvm_program_input_rank(const mlvm_program* program, size_t index) {
  const ValueInfo* v = value_at(program, true, index);
  return v && !v->scalar ? size_t(v->shape.rank()) : 0;  // a declared scalar: rank 0
}

const int64_t* mlvm_program_input_shape(const mlvm_program* program, size_t index) {
  const ValueInfo* v = value_at(program, true, index);
  return v ? v->shape.data() : nullptr;
}

size_t mlvm_program_output_rank(const mlvm_program* program, size_t index) {
  const ValueInfo* v = value_at(program, false, index);
  return v && !v->scalar ? size_t(v->shape.rank()) : 0;  // a declared scalar: rank 0
}

const int64_t* mlvm_program_output_shape(const mlvm_program* program, size_t index) {
  const ValueInfo* v = value_at(program, false, index);
  return v ? v->shape.data() : nullptr;
}

}  // extern "C"
