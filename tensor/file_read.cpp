#include "tensor/file_read.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include "tensor/error.hpp"

namespace mlvm {

InputFile::InputFile(const std::string& path) : path_(path) {
  if (path == "-") {
    fd_ = 0;
    return;
  }
  // O_NONBLOCK: opening a FIFO with no writer would otherwise block before fstat can refuse it.
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd_ < 0) fail(ErrorKind::io, "cannot read " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    const int err = errno;
    ::close(fd_);
    fd_ = -1;
    fail(ErrorKind::io, "cannot read " + path + ": " + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    const char* kind = S_ISDIR(st.st_mode)                           ? "a directory"
                       : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                       : S_ISFIFO(st.st_mode)                       ? "a pipe"
                                                                    : "not a regular file";
    fail(ErrorKind::io, "cannot read " + path + ": it is " + std::string(kind) +
                            ", not a regular file (use '-' to read standard input)");
  }
  // Regular files never block; reads should wait normally.
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
  size_ = int64_t(st.st_size);
}

InputFile::~InputFile() {
  if (fd_ > 0) ::close(fd_);
}

std::size_t InputFile::read(void* out, std::size_t n) {
  std::size_t got = 0;
  auto* p = static_cast<uint8_t*>(out);
  while (got < n) {
    // Chunks of at most 1 GiB: read(2) caps a single call near 2 GiB anyway.
    const std::size_t want = std::min<std::size_t>(n - got, std::size_t(1) << 30);
    const ssize_t k = ::read(fd_, p + got, want);
    if (k < 0) {
      if (errno == EINTR) continue;
      fail(ErrorKind::io, "cannot read " + path_ + ": " + std::strerror(errno));
    }
    if (k == 0) break;
    got += std::size_t(k);
  }
  return got;
}

bool InputFile::at_end() {
  uint8_t extra;
  return read(&extra, 1) == 0;
}

std::vector<uint8_t> read_file_bounded(const std::string& path, int64_t max_bytes,
                                       const std::string& what) {
  InputFile f(path);
  auto too_big = [&](const std::string& size) {
    fail(ErrorKind::limit, "cannot read " + path + ": the " + what + " holds " + size +
                               " bytes, more than the limit of " + std::to_string(max_bytes));
  };
  std::vector<uint8_t> bytes;
  try {
    if (f.size() >= 0) {
      if (f.size() > max_bytes) too_big(std::to_string(f.size()));
      bytes.resize(std::size_t(f.size()));
      if (f.read(bytes.data(), bytes.size()) != bytes.size() || !f.at_end())
        fail(ErrorKind::io, "cannot read " + path + ": the file changed while being read");
      return bytes;
    }
    // Standard input: grow in chunks, stopping one byte past the bound.
    constexpr std::size_t kChunk = 1 << 16;
    for (;;) {
      const std::size_t old = bytes.size();
      bytes.resize(old + kChunk);
      const std::size_t n = f.read(bytes.data() + old, kChunk);
      bytes.resize(old + n);
      if (int64_t(bytes.size()) > max_bytes) too_big("more than " + std::to_string(max_bytes));
      if (n < kChunk) return bytes;
    }
  } catch (const std::bad_alloc&) {
    fail(ErrorKind::limit, "cannot read " + path + ": out of memory for its " +
                               std::to_string(f.size()) + " bytes");
  }
}

}  // namespace mlvm
