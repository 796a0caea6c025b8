// Attribute values written short, for the positional attribute lists the kernel suites pass to
// tests/common/op_runner.hpp's attrs_for (checked there as a module's are).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "common/op_runner.hpp"
#include "ir/attr_value.hpp"

namespace mlvm::testing {

inline AttrValue integer(int64_t v) {
  return AttrValue::integer(v);
}
inline AttrValue floating(double v) {
  return AttrValue::floating(v);
}
inline AttrValue boolean(bool v) {
  return AttrValue::boolean(v);
}
inline AttrValue str(const char* s) {
  return AttrValue::string(s);
}
inline AttrValue none() {
  return AttrValue::none();
}
inline AttrValue ints(const std::vector<int64_t>& v) {
  return ints_value(v);
}
// A tuple of (a, b) integer pairs, e.g. pad's pad_width.
inline AttrValue pairs(const std::vector<std::pair<int64_t, int64_t>>& v) {
  std::vector<AttrValue> items;
  for (auto [a, b] : v) items.push_back(AttrValue::tuple({integer(a), integer(b)}));
  return AttrValue::tuple(std::move(items));
}

}  // namespace mlvm::testing
