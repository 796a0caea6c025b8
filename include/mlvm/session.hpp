// Session: runs one Program. It owns the run's registers, its thread pool and its bound
// outputs. A Session is used by one thread at a time (a second thread calling run() while a
// run is in progress gets Error(usage)); give each host thread its own Session — all of them
// may run the same Program at once. cancel() may be called from any thread at any time.
#pragma once

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mlvm/export.hpp"
#include "mlvm/program.hpp"
#include "mlvm/tensor.hpp"

namespace mlvm {

class Interpreter;  // internal
class ThreadPool;   // internal
class BufferPool;   // internal

// Set from any thread to stop the runs that watch it: they end with Error(limit) at the next
// instruction (kernels that loop long check it too). reset() makes it usable again. One token
// may be shared by many sessions (SessionOptions::cancel) to stop them all.
class CancelToken {
 public:
  void cancel() { flag_.store(true, std::memory_order_relaxed); }
  void reset() { flag_.store(false, std::memory_order_relaxed); }
  bool cancelled() const { return flag_.load(std::memory_order_relaxed); }
  const std::atomic<bool>* flag() const { return &flag_; }

 private:
  std::atomic<bool> flag_{false};
};

struct SessionOptions {
  int threads = 0;                 // kernel worker threads counting the caller; 0: all cores
  int64_t max_memory = INT64_MAX;  // bytes of live storage a run may allocate (Error(limit))
  int64_t max_steps = 0;           // instructions a run may execute; 0: no limit
  // A token shared with other sessions; null: the session has its own (Session::cancel).
  std::shared_ptr<CancelToken> cancel;
  std::ostream* print = nullptr;  // where `print` instructions write; null: nowhere
  bool profile = false;           // time every instruction by op kind (RunStats::ops)
};

struct OpTiming {
  std::string op;
  int64_t count = 0;
  double seconds = 0;
  int64_t bytes = 0;  // bytes the op's kernels allocated
};

// One instruction's share of a profiled run: where the time goes inside a model.
struct InstructionTiming {
  int64_t pc = 0;      // instruction index in the module
  std::string op;      // its op
  std::string origin;  // the imported model's node ("Conv 'conv1'"), or "line N", or ""
  int64_t count = 0;   // times executed (loops run an instruction many times)
  double seconds = 0;
};

// What the last run measured. Filled after a trapped, cancelled or limited run too, up to
// where it stopped.
struct RunStats {
  bool completed = false;       // the run reached its end (false: it threw)
  int64_t steps = 0;            // instructions executed
  double seconds = 0;           // time spent in the run loop (not input checks)
  int64_t peak_bytes = 0;       // peak bytes of tensor storage live during the run
  int64_t allocated_bytes = 0;  // bytes of tensor storage the run allocated in all
  std::vector<OpTiming> ops;    // with SessionOptions::profile: per op kind, slowest first
  // With SessionOptions::profile: every executed kernel instruction, slowest first.
  std::vector<InstructionTiming> instructions;
};

using TensorMap = std::map<std::string, Tensor, std::less<>>;

class MLVM_API Session {
 public:
  // Error(usage) for an empty program or a negative option; Error(limit) when the OS refuses
  // the worker threads.
  explicit Session(Program program, SessionOptions options = {});
  ~Session();
  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;

  // Inputs by name: every input of the program exactly once (a missing or unknown name is
  // Error(usage) naming it and listing the declared inputs). Returns every output by name.
  // Outputs are the host's to keep; they may share storage with each other, with the inputs
  // (view ops) or with the program's constants (read-only), and a bound output is the host's
  // own tensor. Inputs must stay alive and unchanged until run returns.
  TensorMap run(const TensorMap& inputs);
  // Inputs by position, in the order of Program::inputs(); outputs in the order of outputs().
  std::vector<Tensor> run_positional(std::span<const Tensor> inputs);
  std::vector<Tensor> run_positional(std::initializer_list<Tensor> inputs);

  // Output binding: the named output is written into `destination` (writable, any strides,
  // typically host memory from borrow_tensor(..., writable = true)) instead of fresh storage,
  // and run() returns `destination` for it. When the destination is contiguous the op that
  // makes the output writes straight into it, so a serving loop allocates nothing for it;
  // other layouts take one copy at the end of the run. Error(usage) here for an unknown name
  // or a dtype/shape that cannot be the output's; at run time if the output's actual shape
  // differs or the destination overlaps an input.
  void bind_output(std::string_view name, Tensor destination);
  void unbind_output(std::string_view name);
  void unbind_all();

  // Stops the run in progress (or, if none is, the next one) with Error(limit): safe from any
  // thread. With a shared SessionOptions::cancel token, cancels that token (every session
  // watching it); the host resets it. The session's own token is reset when a run ends.
  void cancel();

  const RunStats& stats() const { return stats_; }
  const Program& program() const { return program_; }
  const SessionOptions& options() const { return options_; }

 private:
  std::vector<Tensor> run_ordered(std::span<const Tensor> inputs);

  Program program_;
  SessionOptions options_;
  std::shared_ptr<CancelToken> cancel_;
  std::shared_ptr<MemoryBudget> budget_;  // null: a fresh budget of max_memory per run
  std::shared_ptr<BufferPool> buffers_;   // freed tensor buffers, reused by the next runs
  std::unique_ptr<Interpreter> interpreter_;
  std::unique_ptr<ThreadPool> pool_;
  std::vector<Tensor> bound_;  // per program output; undefined: not bound
  std::unique_ptr<std::atomic<bool>> busy_;
  RunStats stats_;
  // A program made per run's input shapes: a session for each program it was made into
  // (the most recent first), which the runs go to.
  std::vector<std::unique_ptr<Session>> specialized_;
  std::vector<Tensor> run_specialized(std::span<const Tensor> inputs);
  friend struct SessionAccess;  // vm/session_access.hpp: the tools' shared memory budget
};

}  // namespace mlvm
