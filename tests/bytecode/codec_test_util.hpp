// Helpers for the codec tests: a byte writer that builds modules as docs/bytecode.md
// describes them (not the encoder), a tiny hand-written module, and malformed-input checks.
#pragma once

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "bytecode/codec.hpp"

namespace mlvm::codec_test {

// Builds bytes as docs/bytecode.md describes them.
struct Bytes {
  std::vector<uint8_t> b;
  Bytes& u8(uint8_t v) {
    b.push_back(v);
    return *this;
  }
  Bytes& u32(uint32_t v) {
    for (int k = 0; k < 4; ++k) b.push_back(uint8_t(v >> (8 * k)));
    return *this;
  }
  Bytes& u64(uint64_t v) {
    for (int k = 0; k < 8; ++k) b.push_back(uint8_t(v >> (8 * k)));
    return *this;
  }
  Bytes& uleb(uint64_t v) {
    do {
      uint8_t x = v & 0x7F;
      v >>= 7;
      b.push_back(x | (v ? 0x80 : 0));
    } while (v);
    return *this;
  }
  Bytes& str(const std::string& s) {
    uleb(s.size());
    b.insert(b.end(), s.begin(), s.end());
    return *this;
  }
  Bytes& header() {
    for (char c : std::string("MLBC")) b.push_back(uint8_t(c));
    b.insert(b.end(), {0x0D, 0x0A, 0x1A, 0x0A});
    return u32(1).u64(0);  // the size is patched by done()
  }
  // Patches the header's size field (call last).
  std::vector<uint8_t> done() const {
    std::vector<uint8_t> out = b;
    for (int k = 0; k < 8; ++k) out[12 + std::size_t(k)] = uint8_t(uint64_t(out.size()) >> (8 * k));
    return out;
  }
  Bytes& section(uint32_t id, const Bytes& content) {
    u32(id).u64(content.b.size());
    b.insert(b.end(), content.b.begin(), content.b.end());
    return *this;
  }
};

// One f32[4] input, one output, `y = relu x`, as raw sections.
inline Bytes types_section() {
  return Bytes().uleb(1).u8(0).u8(1).uleb(4).uleb(0);
}
inline Bytes interface_section(uint64_t nregs = 2) {
  return Bytes().uleb(nregs).uleb(1).str("x").uleb(0).uleb(0).uleb(1).str("y").uleb(1).u8(1).uleb(
      0);
}
inline Bytes code_section(uint64_t opcode, uint64_t result_reg = 1, uint64_t arg = 1) {
  return Bytes().uleb(1).uleb(opcode).uleb(1).uleb(result_reg).uleb(1).uleb(arg).uleb(0);
}
inline Bytes tiny_module() {
  Bytes m;
  m.header();
  m.section(1, Bytes().str("tiny"));
  m.section(2, types_section());
  m.section(3, interface_section());
  m.section(4, Bytes().uleb(0));
  m.section(5, code_section(uint64_t(Opcode::relu)));
  return m;
}

inline Error decode_error(const std::vector<uint8_t>& bytes) {
  try {
    decode_module(bytes);
  } catch (const Error& e) {
    return e;
  }
  BOOST_FAIL("decode did not fail");
  return Error(ErrorKind::usage, "");
}

inline void check_malformed(const std::vector<uint8_t>& bytes, const std::string& needle, long at = -1) {
  Error e = decode_error(bytes);
  BOOST_TEST(e.kind() == ErrorKind::malformed);
  BOOST_CHECK_MESSAGE(e.message().find(needle) != std::string::npos,
                      "expected '" << needle << "' in: " << e.message() << " at " << e.location());
  if (at >= 0) BOOST_TEST(e.location() == "byte " + std::to_string(at));
}

inline std::size_t find_bytes(const std::vector<uint8_t>& hay, const void* needle, std::size_t n) {
  const uint8_t* p = static_cast<const uint8_t*>(needle);
  auto it = std::search(hay.begin(), hay.end(), p, p + n);
  return it == hay.end() ? std::string::npos : std::size_t(it - hay.begin());
}

}  // namespace mlvm::codec_test
