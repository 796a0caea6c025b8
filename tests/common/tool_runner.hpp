// Running the built tools (mlvm-run, mlvm-asm, mlvm-dis) as a user would, from a scratch
// directory: exit code, standard output and error, and wall time. Shared by tests/tools/.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace mlvm::tool_test {

namespace fs = std::filesystem;

// The built tools the suites run.
inline const std::string kRun = MLVM_BINARY_DIR "/tools/mlvm-run";
inline const std::string kAsm = MLVM_BINARY_DIR "/tools/mlvm-asm";
inline const std::string kDis = MLVM_BINARY_DIR "/tools/mlvm-dis";
inline const std::string kOnnx = MLVM_BINARY_DIR "/tools/mlvm-onnx";
inline const std::string kCvm = MLVM_BINARY_DIR "/tools/mlvm-cvm";
inline const std::string kQuantize = MLVM_BINARY_DIR "/tools/mlvm-quantize";

struct Result {
  int code = -1;
  std::string out, err;
  double seconds = 0;
};

inline std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// A directory of its own per test process (named after `prefix` and the pid), removed at the end.
struct ScratchDir {
  fs::path dir;

  explicit ScratchDir(const std::string& prefix)
      : dir(fs::temp_directory_path() / (prefix + "_" + std::to_string(::getpid()))) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~ScratchDir() { fs::remove_all(dir); }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::string path(const std::string& name) const { return (dir / name).string(); }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name, std::ios::binary) << text;
  }
  // Runs `binary args` in the directory (relative names resolve there) under a timeout, so a
  // hang fails the test instead of stalling the suite.
  Result run(const std::string& binary, const std::string& args, int timeout_seconds = 60) const {
    const std::string cmd = "cd '" + dir.string() + "' && timeout " + std::to_string(timeout_seconds) +
                            " '" + binary + "' " + args + " >stdout.txt 2>stderr.txt";
    const auto t0 = std::chrono::steady_clock::now();
    const int status = std::system(cmd.c_str());
    Result r;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(dir / "stdout.txt");
    r.err = slurp(dir / "stderr.txt");
    return r;
  }
};

}  // namespace mlvm::tool_test

// Checks a run's exit code, showing its output when it is not the expected one.
#define CHECK_RUN(r, expected_code)                                    \
  do {                                                                 \
    BOOST_TEST_INFO("stdout: " << (r).out << "\nstderr: " << (r).err); \
    BOOST_CHECK_EQUAL((r).code, (expected_code));                      \
  } while (0)
