// The library's own version (mlvm/version.hpp) and the host-facing printer.
#include "mlvm/version.hpp"

#include "mlvm/tensor.hpp"
#include "vm/render.hpp"

namespace mlvm {

const char* version() { return MLVM_VERSION_STRING; }
int version_major() { return MLVM_VERSION_MAJOR; }
int version_minor() { return MLVM_VERSION_MINOR; }
int version_patch() { return MLVM_VERSION_PATCH; }

void print_tensor(std::ostream& os, std::string_view name, const Tensor& t, bool scalar) {
  RenderOptions options;
  options.scalar = scalar;
  render_tensor(os, name, t, options);
}

}  // namespace mlvm
