// libFuzzer target: arbitrary bytes through the ONNX importer (protobuf parse, ONNX's checker
// and version converter, lowering with import-time folding, verification). The only
// acceptable failure is an mlvm::Error; a crash, sanitizer report, hang or any other
// exception is a bug. Whatever imports must encode and decode back to the same bytes.
// Seeds: fuzz/corpus/onnx_import/ (small models from Debian's ONNX backend test data).
#include <cstdint>
#include <vector>

#include "bytecode/codec.hpp"
#include "onnx/importer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mlvm::OnnxImport r;
  try {
    r = mlvm::import_onnx({data, size});
  } catch (const mlvm::Error&) {
    return 0;
  }
  std::vector<uint8_t> e1 = mlvm::encode_module(r.module);
  if (mlvm::encode_module(mlvm::decode_module(e1)) != e1) __builtin_trap();
  return 0;
}
