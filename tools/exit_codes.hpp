// The tools' exit codes, one table for mlvm-asm, mlvm-dis and mlvm-run (docs/language.md,
// "Exit codes"): 0 success, 1 usage or file error, 2 malformed or invalid program or input,
// 3 run-time trap, 4 a limit.
#pragma once

#include "tensor/error.hpp"

namespace mlvm::tools {

enum ExitCode : int { kExitOk = 0, kExitUsage = 1, kExitInvalid = 2, kExitTrap = 3, kExitLimit = 4 };

inline int exit_code_of(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::usage:
    case ErrorKind::io:
      return kExitUsage;
    case ErrorKind::malformed:
    case ErrorKind::invalid:
      return kExitInvalid;
    case ErrorKind::trap:
      return kExitTrap;
    case ErrorKind::limit:
      return kExitLimit;
  }
  return kExitUsage;
}

}  // namespace mlvm::tools
