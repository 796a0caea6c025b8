// Host memory flush against an unreadable page, to catch a kernel that touches a byte outside
// the views it is given: the allocators of the heap, the .npy loader and the sanitizers'
// redzones all leave slack after a tensor, and a read past its end lands there unseen. Here
// the byte after the last one a view reaches (or, for the second placement, the byte before
// its first one: negative strides walk downwards) is on a PROT_NONE page, so the stray access
// faults at once. Used to lend inputs to the kernel suites (op_runner.hpp), the ONNX backend
// models, the sessions and the C++ API.
//
// MLVM_TEST_GUARD=before places a tensor's bytes right after a guard page instead of right
// before one, and MLVM_TEST_THREADS=N runs the kernels on N threads where a suite gives no
// pool of its own; ctest runs the guarded suites both ways, at every SIMD level and 1 and 2
// threads (tests/CMakeLists.txt, label guard).
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "tensor/storage.hpp"
#include "tensor/tensor.hpp"

namespace mlvm::testing {

enum class GuardSide { after, before };

// The placement this run asks for: MLVM_TEST_GUARD=before, else after.
inline GuardSide guard_side() {
  const char* env = std::getenv("MLVM_TEST_GUARD");
  return env && std::strcmp(env, "before") == 0 ? GuardSide::before : GuardSide::after;
}

namespace guard_detail {
// The guarded memory alive now, by first byte: lending it again keeps it as it is (a test that
// checks an output shares its input's storage lends the input itself first).
struct Registry {
  std::mutex mu;
  std::set<const std::byte*> starts;
};
inline Registry& registry() {
  static Registry r;
  return r;
}
}  // namespace guard_detail

// The thread count this run asks for: MLVM_TEST_THREADS, else 1.
inline int test_threads() {
  const char* env = std::getenv("MLVM_TEST_THREADS");
  const int n = env ? std::atoi(env) : 1;
  return n >= 1 && n <= 64 ? n : 1;
}

// `bytes` of read-write memory with an inaccessible page directly after them (side after) or
// directly before them (side before). The mapping is released with the object.
class GuardedBytes {
 public:
  GuardedBytes(std::size_t bytes, GuardSide side) : bytes_(bytes) {
    const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
    const std::size_t body = (bytes + page - 1) / page * page;
    // A guard page on each side: whichever side the bytes sit flush against, the other one
    // catches a stray access far past them too.
    span_ = body + 2 * page;
    void* m = mmap(nullptr, span_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) throw std::bad_alloc();
    base_ = static_cast<std::byte*>(m);
    if (body && mprotect(base_ + page, body, PROT_READ | PROT_WRITE) != 0) {
      munmap(base_, span_);
      throw std::runtime_error("guard_pages: mprotect failed");
    }
    data_ = side == GuardSide::after ? base_ + page + body - bytes : base_ + page;
    std::lock_guard lock(guard_detail::registry().mu);
    guard_detail::registry().starts.insert(data_);
  }
  ~GuardedBytes() {
    {
      std::lock_guard lock(guard_detail::registry().mu);
      guard_detail::registry().starts.erase(data_);
    }
    munmap(base_, span_);
  }
  GuardedBytes(const GuardedBytes&) = delete;
  GuardedBytes& operator=(const GuardedBytes&) = delete;

  std::byte* data() const { return data_; }
  std::size_t size() const { return bytes_; }

 private:
  std::byte* base_ = nullptr;
  std::byte* data_ = nullptr;
  std::size_t span_ = 0, bytes_ = 0;
};

// A std::allocator whose every allocation is GuardedBytes of exactly n elements on the run's
// side: a guarded_vector hands a raw-pointer kernel (the GEMM core, a micro-kernel) memory
// whose neighbours fault.
template <class T>
struct GuardAllocator {
  using value_type = T;
  GuardAllocator() = default;
  template <class U>
  GuardAllocator(const GuardAllocator<U>&) {}
  T* allocate(std::size_t n) {
    auto mem = std::make_unique<GuardedBytes>(n * sizeof(T), guard_side());
    T* p = reinterpret_cast<T*>(mem->data());
    std::lock_guard lock(owners().mu);
    owners().by_data.emplace(p, std::move(mem));
    return p;
  }
  void deallocate(T* p, std::size_t) {
    std::unique_ptr<GuardedBytes> mem;
    {
      std::lock_guard lock(owners().mu);
      auto it = owners().by_data.find(p);
      if (it == owners().by_data.end()) return;
      mem = std::move(it->second);
      owners().by_data.erase(it);
    }
  }
  template <class U>
  bool operator==(const GuardAllocator<U>&) const {
    return true;
  }

 private:
  struct Owners {
    std::mutex mu;
    std::unordered_map<const void*, std::unique_ptr<GuardedBytes>> by_data;
  };
  static Owners& owners() {
    static Owners o;
    return o;
  }
};
template <class T>
using guarded_vector = std::vector<T, GuardAllocator<T>>;

// The lowest and one-past-highest element offsets (relative to element (0, ..., 0)) a layout
// reaches; {0, 0} for an empty one.
inline std::pair<int64_t, int64_t> reach(const Dims& shape, const Dims& strides) {
  int64_t lo = 0, hi = 1;
  for (int d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) return {0, 0};
    const int64_t span = (shape[d] - 1) * strides[d];
    (span < 0 ? lo : hi) += span;
  }
  return {lo, hi};
}

// Whether t's storage is guarded memory (from guarded_copy or guarded_borrow).
inline bool is_guarded(const Tensor& t) {
  if (!t.defined()) return false;
  std::lock_guard lock(guard_detail::registry().mu);
  return guard_detail::registry().starts.count(t.storage()->data()) > 0;
}

// The same values, shape, strides and mode as `t`, in memory holding exactly the bytes the
// layout reaches, flush against a guard page on `side`. Undefined tensors, and tensors in
// guarded memory already, are returned as they are.
inline Tensor guarded_copy(const Tensor& t, GuardSide side = guard_side()) {
  if (!t.defined() || is_guarded(t)) return t;
  const auto [lo, hi] = reach(t.shape(), t.strides());
  const int64_t item = t.itemsize();
  auto mem = std::make_shared<GuardedBytes>(std::size_t((hi - lo) * item), side);
  if (hi > lo) std::memcpy(mem->data(), t.raw_data() + lo * item, mem->size());
  auto storage = Storage::borrow(mem->data(), int64_t(mem->size()), t.is_writable(), mem);
  return Tensor::make_view(storage, t.dtype(), t.shape(), t.strides(), -lo, t.mode());
}

// Host memory for a tensor of `shape`, row-major, flush against a guard page: what a host
// lends through Tensor::borrow, filled from `values` (numel elements).
inline Tensor guarded_borrow(DType dtype, const Dims& shape, const void* values, bool writable,
                             GuardSide side = guard_side()) {
  int64_t n = 1;
  for (int d = 0; d < shape.size(); ++d) n *= shape[d];
  const int64_t bytes = n * int64_t(dtype_size(dtype));
  auto mem = std::make_shared<GuardedBytes>(std::size_t(bytes), side);
  if (bytes) std::memcpy(mem->data(), values, std::size_t(bytes));
  return Tensor::borrow(dtype, shape, mem->data(), bytes, writable, nullptr, mem);
}

}  // namespace mlvm::testing
