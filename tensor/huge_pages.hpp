// Large buffers backed by transparent huge pages where the system offers them on request
// (/sys/kernel/mm/transparent_hugepage/enabled = madvise, Debian's default). A model's weights
// and packed filters are tens of megabytes touched once at load: in 4 KiB pages that is
// thousands of page faults (a quarter of ResNet-18's first run), and every run afterwards walks
// thousands of TLB entries through them.
#pragma once

#include <cstddef>

namespace mlvm {

// Buffers from this size on are worth advising (smaller ones hold no aligned 2 MiB page).
inline constexpr std::size_t kHugePageMinBytes = std::size_t(4) << 20;

// Asks the kernel to back the whole 2 MiB pages inside [p, p + bytes) with huge pages. A hint:
// where the system refuses or has no huge pages, nothing changes. Call before first touch.
void advise_huge_pages(void* p, std::size_t bytes) noexcept;

}  // namespace mlvm
