#include "tensor/npy.hpp"

#include "tensor/error.hpp"

namespace mlvm {

// Placeholders until .npy I/O lands.
Tensor parse_npy(std::span<const uint8_t>, std::shared_ptr<MemoryBudget>) { fail(ErrorKind::malformed, "npy reader is not implemented yet"); }
Tensor load_npy(const std::string& path, std::shared_ptr<MemoryBudget>) { fail(ErrorKind::io, "cannot read " + path); }
std::vector<uint8_t> to_npy(const Tensor&) { fail_invalid("npy writer is not implemented yet"); }
void save_npy(const std::string& path, const Tensor&) { fail(ErrorKind::io, "cannot write " + path); }

}  // namespace mlvm
