#include "tensor/huge_pages.hpp"

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <map>
#include <mutex>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace mlvm {

namespace {

// [p, p + bytes) backed by huge pages where the system gives them on request: a hint, errors
// ignored.
void advise(void* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  madvise(p, bytes, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

// Buffers of kSlabMinBytes up to kHugePageAllocMinBytes share 2 MiB slabs, each cut into
// blocks of one power of two (64 KiB .. 1 MiB): a convolution's packed filters or a 28 x 28
// layer's activations, too small for pages of their own, still lie in huge pages.
constexpr std::size_t kSlabMinBytes = std::size_t(64) << 10;
static_assert((kSlabMinBytes << 4) == kHugePageAllocMinBytes, "five classes: 64 KiB << 0 .. 4");

int slab_class(std::size_t bytes) {
  int c = 0;
  while ((kSlabMinBytes << c) < bytes) ++c;
  return c;
}


// The slabs in use, by base address. Never destroyed (buffers may be freed by thread-local
// and static destructors after it would be); a slab whose blocks are all free goes back to
// the system unless it is its class's last one.
class Slabs {
 public:
  void* take(std::size_t bytes) {
    const int c = slab_class(bytes);
    const std::size_t block = kSlabMinBytes << c;
    const uint32_t all = blocks_mask(c);
    std::lock_guard<std::mutex> lock(m_);
    for (auto& [base, slab] : slabs_)
      if (slab.cls == c && slab.free) {
        const int i = __builtin_ctz(slab.free);
        slab.free &= ~(uint32_t(1) << i);
        return reinterpret_cast<std::byte*>(base) + std::size_t(i) * block;
      }
    void* p = std::aligned_alloc(kHugePageBytes, kHugePageBytes);
    if (!p) return nullptr;
    advise(p, kHugePageBytes);
    try {
      slabs_.emplace(reinterpret_cast<std::uintptr_t>(p), Slab{c, all & ~uint32_t(1)});
    } catch (...) {
      std::free(p);
      throw;
    }
    return p;
  }

  // False when p is not a slab's block.
  bool give(void* p) {
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t base = at & ~std::uintptr_t(kHugePageBytes - 1);
    std::lock_guard<std::mutex> lock(m_);
    auto it = slabs_.find(base);
    if (it == slabs_.end()) return false;
    Slab& slab = it->second;
    slab.free |= uint32_t(1) << ((at - base) / (kSlabMinBytes << slab.cls));
    if (slab.free == blocks_mask(slab.cls)) {
      bool other = false;
      for (const auto& [b, s] : slabs_) other = other || (b != base && s.cls == slab.cls);
      if (other) {
        slabs_.erase(it);
        std::free(reinterpret_cast<void*>(base));
      }
    }
    return true;
  }

 private:
  struct Slab {
    int cls;
    uint32_t free;  // bit i: block i is free
  };
  static uint32_t blocks_mask(int c) {
    const int n = int(kHugePageBytes / (kSlabMinBytes << c));
    return n >= 32 ? ~uint32_t(0) : (uint32_t(1) << n) - 1;
  }
  std::mutex m_;
  std::map<std::uintptr_t, Slab> slabs_;
};

Slabs& slabs() {
  static Slabs* s = new Slabs;  // never destroyed (see Slabs)
  return *s;
}

}  // namespace

void advise_huge_pages(void* p, std::size_t bytes) noexcept {
  if (!p || bytes < kHugePageMinBytes) return;
  const auto begin = (reinterpret_cast<std::uintptr_t>(p) + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(kHugePageBytes - 1);
  if (end > begin) advise(reinterpret_cast<void*>(begin), end - begin);
}

std::size_t huge_page_capacity(std::size_t bytes) noexcept {
  if (kHugePagesUsed && bytes >= kHugePageAllocMinBytes)
    return (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  if (kHugePagesUsed && bytes >= kSlabMinBytes) return kSlabMinBytes << slab_class(bytes);
  return (bytes + 63) / 64 * 64;
}

void* huge_page_alloc(std::size_t bytes) noexcept {
  if (bytes == 0 || bytes > std::size_t(-1) / 2) return nullptr;
  const std::size_t capacity = huge_page_capacity(bytes);
  if (!kHugePagesUsed || bytes < kSlabMinBytes) return std::aligned_alloc(64, capacity);
  if (bytes < kHugePageAllocMinBytes) {
    try {
      return slabs().take(bytes);
    } catch (const std::exception&) {  // the slab map's own allocation
      return nullptr;
    }
  }
  void* p = std::aligned_alloc(kHugePageBytes, capacity);
  if (p) advise(p, capacity);
  return p;
}

void huge_page_free(void* p) noexcept {
  if (!p) return;
  // A slab block lies at a multiple of its size, 64 KiB at least, from a 2 MiB-aligned base:
  // other pointers (most small buffers) skip the slabs' lock.
  if (kHugePagesUsed && reinterpret_cast<std::uintptr_t>(p) % kSlabMinBytes == 0 && slabs().give(p)) return;
  std::free(p);
}

}  // namespace mlvm
