#include "bytecode/codec.hpp"

namespace mlvm {

// Placeholders until the module format lands.
std::vector<uint8_t> encode_module(const Module&) { fail_invalid("encoder is not implemented yet"); }
Module decode_module(std::span<const uint8_t>) { fail(ErrorKind::malformed, "decoder is not implemented yet"); }
std::vector<uint8_t> read_file_bytes(const std::string& path) { fail(ErrorKind::io, "cannot read " + path); }
void write_file_bytes(const std::string& path, std::span<const uint8_t>) { fail(ErrorKind::io, "cannot write " + path); }

}  // namespace mlvm
