// mlvm-cvm end to end, through the built binary: import, write, run with mlvm-run, the text
// re-assembling to the same module, exit codes and messages for malformed and invalid files.
#include <boost/test/unit_test.hpp>

#include "bytecode/codec.hpp"
#include "bytecode/module_compare.hpp"
#include "common/cvm_cases.hpp"
#include "common/tool_runner.hpp"
#include "mlvm/mlvm.hpp"
#include "tensor/npy.hpp"

using namespace mlvm;
using namespace mlvm::cvm_test;
using mlvm::tool_test::contains;
namespace fs = std::filesystem;

namespace {

using mlvm::tool_test::kCvm;
using mlvm::tool_test::kRun;
using mlvm::tool_test::kAsm;


struct Scratch : mlvm::tool_test::ScratchDir {
  Scratch() : ScratchDir("mlvm_cvm_tool_test") {}
  void write_bytes(const std::string& name, const std::vector<uint8_t>& b) const {
    write(name, std::string(b.begin(), b.end()));
  }
};

// data (1, 4) -> dense 'fc' (3 units, bias) -> cvm_right_shift 'out' (precision 8).
CvmWriter model() {
  CvmWriter w;
  const int d = w.data({1, 4}, 8);
  const int k = w.param("fc_weight", {3, 4}, {1, 2, 3, 4, -1, -2, -3, -4, 5, 0, -5, 1}, 8);
  const int b = w.param("fc_bias", {3}, {10, -10, 3}, 8);
  const int fc = w.op("dense", "fc", {{d}, {k}, {b}}, {{"units", "3"}, {"use_bias", "True"}}, {{1, 3}});
  w.head(w.op("cvm_right_shift", "out", {{fc}}, {{"precision", "8"}, {"shift_bit", "1"}}, {{1, 3}}, {8}));
  return w;
}

Module read_module(const std::string& path) { return decode_module(read_file_bytes(path)); }

}  // namespace

BOOST_AUTO_TEST_SUITE(mlvm_cvm_tool)

BOOST_AUTO_TEST_CASE(imports_runs_and_round_trips_through_text) {
  Scratch s;
  const CvmWriter w = model();
  s.write_bytes("m.json", w.symbol());
  s.write_bytes("m.params", w.params());
  CHECK_RUN(s.run(kCvm, "m.json m.params --check"), 0);
  BOOST_TEST(!fs::exists(s.path("m.mlbc")));
  CHECK_RUN(s.run(kCvm, "m.json m.params --emit-asm m.mlasm"), 0);
  BOOST_TEST_REQUIRE(fs::exists(s.path("m.mlbc")));
  const std::string text = mlvm::tool_test::slurp(s.path("m.mlasm"));
  BOOST_TEST(contains(text, "# dense 'fc' (node 3)"));
  BOOST_TEST(contains(text, "precision=8"));

  // x = (1, 2, 3, 4): fc = (30 + 10, -30 - 10, 5 - 15 + 4 + 3) = (40, -40, -3); shifted by 1 with
  // rounding half up: (20, -20, -1).
  save_npy(s.path("x.npy"), data_tensor({1, 4}, 8, {1, 2, 3, 4}));
  auto r = s.run(kRun, "m.mlbc --input data=x.npy --output out=y.npy");
  CHECK_RUN(r, 0);
  Tensor y = load_npy(s.path("y.npy"));
  BOOST_TEST(y.dtype() == DType::i32);
  BOOST_TEST(ints_of(y) == (std::vector<int64_t>{20, -20, -1}), boost::test_tools::per_element());

  CHECK_RUN(s.run(kAsm, "m.mlasm -o re.mlbc"), 0);
  Module a = read_module(s.path("m.mlbc")), b = read_module(s.path("re.mlbc"));
  for (Module* m : {&a, &b}) {
    m->lines.assign(m->code.size(), 0);
    m->origins.clear();
    m->source_name.clear();
  }
  BOOST_TEST(mlvm::testing::module_difference(a, b) == "");
  BOOST_TEST(a.precision_check == true);
}

// The same model straight from its two files: mlvm-run --cvm and Program::from_cvm.
BOOST_AUTO_TEST_CASE(mlvm_run_and_the_api_take_the_two_files) {
  Scratch s;
  const CvmWriter w = model();
  s.write_bytes("m.json", w.symbol());
  s.write_bytes("m.params", w.params());
  save_npy(s.path("x.npy"), data_tensor({1, 4}, 8, {1, 2, 3, 4}));
  CHECK_RUN(s.run(kRun, "--cvm m.json m.params --input data=x.npy --output out=y.npy"), 0);
  BOOST_TEST(ints_of(load_npy(s.path("y.npy"))) == (std::vector<int64_t>{20, -20, -1}),
             boost::test_tools::per_element());

  Program p = Program::from_cvm(s.path("m.json"), s.path("m.params"));
  BOOST_TEST(p.inputs().at(0).name == "data");
  BOOST_TEST(p.inputs().at(0).precision == 8);
  Session session(p);
  TensorMap out = session.run({{"data", data_tensor({1, 4}, 8, {1, 2, 3, 4})}});
  BOOST_TEST(ints_of(out.at("out")) == (std::vector<int64_t>{20, -20, -1}),
             boost::test_tools::per_element());
  const std::vector<uint8_t> sym = w.symbol(), par = w.params();
  BOOST_TEST(Program::from_cvm_bytes(sym, par).to_bytes().size() > 0u);

  // Usage: --cvm with one file, or two files without --cvm, is exit 1; a broken params
  // file is exit 2 naming it.
  CHECK_RUN(s.run(kRun, "--cvm m.json --input data=x.npy"), 1);
  CHECK_RUN(s.run(kRun, "m.json m.params --input data=x.npy"), 1);
  s.write("bad.params", "not params");
  auto r = s.run(kRun, "--cvm m.json bad.params --input data=x.npy");
  CHECK_RUN(r, 2);
  BOOST_TEST(contains(r.err, "bad.params"));
}

BOOST_AUTO_TEST_CASE(output_path_and_list_ops) {
  Scratch s;
  const CvmWriter w = model();
  s.write_bytes("m.json", w.symbol());
  s.write_bytes("m.params", w.params());
  CHECK_RUN(s.run(kCvm, "m.json m.params -o other.mlbc"), 0);
  BOOST_TEST(fs::exists(s.path("other.mlbc")));
  auto r = s.run(kCvm, "--list-ops");
  CHECK_RUN(r, 0);
  for (const char* op : {"conv2d", "cvm_right_shift", "non_max_suppression", "flatten"})
    BOOST_TEST(contains(r.out, std::string(op) + "\n"));
}

BOOST_AUTO_TEST_CASE(usage_and_file_errors_exit_1) {
  Scratch s;
  CHECK_RUN(s.run(kCvm, "only_one.json"), 1);
  CHECK_RUN(s.run(kCvm, "a.json b.params --check -o x.mlbc"), 1);
  auto r = s.run(kCvm, "missing.json missing.params");
  CHECK_RUN(r, 1);
  BOOST_TEST(contains(r.err, "missing.json"));
}

BOOST_AUTO_TEST_CASE(malformed_and_invalid_models_exit_2_naming_the_place) {
  Scratch s;
  const CvmWriter w = model();
  s.write_bytes("m.json", w.symbol());
  std::vector<uint8_t> cut = w.params();
  cut.resize(30);
  s.write_bytes("cut.params", cut);
  auto r = s.run(kCvm, "m.json cut.params --check");
  CHECK_RUN(r, 2);
  BOOST_TEST(contains(r.err, "cut.params: byte "));
  BOOST_TEST(contains(r.err, "malformed"));

  json doc = w.document();
  doc["attrs"]["shape"][1][4] = {1, 4};
  s.write_bytes("bad.json", CvmWriter::bytes(doc));
  s.write_bytes("m.params", w.params());
  r = s.run(kCvm, "bad.json m.params --check");
  CHECK_RUN(r, 2);
  BOOST_TEST(contains(r.err, "bad.json: node 4 'out'"));
  BOOST_TEST(contains(r.err, "invalid"));

  s.write("broken.json", "{\"nodes\": [");
  r = s.run(kCvm, "broken.json m.params");
  CHECK_RUN(r, 2);
  BOOST_TEST(contains(r.err, "broken.json: byte "));
}

BOOST_AUTO_TEST_SUITE_END()
