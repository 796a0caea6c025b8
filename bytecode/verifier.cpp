#include "bytecode/verifier.hpp"

namespace mlvm {

// Placeholder until the verifier lands.
VerifyResult verify_module(const Module&, const VerifyOptions&) { fail_invalid("verifier is not implemented yet"); }
VerifyResult verify_or_throw(const Module& m, const VerifyOptions& o) { return verify_module(m, o); }

}  // namespace mlvm
