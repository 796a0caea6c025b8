// The .mlbc module format: encode (deterministic) and decode (every read checked).
// The layout is specified in docs/bytecode.md.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <memory>

#include "bytecode/module.hpp"
#include "tensor/storage.hpp"

namespace mlvm {

// The same module always gives byte-identical output.
std::vector<uint8_t> encode_module(const Module& module);

// Rejects malformed bytes with Error(malformed) whose location is "byte N". Never reads outside
// `bytes`, never allocates more than the input can justify. The result still needs
// verify_module before it may run.
Module decode_module(std::span<const uint8_t> bytes);
// The same, but dense constants are used in place: they become read-only views of `bytes`
// (which `keepalive` keeps alive as long as any of them does) instead of copies. The format
// aligns constant data to 64 bytes within the module, so with a 64-byte-aligned buffer
// (read_file_storage) the views are as aligned as owned tensors.
Module decode_module(std::span<const uint8_t> bytes, std::shared_ptr<const void> keepalive);

// File helpers: Error(io) naming the path when it cannot be read or written.
std::vector<uint8_t> read_file_bytes(const std::string& path);
// A whole file in 64-byte-aligned storage (for decode_module's in-place constants).
std::shared_ptr<Storage> read_file_storage(const std::string& path);
void write_file_bytes(const std::string& path, std::span<const uint8_t> bytes);

}  // namespace mlvm
