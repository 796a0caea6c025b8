// File helpers for modules (the encoder and decoder are in encoder.cpp and decoder.cpp).
#include "bytecode/codec.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace mlvm {

namespace {
struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;
}  // namespace

std::vector<uint8_t> read_file_bytes(const std::string& path) {
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) fail(ErrorKind::io, "cannot read " + path + ": " + std::strerror(errno));
  std::vector<uint8_t> bytes;
  uint8_t buf[1 << 16];
  for (;;) {
    std::size_t n = std::fread(buf, 1, sizeof buf, f.get());
    bytes.insert(bytes.end(), buf, buf + n);
    if (n < sizeof buf) break;
  }
  if (std::ferror(f.get())) fail(ErrorKind::io, "cannot read " + path + ": read error");
  return bytes;
}

void write_file_bytes(const std::string& path, std::span<const uint8_t> bytes) {
  File f(std::fopen(path.c_str(), "wb"));
  if (!f) fail(ErrorKind::io, "cannot write " + path + ": " + std::strerror(errno));
  if (std::fwrite(bytes.data(), 1, bytes.size(), f.get()) != bytes.size())
    fail(ErrorKind::io, "cannot write " + path + ": " + std::strerror(errno));
  if (std::fclose(f.release()) != 0)
    fail(ErrorKind::io, "cannot write " + path + ": " + std::strerror(errno));
}

}  // namespace mlvm
