// The .mlbc module format: encode (deterministic) and decode (every read checked).
// The layout is specified in docs/bytecode.md.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bytecode/module.hpp"

namespace mlvm {

// The same module always gives byte-identical output.
std::vector<uint8_t> encode_module(const Module& module);

// Rejects malformed bytes with Error(malformed) whose location is "byte N". Never reads outside
// `bytes`, never allocates more than the input can justify. The result still needs
// verify_module before it may run.
Module decode_module(std::span<const uint8_t> bytes);

// File helpers: Error(io) naming the path when it cannot be read or written.
std::vector<uint8_t> read_file_bytes(const std::string& path);
void write_file_bytes(const std::string& path, std::span<const uint8_t> bytes);

}  // namespace mlvm
