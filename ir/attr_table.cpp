// The attribute sets of ir/attrs.def as specs (for checking and printing) and as typed structs
// (for static rules and kernels). Both are generated from the same lines, so they cannot drift.
#include <algorithm>

#include "ir/attr_check.hpp"

namespace mlvm {

namespace {

// --- defaults, one overload set per kind --------------------------------------------------------
// Each returns the default as an AttrValue, or nullopt for a required attribute.
using Default = std::optional<AttrValue>;

Default default_int(RequiredTag) { return std::nullopt; }
Default default_int(int64_t v) { return AttrValue::integer(v); }
Default default_opt_int(NoneTag) { return AttrValue::none(); }
Default default_opt_int(int64_t v) { return AttrValue::integer(v); }
Default default_num(RequiredTag) { return std::nullopt; }
template <class T>
Default default_num(T v) {
  if constexpr (std::is_integral_v<T>) return AttrValue::integer(int64_t(v));
  else return AttrValue::floating(double(v));
}
Default default_bool(RequiredTag) { return std::nullopt; }
Default default_bool(bool v) { return AttrValue::boolean(v); }
Default default_ints(RequiredTag) { return std::nullopt; }
Default default_ints(std::initializer_list<int64_t> v) { return AttrValue::int_tuple(v); }
Default default_opt_ints(NoneTag) { return AttrValue::none(); }
Default default_pairs(RequiredTag) { return std::nullopt; }
Default default_dtype(RequiredTag) { return std::nullopt; }
Default default_dtype(DType v) { return AttrValue::dtype(v); }
Default default_opt_dtype(NoneTag) { return AttrValue::none(); }

AttrKind kind_of(std::string_view k) {
  if (k == "int" || k == "opt_int") return AttrKind::integer;
  if (k == "num") return AttrKind::number;
  if (k == "bool") return AttrKind::boolean;
  if (k == "ints" || k == "opt_ints") return AttrKind::ints;
  if (k == "pairs") return AttrKind::pairs;
  if (k == "dtype" || k == "opt_dtype") return AttrKind::dtype;
  return AttrKind::string;
}

AttrSpec make_spec(const char* name, const char* kind, int64_t lo, int64_t hi, Default dflt) {
  AttrSpec a;
  a.name = name;
  a.kind = kind_of(kind);
  a.nullable = std::string_view(kind).starts_with("opt_");
  a.min = lo;
  a.max = hi;
  a.required = !dflt.has_value();
  if (dflt) a.default_value = std::move(*dflt);
  return a;
}

// `choices` is the stringized list "(a, b, c)".
AttrSpec make_choice(const char* name, std::string_view choices, const char* dflt) {
  AttrSpec a;
  a.name = name;
  a.kind = AttrKind::string;
  std::string word;
  for (char c : choices) {
    if (c == '(' || c == ' ') continue;
    if (c == ',' || c == ')') {
      a.choices.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  a.default_value = AttrValue::string(dflt);
  return a;
}

std::vector<std::vector<AttrSpec>> build_specs() {
  std::vector<std::vector<AttrSpec>> t(kNumAttrSets);
#define MLVM_ATTR(name, kind, lo, hi, ...) make_spec(#name, #kind, lo, hi, default_##kind(__VA_ARGS__)),
#define MLVM_CHOICE(name, choices, dflt) make_choice(#name, #choices, #dflt),
#define MLVM_ATTRS(set, ...) t[std::size_t(AttrSet::set)] = std::vector<AttrSpec>{__VA_ARGS__};
#include "ir/attrs.def"
#undef MLVM_ATTRS
#undef MLVM_ATTR
#undef MLVM_CHOICE
  return t;
}

const std::vector<std::vector<AttrSpec>>& specs() {
  static const std::vector<std::vector<AttrSpec>> t = build_specs();
  return t;
}

// --- checked values -> typed fields ---------------------------------------------------------------
// The values were checked against their specs, so each has its kind's shape.
int64_t read_int(const AttrValue& v) { return v.i; }
std::optional<int64_t> read_opt_int(const AttrValue& v) {
  if (v.kind == AttrValue::Kind::none) return std::nullopt;
  return v.i;
}
Scalar read_num(const AttrValue& v) {
  return v.kind == AttrValue::Kind::floating ? Scalar::from_float(v.f) : Scalar::from_int(v.i);
}
bool read_bool(const AttrValue& v) { return v.b; }
std::vector<int64_t> read_ints(const AttrValue& v) {
  std::vector<int64_t> out;
  out.reserve(v.items.size());
  for (auto& it : v.items) out.push_back(it.i);
  return out;
}
std::optional<std::vector<int64_t>> read_opt_ints(const AttrValue& v) {
  if (v.kind == AttrValue::Kind::none) return std::nullopt;
  return read_ints(v);
}
std::vector<std::array<int64_t, 2>> read_pairs(const AttrValue& v) {
  std::vector<std::array<int64_t, 2>> out;
  for (auto& it : v.items) out.push_back({it.items[0].i, it.items[1].i});
  return out;
}
DType read_dtype(const AttrValue& v) { return v.dt; }
std::optional<DType> read_opt_dtype(const AttrValue& v) {
  if (v.kind == AttrValue::Kind::none) return std::nullopt;
  return v.dt;
}
int read_choice(const AttrSpec& spec, const AttrValue& v) {
  auto it = std::find(spec.choices.begin(), spec.choices.end(), v.s);
  return int(it - spec.choices.begin());
}

std::shared_ptr<const void> make_typed(AttrSet set, const std::vector<AttrValue>& v) {
  const std::vector<AttrSpec>& sp = specs()[std::size_t(set)];
  (void)sp;
  switch (set) {
#define MLVM_ATTR(name, kind, lo, hi, ...) r->name = read_##kind(v[k++]);
#define MLVM_CHOICE(name, choices, dflt) \
  r->name = decltype(r->name)(read_choice(sp[k], v[k]));    \
  ++k;
#define MLVM_ATTRS(set_, ...)                         \
  case AttrSet::set_: {                               \
    auto r = std::make_shared<set_##_attrs>();        \
    [[maybe_unused]] std::size_t k = 0;               \
    __VA_ARGS__                                       \
    return r;                                         \
  }
#include "ir/attrs.def"
#undef MLVM_ATTRS
#undef MLVM_ATTR
#undef MLVM_CHOICE
    case AttrSet::count_: break;
  }
  return nullptr;
}

const char* const kSetNames[] = {
#define MLVM_ATTRS(set, ...) #set,
#include "ir/attrs.def"
#undef MLVM_ATTRS
};

}  // namespace

std::span<const AttrSpec> attr_specs(AttrSet set) { return specs().at(std::size_t(set)); }
const char* attr_set_name(AttrSet set) { return kSetNames[std::size_t(set)]; }

void Attrs::wrong_set(int wanted) const {
  fail_invalid(std::string("internal error: attributes of set '") + attr_set_name(set_) +
               "' read as set '" + attr_set_name(AttrSet(wanted)) + "'");
}

Attrs make_checked_attrs(AttrSet set, std::vector<AttrValue> values) {
  Attrs a;
  a.set_ = set;
  a.typed_ = make_typed(set, values);
  a.values_ = std::move(values);
  return a;
}

}  // namespace mlvm
