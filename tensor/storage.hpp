// Reference-counted element storage and the memory budget that bounds a run.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace mlvm {

class BufferPool;

// Live-byte accounting shared by every buffer a run allocates; enforces --max-memory.
// Thread-safe: kernels on worker threads allocate through it.
class MemoryBudget {
 public:
  explicit MemoryBudget(int64_t limit_bytes = INT64_MAX) : limit_(limit_bytes) {}
  // Reserves `bytes` or throws Error(limit) naming the request and the limit.
  void reserve(int64_t bytes);
  void release(int64_t bytes) { live_.fetch_sub(bytes, std::memory_order_relaxed); }
  int64_t live() const { return live_.load(std::memory_order_relaxed); }
  int64_t peak() const { return peak_.load(std::memory_order_relaxed); }
  int64_t limit() const { return limit_; }
  void reset_peak() { peak_.store(live(), std::memory_order_relaxed); }
  // Every byte ever reserved (never decreases): the profile charges each op the difference.
  int64_t reserved_total() const { return reserved_.load(std::memory_order_relaxed); }
  // Where buffers allocated under this budget come from and go back to (a session's pool,
  // kept across its runs); null: straight from and to the system.
  void set_pool(std::shared_ptr<BufferPool> pool) { pool_ = std::move(pool); }
  const std::shared_ptr<BufferPool>& pool() const { return pool_; }

 private:
  int64_t limit_;
  std::atomic<int64_t> live_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> reserved_{0};
  std::shared_ptr<BufferPool> pool_;
};

// Where a storage's bytes came from.
enum class StorageOrigin : uint8_t {
  allocated,  // mlvm allocated it (64-byte aligned) and frees it
  borrowed,   // host memory: mlvm never frees it; the host keeps it alive (see borrow())
};

class Storage {
 public:
  // 64-byte aligned, uninitialized; counted against `budget` when given (Error(limit) if over).
  // bytes == 0 gives a valid storage with a non-null, never-dereferenced pointer.
  static std::shared_ptr<Storage> allocate(int64_t bytes, std::shared_ptr<MemoryBudget> budget = {});
  // As allocate, zero-filled.
  static std::shared_ptr<Storage> allocate_zeroed(int64_t bytes, std::shared_ptr<MemoryBudget> budget = {});
  // Host memory used in place. Lifetime contract: the host keeps [data, data+bytes) valid
  // and unchanged-in-place-by-others for as long as any tensor made from it (or any view or
  // output sharing it) is alive. `keepalive`, if given, is held until the last user is gone,
  // so a host can tie the memory's lifetime to mlvm's references instead.
  static std::shared_ptr<Storage> borrow(void* data, int64_t bytes, bool writable,
                                         std::shared_ptr<void> keepalive = {});

  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  std::byte* data() const { return data_; }
  int64_t bytes() const { return bytes_; }
  bool writable() const { return writable_; }
  StorageOrigin origin() const { return origin_; }

 private:
  Storage() = default;
  std::byte* data_ = nullptr;
  int64_t bytes_ = 0;
  std::size_t capacity_ = 0;  // an allocated buffer's size: bytes_ rounded up, or more when reused
  bool writable_ = true;
  StorageOrigin origin_ = StorageOrigin::allocated;
  std::shared_ptr<MemoryBudget> budget_;
  std::shared_ptr<BufferPool> pool_;  // where the bytes go back to, if anywhere
  std::shared_ptr<void> keepalive_;
};

}  // namespace mlvm
