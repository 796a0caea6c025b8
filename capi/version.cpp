// The C API's version and status names (include/mlvm/mlvm.h).
#include "boundary.hpp"
#include "mlvm/mlvm.h"
#include "mlvm/version.hpp"

extern "C" {

const char* mlvm_version(void) { return mlvm::version(); }

const char* mlvm_status_name(mlvm_status status) {
  // The int, not the enum: a host may pass any value (an out-of-range enum is UB in C++).
  switch (mlvm::capi::raw_value(status)) {
    case MLVM_OK: return "ok";
    case MLVM_ERR_USAGE: return "usage";
    case MLVM_ERR_IO: return "io";
    case MLVM_ERR_MALFORMED: return "malformed";
    case MLVM_ERR_INVALID: return "invalid";
    case MLVM_ERR_TRAP: return "trap";
    case MLVM_ERR_LIMIT: return "limit";
    case MLVM_ERR_CANCELLED: return "cancelled";
    case MLVM_ERR_NOMEM: return "nomem";
  }
  return "unknown";
}

}  // extern "C"
