#include "tensor/storage.hpp"

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "tensor/buffer_pool.hpp"
#include "tensor/error.hpp"
#include "tensor/huge_pages.hpp"

namespace mlvm {

namespace {
constexpr std::size_t kAlign = 64;
alignas(kAlign) std::byte g_empty_storage[kAlign];
}  // namespace

void MemoryBudget::reserve(int64_t bytes) {
  int64_t now = live_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  if (now > limit_) {
    live_.fetch_sub(bytes, std::memory_order_relaxed);
    fail(ErrorKind::limit, "memory limit exceeded: a tensor of " + std::to_string(bytes) +
                               " bytes, with " + std::to_string(now - bytes) +
                               " bytes already live, would exceed the memory limit of " +
                               std::to_string(limit_) + " bytes");
  }
  reserved_.fetch_add(bytes, std::memory_order_relaxed);
  int64_t p = peak_.load(std::memory_order_relaxed);
  while (now > p && !peak_.compare_exchange_weak(p, now, std::memory_order_relaxed)) {
  }
}

std::shared_ptr<Storage> Storage::allocate(int64_t bytes, std::shared_ptr<MemoryBudget> budget) {
  if (bytes < 0) fail_invalid("negative allocation size");
  if (budget) budget->reserve(bytes);
  std::shared_ptr<Storage> s(new Storage());
  s->budget_ = std::move(budget);
  s->bytes_ = bytes;
  if (bytes == 0) {
    s->data_ = g_empty_storage;
    s->writable_ = false;  // nothing to write
    return s;
  }
  std::size_t rounded = (std::size_t(bytes) + kAlign - 1) / kAlign * kAlign;
  // Under AddressSanitizer buffers are never reused, so that a use after free is still caught.
#if !defined(__SANITIZE_ADDRESS__)
  if (s->budget_ && s->budget_->pool()) {
    s->pool_ = s->budget_->pool();
    if (std::byte* reused = s->pool_->take(rounded, s->capacity_)) {
      s->data_ = reused;
      return s;
    }
  }
#endif
  void* p = huge_page_alloc(rounded);
  if (!p) {
    // Under the budget but refused by the system: the limit is larger than what is free.
    const std::string budget_note =
        s->budget_ ? " (" + std::to_string(s->budget_->live() - bytes) +
                         " bytes live, under a memory limit of " +
                         std::to_string(s->budget_->limit()) + " bytes)"
                   : "";
    if (s->budget_) s->budget_->release(bytes);
    s->budget_.reset();
    s->pool_.reset();
    s->bytes_ = 0;
    fail(ErrorKind::limit, "out of memory: the system refused a tensor of " +
                               std::to_string(bytes) + " bytes" + budget_note);
  }
  s->data_ = static_cast<std::byte*>(p);
  s->capacity_ = huge_page_capacity(rounded);
  return s;
}

std::shared_ptr<Storage> Storage::allocate_zeroed(int64_t bytes, std::shared_ptr<MemoryBudget> budget) {
  auto s = allocate(bytes, std::move(budget));
  if (bytes > 0) std::memset(s->data_, 0, std::size_t(bytes));
  return s;
}

std::shared_ptr<Storage> Storage::borrow(void* data, int64_t bytes, bool writable,
                                         std::shared_ptr<void> keepalive) {
  if (bytes < 0) fail(ErrorKind::usage, "borrowed memory has a negative size");
  if (!data && bytes > 0) fail(ErrorKind::usage, "borrowed memory is null");
  std::shared_ptr<Storage> s(new Storage());
  s->data_ = data ? static_cast<std::byte*>(data) : g_empty_storage;
  s->bytes_ = bytes;
  s->writable_ = writable && bytes > 0;
  s->origin_ = StorageOrigin::borrowed;
  s->keepalive_ = std::move(keepalive);
  return s;
}

Storage::~Storage() {
  if (origin_ == StorageOrigin::allocated && bytes_ > 0) {
    if (!pool_ || !pool_->give(data_, capacity_)) huge_page_free(data_);
  }
  if (budget_) budget_->release(bytes_);
}

}  // namespace mlvm
