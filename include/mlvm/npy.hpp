// NumPy .npy files (reads format 1.0, 2.0 and 3.0; writes 1.0 or 2.0; little-endian; C or
// Fortran order; every mlvm dtype).
// A 0-d array loads as shape [1]. Any malformed, truncated, lying or unsupported file gives
// Error(malformed) naming the problem and the byte offset; nothing reads past the input.
// Part of the public API (hosts read and write NumPy files with it).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "mlvm/export.hpp"
#include "mlvm/tensor.hpp"

namespace mlvm {

// Parses .npy bytes into a fresh contiguous (C-order) owned tensor, counted against `budget`.
MLVM_API Tensor parse_npy(std::span<const uint8_t> bytes, std::shared_ptr<MemoryBudget> budget = {});
// Reads a file: Error(io) if it cannot be read (message names the path), else as parse_npy
// (the error's location names the path).
MLVM_API Tensor load_npy(const std::string& path, std::shared_ptr<MemoryBudget> budget = {});
// How to_npy / save_npy lay out a file.
struct NpyWriteOptions {
  // Format version: 1 (1.0, 16-bit header length) or 2 (2.0, 32-bit header length); anything
  // else is Error(usage). Version 1 is raised to 2.0 when the header would not fit in 65535
  // bytes (it always fits at rank <= 8).
  int version = 1;
  // false: the data is written in C (row-major) order; true: 'fortran_order': True and the
  // data in column-major order (the first index varies fastest).
  bool fortran_order = false;
  // true: a one-element tensor is written 0-d (shape ()), as an ONNX scalar output is given;
  // Error(usage) if the tensor has more than one element.
  bool scalar = false;
};

// Serializes any tensor (any strides; views are materialized in the requested order). The
// header is padded so that the data starts on a 64-byte boundary, as NumPy does.
MLVM_API std::vector<uint8_t> to_npy(const Tensor& t, const NpyWriteOptions& options = {});
// Writes a file: Error(io) naming the path on failure.
MLVM_API void save_npy(const std::string& path, const Tensor& t, const NpyWriteOptions& options = {});

}  // namespace mlvm
