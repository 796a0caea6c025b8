#include "input_spec.hpp"

namespace mlvm::bench {

namespace {

[[noreturn]] void bad_spec(const std::string& spec, const std::string& why) {
  throw Error(ErrorKind::usage, "input spec '" + spec + "': " + why +
                                    " (expected NAME=npy:PATH or NAME=zeros:DTYPE:D0xD1x...)");
}

Dims parse_shape(const std::string& spec, const std::string& text) {
  Dims shape;
  std::size_t at = 0;
  while (at <= text.size()) {
    std::size_t x = text.find('x', at);
    if (x == std::string::npos) x = text.size();
    const std::string part = text.substr(at, x - at);
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos)
      bad_spec(spec, "dim '" + part + "' is not a non-negative integer");
    shape.push_back(std::stoll(part));
    at = x + 1;
  }
  return shape;
}

}  // namespace

std::pair<std::string, Tensor> make_input(const std::string& spec) {
  const std::size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0) bad_spec(spec, "no NAME=");
  const std::string name = spec.substr(0, eq), source = spec.substr(eq + 1);
  if (source.rfind("npy:", 0) == 0) return {name, load_npy(source.substr(4))};
  if (source.rfind("zeros:", 0) == 0) {
    const std::string rest = source.substr(6);
    const std::size_t colon = rest.find(':');
    if (colon == std::string::npos) bad_spec(spec, "zeros needs DTYPE:SHAPE");
    const auto dtype = dtype_from_name(rest.substr(0, colon));
    if (!dtype) bad_spec(spec, "unknown dtype '" + rest.substr(0, colon) + "'");
    return {name, Tensor::zeros_owned(*dtype, parse_shape(spec, rest.substr(colon + 1)))};
  }
  bad_spec(spec, "unknown source '" + source + "'");
}

}  // namespace mlvm::bench
