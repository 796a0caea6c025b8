// Attribute checking. Two steps, each done in one place:
//   - order_attrs puts named attributes (the text language, ModuleBuilder) in the set's
//     declared order, the order a module stores them in: unknown, repeated and missing
//     required names are its errors. It does not look at the values.
//   - check_positional_attrs validates the values (right kind, in range, one of the choices,
//     the right count) and returns checked Attrs with the typed struct filled in. The verifier
//     calls it for every instruction and reports a bad value by its index.
// resolve_attrs does both, for callers that have names and want checked Attrs at once.
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

// Named attributes in declared order, defaults filled in, and a bare integer given for an
// `ints` attribute written as the 1-tuple it stands for. Throws Error(invalid) for an unknown,
// repeated or missing required attribute; `bad_index` (if given) receives the culprit's
// position in `given` (-1: a required one is missing). The values are not checked.
std::vector<AttrValue> order_attrs(const OpInfo& op, std::span<const NamedAttr> given,
                                   int* bad_index = nullptr);

// Positional attributes (a module stores them in declared order, defaults included): checks
// the count and every value. Fewer values than the set has are completed with the defaults of
// the missing trailing attributes (a module written before they were appended); a missing
// required one is an error. On error throws Error(invalid); `bad_index` receives the bad
// value's position (-1: the count is wrong).
Attrs check_positional_attrs(const OpInfo& op, std::vector<AttrValue> values, int* bad_index = nullptr);

// order_attrs, then check_positional_attrs; `bad_index` is a position in `given` (-1: a
// missing attribute, or a bad default).
Attrs resolve_attrs(const OpInfo& op, std::span<const NamedAttr> given, int* bad_index = nullptr);

// Builds Attrs from values already checked against the set's specs (internal to ir/).
Attrs make_checked_attrs(AttrSet set, std::vector<AttrValue> values);

}  // namespace mlvm
