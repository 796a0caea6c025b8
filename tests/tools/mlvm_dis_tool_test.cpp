// mlvm-dis end to end through the built binaries: the text it prints reassembles with mlvm-asm
// into a byte-identical module (debug lines aside); the default never writes beside the module (it would
// overwrite the source); large constants go to .npy side files that load() finds.
#include <sys/wait.h>

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "bytecode/codec.hpp"
#include "common/tool_runner.hpp"

namespace fs = std::filesystem;
using mlvm::tool_test::slurp;

namespace {

using mlvm::tool_test::kDis;
using mlvm::tool_test::kAsm;


// The scratch directory of tests/common/tool_runner.hpp, with shell pipelines of several tools.
struct Scratch : mlvm::tool_test::ScratchDir {
  Scratch() : ScratchDir("mlvm_dis_test") {}
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
  // Standard output writes no side file: the 100-element constant is inline.
  BOOST_TEST(!fs::exists(s.dir / "rows.big.npy"));
  BOOST_TEST(text.find("load(") == std::string::npos);
  BOOST_TEST(text.find(", 99]") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(side_files_go_beside_out_and_are_never_overwritten_silently) {
  Scratch s;
  s.write("rows.mlasm", kProgram);
  fs::create_directories(s.dir / "sub");
  BOOST_REQUIRE_EQUAL(s.sh("'" + kAsm + "' rows.mlasm"), 0);
  BOOST_REQUIRE_EQUAL(s.sh("'" + kDis + "' rows.mlbc -o sub/d.mlasm"), 0);
  BOOST_TEST(fs::exists(s.dir / "sub" / "d.big.npy"));
  BOOST_TEST(slurp(s.dir / "sub" / "d.mlasm").find("load(\"d.big.npy\")") != std::string::npos);
  // Again: both files exist, so nothing is written without --force.
  s.write("sub/d.big.npy", "mine");
  BOOST_TEST(s.sh("'" + kDis + "' rows.mlbc -o sub/d.mlasm 2> err.txt") == 1);
  BOOST_TEST(slurp(s.dir / "err.txt").find("--force") != std::string::npos);
  BOOST_TEST(slurp(s.dir / "sub" / "d.big.npy") == "mine");
  BOOST_REQUIRE_EQUAL(s.sh("'" + kDis + "' rows.mlbc -o sub/d.mlasm --force"), 0);
  BOOST_TEST(slurp(s.dir / "sub" / "d.big.npy") != "mine");
  BOOST_REQUIRE_EQUAL(s.sh("'" + kAsm + "' sub/d.mlasm -o again.mlbc"), 0);
}

BOOST_AUTO_TEST_CASE(options_are_never_abbreviated) {
  Scratch s;
  s.write("rows.mlasm", kProgram);
  BOOST_REQUIRE_EQUAL(s.sh("'" + kAsm + "' rows.mlasm"), 0);
  BOOST_TEST(s.sh("'" + kDis + "' rows.mlbc --inline 5 > out.txt 2> err.txt") == 1);
  BOOST_TEST(slurp(s.dir / "err.txt").find("inline") != std::string::npos);
  BOOST_TEST(s.sh("'" + kAsm + "' rows.mlasm --chec > out.txt 2> err.txt") == 1);
  BOOST_TEST(slurp(s.dir / "err.txt").find("chec") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_module_assembled_without_precision_check_runs_and_shows_it) {
  Scratch s;
  s.write("p.mlasm", ".input x : i32[1] precision=32\n.output y\n    y = mul x, x\n");
  BOOST_REQUIRE_EQUAL(s.sh("'" + kAsm + "' p.mlasm --no-precision-check"), 0);
  BOOST_REQUIRE_EQUAL(s.sh("'" + kDis + "' p.mlbc -o d.mlasm"), 0);
  BOOST_TEST(slurp(s.dir / "d.mlasm").find(".no_precision_check") != std::string::npos);
  BOOST_REQUIRE_EQUAL(s.sh("'" + kAsm + "' d.mlasm -o d.mlbc"), 0);
  BOOST_TEST((module_bytes_without_lines(s.dir / "p.mlbc") ==
              module_bytes_without_lines(s.dir / "d.mlbc")));
  const std::string run = MLVM_BINARY_DIR "/tools/mlvm-run";
  // Refused before the flag existed ("result precision 64 exceeds i32"); now it runs.
  BOOST_TEST(s.sh("'" + run + "' p.mlbc --input x=3 > out.txt 2> err.txt") == 0);
  BOOST_TEST(slurp(s.dir / "err.txt").find("exceeds") == std::string::npos);
  BOOST_TEST(slurp(s.dir / "out.txt") == "y : i32[1] = [9]\n");
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
