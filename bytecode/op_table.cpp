#include "bytecode/op_table.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <mutex>

#include "kernels/all_kernels.hpp"

namespace mlvm {

namespace {

// --- the tiny attribute-spec language of ops.def --------------------------------------------

struct SpecCursor {
  std::string_view s;
  std::size_t p = 0;
  bool eat(char c) {
    if (p < s.size() && s[p] == c) {
      ++p;
      return true;
    }
    return false;
  }
  std::string_view word() {
    std::size_t b = p;
    while (p < s.size() && (std::isalnum((unsigned char)s[p]) || s[p] == '_' || s[p] == '-')) ++p;
    return s.substr(b, p - b);
  }
};

int64_t to_int(std::string_view w) { return std::stoll(std::string(w)); }

// Parses a default written in the text language's literal syntax (ints, bools, none, tuples).
AttrValue parse_default(SpecCursor& c) {
  if (c.eat('(')) {
    std::vector<AttrValue> items;
    while (!c.eat(')')) {
      items.push_back(parse_default(c));
      c.eat(',');
    }
    return AttrValue::tuple(std::move(items));
  }
  std::string_view w = c.word();
  if (w == "none") return AttrValue::none();
  if (w == "true") return AttrValue::boolean(true);
  if (w == "false") return AttrValue::boolean(false);
  if (!w.empty() && (std::isdigit((unsigned char)w[0]) || w[0] == '-')) return AttrValue::integer(to_int(w));
  return AttrValue::string(std::string(w));
}

std::vector<AttrSpec> parse_attr_specs(std::string_view text) {
  std::vector<AttrSpec> out;
  SpecCursor c{text};
  for (;;) {
    while (c.p < text.size() && text[c.p] == ' ') ++c.p;
    if (c.p >= text.size()) break;
    AttrSpec a;
    a.name = std::string(c.word());
    c.eat(':');
    std::string_view kind = c.word();
    if (kind == "int") a.kind = AttrKind::integer;
    else if (kind == "num") a.kind = AttrKind::number;
    else if (kind == "bool") a.kind = AttrKind::boolean;
    else if (kind == "ints") a.kind = AttrKind::ints;
    else if (kind == "pairs") a.kind = AttrKind::pairs;
    else if (kind == "dtype") a.kind = AttrKind::dtype;
    else if (kind == "str") a.kind = AttrKind::string;
    if (c.eat('[')) {
      std::string_view lo = c.word();
      c.eat(',');
      std::string_view hi = c.word();
      c.eat(']');
      if (!lo.empty()) a.min = to_int(lo);
      if (!hi.empty()) a.max = to_int(hi);
    }
    if (c.eat('(')) {
      while (!c.eat(')')) {
        a.choices.emplace_back(c.word());
        c.eat('|');
      }
    }
    if (c.eat('?')) a.nullable = true;
    if (c.eat('=')) {
      a.default_value = parse_default(c);
      if (a.kind == AttrKind::ints && a.default_value.kind == AttrValue::Kind::tuple)
        for (auto& v : a.default_value.items) a.default_value.ints.push_back(v.i);
    } else {
      a.required = true;
    }
    out.push_back(std::move(a));
  }
  return out;
}

std::vector<InputSpec> parse_inputs(std::string_view text) {
  std::vector<InputSpec> out;
  std::size_t p = 0;
  while (p < text.size()) {
    while (p < text.size() && text[p] == ' ') ++p;
    std::size_t b = p;
    while (p < text.size() && text[p] != ' ') ++p;
    if (p == b) break;
    std::string_view w = text.substr(b, p - b);
    InputSpec in;
    if (w.front() == '?') {
      in.optional = true;
      w.remove_prefix(1);
    }
    if (w.size() > 3 && w.substr(w.size() - 3) == "...") {
      in.variadic = true;
      w.remove_suffix(3);
    }
    in.name = std::string(w);
    out.push_back(std::move(in));
  }
  return out;
}

std::vector<OpInfo> build_table() {
  std::vector<OpInfo> t;
#define MLVM_OP(id, name_, alias_, inputs_, results_, attrs_, flags_)                                      \
  {                                                                                                         \
    OpInfo o{Opcode::id, name_, alias_, parse_inputs(inputs_), results_, parse_attr_specs(attrs_), flags_, \
             &infer_##id, &run_##id, ""};                                                                   \
    t.push_back(std::move(o));                                                                              \
  }
#include "bytecode/ops.def"
#undef MLVM_OP
  return t;
}

const std::vector<OpInfo>& table() {
  static const std::vector<OpInfo> t = build_table();
  return t;
}

std::string kind_name(const AttrSpec& a) {
  switch (a.kind) {
    case AttrKind::integer: return "an integer";
    case AttrKind::number: return "a number";
    case AttrKind::boolean: return "true or false";
    case AttrKind::ints: return "an integer or a tuple of integers";
    case AttrKind::pairs: return "a tuple of (before, after) pairs";
    case AttrKind::dtype: return "a dtype (f32 f64 i8 u8 i16 i32 i64 bool)";
    case AttrKind::string: {
      std::string s = "one of";
      for (auto& ch : a.choices) s += " \"" + ch + "\"";
      return s;
    }
  }
  return "a value";
}

std::string range_text(const AttrSpec& a) {
  if (a.min != INT64_MIN && a.max != INT64_MAX) return "in [" + std::to_string(a.min) + ", " + std::to_string(a.max) + "]";
  if (a.min != INT64_MIN) return ">= " + std::to_string(a.min);
  return "<= " + std::to_string(a.max);
}

// Validates one value against its spec and normalizes it in place; returns an error or "".
std::string check_value(const OpInfo& op, const AttrSpec& a, AttrValue& v) {
  using K = AttrValue::Kind;
  std::string where = "attribute '" + a.name + "' of " + op.name;
  if (v.kind == K::none) {
    if (a.nullable) return "";
    return where + " cannot be none; expected " + kind_name(a);
  }
  auto in_range = [&](int64_t x) { return x >= a.min && x <= a.max; };
  switch (a.kind) {
    case AttrKind::integer:
      if (v.kind != K::integer) return where + " must be " + kind_name(a) + ", got " + v.to_string();
      if (!in_range(v.i)) return where + " is " + std::to_string(v.i) + "; expected a value " + range_text(a);
      return "";
    case AttrKind::number:
      if (v.kind != K::integer && v.kind != K::floating)
        return where + " must be " + kind_name(a) + ", got " + v.to_string();
      return "";
    case AttrKind::boolean:
      if (v.kind != K::boolean) return where + " must be true or false, got " + v.to_string();
      return "";
    case AttrKind::dtype:
      if (v.kind != K::dtype) return where + " must be " + kind_name(a) + ", got " + v.to_string();
      return "";
    case AttrKind::string:
      if (v.kind != K::string || std::find(a.choices.begin(), a.choices.end(), v.s) == a.choices.end())
        return where + " must be " + kind_name(a) + ", got " + v.to_string();
      return "";
    case AttrKind::ints: {
      if (v.kind == K::integer) v = AttrValue::tuple({v});
      if (v.kind != K::tuple) return where + " must be " + kind_name(a) + ", got " + v.to_string();
      if (v.items.size() > 16) return where + " has " + std::to_string(v.items.size()) + " elements; at most 16 are allowed";
      v.ints.clear();
      for (auto& it : v.items) {
        if (it.kind != K::integer) return where + " must be " + kind_name(a) + ", got element " + it.to_string();
        if (!in_range(it.i)) return where + " element " + std::to_string(it.i) + " is out of range; expected " + range_text(a);
        v.ints.push_back(it.i);
      }
      return "";
    }
    case AttrKind::pairs: {
      if (v.kind != K::tuple) return where + " must be " + kind_name(a) + ", got " + v.to_string();
      if (v.items.size() > kMaxRank) return where + " has more than " + std::to_string(kMaxRank) + " pairs";
      v.ints.clear();
      for (auto& it : v.items) {
        if (it.kind != K::tuple || it.items.size() != 2 || it.items[0].kind != K::integer ||
            it.items[1].kind != K::integer)
          return where + " must be " + kind_name(a) + ", got element " + it.to_string();
        v.ints.push_back(it.items[0].i);
        v.ints.push_back(it.items[1].i);
      }
      return "";
    }
  }
  return "";
}

}  // namespace

int OpInfo::min_inputs() const {
  int n = 0;
  for (auto& i : inputs)
    if (!i.optional) ++n;
  return n;
}

int OpInfo::max_inputs() const {
  for (auto& i : inputs)
    if (i.variadic) return INT32_MAX;
  return int(inputs.size());
}

int OpInfo::attr_index(std::string_view attr_name) const {
  for (std::size_t k = 0; k < attrs.size(); ++k)
    if (attrs[k].name == attr_name) return int(k);
  return -1;
}

const OpInfo& op_info(Opcode code) { return table()[std::size_t(code)]; }
bool opcode_valid(uint32_t code) { return code < uint32_t(kNumOpcodes); }
std::span<const OpInfo> all_ops() { return table(); }

const OpInfo* find_op(std::string_view name) {
  for (auto& o : table())
    if (o.name == name || (!o.alias.empty() && o.alias == name)) return &o;
  return nullptr;
}

int edit_distance(std::string_view a, std::string_view b) {
  if (a.size() > 64 || b.size() > 64) return 1000;
  std::vector<int> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = int(j);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = int(i);
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string suggest_op(std::string_view name) {
  std::string best;
  int bestd = 3;
  for (auto& o : table()) {
    for (const std::string* n : {&o.name, &o.alias}) {
      if (n->empty()) continue;
      int d = edit_distance(name, *n);
      if (d < bestd) {
        bestd = d;
        best = *n;
      }
    }
  }
  return best;
}

Attrs resolve_attrs(const OpInfo& op, std::span<const NamedAttr> given, int* bad_index) {
  if (bad_index) *bad_index = -1;
  std::vector<AttrValue> values(op.attrs.size());
  std::vector<bool> seen(op.attrs.size(), false);
  for (std::size_t g = 0; g < given.size(); ++g) {
    int k = op.attr_index(given[g].name);
    if (k < 0) {
      if (bad_index) *bad_index = int(g);
      std::string msg = "unknown attribute '" + given[g].name + "' for " + op.name;
      std::string best;
      int bestd = 3;
      for (auto& a : op.attrs) {
        int d = edit_distance(given[g].name, a.name);
        if (d < bestd) {
          bestd = d;
          best = a.name;
        }
      }
      if (!best.empty()) msg += "; did you mean '" + best + "'?";
      else if (op.attrs.empty()) msg += " (it takes no attributes)";
      else {
        msg += " (expected one of:";
        for (auto& a : op.attrs) msg += " " + a.name;
        msg += ")";
      }
      fail_invalid(msg);
    }
    if (seen[k]) {
      if (bad_index) *bad_index = int(g);
      fail_invalid("attribute '" + given[g].name + "' of " + op.name + " is given twice");
    }
    seen[k] = true;
    values[k] = given[g].value;
    std::string err = check_value(op, op.attrs[k], values[k]);
    if (!err.empty()) {
      if (bad_index) *bad_index = int(g);
      fail_invalid(err);
    }
  }
  for (std::size_t k = 0; k < op.attrs.size(); ++k) {
    if (seen[k]) continue;
    if (op.attrs[k].required)
      fail_invalid(op.name + " needs attribute '" + op.attrs[k].name + "' (" + kind_name(op.attrs[k]) + ")");
    values[k] = op.attrs[k].default_value;
  }
  return Attrs(std::move(values));
}

Attrs check_positional_attrs(const OpInfo& op, std::vector<AttrValue> values) {
  if (values.size() != op.attrs.size())
    fail_invalid(op.name + " takes " + std::to_string(op.attrs.size()) + " attributes, got " +
                 std::to_string(values.size()));
  for (std::size_t k = 0; k < values.size(); ++k) {
    std::string err = check_value(op, op.attrs[k], values[k]);
    if (!err.empty()) fail_invalid(err);
  }
  return Attrs(std::move(values));
}

}  // namespace mlvm
