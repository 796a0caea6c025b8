// libFuzzer target: arbitrary bytes through the decoder and then the verifier. The only
// acceptable failure is an mlvm::Error; anything else (crash, sanitizer report, other
// exception) is a bug. It also checks that whatever decodes re-encodes, and that the encoding
// of a decoded module is a fixed point (encode(decode(e)) == e).
// Seeds: fuzz/corpus/decode_verify/ (written by tests/bytecode/seed_corpus_test.cpp).
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "bytecode/codec.hpp"
#include "bytecode/verifier.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mlvm::Module m;
  try {
    m = mlvm::decode_module({data, size});
  } catch (const mlvm::Error&) {
    return 0;
  }
  std::vector<uint8_t> e1;
  try {
    e1 = mlvm::encode_module(m);
  } catch (const mlvm::Error&) {
    __builtin_trap();  // a decoded module must always be encodable
  }
  if (mlvm::encode_module(mlvm::decode_module(e1)) != e1) __builtin_trap();
  try {
    mlvm::VerifyOptions strict;
    strict.strict_precision = true;
    mlvm::VerifyResult r = mlvm::verify_module(m, strict);
    if (r.release_after.size() != m.code.size()) __builtin_trap();
    if (r.attrs.size() != m.code.size()) __builtin_trap();
    for (auto& regs : r.release_after)
      for (int32_t reg : regs)
        if (reg < 0 || reg >= m.num_registers()) __builtin_trap();
    mlvm::verify_module(m);
  } catch (const mlvm::Error&) {
  }
  return 0;
}
