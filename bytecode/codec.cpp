// File helpers for modules (the encoder and decoder are in encoder.cpp and decoder.cpp).
#include "bytecode/codec.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "tensor/file_read.hpp"

namespace mlvm {

namespace {
struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;
}  // namespace

// Both readers go through the bounded reader: a device or an endless stream is refused
// rather than read forever.
std::vector<uint8_t> read_file_bytes(const std::string& path) {
  return read_file_bounded(path, kDefaultMaxFileBytes, "module");
}

std::shared_ptr<Storage> read_file_storage(const std::string& path) {
  InputFile f(path);
  if (f.size() < 0) {
    // Standard input: read it (bounded), then copy into aligned storage.
    std::vector<uint8_t> bytes = read_file_bounded(path, kDefaultMaxFileBytes, "module");
    auto storage = Storage::allocate(int64_t(bytes.size()));
    if (!bytes.empty()) std::memcpy(storage->data(), bytes.data(), bytes.size());
    return storage;
  }
  if (f.size() > kDefaultMaxFileBytes)
    fail(ErrorKind::limit, "cannot read " + path + ": the module holds " +
                               std::to_string(f.size()) + " bytes, more than the limit of " +
                               std::to_string(kDefaultMaxFileBytes));
  auto storage = Storage::allocate(f.size());
  if (f.size() > 0 && (f.read(storage->data(), std::size_t(f.size())) != std::size_t(f.size()) ||
                       !f.at_end()))
    fail(ErrorKind::io, "cannot read " + path + ": the file changed while being read");
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
