// The C API's boundary: where C++ exceptions become an mlvm_status and an mlvm_error. Every
// exported call that can fail runs its body inside `guard`, so no exception ever reaches C.
#pragma once

#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <string_view>
#include <utility>

#include "mlvm/dtype.hpp"
#include "mlvm/error.hpp"
#include "mlvm/mlvm.h"

namespace mlvm::capi {

// Hands `status` and `message` to the caller through `err` (when err is not NULL) and returns
// the status actually reported: when the error object itself cannot be allocated, the caller
// gets a preallocated MLVM_ERR_NOMEM error instead, so the status and *err always agree.
mlvm_status report(mlvm_error** err, mlvm_status status, std::string_view message,
                   int line = 0) noexcept;
// As report, for a message that needs no allocation to build (the out-of-memory path).
mlvm_status report_no_memory(mlvm_error** err) noexcept;

// Argument checks inside a guarded body: a wrong argument is a usage error, as in C++.
[[noreturn]] inline void usage(const std::string& message) {
  throw Error(ErrorKind::usage, message);
}
template <class T>
inline void require(const T* p, const char* call, const char* what) {
  if (!p) usage(std::string(call) + ": " + what + " is NULL");
}

// An error of the C++ API with the C call's name in front of its message, as the C API's
// own messages have (and `hint` after it, when given).
inline Error in_call(const char* call, const Error& e, const std::string& hint = {}) {
  return Error(e.kind(), std::string(call) + ": " + e.message() + hint, e.location());
}

mlvm_status status_of(ErrorKind kind);

// Runs `body` (returning void) and maps whatever it throws. `cancelled`, when given, is set by
// the body when the limit error it throws was the host's mlvm_session_cancel, decided by the
// session's own token (a cancelled run and a step or memory limit are both Error(limit)).
template <class Body>
mlvm_status guard(mlvm_error** err, Body&& body, const bool* cancelled = nullptr) noexcept {
  if (err) *err = nullptr;
  try {
    body();
    return MLVM_OK;
  } catch (const Error& e) {
    try {
      if (e.kind() == ErrorKind::limit && cancelled && *cancelled) {
        // describe() would say "limit"; the host asked for this stop, so say "cancelled".
        const std::string where = e.location().empty() ? std::string() : e.location() + ": ";
        return report(err, MLVM_ERR_CANCELLED, where + "cancelled: " + e.what(), e.line());
      }
      return report(err, status_of(e.kind()), e.describe(), e.line());
    } catch (...) {  // describe() or line() could not allocate
      return report_no_memory(err);
    }
  } catch (const std::bad_alloc&) {
    return report_no_memory(err);
  } catch (const std::exception& e) {
    // Not an mlvm::Error: a failure inside mlvm itself. The interpreter reports such a
    // failure in a kernel as a trap ("internal error"); the boundary says the same.
    try {
      return report(err, MLVM_ERR_TRAP, std::string("internal error: ") + e.what());
    } catch (...) {
      return report_no_memory(err);
    }
  } catch (...) {
    return report(err, MLVM_ERR_TRAP, "internal error: an unknown exception");
  }
}

// The C enum's value, read without loading it as an enum: a host may pass any int, and in
// C++ an out-of-range enum value is undefined behaviour (UBSan's -fsanitize=enum).
template <class Enum>
inline int raw_value(const Enum& e) {
  static_assert(sizeof(Enum) == sizeof(int), "C enums are int-sized on every supported ABI");
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

// C dtype <-> C++ DType (the same order by design; checked in errors.cpp). to_dtype takes the
// raw_value of the host's argument: Error(usage) for a value outside the enum.
DType to_dtype(int dtype, const char* call);
mlvm_dtype from_dtype(DType dtype);

}  // namespace mlvm::capi
