// Constants of the .mlbc format shared by the encoder and the decoder (docs/bytecode.md).
#pragma once

#include <cstdint>

namespace mlvm::format {

inline constexpr uint8_t kMagic[4] = {'M', 'L', 'B', 'C'};
// Like PNG's: CR LF catches CRLF<->LF conversion, 0x1A stops a DOS `type`, LF catches LF->CRLF.
inline constexpr uint8_t kCanary[4] = {0x0D, 0x0A, 0x1A, 0x0A};
inline constexpr uint32_t kVersion = 1;
inline constexpr std::size_t kHeaderSize = 20;         // magic, canary, u32 version, u64 size
inline constexpr std::size_t kSectionHeaderSize = 12;  // u32 id, u64 byte size
inline constexpr std::size_t kConstAlign = 64;         // dense constant data, from module start

enum SectionId : uint32_t {
  kSectionName = 1,
  kSectionTypes = 2,
  kSectionInterface = 3,
  kSectionConstants = 4,
  kSectionCode = 5,
  kSectionDebug = 6,
  kSectionFlags = 7,
  kSectionOrigins = 8,  // debug: where each instruction came from (an imported model's node)
  kSectionScalars = 9,  // the inputs and outputs the interface takes and gives as rank 0
};
inline constexpr uint32_t kLastSection = kSectionScalars;

// Bits of the flags section: how the module was assembled, where that changes what the verifier
// proves. The section is written only when a bit is set, so modules without flags keep their bytes.
inline constexpr uint64_t kFlagNoPrecisionCheck = 1;  // assembled with --no-precision-check
inline constexpr uint64_t kKnownFlags = kFlagNoPrecisionCheck;

enum ConstEncoding : uint8_t { kConstDense = 0, kConstFill = 1 };

enum AttrTag : uint8_t {
  kAttrNone = 0,
  kAttrInt = 1,
  kAttrFloat = 2,
  kAttrBool = 3,
  kAttrTuple = 4,
  kAttrDType = 5,
  kAttrString = 6,
};

// Limits (beyond "every count fits in the bytes that remain").
inline constexpr uint64_t kMaxRegisters = uint64_t(1) << 24;
inline constexpr uint64_t kMaxInstructions = uint64_t(1) << 24;
inline constexpr uint64_t kMaxStringBytes = uint64_t(1) << 16;
inline constexpr int kMaxAttrDepth = 4;  // tuple nesting
inline constexpr int kMaxPrecision = 64;

}  // namespace mlvm::format
