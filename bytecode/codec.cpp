// File helpers for modules (the encoder and decoder are in encoder.cpp and decoder.cpp).
#include "bytecode/codec.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include <sys/stat.h>

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

std::shared_ptr<Storage> read_file_storage(const std::string& path) {
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) fail(ErrorKind::io, "cannot read " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (fstat(fileno(f.get()), &st) != 0 || !S_ISREG(st.st_mode)) {
    // A pipe or device: read it to the end, then copy into aligned storage.
    f.reset();
    std::vector<uint8_t> bytes = read_file_bytes(path);
    auto storage = Storage::allocate(int64_t(bytes.size()));
    if (!bytes.empty()) std::memcpy(storage->data(), bytes.data(), bytes.size());
    return storage;
  }
  const int64_t size = int64_t(st.st_size);
  auto storage = Storage::allocate(size);
  if (size > 0 && std::fread(storage->data(), 1, std::size_t(size), f.get()) != std::size_t(size))
    fail(ErrorKind::io, "cannot read " + path + ": the file changed or could not be read");
  return storage;
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
