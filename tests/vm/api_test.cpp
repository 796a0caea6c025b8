// The embedding API: making programs (text, bytes, files, Module), listing their inputs and
// outputs, tensor helpers, positional runs, errors for misuse.
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "bytecode/builder.hpp"
#include "bytecode/codec.hpp"
#include "vm/vm_test_util.hpp"

using namespace mlvm;
using namespace mlvm::test;

BOOST_AUTO_TEST_SUITE(vm_api)

const char* kScale = R"(.program scale
.input  x : f32[?, 2]
.input  k : i32[1] precision=5
.const  w : f32[2] = [2, -1]
.output y : f32[?, 2]
.output m : i32[1]
    y = mul x, w
    m = copy k
)";

BOOST_AUTO_TEST_CASE(lists_inputs_and_outputs) {
  Program p = program_from(kScale);
  BOOST_TEST(p.name() == "scale");
  auto in = p.inputs();
  BOOST_REQUIRE_EQUAL(in.size(), 2u);
  BOOST_TEST(in[0].name == "x");
  BOOST_TEST(in[0].type_string() == "f32[?, 2]");
  BOOST_TEST(in[1].name == "k");
  BOOST_TEST(in[1].precision == 5);
  auto out = p.outputs();
  BOOST_REQUIRE_EQUAL(out.size(), 2u);
  BOOST_TEST(out[0].name == "y");
  BOOST_TEST((out[0].dtype == DType::f32));
  BOOST_TEST((out[0].shape == Dims({kDynamic, 2})));
  BOOST_TEST(out[1].name == "m");
}

BOOST_AUTO_TEST_CASE(bytes_and_files_round_trip) {
  Program p = program_from(kScale);
  std::vector<uint8_t> bytes = p.to_bytes();
  Program q = Program::load_bytes(bytes);
  BOOST_TEST(q.inputs().size() == 2u);

  auto dir =
      std::filesystem::temp_directory_path() / ("mlvm_api_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string mlbc = (dir / "scale.mlbc").string(), mlasm = (dir / "scale.mlasm").string();
  write_file_bytes(mlbc, bytes);
  std::ofstream(mlasm) << kScale;
  for (Program r : {q, Program::load_file(mlbc), Program::load_file(mlbc), Program::load_file(mlasm),
                    Program::load_file(mlasm)}) {
    Session s(r, single_thread());
    auto out =
        s.run({{"x", make_tensor<float>({1, 2}, {3, 4})}, {"k", make_tensor<int32_t>({1}, {-15})}});
    BOOST_TEST(to_vector<float>(out.at("y")) == std::vector<float>({6, -4}),
               boost::test_tools::per_element());
    BOOST_TEST(to_vector<int32_t>(out.at("m"))[0] == -15);
  }
  // Errors name the file.
  expect_error([&] { Program::load_file((dir / "missing.mlbc").string()); }, ErrorKind::io,
               {"missing.mlbc"});
  std::ofstream(dir / "junk.mlbc") << "not a module";
  auto e = expect_error([&] { Program::load_file((dir / "junk.mlbc").string()); },
                        ErrorKind::malformed, {});
  BOOST_TEST(e.location().find("junk.mlbc") != std::string::npos);
  std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(assembly_errors_carry_their_position) {
  auto e = expect_error(
      [] {
        Program::assemble(".input x : f32[2]\n.output y\n    y = frobnicate x\n", "bad.mlasm");
      },
      ErrorKind::invalid, {"frobnicate"}, "bad.mlasm:3:");
  (void)e;
}

BOOST_AUTO_TEST_CASE(module_built_in_memory) {
  ModuleBuilder b("built");
  TensorType t;
  t.dtype = DType::f32;
  t.dims = Dims{3};
  b.input("x", t);
  b.output("y");
  b.at_line(7).emit("y", "negative", {"x"});
  Program p = program_from_module(b.build());
  Session s(p, single_thread());
  std::vector<Tensor> out = s.run_positional(std::vector<Tensor>{make_tensor<float>({3}, {1, 2, 3})});
  BOOST_REQUIRE_EQUAL(out.size(), 1u);
  BOOST_TEST(to_vector<float>(out[0]) == std::vector<float>({-1, -2, -3}),
             boost::test_tools::per_element());
  expect_error([&] { s.run_positional(std::vector<Tensor>{}); }, ErrorKind::usage, {"1 inputs", "0 given"});
}

BOOST_AUTO_TEST_CASE(tensor_helpers) {
  Tensor a = make_tensor<int16_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  BOOST_TEST((a.mode() == ValueMode::owned));
  Tensor t = a.with_layout({3, 2}, {1, 3}, 0);  // transposed view
  BOOST_TEST(to_vector<int16_t>(t) == std::vector<int16_t>({1, 4, 2, 5, 3, 6}),
             boost::test_tools::per_element());
  BOOST_CHECK_THROW(to_vector<float>(a), Error);
  BOOST_CHECK_THROW(make_tensor<float>({2, 2}, {1, 2, 3}), Error);
  double host[2] = {1.5, 2.5};
  Tensor b = borrow_tensor<double>({2}, host, true);
  BOOST_TEST((b.mode() == ValueMode::borrowed));
  BOOST_TEST(b.raw_data() == reinterpret_cast<std::byte*>(host));
  BOOST_TEST(!borrow_tensor<const double>({2}, host).is_writable());
  BOOST_TEST(std::string(version()) != "");
}

BOOST_AUTO_TEST_CASE(misuse_is_a_usage_error) {
  BOOST_CHECK_THROW(Session(Program(), single_thread()), Error);
  SessionOptions o;
  o.threads = -1;
  expect_error([&] { Session(program_from(kScale), o); }, ErrorKind::usage, {"threads"});
  expect_error([] { Program().inputs(); }, ErrorKind::usage, {"empty Program"});
}

// load_file uses dense constants in place: a view of the module's (64-byte-aligned) bytes,
// which an output that is a view of the constant keeps alive after the program is gone.
BOOST_AUTO_TEST_CASE(load_file_constants_are_used_in_place) {
  const auto dir = std::filesystem::temp_directory_path() / "mlvm_api_inplace";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "c.mlbc").string();
  std::string src = ".const c : i32[2, 4] = [[1, 2, 3, 4], [5, 6, 7, 8]]\n.output y\n"
                    "    y = transpose c\n";
  Program text = program_from(src);
  write_file_bytes(path, encode_module(program_module(text)));
  Tensor y;
  {
    Program p = Program::load_file(path);
    Session s(p, single_thread());
    y = s.run(TensorMap{}).at("y");
    BOOST_TEST((y.mode() == ValueMode::view));
    BOOST_TEST(!y.is_writable());  // a constant from the module is read-only
    BOOST_TEST(reinterpret_cast<std::uintptr_t>(y.raw_data()) % 64 == 0);
  }
  std::filesystem::remove_all(dir);
  const int want[4][2] = {{1, 5}, {2, 6}, {3, 7}, {4, 8}};
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 2; ++j) {
      const int64_t idx[2] = {i, j};
      BOOST_TEST(y.get_int(idx) == want[i][j]);
    }
}

BOOST_AUTO_TEST_SUITE_END()
