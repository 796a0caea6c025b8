#include "onnx/upgrade.hpp"

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>

#include "tensor/error.hpp"

// Present in sanitizer builds: a fuzzer registers a callback that records the input as a
// crash; a crash of the isolated child is an import error, not the fuzz target's crash.
extern "C" void __sanitizer_set_death_callback(void (*)(void)) __attribute__((weak));

namespace mlvm {

namespace {

constexpr int kTimeLimitMs = 20000;
constexpr uint64_t kMaxResultBytes = uint64_t(2) << 30;

bool write_all(int fd, const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= std::size_t(w);
  }
  return true;
}

// In the child: convert, then send status byte + size + bytes (or an error message).
[[noreturn]] void child(int fd, onnx::ModelProto& model, int target) {
  if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(nullptr);
  std::string out;
  char status = 0;
  try {
    onnx::shape_inference::InferShapes(model);
    onnx::ModelProto converted = onnx::version_conversion::ConvertVersion(model, target);
    if (!converted.SerializeToString(&out)) {
      status = 1;
      out = "the converted model does not serialize";
    }
  } catch (const std::exception& e) {
    status = 1;
    out = e.what();
  } catch (...) {
    status = 1;
    out = "unknown exception";
  }
  uint64_t size = out.size();
  bool ok = write_all(fd, &status, 1) && write_all(fd, &size, sizeof size) &&
            write_all(fd, out.data(), out.size());
  ::_exit(ok ? 0 : 1);
}

}  // namespace

void upgrade_opset(onnx::ModelProto& model, int target) {
  int fds[2];
  if (::pipe(fds) != 0) throw Error(ErrorKind::io, "cannot create a pipe for the version converter");
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw Error(ErrorKind::io, "cannot start the version converter's process");
  }
  if (pid == 0) {
    ::close(fds[0]);
    child(fds[1], model, target);
  }
  ::close(fds[1]);
  std::string data;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kTimeLimitMs);
  bool timed_out = false, too_big = false;
  char buf[65536];
  for (;;) {
    int left = int(std::chrono::duration_cast<std::chrono::milliseconds>(
                       deadline - std::chrono::steady_clock::now()).count());
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    int r = ::poll(&p, 1, left);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      timed_out = r == 0;
      break;
    }
    ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    data.append(buf, std::size_t(n));
    if (data.size() > kMaxResultBytes + 9) {
      too_big = true;
      break;
    }
  }
  ::close(fds[0]);
  if (timed_out || too_big) ::kill(pid, SIGKILL);
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  const std::string what = "ONNX's version converter (opset upgrade to " + std::to_string(target) + ")";
  if (timed_out) throw Error(ErrorKind::invalid, what + " did not finish within " + std::to_string(kTimeLimitMs / 1000) + " s");
  if (too_big) throw Error(ErrorKind::invalid, what + " produced a model above 2 GiB");
  if (WIFSIGNALED(wstatus))
    throw Error(ErrorKind::invalid, what + " crashed on this model (signal " + std::to_string(WTERMSIG(wstatus)) + ")");
  uint64_t size = 0;
  if (data.size() < 9 || (std::memcpy(&size, data.data() + 1, 8), data.size() != 9 + size))
    throw Error(ErrorKind::invalid, what + " failed without a result");
  std::string body = data.substr(9);
  if (data[0] != 0) throw Error(ErrorKind::invalid, what + " failed: " + body);
  onnx::ModelProto upgraded;
  if (!upgraded.ParseFromString(body)) throw Error(ErrorKind::invalid, what + " returned a model that does not parse");
  model = std::move(upgraded);
}

}  // namespace mlvm
