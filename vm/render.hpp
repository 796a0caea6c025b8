// The readable rendering of a tensor used by `print` and by mlvm-run for outputs:
//   name : f32[2, 3] = [[1, 2, 3],
//                       [4, 5, 6]]
// Large tensors are elided NumPy-style: the first and last few entries of every long dim.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "tensor/tensor.hpp"

namespace mlvm {

struct RenderOptions {
  int64_t threshold = 1000;  // more elements than this: elide
  int64_t edge_items = 3;    // entries kept at each end of an elided dim
  bool scalar = false;       // a declared rank-0 value held as [1]: "x : i64[] = 7"
};

// The name a `print` instruction renders under, marked so that it cannot be mistaken for a
// program output: "print @ model.mlasm:12: x" (source and line from the debug section;
// "print @ line 12: x" without a source name, "print @ instruction 4: x" without a line).
std::string print_label(std::string_view source, int64_t line, std::size_t pc,
                        std::string_view name);

// Writes one rendering followed by a newline.
void render_tensor(std::ostream& os, std::string_view name, const Tensor& t,
                   const RenderOptions& options = {});

}  // namespace mlvm
