// The one error type of mlvm. Every failure a user or a file can cause is reported as an
// mlvm::Error carrying a kind, so hosts and tools can tell "your bytes are broken" from
// "your program is wrong" from "your data broke a rule at run time".
#pragma once

#include <cstdint>
#include <ostream>
#include <stdexcept>
#include <string>

#include "mlvm/export.hpp"

namespace mlvm {

enum class ErrorKind {
  usage,      // bad option or API misuse by the host (tools exit 1)
  io,         // a file cannot be read or written (tools exit 1)
  malformed,  // bytes that do not decode: a module, an ONNX/CVM file, a .npy file (exit 2)
  invalid,    // a well-formed program that breaks a static rule (tools exit 2)
  trap,       // a data-dependent failure at run time (tools exit 3)
  limit,      // a resource limit was hit: memory, steps, cancellation (tools exit 4)
};
MLVM_API const char* error_kind_name(ErrorKind kind);  // "usage error", "trap", ...
inline std::ostream& operator<<(std::ostream& os, ErrorKind k) { return os << error_kind_name(k); }

class MLVM_API Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string message, std::string location = {})
      : std::runtime_error(message), kind_(kind), location_(std::move(location)) {}
  ErrorKind kind() const { return kind_; }
  // Where it happened: "file:line:col", "byte 123", "instruction 4 (line 9)",
  // "prog.mlbc: instruction 4 (Conv 'c1')", "input x"; may be empty.
  const std::string& location() const { return location_; }
  std::string message() const { return what(); }
  // "location: kind: message" — what a tool prints.
  std::string describe() const;

  // The location's parts, read from location(): the file ("" when none), its 1-based line and
  // column (0 when unknown) and the instruction index (-1 when the error is not at one).
  std::string file() const;
  int line() const;
  int column() const;
  int64_t instruction() const;

 private:
  ErrorKind kind_;
  std::string location_;
};

}  // namespace mlvm
