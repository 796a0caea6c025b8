// Large buffers backed by transparent huge pages where the system offers them on request
// (/sys/kernel/mm/transparent_hugepage/enabled = madvise, Debian's default). A model's weights
// and packed filters are tens of megabytes touched once at load: in 4 KiB pages that is
// thousands of page faults (a quarter of ResNet-18's first run), and every run afterwards walks
// thousands of TLB entries through them.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>

namespace mlvm {

inline constexpr std::size_t kHugePageBytes = std::size_t(2) << 20;

// From this size on, huge_page_alloc gives a buffer whole 2 MiB pages of its own: a 55 x 55
// layer's activations, a Winograd layer's scratch, a classifier's packed weights; from 64 KiB
// on, a block of a 2 MiB slab shared with buffers of its size class (a power of two). Each
// such buffer then lies in a handful of TLB entries instead of hundreds: a run that finds its
// caches cold (an application running a model now and then) walks the page tables of every
// 4 KiB page it touches again, and SqueezeNet ran 8% faster so. Smaller buffers, and every
// buffer under AddressSanitizer, are plain 64-byte-aligned allocations.
inline constexpr std::size_t kHugePageAllocMinBytes = std::size_t(1) << 20;

#if defined(__SANITIZE_ADDRESS__)
// AddressSanitizer sees each buffer at its own size: no rounding, no slabs, whose blocks would
// hide a kernel's overflow into the next one.
inline constexpr bool kHugePagesUsed = false;
#else
inline constexpr bool kHugePagesUsed = true;
#endif

// What huge_page_alloc reserves for `bytes`: whole 2 MiB pages from kHugePageAllocMinBytes
// on, a slab block (the next power of two) from 64 KiB, else `bytes` rounded up to 64.
std::size_t huge_page_capacity(std::size_t bytes) noexcept;

// huge_page_capacity(bytes) bytes, 64-byte aligned, released with huge_page_free (not
// std::free: a slab block is not a malloc'd pointer); null when the system refuses, or for 0
// bytes. Thread-safe.
void* huge_page_alloc(std::size_t bytes) noexcept;
void huge_page_free(void* p) noexcept;

struct HugePageDeleter {
  void operator()(void* p) const noexcept { huge_page_free(p); }
};

// A standard allocator over huge_page_alloc (per-thread scratch vectors).
template <class T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    if (n > std::size_t(-1) / 2 / sizeof(T)) throw std::bad_alloc();
    void* p = huge_page_alloc(n * sizeof(T));
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) noexcept { huge_page_free(p); }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const noexcept {
    return true;
  }
};

// Buffers from this size on are worth advising (smaller ones hold no aligned 2 MiB page).
inline constexpr std::size_t kHugePageMinBytes = std::size_t(4) << 20;

// Asks the kernel to back the whole 2 MiB pages inside [p, p + bytes) with huge pages. A hint:
// where the system refuses or has no huge pages, nothing changes. Call before first touch.
void advise_huge_pages(void* p, std::size_t bytes) noexcept;

}  // namespace mlvm
