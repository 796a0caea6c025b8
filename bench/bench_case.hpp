// One benchmark case on the mlvm side: a program assembled once, a Session with a chosen
// thread count, and inputs made once. Only Session::run is ever timed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <mlvm/mlvm.hpp>

namespace mlvm::bench {

struct Timing {
  double seconds_per_run = 0;  // wall time of Session::run, averaged over the batch
  double loop_seconds = 0;     // the run loop alone (RunStats::seconds) of the last run
  int64_t peak_bytes = 0;      // peak live bytes the last run allocated
  int64_t steps = 0;           // instructions the last run executed
  int64_t allocated_bytes = 0; // tensor storage the last run allocated (0: all in place)
};

class BenchCase {
 public:
  // `input_specs` as in input_spec.hpp; every program input must be given exactly once.
  BenchCase(const std::string& program_path, int threads, const std::vector<std::string>& input_specs);

  // Runs the program `batch` times back to back and returns the mean wall time of one
  // Session::run call (outputs are dropped after each run, outside the timed call). A batch
  // > 1 is for rows far below the clock's useful resolution (views).
  Timing time(int batch);
  // Runs once, untimed, and writes output `name` to `path` for the peer comparison.
  void dump(const std::string& name, const std::string& path);
  // "SHAPE STRIDES OFFSET MODE" of output `name` after one run, e.g. "[2, 3] [1, 2] 0 view".
  std::string describe(const std::string& name);
  // Binds output `name` to a buffer of its own (Session::bind_output), shaped by one untimed
  // run: from then on every run writes that output in place.
  void bind(const std::string& name);

 private:
  std::size_t output_index(const std::string& name) const;

  Program program_;
  Session session_;
  std::vector<Tensor> inputs_;  // in the order of Program::inputs()
  std::vector<Tensor> bound_;   // destinations of bound outputs, kept alive here
};

}  // namespace mlvm::bench
