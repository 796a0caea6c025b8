// Attribute values as the text language writes them and a module stores them, and the spec
// each attribute of the op table is checked against (ir/attrs.def).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensor/dtype.hpp"

namespace mlvm {

struct AttrValue {
  enum class Kind : uint8_t { none, integer, floating, boolean, tuple, dtype, string };
  Kind kind = Kind::none;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  DType dt = DType::f32;
  std::string s;
  std::vector<AttrValue> items;  // tuple elements

  static AttrValue none() { return {}; }
  static AttrValue integer(int64_t v);
  static AttrValue floating(double v);
  static AttrValue boolean(bool v);
  static AttrValue dtype(DType t);
  static AttrValue string(std::string v);
  static AttrValue tuple(std::vector<AttrValue> v);
  static AttrValue int_tuple(const std::vector<int64_t>& v);
  std::string to_string() const;  // in the text language's syntax; re-parses to the same value
  bool operator==(const AttrValue& o) const;
};

// What an attribute accepts.
enum class AttrKind : uint8_t {
  integer,  // int, range-checked
  number,   // int or float (a_min, value, ...)
  boolean,
  ints,   // tuple of ints; a bare int means a one-element tuple
  pairs,  // tuple of (int, int) tuples (pad_width)
  dtype,
  string,  // one of the listed choices
};

struct AttrSpec {
  std::string name;
  AttrKind kind = AttrKind::integer;
  bool required = false;
  bool nullable = false;                     // `none` accepted (e.g. take's axis, pools' strides)
  int64_t min = INT64_MIN, max = INT64_MAX;  // for integer (and each element of ints)
  std::vector<std::string> choices;          // for string
  AttrValue default_value;

  // "an integer", "one of \"clip\" \"wrap\"", ... for messages and --list-ops.
  std::string kind_text() const;
  // "name:kind[lo,hi]=default" as the docs and --list-ops show it.
  std::string to_string() const;
};

}  // namespace mlvm
