// mlvm::Error is public (mlvm/error.hpp); these are the layers' shorthands for throwing it.
#pragma once

#include "mlvm/error.hpp"

namespace mlvm {

[[noreturn]] void fail(ErrorKind kind, std::string message);
[[noreturn]] inline void fail_invalid(std::string message) { fail(ErrorKind::invalid, std::move(message)); }
[[noreturn]] inline void fail_trap(std::string message) { fail(ErrorKind::trap, std::move(message)); }

}  // namespace mlvm
