// .npy reader: corrupted, truncated, lying and unsupported files (crafted here and committed
// under tests/data/npy/bad/), and I/O errors and memory budgets.
#include "tensor/npy_test_util.hpp"

namespace mlvm {
namespace {

using namespace npy_test;

BOOST_AUTO_TEST_SUITE(tensor_npy_errors)

BOOST_AUTO_TEST_CASE(committed_bad_files) {
  const std::map<std::string, std::string> expected = {
      {"empty.npy", "file of 0 bytes is too short for a .npy header"},
      {"truncated_preamble.npy", "file of 8 bytes is too short for a .npy header"},
      {"bad_magic.npy", "bad magic; this is not a .npy file"},
      {"bad_version.npy", "unsupported .npy format version 9.0"},
      {"v2_truncated_length.npy", "file of 11 bytes is too short for a .npy 2.0 header"},
      {"truncated_header.npy",
       "header length 118 runs past the end of the file (30 bytes follow the length field)"},
      {"header_length_past_eof.npy", "header length 32767 runs past the end of the file"},
      {"not_a_dict.npy", "expected '{' opening the header dict, found '['"},
      {"missing_shape.npy", "header lacks the key 'shape'"},
      {"missing_descr.npy", "header lacks the key 'descr'"},
      {"missing_fortran_order.npy", "header lacks the key 'fortran_order'"},
      {"unterminated_string.npy", "unterminated string in the header"},
      {"non_ascii_header.npy", "header holds byte 0xe9; expected printable ASCII"},
      {"unknown_dtype.npy", "unsupported dtype descr '<U1'"},
      {"object_dtype.npy", "unsupported dtype descr '|O'"},
      {"big_endian_f8.npy", "big-endian data ('>f8') is not supported"},
      {"negative_dim.npy", "shape dim 1 is negative"},
      {"shape_garbage.npy", "expected a non-negative integer in 'shape'"},
      {"shape_float.npy", "shape dim 0 is not a plain integer"},
      {"shape_not_tuple.npy", "expected '(' opening the shape tuple"},
      {"dim_past_int64.npy", "shape dim 0 does not fit in int64"},
      {"huge_dims_overflow.npy", "shape's element count overflows int64"},
      {"data_size_overflow.npy", "data size of shape [2305843009213693952] overflows int64"},
      {"truncated_data.npy",
       "data is truncated: the header promises 96 bytes of f32[2, 3, 4] but 91 remain"},
      {"shape_lies.npy",
       "data is truncated: the header promises 400 bytes of f32[100] but 96 remain"},
      {"trailing_data.npy", "72 unexpected bytes after the data of f32[2, 3]"},
      {"bool_not_0_or_1.npy", "bool element 2 is 2; expected 0 or 1"},
      {"v2_shape_lies.npy",
       "data is truncated: the header promises 100 bytes of f32[5, 5] but 96 remain"},
  };
  namespace fs = std::filesystem;
  std::set<std::string> on_disk;
  for (const auto& entry : fs::directory_iterator(fixture("bad")))
    if (entry.path().extension() == ".npy") on_disk.insert(entry.path().filename().string());
  BOOST_CHECK_GE(on_disk.size(), 10u);
  for (const std::string& name : on_disk)
    BOOST_CHECK_MESSAGE(expected.count(name), "bad/" << name << " has no expected error here");
  for (const auto& [name, needle] : expected) {
    BOOST_TEST_CONTEXT("bad/" << name) {
      BOOST_CHECK_MESSAGE(on_disk.count(name), "missing file");
      const std::string path = fixture("bad/" + name);
      try {
        load_npy(path);
        BOOST_ERROR("loaded");
      } catch (const Error& e) {
        BOOST_CHECK_EQUAL(e.kind(), ErrorKind::malformed);
        BOOST_CHECK_MESSAGE(e.message().find(needle) != std::string::npos,
                            "message '" << e.message() << "' lacks '" << needle << "'");
        BOOST_CHECK_MESSAGE(e.location().rfind(path + ": byte ", 0) == 0,
                            "location '" << e.location() << "'");
      }
      // The same bytes through parse_npy: the same error, located by byte offset only.
      try {
        parse_npy(read_file(path));
        BOOST_ERROR("parsed");
      } catch (const Error& e) {
        BOOST_CHECK_EQUAL(e.kind(), ErrorKind::malformed);
        BOOST_CHECK(e.message().find(needle) != std::string::npos);
        BOOST_CHECK(e.location().rfind("byte ", 0) == 0);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(header_grammar) {
  const Bytes d8(8, 0);
  // Accepted variants: double quotes, other key order, no trailing comma, '=' and '|' marks.
  Tensor a =
      parse_npy(craft("{\"shape\": (2, 1), \"fortran_order\": True, \"descr\": \"=i4\"}", d8));
  BOOST_CHECK(a.shape() == (Dims{2, 1}));
  BOOST_CHECK_EQUAL(a.dtype(), DType::i32);
  BOOST_CHECK_EQUAL(
      parse_npy(craft("{'descr': '|u1', 'fortran_order': False, 'shape': (8,)}", d8)).dtype(),
      DType::u8);
  BOOST_CHECK_EQUAL(
      parse_npy(craft("{'descr': '>i1', 'fortran_order': False, 'shape': (2,4)}", d8)).dtype(),
      DType::i8);
  BOOST_CHECK(parse_npy(craft("{'descr':'<f8','fortran_order':False,'shape':(),}", d8)).shape() ==
              Dims{1});
  BOOST_CHECK(
      parse_npy(craft("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 99999999999), }", {}))
          .shape() == (Dims{0, 99999999999}));
}

BOOST_AUTO_TEST_CASE(corrupted_files) {
  const Bytes good = read_file(fixture("f4_c.npy"));  // f32[2, 3, 4], header 118 bytes
  const int64_t data_at = 128;
  BOOST_REQUIRE_EQUAL(good.size(), std::size_t(data_at + 96));
  auto with = [&](auto edit) {
    Bytes b = good;
    edit(b);
    return b;
  };
  const Bytes f4x24(96, 0);
  auto hdr = [&](const std::string& dict, const Bytes& data) { return craft(dict, data); };
  // 1. Too short / 2. bad magic / 3. unknown version / 4. header length past the end.
  expect_malformed(Bytes(good.begin(), good.begin() + 5), "too short", 5);
  expect_malformed(with([](Bytes& b) { b[1] = 'X'; }), "bad magic", 0);
  expect_malformed(with([](Bytes& b) { b[6] = 4; }), "unsupported .npy format version 4.0", 6);
  expect_malformed(with([](Bytes& b) { b[7] = 1; }), "version 1.1", 6);
  expect_malformed(with([](Bytes& b) { b[8] = 0xff, b[9] = 0xff; }),
                   "header length 65535 runs past the end", 8);
  expect_malformed(with([](Bytes& b) { b[6] = 2; }), "runs past the end",
                   8);  // 4-byte length misread
  // 5. Data truncated / 6. trailing bytes.
  expect_malformed(Bytes(good.begin(), good.end() - 1),
                   "data is truncated: the header promises 96 bytes", data_at);
  expect_malformed(with([](Bytes& b) { b.push_back(0); }), "1 unexpected bytes after the data",
                   data_at + 96);
  // 7. A lying shape (more data than present).
  expect_malformed(hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, 5), }", f4x24),
                   "promises 120 bytes", data_at);
  expect_malformed(
      hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4), }",
          f4x24),
      "element count overflows int64");
  expect_malformed(
      hdr("{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952,), }", f4x24),
      "data size");
  expect_malformed(
      hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", f4x24),
      "does not fit in int64");
  // 8. Bad keys and values.
  expect_malformed(hdr("{'descr': '<f4', 'fortran_order': False, 'shapf': (24,), }", f4x24),
                   "unknown header key 'shapf'");
  expect_malformed(hdr("{'descr': '<f4', 'fortran_order': False, }", f4x24),
                   "lacks the key 'shape'");
  expect_malformed(
      hdr("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (24,), }", f4x24),
      "repeats key 'descr'");
  expect_malformed(hdr("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (24,), }", f4x24),
                   "True or False");
  expect_malformed(hdr("{'descr': '<f4', 'fortran_order': Falsey, 'shape': (24,), }", f4x24),
                   "True or False");
  expect_malformed(hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3, 4), }", f4x24),
                   "negative");
  expect_malformed(hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (24), }", f4x24),
                   "is not a tuple");
  expect_malformed(hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (24.0,), }", f4x24),
                   "not a plain integer");
  expect_malformed(hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (024,), }", f4x24),
                   "leading zero");
  expect_malformed(hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (24,,), }", f4x24),
                   "non-negative integer");
  expect_malformed(hdr("{'descr': '<f4', 'fortran_order': False, 'shape': [24], }", f4x24),
                   "'(' opening");
  expect_malformed(hdr("{'descr': '<f4' 'fortran_order': False, 'shape': (24,), }", f4x24),
                   "',' or '}'");
  expect_malformed(hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (24,), } x", f4x24),
                   "after the header dict");
  expect_malformed(hdr("{'descr' '<f4', 'fortran_order': False, 'shape': (24,), }", f4x24),
                   "expected ':'");
  expect_malformed(hdr("{'descr': 'f4', 'fortran_order': False, 'shape': (24,), }", f4x24),
                   "byte-order mark");
  expect_malformed(hdr("{'descr': '|f4', 'fortran_order': False, 'shape': (24,), }", f4x24),
                   "multi-byte");
  expect_malformed(hdr("{'descr': '<f\\x34', 'fortran_order': False, 'shape': (24,), }", f4x24),
                   "escape");
  expect_malformed(
      hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,24), }", f4x24),
      "more than 8 dims");
  expect_malformed(hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (24,)", f4x24),
                   "',' or '}'");
  expect_malformed(with([](Bytes& b) { b[20] = 0xc3; }), "printable ASCII", 20);
  expect_malformed(with([](Bytes& b) { b[20] = 0; }), "printable ASCII", 20);
  // 9. A bool element that is not 0 or 1.
  expect_malformed(hdr("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", {1, 0, 2}),
                   "bool element 2 is 2", data_at + 2);
  // 10. Every truncation of a valid file fails cleanly.
  for (std::size_t n = 0; n < good.size(); ++n)
    BOOST_CHECK_THROW(parse_npy(Bytes(good.begin(), good.begin() + n)), Error);
  // 11. Random single- and multi-byte mutations either parse or fail with Error(malformed).
  std::mt19937 rng(7);
  int rejected = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    Bytes b = good;
    int edits = 1 + int(rng() % 3);
    for (int e = 0; e < edits; ++e) b[rng() % data_at] = uint8_t(rng());
    try {
      Tensor t = parse_npy(b);
      BOOST_CHECK_LE(t.numel() * t.itemsize(), 96);
    } catch (const Error& e) {
      BOOST_CHECK_EQUAL(e.kind(), ErrorKind::malformed);
      ++rejected;
    }
  }
  BOOST_CHECK_GT(rejected, 2000);
}

BOOST_AUTO_TEST_CASE(io_errors_and_budget) {
  try {
    load_npy("/nonexistent/dir/x.npy");
    BOOST_ERROR("loaded a missing file");
  } catch (const Error& e) {
    BOOST_CHECK_EQUAL(e.kind(), ErrorKind::io);
    BOOST_CHECK(e.message().find("/nonexistent/dir/x.npy") != std::string::npos);
  }
  try {
    save_npy("/nonexistent/dir/y.npy", zeros(DType::f32, Dims{2}));
    BOOST_ERROR("saved into a missing directory");
  } catch (const Error& e) {
    BOOST_CHECK_EQUAL(e.kind(), ErrorKind::io);
    BOOST_CHECK(e.message().find("/nonexistent/dir/y.npy") != std::string::npos);
  }
  // A directory is not a readable file.
  BOOST_CHECK_THROW(load_npy(std::string(MLVM_SOURCE_DIR) + "/tests"), Error);
  // The loaded tensor is counted against the budget.
  auto budget = std::make_shared<MemoryBudget>(64);
  try {
    load_npy(fixture("f8_c.npy"), budget);  // 120 bytes
    BOOST_ERROR("budget not enforced");
  } catch (const Error& e) {
    BOOST_CHECK_EQUAL(e.kind(), ErrorKind::limit);
  }
  auto roomy = std::make_shared<MemoryBudget>(1 << 20);
  Tensor t = load_npy(fixture("f8_c.npy"), roomy);
  BOOST_CHECK_EQUAL(roomy->live(), 120);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace mlvm
