// mlvm-dis end to end through the built binaries: the text it prints reassembles with mlvm-asm
// into a byte-identical module (debug lines aside); the default never writes beside the module (it would
// overwrite the source); large constants go to .npy side files that load() finds.
#include <sys/wait.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "bytecode/codec.hpp"

namespace fs = std::filesystem;

namespace {

const std::string kDis = MLVM_BINARY_DIR "/tools/mlvm-dis";
const std::string kAsm = MLVM_BINARY_DIR "/tools/mlvm-asm";

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct Scratch {
  fs::path dir;
  Scratch() {
    dir = fs::temp_directory_path() / ("mlvm_dis_test_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() { fs::remove_all(dir); }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name, std::ios::binary) << text;
  }
  // Runs a shell command in the scratch directory; returns the exit code.
  int sh(const std::string& cmd) const {
    int status = std::system(("cd '" + dir.string() + "' && " + cmd).c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
};

const char* kProgram = R"(.program rows
.input  x    : f32[?, 4]
.const  temp : f32[1] = [2.0]
.const  big  : i32[100] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99]
.output p    : f32[?, 4]
.output s    : i32[1]
    xt = div x, temp
    p = softmax xt, axis=1
    s = sum big
)";

// The module's bytes without its debug lines (the reassembled text is another file).
std::vector<uint8_t> module_bytes_without_lines(const fs::path& p) {
  mlvm::Module m = mlvm::decode_module(mlvm::read_file_bytes(p.string()));
  m.source_name.clear();
  m.lines.assign(m.code.size(), 0);
  return mlvm::encode_module(m);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tools_mlvm_dis)

BOOST_AUTO_TEST_CASE(default_output_is_stdout_and_leaves_the_source_alone) {
  Scratch s;
  s.write("rows.mlasm", kProgram);
  BOOST_REQUIRE_EQUAL(s.sh("'" + kAsm + "' rows.mlasm"), 0);
  BOOST_REQUIRE_EQUAL(s.sh("'" + kDis + "' rows.mlbc > dis.txt 2> err.txt"), 0);
  BOOST_TEST(slurp(s.dir / "rows.mlasm") == kProgram);  // not overwritten
  std::string text = slurp(s.dir / "dis.txt");
  BOOST_TEST(text.find("p = softmax xt, axis=1") != std::string::npos);
  // The 100-element constant exceeds the inline limit: a side file beside the module.
  BOOST_TEST(fs::exists(s.dir / "rows.big.npy"));
  BOOST_TEST(text.find("load(\"rows.big.npy\")") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(round_trip_is_byte_identical) {
  Scratch s;
  s.write("rows.mlasm", kProgram);
  BOOST_REQUIRE_EQUAL(s.sh("'" + kAsm + "' rows.mlasm -o a.mlbc"), 0);
  BOOST_REQUIRE_EQUAL(s.sh("'" + kDis + "' a.mlbc -o again.mlasm"), 0);
  BOOST_REQUIRE_EQUAL(s.sh("'" + kAsm + "' again.mlasm -o b.mlbc"), 0);
  BOOST_TEST((module_bytes_without_lines(s.dir / "a.mlbc") == module_bytes_without_lines(s.dir / "b.mlbc")));
  // Everything inline when the limit allows it: still identical, no side file needed.
  BOOST_REQUIRE_EQUAL(s.sh("'" + kDis + "' a.mlbc --inline-limit 1000 -o inline.mlasm"), 0);
  BOOST_REQUIRE_EQUAL(s.sh("'" + kAsm + "' inline.mlasm -o c.mlbc"), 0);
  BOOST_TEST((module_bytes_without_lines(s.dir / "a.mlbc") == module_bytes_without_lines(s.dir / "c.mlbc")));
}

BOOST_AUTO_TEST_CASE(bad_inputs_give_exit_codes_and_messages) {
  Scratch s;
  s.write("junk.mlbc", "not a module at all");
  BOOST_TEST(s.sh("'" + kDis + "' junk.mlbc > out.txt 2> err.txt") == 2);
  BOOST_TEST(slurp(s.dir / "err.txt").find("junk.mlbc") != std::string::npos);
  BOOST_TEST(s.sh("'" + kDis + "' missing.mlbc > out.txt 2> err.txt") == 1);
  BOOST_TEST(s.sh("'" + kDis + "' --frobnicate > out.txt 2> err.txt") == 1);
}

BOOST_AUTO_TEST_CASE(version_is_the_project_version) {
  Scratch s;
  BOOST_TEST(s.sh("'" + kDis + "' --version > out.txt") == 0);
  BOOST_TEST(slurp(s.dir / "out.txt") == std::string("mlvm-dis (mlvm) ") + MLVM_PROJECT_VERSION + "\n");
}

BOOST_AUTO_TEST_SUITE_END()
