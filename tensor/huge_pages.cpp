#include "tensor/huge_pages.hpp"

#include <cstdint>
#include <cstdlib>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace mlvm {

void advise_huge_pages(void* p, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (!p || bytes < kHugePageMinBytes) return;
  constexpr std::uintptr_t kHuge = std::uintptr_t(2) << 20;
  const auto begin = (reinterpret_cast<std::uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(kHuge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // a hint: errors ignored
#else
  (void)p;
  (void)bytes;
#endif
}

std::size_t huge_page_capacity(std::size_t bytes) noexcept {
  if (bytes >= kHugePageAllocMinBytes) return (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  return (bytes + 63) / 64 * 64;
}

void* huge_page_alloc(std::size_t bytes) noexcept {
  if (bytes == 0 || bytes > std::size_t(-1) / 2) return nullptr;
  const std::size_t capacity = huge_page_capacity(bytes);
  if (bytes < kHugePageAllocMinBytes) return std::aligned_alloc(64, capacity);
  void* p = std::aligned_alloc(kHugePageBytes, capacity);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (p) madvise(p, capacity, MADV_HUGEPAGE);  // a hint: errors ignored
#endif
  return p;
}

}  // namespace mlvm
