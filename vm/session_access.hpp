// A Session whose runs count their memory against a budget the host shares (mlvm-run counts
// the .npy inputs it read against the same --max-memory). Not installed.
#pragma once

#include <memory>

#include "mlvm/session.hpp"
#include "tensor/storage.hpp"

namespace mlvm {

struct SessionAccess {
  // Every run of the session is counted against `budget`, with what the host also counts on it;
  // RunStats::peak_bytes is then the peak above what was live when the run began.
  static Session with_budget(Program program, SessionOptions options,
                             std::shared_ptr<MemoryBudget> budget) {
    Session s(std::move(program), std::move(options));
    s.budget_ = std::move(budget);
    return s;
  }
};

}  // namespace mlvm
