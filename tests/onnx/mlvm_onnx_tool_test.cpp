// mlvm-onnx and mlvm-run MODEL.onnx end to end through the built binaries: import, run and
// compare with hand-computed values; --emit-asm text re-assembles to the same module; every
// node that cannot be imported is listed at once (exit 2); malformed and missing files; fixing
// a dynamic input with --input-shape; a trap names the ONNX node it came from.
#include <boost/test/unit_test.hpp>

#include <fstream>

#include "bytecode/codec.hpp"
#include "bytecode/module_compare.hpp"
#include "common/onnx_import.hpp"
#include "common/onnx_model_builder.hpp"
#include "common/tool_runner.hpp"
#include "onnx/importer.hpp"
#include "tensor/error.hpp"
#include "tensor/npy.hpp"

using namespace mlvm;
using mlvm::testing::OnnxModelBuilder;
using namespace mlvm::testing::onnx_types;
using mlvm::tool_test::contains;
namespace fs = std::filesystem;

namespace {

using mlvm::tool_test::kOnnx;
using mlvm::tool_test::kRun;
using mlvm::tool_test::kAsm;


// y = relu(x + b) (b has 100 elements: a side file in --emit-asm), z = y * 3;
// the input's name needs sanitizing, the second output's too.
std::string add_relu_model() {
  OnnxModelBuilder m(13);
  m.input("in.x-1", F32, {100});
  std::vector<float> b(100);
  for (int i = 0; i < 100; ++i) b[std::size_t(i)] = float(i % 7) - 3.0f;
  m.initializer("b", {100}, b);
  m.initializer("three", {}, {3.0f});
  m.node("Add", {"in.x-1", "b"}, {"s"}, "add0");
  m.node("Relu", {"s"}, {"y"}, "relu0");
  m.node("Mul", {"y", "three"}, {"out:z"}, "mul0");
  m.output("y", F32, {100});
  m.output("out:z", F32, {100});
  return m.bytes();
}

struct Scratch : mlvm::tool_test::ScratchDir {
  Scratch() : ScratchDir("mlvm_onnx_tool_test") {}
};

Module read_module(const std::string& path) { return decode_module(read_file_bytes(path)); }

}  // namespace

BOOST_AUTO_TEST_SUITE(mlvm_onnx_tool)

BOOST_AUTO_TEST_CASE(imports_runs_and_round_trips_through_text) {
  Scratch s;
  s.write("m.onnx", add_relu_model());
  auto r = s.run(kOnnx, "m.onnx --check");
  CHECK_RUN(r, 0);
  BOOST_TEST(!fs::exists(s.path("m.mlbc")));
  BOOST_TEST(!contains(r.err, "is named"));  // ONNX names are kept exactly

  r = s.run(kOnnx, "m.onnx --emit-asm m.mlasm");
  CHECK_RUN(r, 0);
  BOOST_TEST_REQUIRE(fs::exists(s.path("m.mlbc")));
  const std::string text = mlvm::tool_test::slurp(s.path("m.mlasm"));
  BOOST_TEST(contains(text, "# Add 'add0'"));
  BOOST_TEST(contains(text, "load(\""));  // b is a side file

  // x = -50 .. 49: y = relu(x + b), z = 3 y.
  Tensor x = Tensor::empty(DType::f32, Dims{100});
  for (int i = 0; i < 100; ++i) x.data<float>()[i] = float(i - 50);
  save_npy(s.path("x.npy"), x);
  for (const std::string prog : {"m.mlbc", "m.onnx"}) {
    r = s.run(kRun, prog + " --input in.x-1=x.npy --output y=y.npy --output out:z=z.npy");
    CHECK_RUN(r, 0);
    Tensor y = load_npy(s.path("y.npy")), z = load_npy(s.path("z.npy"));
    for (int i = 0; i < 100; ++i) {
      float want = std::max(0.0f, float(i - 50) + float(i % 7) - 3.0f);
      BOOST_TEST(y.data<float>()[i] == want);
      BOOST_TEST(z.data<float>()[i] == 3 * want);
    }
  }

  // The text re-assembles to the same module (debug information aside).
  r = s.run(kAsm, "m.mlasm -o re.mlbc");
  CHECK_RUN(r, 0);
  Module a = read_module(s.path("m.mlbc")), b = read_module(s.path("re.mlbc"));
  BOOST_TEST(a.origins.size() == a.code.size());
  // Debug information differs by design: the text has line numbers, the import origins.
  for (Module* m : {&a, &b}) {
    m->lines.assign(m->code.size(), 0);
    m->origins.clear();
    m->source_name.clear();
  }
  BOOST_TEST(mlvm::testing::module_difference(a, b) == "");
  BOOST_TEST((encode_module(a) == encode_module(b)));
  BOOST_TEST(a.precision_check == false);
}

BOOST_AUTO_TEST_CASE(every_node_that_cannot_be_imported_is_listed) {
  OnnxModelBuilder m(13);
  m.input("x", F32, {4});
  m.node("FancyOp", {"x"}, {"a"}, "first");
  m.node("Relu", {"a"}, {"b"}, "relu_after");  // depends on a failed node: not listed
  m.node("Relu", {"x"}, {"c"}, "ok");
  m.node("Other", {"c"}, {"d"}, "second", "com.example");
  m.node("Cast", {"c"}, {"e"}, "third");
  OnnxModelBuilder::attr_int(m.proto().mutable_graph()->mutable_node(4)[0], "to",
                             onnx::TensorProto::STRING);
  m.output("b", F32, {4});
  m.output("d", F32, {4});
  m.output("e", onnx::TensorProto::STRING, {4});
  Scratch s;
  s.write("bad.onnx", m.bytes());
  auto r = s.run(kOnnx, "bad.onnx");
  CHECK_RUN(r, 2);
  BOOST_TEST(contains(r.err, "3 nodes cannot be imported"));
  BOOST_TEST(contains(r.err, "FancyOp 'first'"));
  BOOST_TEST(contains(r.err, "unsupported op"));
  BOOST_TEST(contains(r.err, "Other 'second' (domain 'com.example'"));
  BOOST_TEST(contains(r.err, "Cast 'third'"));
  BOOST_TEST(contains(r.err, "cast to string is not supported"));
  BOOST_TEST(!contains(r.err, "relu_after"));
  BOOST_TEST(!fs::exists(s.path("bad.mlbc")));  // nothing half-imported
}

BOOST_AUTO_TEST_CASE(malformed_and_missing_files) {
  Scratch s;
  const char junk[] = "\x08\x07\x12\xff\xff\xff\xff\x0f garbage";
  s.write("junk.onnx", std::string(junk, sizeof junk - 1));
  CHECK_RUN(s.run(kOnnx, "junk.onnx"), 2);
  std::string good = add_relu_model();
  s.write("cut.onnx", good.substr(0, good.size() / 2));
  auto r = s.run(kOnnx, "cut.onnx");
  CHECK_RUN(r, 2);
  CHECK_RUN(s.run(kOnnx, "missing.onnx"), 1);
  CHECK_RUN(s.run(kRun, "missing.onnx"), 1);
  CHECK_RUN(s.run(kOnnx, "a.onnx b.onnx"), 1);
  CHECK_RUN(s.run(kOnnx, "--chec m.onnx"), 1);  // no abbreviations
}

// import_onnx_file has protobuf read the file in 64 KiB blocks (never the whole file at once):
// a model of many blocks imports to the same module as from its bytes, and cut anywhere it
// is refused, not half read.
BOOST_AUTO_TEST_CASE(a_model_of_many_read_blocks_imports_as_from_its_bytes) {
  constexpr int n = 300000;  // 1.2 MB of initializer: 19 blocks
  OnnxModelBuilder m(13);
  m.input("x", F32, {n});
  std::vector<float> b(n);
  for (int i = 0; i < n; ++i) b[std::size_t(i)] = float(i % 1000) * 0.5f - 7.0f;
  m.initializer("b", {n}, b);
  m.node("Add", {"x", "b"}, {"y"}, "add0");
  m.output("y", F32, {n});
  const std::string bytes = m.bytes();
  Scratch s;
  s.write("big.onnx", bytes);
  Module from_file = import_onnx_file(s.path("big.onnx")).module;
  Module from_bytes =
      import_onnx(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size())).module;
  from_file.source_name = from_bytes.source_name = "";  // the file's name differs by design
  BOOST_TEST(mlvm::testing::module_difference(from_file, from_bytes) == "");
  BOOST_REQUIRE(!from_file.constants.empty());
  const Tensor& kept = from_file.constants[0].value;
  BOOST_REQUIRE(kept.numel() == n);
  BOOST_TEST(kept.data<float>()[0] == b[0]);
  BOOST_TEST(kept.data<float>()[n - 1] == b[n - 1]);
  for (std::size_t cut : {std::size_t(100), std::size_t(1) << 16, bytes.size() / 2, bytes.size() - 3}) {
    s.write("cut.onnx", bytes.substr(0, cut));
    try {
      (void)import_onnx_file(s.path("cut.onnx"));
      BOOST_ERROR("a model cut at byte " << cut << " imported");
    } catch (const Error& e) {
      BOOST_TEST((e.kind() == ErrorKind::malformed), "cut at " << cut << ": " << e.what());
      BOOST_TEST(contains(e.what(), "does not parse"));
    }
  }
  CHECK_RUN(s.run(kRun, "."), 1);  // a directory is not a model file
}

BOOST_AUTO_TEST_CASE(list_ops_names_the_supported_ops_with_opsets) {
  Scratch s;
  auto r = s.run(kOnnx, "--list-ops");
  CHECK_RUN(r, 0);
  BOOST_TEST(contains(r.out, "Add 7-23"));
  BOOST_TEST(contains(r.out, "Reshape 1-23"));
  BOOST_TEST(contains(r.out, "ReduceMean 1-23"));
}

BOOST_AUTO_TEST_CASE(input_shape_fixes_dynamic_dims) {
  OnnxModelBuilder m(13);
  m.input("x", F32, {-1, 3});
  m.node("Shape", {"x"}, {"s"});
  m.node("Relu", {"x"}, {"y"});
  m.output("y", F32, {-1, 3});
  m.output("s", onnx::TensorProto::INT64, {2});
  Scratch s;
  s.write("dyn.onnx", m.bytes());
  CHECK_RUN(s.run(kOnnx, "dyn.onnx -o dyn.mlbc"), 0);
  Module dyn = read_module(s.path("dyn.mlbc"));
  BOOST_TEST(dyn.inputs[0].type.to_string() == "f32[?, 3]");
  CHECK_RUN(s.run(kOnnx, "dyn.onnx --input-shape x=4,3 -o fixed.mlbc"), 0);
  Module fixed = read_module(s.path("fixed.mlbc"));
  BOOST_TEST(fixed.inputs[0].type.to_string() == "f32[4, 3]");
  // Shape of a static input is folded into a constant: no shape_of instruction is left.
  for (const Instruction& ins : fixed.code) BOOST_TEST(op_info(ins.op).name != "shape_of");
  auto r = s.run(kOnnx, "dyn.onnx --input-shape x=4 --check");
  CHECK_RUN(r, 1);
  BOOST_TEST(contains(r.err, "gives 1 dims"));
  CHECK_RUN(s.run(kOnnx, "dyn.onnx --input-shape x=4,5 --check"), 1);
  CHECK_RUN(s.run(kOnnx, "dyn.onnx --input-shape x=a,3 --check"), 1);
}

// MaxUnpool's output_shape fed as an input: mlvm-onnx says which value it needs, --input-value
// fixes it, and the module traps when run with another value.
BOOST_AUTO_TEST_CASE(input_value_fixes_what_nodes_need_at_import) {
  OnnxModelBuilder m(11);
  m.input("x", F32, {1, 1, 2, 2});
  m.input("output_shape", onnx::TensorProto::INT64, {4});
  m.initializer_i64("I", {1, 1, 2, 2}, {5, 7, 13, 15});
  auto& n = m.node("MaxUnpool", {"x", "I", "output_shape"}, {"y"}, "unpool");
  OnnxModelBuilder::attr_ints(n, "kernel_shape", {2, 2});
  OnnxModelBuilder::attr_ints(n, "strides", {2, 2});
  m.output("y", F32, {1, 1, -1, -1});
  Scratch s;
  s.write("unpool.onnx", m.bytes());
  auto r = s.run(kOnnx, "unpool.onnx --check");
  CHECK_RUN(r, 2);
  BOOST_TEST(contains(r.err, "nodes need the values of inputs 'output_shape'"));
  BOOST_TEST(contains(r.err, "--input-value"));
  CHECK_RUN(s.run(kOnnx, "unpool.onnx --input-value output_shape=1,1,4,4 -o fixed.mlbc"), 0);
  save_npy(s.path("x.npy"), make_tensor<float>({1, 1, 2, 2}, {1, 2, 3, 4}));
  save_npy(s.path("o.npy"), make_tensor<int64_t>({4}, {1, 1, 4, 4}));
  CHECK_RUN(s.run(kRun, "fixed.mlbc --input x=x.npy --input output_shape=o.npy --output y=y.npy"), 0);
  save_npy(s.path("o.npy"), make_tensor<int64_t>({4}, {1, 1, 5, 5}));
  auto other = s.run(kRun, "fixed.mlbc --input x=x.npy --input output_shape=o.npy --output y=y.npy");
  CHECK_RUN(other, 3);
  BOOST_TEST(contains(other.err, "input 'output_shape' differs from the value the model was imported with"));
  // Wrong counts and non-numbers are usage errors.
  CHECK_RUN(s.run(kOnnx, "unpool.onnx --input-value output_shape=1,1,4 --check"), 1);
  CHECK_RUN(s.run(kOnnx, "unpool.onnx --input-value output_shape=a --check"), 1);
}

BOOST_AUTO_TEST_CASE(a_trap_names_the_onnx_node) {
  OnnxModelBuilder m(13);
  m.input("x", F32, {3});
  m.input("i", onnx::TensorProto::INT64, {1});
  m.node("Gather", {"x", "i"}, {"y"}, "pick_one");
  m.output("y", F32, {1});
  Scratch s;
  s.write("g.onnx", m.bytes());
  auto r = s.run(kRun, "g.onnx --input x=1.5:f32 --input i=7");
  // x must be f32[3]: a scalar input is refused (exit 2) — give a file instead.
  Tensor x = Tensor::empty(DType::f32, Dims{3});
  for (int k = 0; k < 3; ++k) x.data<float>()[k] = float(k);
  save_npy(s.path("x.npy"), x);
  r = s.run(kRun, "g.onnx --input x=x.npy --input i=7");
  CHECK_RUN(r, 3);
  BOOST_TEST(contains(r.err, "Gather 'pick_one'"));
}

BOOST_AUTO_TEST_SUITE_END()
