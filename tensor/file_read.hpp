// Bounded file reading, shared by every reader of untrusted files (.npy, .npz, .mlbc, .mlasm).
// A device such as /dev/zero or /dev/urandom never ends, so reading "to the end" would hang:
// only regular files are read, sized by fstat, plus standard input ("-"), which is read
// with an explicit bound. Every failure is Error(io) or Error(limit) naming the file.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace mlvm {

// An open file to read from: a regular file, or standard input when the path is "-".
class InputFile {
 public:
  // Error(io) naming `path` if it cannot be opened or is not a regular file (a directory,
  // device, pipe or socket); "-" is standard input, whatever it is.
  explicit InputFile(const std::string& path);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  const std::string& path() const { return path_; }
  bool is_stdin() const { return fd_ == 0 && path_ == "-"; }
  // The size fstat reports for a regular file; -1 for standard input.
  int64_t size() const { return size_; }
  // Reads up to `n` bytes, fewer only at the end of the file. Error(io) on a read error.
  std::size_t read(void* out, std::size_t n);
  // True when no byte follows (consumes at most one byte to find out).
  bool at_end();

 private:
  std::string path_;
  int fd_ = -1;
  int64_t size_ = -1;
};

// The whole content of `path` (or standard input for "-"), refusing more than `max_bytes`:
// Error(limit) naming the file, what it holds (`what`, e.g. "module") and the bound.
std::vector<uint8_t> read_file_bounded(const std::string& path, int64_t max_bytes,
                                       const std::string& what = "file");

// The bound used for files with no size promise of their own (program text, modules):
// far more than any real program, far less than an endless device would feed.
constexpr int64_t kDefaultMaxFileBytes = int64_t(1) << 32;

}  // namespace mlvm
