// mlvm-run's input and output forms through the built binary: standard input, scalar values,
// .npz archives (NumPy-written fixtures in tests/data/npz/), endless files refused at once,
// errors that name their subject, --list-ops, --profile=json and options
// that are never abbreviated.

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/tool_runner.hpp"
#include "mlvm/mlvm.hpp"
#include "tensor/copy.hpp"
#include "tensor/storage.hpp"
#include "vm/program_access.hpp"
#include "tensor/npz.hpp"

using namespace mlvm;
using namespace mlvm::tool_test;
namespace fs = std::filesystem;

namespace {

using mlvm::tool_test::kRun;
using mlvm::tool_test::kAsm;

const std::string kNpz = MLVM_SOURCE_DIR "/tests/data/npz/";

struct IoFixture : ScratchDir {
  IoFixture() : ScratchDir("mlvm_run_io_test") {
    write("p.mlasm", ".input x : f32[2]\n.output y : f32[2]\n    print x\n    y = abs x\n");
    write("sc.mlasm",
          ".input x : i32[1]\n.input s : f32[1]\n.output y : i32[1]\n.output t : f32[1]\n"
          "    y = copy x\n    t = copy s\n");
    write("two.mlasm",
          ".input x : f32[2]\n.input n : i32[2, 3]\n.output y : f32[2]\n.output m : i32[2, 3]\n"
          "    y = negative x\n    m = copy n\n");
    write("big.mlasm", ".input x : f32[256]\n.output y : f32[256]\n    a = negative x\n"
                       "    y = exp a\n");
    save_npy(path("x.npy"), make_tensor<float>({2}, {-1.5f, 2}));
    save_npy(path("x256.npy"), Tensor::zeros_owned(DType::f32, {256}));
  }
  // Runs `binary args` in the fixture directory; 10 s is far past the 1 s the endless-file
  // cases are allowed (their time is checked separately).
  Result run(const std::string& args, const std::string& binary = kRun) const {
    return ScratchDir::run(binary, args, 10);
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(tools_mlvm_run_io)

BOOST_AUTO_TEST_CASE(input_from_standard_input) {
  IoFixture f;
  Result r = f.run("p.mlasm -i x=- < x.npy");
  CHECK_RUN(r, 0);
  BOOST_TEST(contains(r.out, "y : f32[2] = [1.5, 2]"));
  r = f.run("p.mlasm -i x=- < p.mlasm");
  CHECK_RUN(r, 2);
  BOOST_TEST(contains(r.err, "-: byte 0"));
}

BOOST_AUTO_TEST_CASE(scalar_inputs_take_the_declared_dtype_or_the_given_one) {
  IoFixture f;
  Result r = f.run("sc.mlasm -i x=3 -i s=0.5");
  CHECK_RUN(r, 0);
  BOOST_TEST(r.out == "y : i32[1] = [3]\nt : f32[1] = [0.5]\n");
  r = f.run("sc.mlasm -i x=-7:i32 -i s=2:f32");
  CHECK_RUN(r, 0);
  BOOST_TEST(r.out == "y : i32[1] = [-7]\nt : f32[1] = [2]\n");
  r = f.run("sc.mlasm -i x=3.5 -i s=1");
  CHECK_RUN(r, 1);
  BOOST_TEST(contains(r.err, "3.5 is not a value of i32"));
  r = f.run("sc.mlasm -i x=1:q8 -i s=1");
  CHECK_RUN(r, 1);
  BOOST_TEST(contains(r.err, "unknown dtype 'q8'"));
  r = f.run("sc.mlasm -i x=7:i64 -i s=1");  // the declaration still decides
  CHECK_RUN(r, 2);
  BOOST_TEST(contains(r.err, "--input x=7:i64: input x"));
}

BOOST_AUTO_TEST_CASE(npz_inputs_and_outputs_by_name) {
  IoFixture f;
  for (const char* archive : {"stored.npz", "deflated.npz"}) {
    Result r = f.run("two.mlasm --inputs '" + kNpz + archive + "' --outputs out.npz");
    CHECK_RUN(r, 0);
    BOOST_TEST(r.out.empty());  // every output went to the archive
    NamedTensors out = load_npz(f.path("out.npz"));
    BOOST_REQUIRE(out.size() == 2u);
    BOOST_TEST(out[0].first == "y");
    BOOST_TEST(out[1].first == "m");
    BOOST_TEST(out[1].second.type_string() == "i32[2, 3]");
  }
  BOOST_TEST(to_vector<float>(load_npz(f.path("out.npz"))[0].second) ==
                 std::vector<float>({5, -6}),
             boost::test_tools::per_element());
  Result r = f.run("p.mlasm --inputs '" + kNpz + "stored.npz'");
  CHECK_RUN(r, 1);
  BOOST_TEST(contains(r.err, "member n.npy: unknown input n"));
  BOOST_TEST(contains(r.err, "p.mlasm declares the inputs x : f32[2]"));
  r = f.run("two.mlasm --inputs '" + kNpz + "stored.npz' -i x=x.npy");
  CHECK_RUN(r, 1);
  BOOST_TEST(contains(r.err, "both by --input and in"));
  r = f.run("two.mlasm --inputs p.mlasm");
  CHECK_RUN(r, 2);
  BOOST_TEST(contains(r.err, "p.mlasm"));
}

BOOST_AUTO_TEST_CASE(endless_and_special_files_fail_at_once_naming_the_file) {
  IoFixture f;
  struct Case {
    std::string args, binary, file;
  } cases[] = {
      {"/dev/zero", kRun, "/dev/zero"},
      {"/dev/zero --check", kAsm, "/dev/zero"},
      {"p.mlasm -i x=/dev/zero", kRun, "/dev/zero"},
      {"p.mlasm -i x=/dev/urandom", kRun, "/dev/urandom"},
      {"p.mlasm --inputs /dev/zero", kRun, "/dev/zero"},
      {"p.mlasm -i x=- < /dev/zero", kRun, "-"},
      {"p.mlasm -i x=. ", kRun, "directory"},
  };
  // "At once": within a second of an ordinary run of the same tool (timed here, so that a slow
  // build or a busy machine moves both); reading such a file to any size limit takes longer.
  const double ordinary = std::max(f.run("p.mlasm -i x=x.npy").seconds, f.run("p.mlasm --check", kAsm).seconds);
  for (const Case& c : cases) {
    Result r = f.run(c.args, c.binary);
    BOOST_TEST_INFO("args: " << c.args);
    CHECK_RUN(r, c.binary == kRun && c.file == "-" ? 2 : 1);
    BOOST_TEST_INFO("args: " << c.args << " stderr: " << r.err);
    BOOST_TEST(contains(r.err, c.file));
    BOOST_TEST_INFO("args: " << c.args << " took " << r.seconds << " s");
    BOOST_TEST(r.seconds < ordinary + 1.0);
  }
}

BOOST_AUTO_TEST_CASE(errors_name_their_subject) {
  IoFixture f;
  Result r = f.run("sc.mlasm -i x=3");
  CHECK_RUN(r, 1);
  BOOST_TEST(contains(r.err, "missing input s : f32[1]"));
  BOOST_TEST(contains(r.err, "sc.mlasm declares the inputs x : i32[1], s : f32[1]"));
  r = f.run("sc.mlasm -i x=3 -i s=1 -i z=1");
  CHECK_RUN(r, 1);
  BOOST_TEST(contains(r.err, "--input z: unknown input z: program sc.mlasm declares the inputs x"));
  // The memory limit: which instruction and line, how many bytes, against which limit.
  r = f.run("big.mlasm -i x=x256.npy --max-memory 2047");
  CHECK_RUN(r, 4);
  BOOST_TEST(contains(r.err, "big.mlasm: instruction 0 (line 3): limit: negative:"));
  BOOST_TEST(contains(r.err, "a tensor of 1024 bytes"));
  BOOST_TEST(contains(r.err, "memory limit of 2047 bytes"));
  // An output too large for its file (a constant of 2^40 elements, one stored value until
  // written): located like the run's own limits, at the program file and the instruction that
  // made the output; then which output, which file, how many bytes, against which limit.
  f.write("huge.mlasm", ".input x : f32[1]\n.output y\n.output z\n"
                        "    z = abs x\n    y = full shape=(1099511627776), dtype=f32, value=1.0\n");
  r = f.run("huge.mlasm -i x=1 -o y=y.npy --max-memory 1M");
  CHECK_RUN(r, 4);
  BOOST_TEST(contains(r.err, "mlvm-run: huge.mlasm: instruction 1 (line 5): limit: writing output y "
                             "(f32[1099511627776], 4398046511104 bytes) to y.npy: more than the memory "
                             "limit of 1048576 bytes"));
  r = f.run("huge.mlasm -i x=1 --outputs all.npz --max-memory 1M");
  CHECK_RUN(r, 4);
  BOOST_TEST(contains(r.err, "mlvm-run: huge.mlasm: instruction 1 (line 5): limit: writing outputs "
                             "y (f32[1099511627776]"));
  BOOST_TEST(contains(r.err, "to all.npz: more than the memory limit"));
  // An output that is a constant of the program itself: named as the constant.
  f.write("konst.mlasm", ".const c : f32[1] = [2.0]\n.output c\n");
  r = f.run("konst.mlasm -o c=c.npy --max-memory 3");
  CHECK_RUN(r, 4);
  BOOST_TEST(contains(r.err, "mlvm-run: konst.mlasm: constant c: limit: writing output c"), r.err);
}

BOOST_AUTO_TEST_CASE(list_ops_and_profile_json) {
  IoFixture f;
  Result r = f.run("--list-ops");
  CHECK_RUN(r, 0);
  BOOST_TEST(contains(r.out, "\nadd(a, b) -> 1 result"));
  BOOST_TEST(contains(r.out, "transpose(x) -> 1 result  axes:"));
  r = f.run("p.mlasm -i x=x.npy --profile=json --repeat 2");
  CHECK_RUN(r, 0);
  BOOST_TEST(contains(r.out, "\"runs\": ["));
  BOOST_TEST(contains(r.out, "{\"name\": \"abs\", \"calls\": 2, \"total_ms\": "));
  BOOST_TEST(contains(r.out, "\"mean_ms\": "));
  {  // abs of f32[2] allocates 8 bytes a call: 16 over the two runs, charged to abs.
    const std::size_t at = r.out.find("{\"name\": \"abs\"");
    BOOST_TEST_REQUIRE(at != std::string::npos);
    const std::string row = r.out.substr(at, r.out.find('}', at) - at + 1);
    BOOST_TEST(contains(row, "\"bytes\": 16}"), row);
  }
  // Per instruction, in program order: abs is instruction 1 (print, a non-kernel step, is 0
  // and is not listed), from line 4, run once in each of the two runs.
  BOOST_TEST(contains(r.out, "\"instructions\": [\n    {\"pc\": 1, \"op\": \"abs\", \"origin\": \"line 4\", "
                             "\"calls\": 2, \"total_ms\": "),
             r.out);
  {
    // The median per run of two runs is their mean: half the total, as printed.
    const std::size_t t = r.out.find("\"total_ms\": ", r.out.find("\"instructions\""));
    const std::size_t m = r.out.find(", \"median_ms\": ", t);
    BOOST_TEST_REQUIRE((t != std::string::npos && m != std::string::npos), r.out);
    const double total = std::stod(r.out.substr(t + 12)), median = std::stod(r.out.substr(m + 15));
    BOOST_TEST(median > 0.0);
    BOOST_TEST(median <= total);
    BOOST_TEST(std::abs(median - total / 2) <= 1e-3 * total);
  }
  BOOST_TEST(!contains(r.out, "\"op\": \"print\""));
  BOOST_TEST(!contains(r.out, "total: min="));
  r = f.run("p.mlasm -i x=x.npy --profile=xml");
  CHECK_RUN(r, 1);
  BOOST_TEST(contains(r.err, "--profile=xml"));
}

BOOST_AUTO_TEST_CASE(options_are_never_abbreviated) {
  IoFixture f;
  Result r = f.run("p.mlasm --inp x=x.npy");
  CHECK_RUN(r, 1);
  BOOST_TEST(contains(r.err, "--inp"));
  r = f.run("--help");
  CHECK_RUN(r, 0);
  BOOST_TEST(contains(r.out, "docs/language.md, section \"mlvm-run\""));
  BOOST_TEST(!contains(r.out, "§"));
}

BOOST_AUTO_TEST_SUITE_END()
