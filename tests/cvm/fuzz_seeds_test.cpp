// The CVM import fuzzer's seeds (fuzz/corpus/cvm_import/): small models covering convolution,
// dense, pooling, detection and postprocess, packed as the fuzzer splits its input (u32 JSON
// length, JSON, params). The committed seeds must equal what is written here and import;
// MLVM_WRITE_FUZZ_SEEDS=1 rewrites them. And a cheap stand-in for the fuzzer that runs on
// every ctest: byte mutations of each seed are an mlvm::Error or a model, never anything else.
#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/cvm_cases.hpp"

using namespace mlvm;
using namespace mlvm::cvm_test;
namespace fs = std::filesystem;

namespace {

std::vector<uint8_t> pack(const CvmWriter& w, const std::string& postprocess = "") {
  const std::vector<uint8_t> s = w.symbol("", postprocess), p = w.params();
  std::vector<uint8_t> out;
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(s.size() >> (8 * i)));
  out.insert(out.end(), s.begin(), s.end());
  out.insert(out.end(), p.begin(), p.end());
  return out;
}

std::pair<std::vector<uint8_t>, std::vector<uint8_t>> unpack(const std::vector<uint8_t>& b) {
  const std::size_t n = std::min<std::size_t>(std::size_t(b[0]) | std::size_t(b[1]) << 8 | std::size_t(b[2]) << 16 | std::size_t(b[3]) << 24, b.size() - 4);
  return {std::vector<uint8_t>(b.begin() + 4, b.begin() + 4 + std::ptrdiff_t(n)), std::vector<uint8_t>(b.begin() + 4 + std::ptrdiff_t(n), b.end())};
}

std::vector<std::pair<std::string, std::vector<uint8_t>>> seeds() {
  std::vector<std::pair<std::string, std::vector<uint8_t>>> out;
  {
    CvmWriter w;
    const int d = w.data({1, 1, 4, 4}, 8);
    const int k = w.param("w", {2, 1, 3, 3}, spread(18, 4), 8);
    const int b = w.param("b", {2}, {3, -3}, 8);
    const int c = w.op("conv2d", "conv", {{d}, {k}, {b}}, {{"channels", "2"}, {"kernel_size", "(3, 3)"}, {"padding", "(1, 1)"}}, {{1, 2, 4, 4}});
    const int s = w.op("cvm_right_shift", "shift", {{c}}, {{"precision", "8"}, {"shift_bit", "3"}}, {{1, 2, 4, 4}}, {8});
    const int p = w.op("max_pool2d", "pool", {{s}}, {{"pool_size", "(2, 2)"}, {"strides", "(2, 2)"}}, {{1, 2, 2, 2}}, {8});
    w.head(w.op("flatten", "flat", {{p}}, {}, {{1, 8}}, {8}));
    out.emplace_back("conv_pool", pack(w));
  }
  {
    CvmWriter w;
    const int d = w.data({2, 4}, 8);
    const int k = w.param("w", {3, 4}, spread(12, 5), 8);
    const int fc = w.op("dense", "fc", {{d}, {k}}, {{"units", "3"}, {"use_bias", "False"}}, {{2, 3}});
    w.head(w.op("cvm_clip", "clip", {{fc}}, {{"precision", "8"}}, {{2, 3}}, {8}));
    out.emplace_back("dense_argmax", pack(w, "argmax"));
  }
  {
    CvmWriter w;
    const int d = w.data({1, 3, 6}, 8);
    const int v = w.op("get_valid_count", "valid", {{d}}, {{"score_threshold", "1"}}, {{1}, {1, 3, 6}});
    w.head(w.op("non_max_suppression", "nms", {{v, 1}, {v, 0}}, {{"iou_threshold", "40"}}, {{1, 3, 6}}));
    out.emplace_back("detection", pack(w, "detection"));
  }
  {
    CvmWriter w;
    const int d = w.data({2, 3}, 8);
    const int t = w.param("t", {2, 3}, {1, 2, 3, 4, 5, 6}, 8);
    const int a = w.op("broadcast_add", "a", {{d}, {t}}, {}, {{2, 3}}, {9});
    const int c = w.op("concatenate", "c", {{a}, {d}}, {}, {{2, 6}}, {9});
    const int r = w.op("transpose", "tr", {{c}}, {{"axes", "(1, 0)"}}, {{6, 2}}, {9});
    w.head(w.op("sum", "s", {{r}}, {{"axis", "(0,)"}, {"keepdims", "True"}}, {{1, 2}}, {12}));
    out.emplace_back("elementwise", pack(w));
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cvm_fuzz_seeds)

BOOST_AUTO_TEST_CASE(committed_seeds_match_and_import) {
  const fs::path dir = fs::path(MLVM_SOURCE_DIR) / "fuzz/corpus/cvm_import";
  const bool write = std::getenv("MLVM_WRITE_FUZZ_SEEDS") != nullptr;
  if (write) fs::create_directories(dir);
  for (const auto& [name, bytes] : seeds()) {
    BOOST_TEST_CONTEXT("seed " << name) {
      BOOST_TEST(bytes.size() <= 4096u);  // scripts/fuzz.sh's -max_len
      auto [symbol, params] = unpack(bytes);
      BOOST_CHECK_NO_THROW(import_cvm(symbol, params));
      if (write) {
        std::ofstream(dir / name, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
      } else {
        std::ifstream in(dir / name, std::ios::binary);
        std::vector<uint8_t> committed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        BOOST_TEST((committed == bytes), "fuzz/corpus/cvm_import/" << name << " is stale: MLVM_WRITE_FUZZ_SEEDS=1");
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(mutated_seeds_fail_only_with_mlvm_errors) {
  uint64_t state = 12345;
  auto next = [&] { return state = state * 6364136223846793005ull + 1442695040888963407ull; };
  int imported = 0, refused = 0;
  for (const auto& [name, bytes] : seeds()) {
    for (int round = 0; round < 300; ++round) {
      std::vector<uint8_t> b = bytes;
      for (int k = 0; k < 1 + int(next() % 4); ++k) {
        const std::size_t at = 4 + std::size_t(next() % (b.size() - 4));
        switch (next() % 3) {
          case 0: b[at] = uint8_t(next()); break;
          case 1: b[at] = uint8_t("0123456789[]{},:\"-"[next() % 18]); break;
          default: b.erase(b.begin() + std::ptrdiff_t(at)); break;
        }
      }
      auto [symbol, params] = unpack(b);
      try {
        import_cvm(symbol, params);
        ++imported;
      } catch (const Error&) {
        ++refused;
      } catch (const std::exception& e) {
        BOOST_FAIL("seed " << name << " round " << round << ": not an mlvm::Error: " << e.what());
      }
    }
  }
  BOOST_TEST(refused > 0);
  BOOST_TEST_MESSAGE(imported << " mutants imported, " << refused << " refused");
}

BOOST_AUTO_TEST_SUITE_END()
