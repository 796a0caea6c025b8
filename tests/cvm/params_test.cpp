// The params file: read back exactly, and every malformed byte sequence — truncated anywhere,
// a wrong magic, a count or size that does not fit, a wrong type or device — is
// Error(malformed) at "params byte N", the offset of the field at fault.
#include <boost/test/unit_test.hpp>

#include "common/cvm_cases.hpp"
#include "cvm/params.hpp"

using namespace mlvm;
using namespace mlvm::cvm_test;

namespace {

std::vector<ParamArray> two_arrays() {
  return {ParamArray{"w", {2, 3}, {1, -2, 3, -4, 5, -6}}, ParamArray{"b8", {2}, {-128, 127}, 8}};
}

void expect_malformed(const std::vector<uint8_t>& bytes, const std::string& part, const std::string& where) {
  try {
    read_cvm_params(bytes);
  } catch (const Error& e) {
    BOOST_TEST(error_kind_name(e.kind()) == error_kind_name(ErrorKind::malformed));
    BOOST_TEST(e.message().find(part) != std::string::npos, "'" << part << "' in " << e.message());
    BOOST_TEST(e.location() == where);
    return;
  }
  BOOST_FAIL("expected Error(malformed) at " << where);
}

void set_u64(std::vector<uint8_t>& b, std::size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) b[at + std::size_t(i)] = uint8_t(v >> (8 * i));
}

// Layout of two_arrays(): header 16, count 8, names 8+1 and 8+2, array count 8 -> first array at 51.
constexpr std::size_t kFirstArray = 51;

}  // namespace

BOOST_AUTO_TEST_SUITE(cvm_params)

BOOST_AUTO_TEST_CASE(reads_back_what_was_written) {
  std::vector<CvmParam> p = read_cvm_params(params_bytes(two_arrays()));
  BOOST_TEST_REQUIRE(p.size() == 2u);
  BOOST_TEST(p[0].name == "w");
  BOOST_TEST(p[0].dims == (std::vector<int64_t>{2, 3}));
  BOOST_TEST(p[0].values == (std::vector<int32_t>{1, -2, 3, -4, 5, -6}));
  BOOST_TEST(p[0].offset == kFirstArray);
  BOOST_TEST(p[1].bits == 8);
  BOOST_TEST(p[1].values == (std::vector<int32_t>{-128, 127}));
  BOOST_TEST(read_cvm_params(params_bytes({})).empty());
}

BOOST_AUTO_TEST_CASE(every_truncation_is_malformed) {
  const std::vector<uint8_t> full = params_bytes(two_arrays());
  for (std::size_t n = 0; n < full.size(); ++n) {
    std::vector<uint8_t> cut(full.begin(), full.begin() + std::ptrdiff_t(n));
    try {
      read_cvm_params(cut);
      BOOST_FAIL("a file cut to " << n << " bytes was read");
    } catch (const Error& e) {
      BOOST_TEST(error_kind_name(e.kind()) == error_kind_name(ErrorKind::malformed));
      BOOST_TEST(e.location().rfind("params byte ", 0) == 0u);
    }
  }
}

BOOST_AUTO_TEST_CASE(magics) {
  std::vector<uint8_t> b = params_bytes(two_arrays());
  b[0] ^= 1;
  expect_malformed(b, "the file's magic is 0xF7E58D4F05049CB6", "params byte 0");
  b = params_bytes(two_arrays());
  b[kFirstArray + 7] = 0;
  expect_malformed(b, "the magic of array 'w'", "params byte 51");
}

BOOST_AUTO_TEST_CASE(counts_and_sizes_that_do_not_fit) {
  std::vector<uint8_t> b = params_bytes(two_arrays());
  set_u64(b, 16, uint64_t(1) << 60);
  expect_malformed(b, "name count", "params byte 16");
  b = params_bytes(two_arrays());
  set_u64(b, 24, 1000);  // the first name's length
  expect_malformed(b, "1000 bytes long", "params byte 24");
  b = params_bytes(two_arrays());
  set_u64(b, 43, 3);  // the array count
  expect_malformed(b, "array count 3 differs", "params byte 43");
  b = params_bytes(two_arrays());
  set_u64(b, kFirstArray + 32, uint64_t(1) << 40);  // the first dim
  expect_malformed(b, "dim 0", "params byte 83");
  b = params_bytes(two_arrays());
  set_u64(b, kFirstArray + 48, 25);  // byte_size
  expect_malformed(b, "byte_size 25, expected 24", "params byte 99");
  b = params_bytes(two_arrays());
  b.push_back(0);
  expect_malformed(b, "1 bytes after the last array", "params byte " + std::to_string(b.size() - 1));
}

BOOST_AUTO_TEST_CASE(types_and_devices) {
  std::vector<uint8_t> b = params_bytes(two_arrays());
  b[kFirstArray + 16] = 2;  // device_type: GPU
  expect_malformed(b, "expected the CPU", "params byte 67");
  b = params_bytes(two_arrays());
  b[kFirstArray + 24] = 9;  // ndim
  expect_malformed(b, "ndim 9", "params byte 75");
  b = params_bytes(two_arrays());
  b[kFirstArray + 28] = 2;  // type code: float
  expect_malformed(b, "expected int8 or int32", "params byte 79");
  b = params_bytes(two_arrays());
  b[kFirstArray + 29] = 16;  // bits
  expect_malformed(b, "bits 16", "params byte 79");
}

BOOST_AUTO_TEST_CASE(the_importer_reports_params_errors_with_their_offset) {
  CvmWriter w;
  const int d = w.data({2}, 8);
  const int b = w.param("b", {2}, {1, 2}, 8);
  w.head(w.op("elemwise_add", "s", {{d}, {b}}, {}, {{2}}));
  std::vector<uint8_t> p = w.params();
  p.resize(p.size() - 3);
  expect_import_error(w.symbol(), p, ErrorKind::malformed, {"truncated"}, "params byte");
}

BOOST_AUTO_TEST_SUITE_END()
