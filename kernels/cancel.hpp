// Cancellation of long kernels. The interpreter installs the run's cancel flag for the calling
// thread (CancelScope); the shared loops (for_each_run_parallel, the reductions) cut work of
// more than kCancelBlock elements into blocks and call poll_cancel() between them, so a host
// that cancels a run waits for at most one block, not for a whole 10^12-element kernel.
#pragma once

#include <atomic>
#include <cstdint>

namespace mlvm {

// Elements between two polls: about a millisecond of the slowest loops.
inline constexpr int64_t kCancelBlock = int64_t(1) << 22;

namespace detail {
inline thread_local const std::atomic<bool>* current_cancel_flag = nullptr;
}

// Error(limit) "run cancelled by the host" once the flag of the current run is set.
void poll_cancel();

// Installs `flag` (may be null) as the calling thread's cancel flag for its lifetime.
class CancelScope {
 public:
  explicit CancelScope(const std::atomic<bool>* flag) : saved_(detail::current_cancel_flag) {
    detail::current_cancel_flag = flag;
  }
  ~CancelScope() { detail::current_cancel_flag = saved_; }
  CancelScope(const CancelScope&) = delete;
  CancelScope& operator=(const CancelScope&) = delete;

 private:
  const std::atomic<bool>* saved_;
};

// Calls body(begin, end) over [0, count) outer runs of `run_length` elements each, in blocks
// of about kCancelBlock elements, polling for cancellation between blocks.
template <class Body>
void in_cancellable_blocks(int64_t count, int64_t run_length, const Body& body) {
  const int64_t per_block = run_length >= kCancelBlock ? 1 : kCancelBlock / (run_length > 0 ? run_length : 1);
  for (int64_t b = 0; b < count; b += per_block) {
    if (b > 0) poll_cancel();
    body(b, count - b < per_block ? count : b + per_block);
  }
}

}  // namespace mlvm
