#include "tensor/dtype.hpp"

namespace mlvm {

namespace {
constexpr std::string_view kNames[kNumDTypes] = {"f32", "f64", "i8", "u8", "i16", "i32", "i64", "bool"};
}

std::string_view dtype_name(DType t) {
  auto i = static_cast<unsigned>(t);
  return i < kNumDTypes ? kNames[i] : std::string_view("?dtype");
}

std::optional<DType> dtype_from_name(std::string_view name) {
  for (int i = 0; i < kNumDTypes; ++i)
    if (kNames[i] == name) return static_cast<DType>(i);
  return std::nullopt;
}

bool dtype_valid(uint8_t code) { return code < kNumDTypes; }

}  // namespace mlvm
