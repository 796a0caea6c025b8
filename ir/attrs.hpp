// Typed attributes: one struct per attribute set of ir/attrs.def (conv2d_attrs{padding,
// strides, dilation, groups}, ...), generated from that table so that static rules and kernels
// read attributes by name. An Attrs holds an instruction's attribute values twice: as the
// positional AttrValues a module stores and the text language prints, and as the typed struct
// built from them once, when they are checked (ir/attr_check.hpp) — the only way to make one.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ir/attr_value.hpp"
#include "tensor/dtype.hpp"
#include "tensor/error.hpp"
#include "tensor/scalar.hpp"

namespace mlvm {

// Default-value markers and range bounds used by attrs.def.
struct RequiredTag {
  explicit RequiredTag() = default;
};
struct NoneTag {
  explicit NoneTag() = default;
};
inline const RequiredTag kRequired{};
inline const NoneTag kNoneDefault{};
inline constexpr int64_t kNoMin = INT64_MIN;
inline constexpr int64_t kNoMax = INT64_MAX;

enum class AttrSet : uint8_t {
#define MLVM_ATTRS(set, ...) set,
#include "ir/attrs.def"
#undef MLVM_ATTRS
  count_
};
inline constexpr int kNumAttrSets = int(AttrSet::count_);

namespace attr_field {
using int_t = int64_t;
using opt_int_t = std::optional<int64_t>;
using num_t = Scalar;
using bool_t = bool;
using ints_t = std::vector<int64_t>;
using opt_ints_t = std::optional<std::vector<int64_t>>;
using pairs_t = std::vector<std::array<int64_t, 2>>;
using dtype_t = DType;
using opt_dtype_t = std::optional<DType>;
}  // namespace attr_field

#define MLVM_ATTR(name, kind, lo, hi, ...) attr_field::kind##_t name{};
#define MLVM_CHOICE(name, choices, dflt) \
  enum class name##_choice : uint8_t { MLVM_UNPAREN choices }; \
  name##_choice name = name##_choice::dflt;
#define MLVM_UNPAREN(...) __VA_ARGS__
#define MLVM_ATTRS(set, ...)                                   \
  struct set##_attrs {                                         \
    static constexpr AttrSet kSet = AttrSet::set;              \
    __VA_ARGS__                                                \
  };
#include "ir/attrs.def"
#undef MLVM_ATTRS
#undef MLVM_ATTR
#undef MLVM_CHOICE
#undef MLVM_UNPAREN

// The checked attributes of one instruction.
class Attrs {
 public:
  Attrs() = default;  // no attributes (set `none`)

  AttrSet set() const { return set_; }
  // The values in the set's declared order, defaults filled in: what a module stores.
  const std::vector<AttrValue>& values() const { return values_; }
  int size() const { return int(values_.size()); }

  // The typed view; T must be the struct of the op's attribute set (a mismatch is a bug in
  // mlvm, reported as an error rather than undefined behaviour).
  template <class T>
  const T& get() const {
    if (T::kSet != set_) wrong_set(int(T::kSet));
    if constexpr (T::kSet == AttrSet::none) {
      static const T empty{};
      return empty;
    } else {
      return *static_cast<const T*>(typed_.get());
    }
  }

  bool operator==(const Attrs& o) const { return set_ == o.set_ && values_ == o.values_; }

 private:
  friend Attrs make_checked_attrs(AttrSet, std::vector<AttrValue>);
  [[noreturn]] void wrong_set(int wanted) const;

  AttrSet set_ = AttrSet::none;
  std::vector<AttrValue> values_;
  std::shared_ptr<const void> typed_;
};

// The specs of a set, in declared order.
std::span<const AttrSpec> attr_specs(AttrSet set);
const char* attr_set_name(AttrSet set);

}  // namespace mlvm
