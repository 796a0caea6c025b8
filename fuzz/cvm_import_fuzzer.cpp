// libFuzzer target: both CVM model files through the importer (JSON parse and checks, params
// reader, lowering, the strict precision proof). The input is split into the two files: a
// little-endian u32 n, then n bytes of graph JSON (fewer if the input ends), then the params
// file. The only acceptable failure is an mlvm::Error; a crash, sanitizer report, hang or any
// other exception is a bug. Whatever imports must encode and decode back to the same bytes.
// Seeds: fuzz/corpus/cvm_import/ (written by tests/cvm/fuzz_seeds_test.cpp).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "bytecode/codec.hpp"
#include "cvm/importer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  const uint32_t n = uint32_t(data[0]) | uint32_t(data[1]) << 8 | uint32_t(data[2]) << 16 | uint32_t(data[3]) << 24;
  const size_t json_size = std::min<size_t>(n, size - 4);
  std::span<const uint8_t> symbol(data + 4, json_size);
  std::span<const uint8_t> params(data + 4 + json_size, size - 4 - json_size);
  mlvm::CvmImport r;
  try {
    r = mlvm::import_cvm(symbol, params);
  } catch (const mlvm::Error&) {
    return 0;
  }
  std::vector<uint8_t> e1 = mlvm::encode_module(r.module);
  if (mlvm::encode_module(mlvm::decode_module(e1)) != e1) __builtin_trap();
  return 0;
}
