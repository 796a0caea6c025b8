// The one error type of mlvm. Every failure a user or a file can cause is reported as an
// mlvm::Error carrying a kind, so hosts and tools can tell "your bytes are broken" from
// "your program is wrong" from "your data broke a rule at run time".
#pragma once

#include <ostream>
#include <stdexcept>
#include <string>

namespace mlvm {

enum class ErrorKind {
  usage,      // bad option or API misuse by the host (tools exit 1)
  io,         // a file cannot be read or written (tools exit 1)
  malformed,  // bytes that do not decode: a module or a .npy file (tools exit 2)
  invalid,    // a well-formed program that breaks a static rule (tools exit 2)
  trap,       // a data-dependent failure at run time (tools exit 3)
  limit,      // a resource limit was hit: memory, steps, cancellation (tools exit 4)
};

const char* error_kind_name(ErrorKind kind);
inline std::ostream& operator<<(std::ostream& os, ErrorKind k) { return os << error_kind_name(k); }

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string message, std::string location = {})
      : std::runtime_error(message), kind_(kind), location_(std::move(location)) {}

  ErrorKind kind() const { return kind_; }
  // Where it happened: "file:line:col", "byte 123", "instruction 4 (line 9)"; may be empty.
  const std::string& location() const { return location_; }
  std::string message() const { return what(); }
  // "location: kind: message" — what a tool prints.
  std::string describe() const;

 private:
  ErrorKind kind_;
  std::string location_;
};

[[noreturn]] void fail(ErrorKind kind, std::string message);
[[noreturn]] inline void fail_invalid(std::string message) { fail(ErrorKind::invalid, std::move(message)); }
[[noreturn]] inline void fail_trap(std::string message) { fail(ErrorKind::trap, std::move(message)); }

}  // namespace mlvm
