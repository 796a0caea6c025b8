// The .mlbc encoder and decoder: round trips, determinism, and layout details from
// docs/bytecode.md (checked with a byte writer written here, not the encoder).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <boost/test/unit_test.hpp>

#include "bytecode/codec_test_util.hpp"
#include "bytecode/module_compare.hpp"
#include "bytecode/sample_modules.hpp"
#include "bytecode/verifier.hpp"

using namespace mlvm;
using namespace mlvm::testing;
using namespace mlvm::codec_test;

BOOST_AUTO_TEST_SUITE(codec)

BOOST_AUTO_TEST_CASE(hand_written_module_decodes) {
  Module m = decode_module(tiny_module().done());
  BOOST_TEST(m.name == "tiny");
  BOOST_REQUIRE(m.inputs.size() == 1u);
  BOOST_TEST(m.inputs[0].name == "x");
  BOOST_TEST(m.inputs[0].type.to_string() == "f32[4]");
  BOOST_REQUIRE(m.outputs.size() == 1u);
  BOOST_TEST(m.outputs[0].has_type);
  BOOST_REQUIRE(m.code.size() == 1u);
  BOOST_TEST((m.code[0].op == Opcode::relu));
  BOOST_TEST(m.code[0].args == (std::vector<int32_t>{0}));
  BOOST_TEST(m.num_registers() == 2);
  BOOST_TEST(m.register_names[0].empty());  // no debug section
  // And the encoder writes exactly these bytes for it (plus nothing: no debug info).
  BOOST_TEST(encode_module(m) == tiny_module().done());
}

BOOST_AUTO_TEST_CASE(round_trip_every_op_and_section) {
  Module m = all_ops_module();
  std::vector<uint8_t> bytes = encode_module(m);
  Module back = decode_module(bytes);
  BOOST_TEST(module_difference(m, back) == "");
  BOOST_TEST(encode_module(back) == bytes);
  // Every opcode appears.
  std::vector<bool> seen(kNumOpcodes, false);
  for (auto& ins : back.code) seen[std::size_t(ins.op)] = true;
  BOOST_TEST(std::count(seen.begin(), seen.end(), true) == kNumOpcodes);
  // Attribute values come back as stored.
  for (auto& ins : back.code)
    if (ins.op == Opcode::sum) BOOST_TEST((ins.attrs[0] == AttrValue::int_tuple({0, -1})));
}

BOOST_AUTO_TEST_CASE(round_trip_programs) {
  for (const Module& m : {mlp_module(), loop_module(), Module{}}) {
    std::vector<uint8_t> bytes = encode_module(m);
    Module back = decode_module(bytes);
    BOOST_TEST(module_difference(m, back) == "");
    BOOST_TEST(encode_module(back) == bytes);
  }
}

BOOST_AUTO_TEST_CASE(encoding_is_deterministic) {
  BOOST_TEST(encode_module(all_ops_module()) == encode_module(all_ops_module()));
  BOOST_TEST(encode_module(mlp_module()) == encode_module(mlp_module()));
}

BOOST_AUTO_TEST_CASE(header_layout) {
  std::vector<uint8_t> b = encode_module(mlp_module());
  BOOST_REQUIRE(b.size() > 12u);
  BOOST_TEST(std::string(b.begin(), b.begin() + 4) == "MLBC");
  BOOST_TEST((std::vector<uint8_t>(b.begin() + 4, b.begin() + 8) ==
              std::vector<uint8_t>{0x0D, 0x0A, 0x1A, 0x0A}));
  BOOST_TEST((b[8] == 1 && b[9] == 0 && b[10] == 0 && b[11] == 0));
  uint64_t size = 0;
  for (int k = 0; k < 8; ++k) size |= uint64_t(b[12 + std::size_t(k)]) << (8 * k);
  BOOST_TEST(size == b.size());
  BOOST_TEST((b[20] == 1 && b[21] == 0));  // the first section is the name section
}

BOOST_AUTO_TEST_CASE(dense_constants_are_64_byte_aligned_fills_are_one_element) {
  Module m = mlp_module();
  std::vector<uint8_t> b = encode_module(m);
  for (auto& c : m.constants) {
    if (c.value.mode() == ValueMode::constant) continue;
    std::size_t at =
        find_bytes(b, c.value.raw_data(), std::size_t(c.value.numel() * c.value.itemsize()));
    BOOST_TEST_CONTEXT(c.name) {
      BOOST_REQUIRE(at != std::string::npos);
      BOOST_TEST(at % 64 == 0u);
    }
  }
  ModuleBuilder big;
  big.fill_constant("z", DType::f32, Dims{4096, 4096}, Scalar::from_float(1.5));
  big.output("z");
  std::vector<uint8_t> small = encode_module(big.build());
  BOOST_TEST(small.size() < 200u);
  Module back = decode_module(small);
  BOOST_TEST((back.constants[0].value.mode() == ValueMode::constant));
  BOOST_TEST(back.constants[0].value.get_double(std::vector<int64_t>{4095, 17}) == 1.5);
}

BOOST_AUTO_TEST_CASE(constant_precision_recomputed_on_decode) {
  Module m = all_ops_module();
  Module back = decode_module(encode_module(m));
  for (auto& c : back.constants) {
    BOOST_TEST_CONTEXT(c.name) {
      if (c.name == "big") BOOST_TEST(c.type.precision == 3);
      if (c.name == "bytes") BOOST_TEST(c.type.precision == 9);  // -128 needs 9 bits
      if (c.name == "wide") BOOST_TEST(c.type.precision == 65);
      if (c.name == "w") BOOST_TEST(c.type.precision == 0);
    }
  }
}

BOOST_AUTO_TEST_CASE(header_only_is_an_empty_module) {
  Module m = decode_module(Bytes().header().done());
  BOOST_TEST(m.code.empty());
  BOOST_TEST(m.num_registers() == 0);
}

BOOST_AUTO_TEST_CASE(files) {
  auto dir =
      std::filesystem::temp_directory_path() / ("mlvm_codec_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / "m.mlbc").string();
  std::vector<uint8_t> bytes = encode_module(loop_module());
  write_file_bytes(path, bytes);
  BOOST_TEST(read_file_bytes(path) == bytes);
  BOOST_CHECK_EXCEPTION(read_file_bytes((dir / "missing.mlbc").string()), Error,
                        [](const Error& e) {
                          return e.kind() == ErrorKind::io &&
                                 std::string(e.what()).find("missing.mlbc") != std::string::npos;
                        });
  BOOST_CHECK_EXCEPTION(read_file_bytes(dir.string()), Error,
                        [](const Error& e) { return e.kind() == ErrorKind::io; });
  BOOST_CHECK_EXCEPTION(write_file_bytes((dir / "no" / "such" / "x").string(), bytes), Error,
                        [](const Error& e) { return e.kind() == ErrorKind::io; });
  std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(attribute_values_are_kept_as_stored) {
  // The decoder neither checks nor rewrites attributes (the verifier checks them): a bare int
  // stored for a tuple attribute, or a value of the wrong kind, comes back as it was.
  ModuleBuilder b;
  b.input("x", tensor_type(DType::f32, {2, 3}));
  b.output("y");
  b.emit("y", "sum", {"x"});
  Module m = b.build();
  m.code[0].attrs[0] = AttrValue::integer(1);
  m.code[0].attrs[1] = AttrValue::string("yes");
  std::vector<uint8_t> bytes = encode_module(m);
  Module back = decode_module(bytes);
  BOOST_TEST(module_difference(m, back) == "");
  BOOST_TEST(encode_module(back) == bytes);
  VerifyResult r = verify_module(back);
  BOOST_REQUIRE_EQUAL(r.errors.size(), 1u);
  BOOST_TEST(r.errors[0].attribute == 1);
}

BOOST_AUTO_TEST_SUITE_END()
