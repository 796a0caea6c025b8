// NumPy .npy files (format 1.0 and 2.0; little-endian; C or Fortran order; every mlvm dtype).
// A 0-d array loads as shape [1]. Any malformed, truncated, lying or unsupported file gives
// Error(malformed) naming the problem and the byte offset; nothing reads past the input.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tensor/tensor.hpp"

namespace mlvm {

// Parses .npy bytes into a fresh contiguous (C-order) owned tensor, counted against `budget`.
Tensor parse_npy(std::span<const uint8_t> bytes, std::shared_ptr<MemoryBudget> budget = {});
// Reads a file: Error(io) if it cannot be read (message names the path), else as parse_npy
// (the error's location names the path).
Tensor load_npy(const std::string& path, std::shared_ptr<MemoryBudget> budget = {});
// Serializes any tensor (any strides; views are materialized in C order), format 1.0 when the
// header fits, else 2.0.
std::vector<uint8_t> to_npy(const Tensor& t);
// Writes a file: Error(io) naming the path on failure.
void save_npy(const std::string& path, const Tensor& t);

}  // namespace mlvm
