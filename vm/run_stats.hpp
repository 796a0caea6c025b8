// What one run measured: the interpreter fills it, Session::last_stats() hands it to hosts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mlvm {

struct OpTiming {
  std::string op;
  int64_t count = 0;
  double seconds = 0;
  int64_t bytes = 0;  // bytes the op's kernels allocated (counted by the run's memory budget)
};

struct RunStats {
  int64_t steps = 0;          // instructions executed
  double seconds = 0;         // time spent in the run loop (not input checks)
  int64_t peak_bytes = 0;     // peak live bytes the run's budget saw
  std::vector<OpTiming> ops;  // with SessionOptions::profile: per op kind, slowest first
};

}  // namespace mlvm
