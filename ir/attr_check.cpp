#include "ir/attr_check.hpp"

#include <algorithm>

#include "tensor/dims.hpp"
#include "tensor/error.hpp"

namespace mlvm {

namespace {

std::string range_text(const AttrSpec& a) {
  if (a.min != INT64_MIN && a.max != INT64_MAX)
    return "in [" + std::to_string(a.min) + ", " + std::to_string(a.max) + "]";
  if (a.min != INT64_MIN) return ">= " + std::to_string(a.min);
  return "<= " + std::to_string(a.max);
}

// Validates one value against its spec and normalizes it in place; returns an error or "".
std::string check_value(const OpInfo& op, const AttrSpec& a, AttrValue& v) {
  using K = AttrValue::Kind;
  std::string where = "attribute '" + a.name + "' of " + op.name;
  if (v.kind == K::none) {
    if (a.nullable) return "";
    return where + " cannot be none; expected " + a.kind_text();
  }
  auto in_range = [&](int64_t x) { return x >= a.min && x <= a.max; };
  switch (a.kind) {
    case AttrKind::integer:
      if (v.kind != K::integer) return where + " must be " + a.kind_text() + ", got " + v.to_string();
      if (!in_range(v.i)) return where + " is " + std::to_string(v.i) + "; expected a value " + range_text(a);
      return "";
    case AttrKind::number:
      if (v.kind != K::integer && v.kind != K::floating)
        return where + " must be " + a.kind_text() + ", got " + v.to_string();
      return "";
    case AttrKind::boolean:
      if (v.kind != K::boolean) return where + " must be true or false, got " + v.to_string();
      return "";
    case AttrKind::dtype:
      if (v.kind != K::dtype) return where + " must be " + a.kind_text() + ", got " + v.to_string();
      return "";
    case AttrKind::string:
      if (v.kind != K::string || std::find(a.choices.begin(), a.choices.end(), v.s) == a.choices.end())
        return where + " must be " + a.kind_text() + ", got " + v.to_string();
      return "";
    case AttrKind::ints: {
      if (v.kind == K::integer) v = AttrValue::tuple({v});
      if (v.kind != K::tuple) return where + " must be " + a.kind_text() + ", got " + v.to_string();
      if (v.items.size() > 16)
        return where + " has " + std::to_string(v.items.size()) + " elements; at most 16 are allowed";
      for (auto& it : v.items) {
        if (it.kind != K::integer) return where + " must be " + a.kind_text() + ", got element " + it.to_string();
        if (!in_range(it.i))
          return where + " element " + std::to_string(it.i) + " is out of range; expected " + range_text(a);
      }
      return "";
    }
    case AttrKind::pairs: {
      if (v.kind != K::tuple) return where + " must be " + a.kind_text() + ", got " + v.to_string();
      if (v.items.size() > kMaxRank) return where + " has more than " + std::to_string(kMaxRank) + " pairs";
      for (auto& it : v.items) {
        if (it.kind != K::tuple || it.items.size() != 2 || it.items[0].kind != K::integer ||
            it.items[1].kind != K::integer)
          return where + " must be " + a.kind_text() + ", got element " + it.to_string();
      }
      return "";
    }
  }
  return "";
}

std::string unknown_attr_message(const OpInfo& op, const std::string& name) {
  std::string msg = "unknown attribute '" + name + "' for " + op.name;
  std::string best;
  int bestd = 3;
  for (auto& a : op.attrs) {
    int d = edit_distance(name, a.name);
    if (d < bestd) {
      bestd = d;
      best = a.name;
    }
  }
  if (!best.empty()) return msg + "; did you mean '" + best + "'?";
  if (op.attrs.empty()) return msg + " (it takes no attributes)";
  msg += " (expected one of:";
  for (auto& a : op.attrs) msg += " " + a.name;
  return msg + ")";
}

}  // namespace

std::vector<AttrValue> order_attrs(const OpInfo& op, std::span<const NamedAttr> given,
                                   int* bad_index) {
  if (bad_index) *bad_index = -1;
  std::vector<AttrValue> values(op.attrs.size());
  std::vector<bool> seen(op.attrs.size(), false);
  for (std::size_t g = 0; g < given.size(); ++g) {
    int k = op.attr_index(given[g].name);
    if (k < 0) {
      if (bad_index) *bad_index = int(g);
      fail_invalid(unknown_attr_message(op, given[g].name));
    }
    if (seen[std::size_t(k)]) {
      if (bad_index) *bad_index = int(g);
      fail_invalid("attribute '" + given[g].name + "' of " + op.name + " is given twice");
    }
    seen[std::size_t(k)] = true;
    AttrValue& v = values[std::size_t(k)];
    v = given[g].value;
    // The text language's shorthand: `axes=0` is `axes=(0,)`.
    if (op.attrs[std::size_t(k)].kind == AttrKind::ints && v.kind == AttrValue::Kind::integer)
      v = AttrValue::tuple({v});
  }
  for (std::size_t k = 0; k < op.attrs.size(); ++k) {
    if (seen[k]) continue;
    if (op.attrs[k].required)
      fail_invalid(op.name + " needs attribute '" + op.attrs[k].name + "' (" +
                   op.attrs[k].kind_text() + ")");
    values[k] = op.attrs[k].default_value;
  }
  return values;
}

Attrs check_positional_attrs(const OpInfo& op, std::vector<AttrValue> values, int* bad_index) {
  if (bad_index) *bad_index = -1;
  // A module written before attributes were appended to the op's set stores fewer: the missing
  // trailing ones take their defaults (a required one is still missing).
  while (values.size() < op.attrs.size() && !op.attrs[values.size()].required)
    values.push_back(op.attrs[values.size()].default_value);
  if (values.size() != op.attrs.size())
    fail_invalid(op.name + " takes " + std::to_string(op.attrs.size()) + " attributes, got " +
                 std::to_string(values.size()));
  for (std::size_t k = 0; k < values.size(); ++k) {
    std::string err = check_value(op, op.attrs[k], values[k]);
    if (!err.empty()) {
      if (bad_index) *bad_index = int(k);
      fail_invalid(err);
    }
  }
  return make_checked_attrs(op.attr_set, std::move(values));
}

Attrs resolve_attrs(const OpInfo& op, std::span<const NamedAttr> given, int* bad_index) {
  std::vector<AttrValue> values = order_attrs(op, given, bad_index);
  int bad = -1;
  try {
    return check_positional_attrs(op, std::move(values), &bad);
  } catch (const Error&) {
    if (bad_index) {
      *bad_index = -1;
      for (std::size_t g = 0; bad >= 0 && g < given.size(); ++g)
        if (given[g].name == op.attrs[std::size_t(bad)].name) *bad_index = int(g);
    }
    throw;
  }
}

}  // namespace mlvm
