// Scratch arrays owned by the calling thread and kept between calls, so that a kernel run
// again and again (a convolution per layer, per run) does not pay for fresh pages each time.
// Owner is a type of the using file (in its unnamed namespace): each owner gets its own
// arrays, so two files never hand out the same buffer. `slot` (0 .. kThreadScratchSlots - 1)
// separates buffers that are live at the same time.
#pragma once

#include <cstdint>
#include <vector>

#include "tensor/huge_pages.hpp"

namespace mlvm {

inline constexpr int kThreadScratchSlots = 4;

// At least `count` elements; the contents are whatever the slot held last.
template <class Owner, class E>
E* thread_scratch(int slot, int64_t count) {
  thread_local std::vector<E, HugePageAllocator<E>> bufs[kThreadScratchSlots];
  if (int64_t(bufs[slot].size()) < count) bufs[slot].resize(std::size_t(count));
  return bufs[slot].data();
}

}  // namespace mlvm
