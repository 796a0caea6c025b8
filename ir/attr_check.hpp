// Attribute checking: the one place attribute values are validated (known name, no duplicate,
// right kind, in range, required ones present). Both ways in — named, from the text language
// or a builder, and positional, from a module — end here and return checked Attrs with the
// typed struct filled in.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "ir/attrs.hpp"
#include "ir/op_table.hpp"

namespace mlvm {

struct NamedAttr {
  std::string name;
  AttrValue value;
};

// Named attributes: converts bare ints to 1-tuples for `ints`, fills defaults, and returns them
// in declared order. On error throws Error(invalid); `bad_index` (if given) receives the
// position in `given` of the culprit (-1: a required one is missing).
Attrs resolve_attrs(const OpInfo& op, std::span<const NamedAttr> given, int* bad_index = nullptr);

// Positional attributes (a module stores them in declared order, defaults included). Same
// checks; `bad_index` receives the culprit's position (-1: the count is wrong).
Attrs check_positional_attrs(const OpInfo& op, std::vector<AttrValue> values, int* bad_index = nullptr);

// Builds Attrs from values already checked against the set's specs (internal to ir/).
Attrs make_checked_attrs(AttrSet set, std::vector<AttrValue> values);

}  // namespace mlvm
