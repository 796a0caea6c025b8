// The CVM params file (cvm_format.md, "params"): a list of named integer arrays, read with
// bounded, checked reads. Every count and byte size is checked against what is left of the
// file before anything is allocated, so a hostile file costs at most its own size.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace mlvm {

inline constexpr uint64_t kCvmParamsMagic = 0xF7E58D4F05049CB7ull;
inline constexpr uint64_t kCvmArrayMagic = 0xDD5E40F096B4A13Full;

struct CvmParam {
  std::string name;
  std::vector<int64_t> dims;
  int bits = 32;                // 8 or 32, as stored
  std::vector<int32_t> values;  // row-major, widened to int32 (the runtime does the same)
  uint64_t offset = 0;          // byte offset of the array's header (for messages)
};

// Error(malformed) located at "params byte N" for anything that does not decode: a wrong
// magic, a truncated field, a count or size that does not fit, a non-CPU or non-integer array,
// bytes after the last array.
std::vector<CvmParam> read_cvm_params(std::span<const uint8_t> bytes);

}  // namespace mlvm
