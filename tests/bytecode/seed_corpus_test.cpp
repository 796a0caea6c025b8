// The committed fuzz seeds (fuzz/corpus/decode_verify/) are encodings of the sample modules.
// Regenerate them after a format change with: MLVM_WRITE_FUZZ_SEEDS=1
// test_bytecode_seed_corpus_test
#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <filesystem>

#include "bytecode/codec.hpp"
#include "bytecode/module_compare.hpp"
#include "bytecode/sample_modules.hpp"

using namespace mlvm;
using namespace mlvm::testing;

namespace {

Module small_dense() {
  ModuleBuilder b("small");
  b.input("x", tensor_type(DType::f32, {kDynamic, 4}));
  b.constant("w",
             tensor_of<float>(DType::f32, Dims{3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  b.fill_constant("b", DType::f32, Dims{3}, Scalar::from_float(0.25));
  b.output("y", tensor_type(DType::f32, {kDynamic, 3}));
  b.source_name("small.mlasm");
  b.at_line(5).emit("y", "dense", {"x", "w", "b"});
  b.at_line(6).emit("y", "relu", {"y"});
  return b.build();
}

Module int_precision() {
  ModuleBuilder b("ints");
  b.input("a", tensor_type(DType::i32, {8}, 12));
  b.constant("k", tensor_of<int32_t>(DType::i32, Dims{1}, {3}));
  b.output("s");
  b.emit("p", "mul", {"a", "k"});
  b.emit("p", "cvm_clip", {"p"}, {{"precision", AttrValue::integer(8)}});
  b.emit("s", "sum", {"p"},
         {{"axes", AttrValue::integer(0)}, {"keepdims", AttrValue::boolean(true)}});
  return b.build();
}

std::vector<std::pair<std::string, Module>> seeds() {
  return {{"loop.mlbc", loop_module()},
          // Every op, in two halves: all of them would pass the fuzzer's 4096-byte -max_len.
          {"all_ops.mlbc", all_ops_module(0, 97)},
          {"all_ops_2.mlbc", all_ops_module(98)},
          {"small_dense.mlbc", small_dense()},
          {"int_precision.mlbc", int_precision()}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(seed_corpus)

BOOST_AUTO_TEST_CASE(committed_seeds_match_the_builder) {
  std::filesystem::path dir =
      std::filesystem::path(MLVM_SOURCE_DIR) / "fuzz" / "corpus" / "decode_verify";
  const bool write = std::getenv("MLVM_WRITE_FUZZ_SEEDS") != nullptr;
  if (write) std::filesystem::create_directories(dir);
  for (auto& [name, module] : seeds()) {
    BOOST_TEST_CONTEXT(name) {
      std::vector<uint8_t> bytes = encode_module(module);
      BOOST_TEST(bytes.size() <= 4096u);  // the fuzzer runs with -max_len=4096
      std::string path = (dir / name).string();
      if (write) write_file_bytes(path, bytes);
      BOOST_TEST(read_file_bytes(path) == bytes);
      BOOST_TEST(module_difference(decode_module(read_file_bytes(path)), module) == "");
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
