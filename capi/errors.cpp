// mlvm_error: a status, the whole message and the source line, handed to the host through
// `mlvm_error** err`. Also the kind -> status and dtype mappings every other file uses.
#include <string>

#include "boundary.hpp"
#include "mlvm/dtype.hpp"

struct mlvm_error {
  mlvm_status status;
  std::string message;
  int line;
};

namespace mlvm::capi {

namespace {

// Out of memory must still be reportable when nothing more can be allocated: one error made
// at load time, shared, and never freed (mlvm_error_free recognises it).
mlvm_error g_no_memory{MLVM_ERR_NOMEM,
                       "out of memory: the system refused an allocation", 0};

}  // namespace

mlvm_status report(mlvm_error** err, mlvm_status status, std::string_view message,
                   int line) noexcept {
  if (!err) return status;
  try {
    *err = new mlvm_error{status, std::string(message), line};
    return status;
  } catch (...) {
    return report_no_memory(err);
  }
}

mlvm_status report_no_memory(mlvm_error** err) noexcept {
  if (err) *err = &g_no_memory;
  return MLVM_ERR_NOMEM;
}

mlvm_status status_of(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::usage: return MLVM_ERR_USAGE;
    case ErrorKind::io: return MLVM_ERR_IO;
    case ErrorKind::malformed: return MLVM_ERR_MALFORMED;
    case ErrorKind::invalid: return MLVM_ERR_INVALID;
    case ErrorKind::trap: return MLVM_ERR_TRAP;
    case ErrorKind::limit: return MLVM_ERR_LIMIT;
  }
  return MLVM_ERR_TRAP;  // a kind added to C++ but not here: still an error, never OK
}

// The C enum lists the dtypes in DType's order; if either changes, this stops compiling.
static_assert(int(MLVM_F32) == int(DType::f32) && int(MLVM_F64) == int(DType::f64) &&
              int(MLVM_I8) == int(DType::i8) && int(MLVM_U8) == int(DType::u8) &&
              int(MLVM_I16) == int(DType::i16) && int(MLVM_I32) == int(DType::i32) &&
              int(MLVM_I64) == int(DType::i64) && int(MLVM_BOOL) == int(DType::boolean));

DType to_dtype(int v, const char* call) {
  if (v < int(MLVM_F32) || v > int(MLVM_BOOL))
    usage(std::string(call) + ": " + std::to_string(v) + " is not an mlvm_dtype");
  return DType(v);
}

mlvm_dtype from_dtype(DType dtype) { return mlvm_dtype(int(dtype)); }

}  // namespace mlvm::capi

extern "C" {

mlvm_status mlvm_error_status(const mlvm_error* err) {
  // No error is no failure: a host may pass what a successful call left in *err.
  return err ? err->status : MLVM_OK;
}

const char* mlvm_error_message(const mlvm_error* err) { return err ? err->message.c_str() : ""; }

int mlvm_error_line(const mlvm_error* err) { return err ? err->line : 0; }

void mlvm_error_free(mlvm_error* err) {
  if (err != &mlvm::capi::g_no_memory) delete err;
}

}  // extern "C"
