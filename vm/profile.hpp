// A profiled run's counters (SessionOptions::profile): per step, how often it ran and the
// ticks it took, on a clock cheap enough to read around every kernel step. A stretch of small
// steps (vm/small_steps.cpp) keeps running in the interpreter's tight loop and is timed as a
// whole, each step getting a share by its element count: reading a clock around a step of a
// few nanoseconds would cost more than the step, and the profile of a small-op model would
// mostly show the clock. The per-op and per-instruction tables are built after the run,
// outside the time the run reports.
#pragma once

#include <cstdint>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#else
#include <chrono>
#endif

#include "mlvm/session.hpp"
#include "vm/plan.hpp"

namespace mlvm {

// The time stamp counter where there is one (a few cycles to read; constant-rate on the CPUs
// that run x86-64 servers), else the steady clock. Turned into seconds per run by the run's own
// steady-clock duration.
inline uint64_t profile_ticks() {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#else
  return uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
}

class StepProfile {
 public:
  // Readies the counters for a run of `steps` steps. They are zeroed by the report of the run
  // before (outside the time a run reports), here only after a run that ended early.
  void start(std::size_t steps) {
    if (per_step_.size() != steps || dirty_) {
      per_step_.assign(steps, Counter{});
      stretches_.clear();
    }
    dirty_ = true;
  }

  // Step pc ran once in `ticks`, and the tensor storage reserved grew by `bytes`.
  void step(std::size_t pc, uint64_t ticks, int64_t bytes) {
    Counter& c = per_step_[pc];
    c.count += 1;
    c.ticks += ticks;
    c.bytes += bytes;
  }

  // Steps [first, last) ran once each, as one stretch of small steps taking `ticks`; shared
  // out among them when the run is reported.
  void stretch(std::size_t first, std::size_t last, uint64_t ticks) { stretches_.push_back({first, last, ticks}); }

  // stats.ops (per op kind) and stats.instructions (per kernel step), slowest first, with
  // ticks turned into seconds at `seconds_per_tick`; the counters are zeroed for the next run.
  void report(const ExecPlan& plan, double seconds_per_tick, RunStats& stats);

 private:
  struct Counter {
    int64_t count = 0;
    uint64_t ticks = 0;
    int64_t bytes = 0;
  };
  struct Stretch {
    std::size_t first, last;
    uint64_t ticks;
  };
  // Each step of the stretches gets a run and a share of its stretch's ticks by element count.
  void share_stretches(const std::vector<SmallStep>& small);

  std::vector<Counter> per_step_;
  std::vector<Stretch> stretches_;
  bool dirty_ = false;  // a run started and was not reported
};

}  // namespace mlvm
