// .npz archives (tensor/npz.hpp) and the bounded file reader (tensor/file_read.hpp): NumPy's
// stored and deflated archives, our writer's round trip, and hostile files: devices that
// never end, corrupt members, members that are not .npy, and the memory budget.
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <functional>
#include <filesystem>
#include <fstream>

#include "tensor/error.hpp"
#include "tensor/file_read.hpp"
#include "tensor/npy.hpp"
#include "tensor/npz.hpp"
#include "tensor/storage.hpp"

using namespace mlvm;
namespace fs = std::filesystem;

namespace {

std::string npz_fixture(const std::string& name) {
  return std::string(MLVM_SOURCE_DIR) + "/tests/data/npz/" + name;
}

template <class T>
std::vector<T> values(const Tensor& t) {
  const T* p = reinterpret_cast<const T*>(t.raw_data());
  return std::vector<T>(p, p + t.numel());
}

// The error's kind, and its message or location mentions every part.
void expect_error(const std::function<void()>& f, ErrorKind kind,
                  const std::vector<std::string>& parts) {
  try {
    f();
    BOOST_FAIL("expected an error");
  } catch (const Error& e) {
    const std::string all = e.describe() + " @ " + e.location();
    BOOST_TEST_INFO("error: " << all);
    BOOST_TEST(int(e.kind()) == int(kind));
    for (const auto& p : parts) {
      BOOST_TEST_INFO("error: " << all << " lacks " << p);
      BOOST_TEST(all.find(p) != std::string::npos);
    }
  }
}

fs::path scratch(const std::string& name) {
  return fs::temp_directory_path() / ("mlvm_npz_test_" + std::to_string(::getpid()) + name);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tensor_npz)

BOOST_AUTO_TEST_CASE(reads_numpy_stored_and_deflated_archives) {
  for (const char* name : {"stored.npz", "deflated.npz"}) {
    BOOST_TEST_CONTEXT(name) {
      NamedTensors a = load_npz(npz_fixture(name));
      BOOST_REQUIRE(a.size() == 2u);
      BOOST_TEST(a[0].first == "x");
      BOOST_TEST(a[0].second.type_string() == "f32[2]");
      BOOST_TEST(a[1].first == "n");
      BOOST_TEST(a[1].second.type_string() == "i32[2, 3]");
    }
  }
  BOOST_TEST(values<float>(load_npz(npz_fixture("stored.npz"))[0].second) ==
                 std::vector<float>({-3, 4}),
             boost::test_tools::per_element());
  BOOST_TEST(values<int32_t>(load_npz(npz_fixture("deflated.npz"))[1].second) ==
                 std::vector<int32_t>({0, 1, 2, 3, 4, 5}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(save_then_load_round_trip) {
  const fs::path p = scratch("rt.npz");
  NamedTensors in = load_npz(npz_fixture("deflated.npz"));
  save_npz(p.string(), in);
  NamedTensors out = load_npz(p.string());
  BOOST_REQUIRE(out.size() == 2u);
  BOOST_TEST(out[1].first == "n");
  BOOST_TEST(values<int32_t>(out[1].second) == values<int32_t>(in[1].second),
             boost::test_tools::per_element());
  expect_error([&] { save_npz(p.string(), {{"a", in[0].second}, {"a", in[0].second}}); },
               ErrorKind::usage, {"twice"});
  expect_error([&] { save_npz("/nonexistent/dir/o.npz", in); }, ErrorKind::io,
               {"/nonexistent/dir/o.npz"});
  fs::remove(p);
}

BOOST_AUTO_TEST_CASE(hostile_archives_name_file_and_member) {
  const fs::path p = scratch("bad.npz");
  std::ofstream(p, std::ios::binary) << "PK not really a zip";
  expect_error([&] { load_npz(p.string()); }, ErrorKind::malformed, {p.string(), "zip"});
  // A member whose .npy is broken: the error names the archive and the member.
  const fs::path q = scratch("badmember.npz");
  {
    NamedTensors a = load_npz(npz_fixture("stored.npz"));
    save_npz(q.string(), a);
    std::fstream f(q, std::ios::binary | std::ios::in | std::ios::out);
    std::string bytes((std::istreambuf_iterator<char>(f)), {});
    const auto at = bytes.find("\x93NUMPY");
    BOOST_REQUIRE(at != std::string::npos);
    f.seekp(std::streamoff(at + 1));
    f << "X";  // breaks the magic; the stored CRC check or the .npy parser must catch it
  }
  expect_error([&] { load_npz(q.string()); }, ErrorKind::malformed, {q.string(), "member x.npy"});
  // Names may hold dots: only the final ".npy" is the suffix.
  save_npz(q.string(), {{"w.0", load_npz(npz_fixture("stored.npz"))[0].second}});
  BOOST_TEST(load_npz(q.string())[0].first == "w.0");
  expect_error([&] { load_npz("/dev/zero"); }, ErrorKind::io, {"/dev/zero"});
  expect_error([&] { load_npz("/nonexistent.npz"); }, ErrorKind::io, {"/nonexistent.npz"});
  auto budget = std::make_shared<MemoryBudget>(10);
  expect_error([&] { load_npz(npz_fixture("stored.npz"), budget); }, ErrorKind::limit,
               {"stored.npz", "member"});
  fs::remove(p);
  fs::remove(q);
}

BOOST_AUTO_TEST_CASE(endless_devices_fail_at_once) {
  for (const char* dev : {"/dev/zero", "/dev/urandom"}) {
    BOOST_TEST_CONTEXT(dev) {
      const auto t0 = std::chrono::steady_clock::now();
      expect_error([&] { load_npy(dev); }, ErrorKind::io, {dev, "not a regular file"});
      expect_error([&] { read_file_bounded(dev, 1 << 20); }, ErrorKind::io, {dev});
      const bool quick = std::chrono::steady_clock::now() - t0 < std::chrono::seconds(1);
      BOOST_TEST(quick);
    }
  }
  expect_error([&] { load_npy(MLVM_SOURCE_DIR); }, ErrorKind::io, {"a directory"});
  // A regular file larger than the bound is refused from its size, without reading it.
  expect_error([&] { read_file_bounded(npz_fixture("stored.npz"), 100, "module"); },
               ErrorKind::limit, {"stored.npz", "module", "522", "100"});
}

BOOST_AUTO_TEST_CASE(npy_reads_no_further_than_its_header_promises) {
  // A header promising 2 floats followed by more bytes: refused after one extra byte.
  const fs::path p = scratch("extra.npy");
  std::vector<uint8_t> bytes = to_npy(load_npz(npz_fixture("stored.npz"))[0].second);
  bytes.push_back(0);
  {
    std::ofstream f(p, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  }
  expect_error([&] { load_npy(p.string()); }, ErrorKind::malformed,
               {p.string(), "unexpected bytes"});
  bytes.resize(bytes.size() - 3);
  {
    std::ofstream f(p, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  }
  expect_error([&] { load_npy(p.string()); }, ErrorKind::malformed, {p.string(), "truncated"});
  fs::remove(p);
}

BOOST_AUTO_TEST_SUITE_END()
