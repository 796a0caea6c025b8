#include "ir/attr_value.hpp"

#include "tensor/scalar.hpp"

namespace mlvm {

AttrValue AttrValue::integer(int64_t v) {
  AttrValue a;
  a.kind = Kind::integer;
  a.i = v;
  a.f = double(v);
  return a;
}
AttrValue AttrValue::floating(double v) {
  AttrValue a;
  a.kind = Kind::floating;
  a.f = v;
  return a;
}
AttrValue AttrValue::boolean(bool v) {
  AttrValue a;
  a.kind = Kind::boolean;
  a.b = v;
  return a;
}
AttrValue AttrValue::dtype(DType t) {
  AttrValue a;
  a.kind = Kind::dtype;
  a.dt = t;
  return a;
}
AttrValue AttrValue::string(std::string v) {
  AttrValue a;
  a.kind = Kind::string;
  a.s = std::move(v);
  return a;
}
AttrValue AttrValue::tuple(std::vector<AttrValue> v) {
  AttrValue a;
  a.kind = Kind::tuple;
  a.items = std::move(v);
  return a;
}
AttrValue AttrValue::int_tuple(const std::vector<int64_t>& v) {
  std::vector<AttrValue> items;
  items.reserve(v.size());
  for (int64_t x : v) items.push_back(integer(x));
  return tuple(std::move(items));
}

std::string AttrValue::to_string() const {
  switch (kind) {
    case Kind::none: return "none";
    case Kind::integer: return std::to_string(i);
    case Kind::floating: return Scalar::from_float(f).to_string();
    case Kind::boolean: return b ? "true" : "false";
    case Kind::dtype: return std::string(dtype_name(dt));
    case Kind::string: {
      std::string out = "\"";
      for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
      }
      return out + "\"";
    }
    case Kind::tuple: {
      std::string out = "(";
      for (std::size_t k = 0; k < items.size(); ++k) {
        if (k) out += ", ";
        out += items[k].to_string();
      }
      if (items.size() == 1) out += ",";
      return out + ")";
    }
  }
  return "none";
}

bool AttrValue::operator==(const AttrValue& o) const {
  if (kind != o.kind) return false;
  switch (kind) {
    case Kind::none: return true;
    case Kind::integer: return i == o.i;
    case Kind::floating: return f == o.f || (f != f && o.f != o.f);
    case Kind::boolean: return b == o.b;
    case Kind::dtype: return dt == o.dt;
    case Kind::string: return s == o.s;
    case Kind::tuple: return items == o.items;
  }
  return false;
}

std::string AttrSpec::kind_text() const {
  switch (kind) {
    case AttrKind::integer: return "an integer";
    case AttrKind::number: return "a number";
    case AttrKind::boolean: return "true or false";
    case AttrKind::ints: return "an integer or a tuple of integers";
    case AttrKind::pairs: return "a tuple of (before, after) pairs";
    case AttrKind::dtype: return "a dtype (f32 f64 i8 u8 i16 i32 i64 bool)";
    case AttrKind::string: {
      std::string s = "one of";
      for (auto& ch : choices) s += " \"" + ch + "\"";
      return s;
    }
  }
  return "a value";
}

std::string AttrSpec::to_string() const {
  static const char* const names[] = {"int", "num", "bool", "ints", "pairs", "dtype", "str"};
  std::string s = name + ":" + names[int(kind)];
  if (kind == AttrKind::string) {
    s += "(";
    for (std::size_t k = 0; k < choices.size(); ++k) s += (k ? "|" : "") + choices[k];
    s += ")";
  }
  if (min != INT64_MIN || max != INT64_MAX)
    s += "[" + (min != INT64_MIN ? std::to_string(min) : "") + "," +
         (max != INT64_MAX ? std::to_string(max) : "") + "]";
  if (nullable) s += "?";
  if (!required) {
    // Strings print bare (as in `mode=clip`), everything else in the language's syntax.
    s += "=" + (default_value.kind == AttrValue::Kind::string ? default_value.s : default_value.to_string());
  }
  return s;
}

}  // namespace mlvm
