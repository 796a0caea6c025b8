// Typed writes, generated from ir/ops.def and ir/attrs.def so that a producer cannot misspell
// an op or an attribute: op::<id> is a tag naming the op's opcode, result count and the write
// struct of its attribute set; write::<set> has one field per attribute of the set, in
// declared order, for designated initializers:
//
//   e.emit(op::transpose, {x}, {.axes = perm});
//   e.emit(op::conv2d, {x, w, b}, {.padding = pad, .groups = g});   // strides, dilation: defaults
//   e.emit(Opcode::sum, {x}, write::reduce{.axes = axes});            // an op chosen at run time
//
// A field left out takes the attribute's default from attrs.def; a required attribute left out
// does not compile. values() gives what a module stores: every attribute in declared order.
// Values are checked where they always are (check_positional_attrs), not here.
#pragma once

#include <array>
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "ir/attrs.hpp"
#include "ir/opcode.hpp"

namespace mlvm {

namespace write_detail {

inline AttrValue to_attr(int64_t v) { return AttrValue::integer(v); }
inline AttrValue to_attr(bool v) { return AttrValue::boolean(v); }
inline AttrValue to_attr(DType v) { return AttrValue::dtype(v); }
inline AttrValue to_attr(const Scalar& v) {
  return v.is_float ? AttrValue::floating(v.f) : AttrValue::integer(v.i);
}
inline AttrValue to_attr(const std::vector<int64_t>& v) { return AttrValue::int_tuple(v); }
inline AttrValue to_attr(const std::vector<std::array<int64_t, 2>>& v) {
  std::vector<AttrValue> items;
  for (const auto& p : v) items.push_back(AttrValue::int_tuple({p[0], p[1]}));
  return AttrValue::tuple(std::move(items));
}
template <class T>
AttrValue to_attr(const std::optional<T>& v) {
  return v ? to_attr(*v) : AttrValue::none();
}
// A choice by its enumerator: the index into the spec's choices (values() names it).
template <class E>
  requires std::is_enum_v<E>
AttrValue to_attr(E v) {
  return AttrValue::integer(int64_t(v));
}

template <class T>
struct is_int_list : std::false_type {};
template <>
struct is_int_list<std::vector<int64_t>> : std::true_type {};
template <>
struct is_int_list<std::optional<std::vector<int64_t>>> : std::true_type {};

struct Unset {};

// One attribute of a write struct: a value given, or unset (the attribute's default).
template <class T>
struct Field {
  std::optional<AttrValue> value;

  Field() = default;
  explicit Field(Unset) {}
  template <class U>
    requires std::is_convertible_v<U&&, T> && (!std::is_same_v<std::decay_t<U>, Field>)
  Field(U&& v) : value(to_attr(T(std::forward<U>(v)))) {}
  // `.axes = {0, 2, 1}`
  Field(std::initializer_list<int64_t> v)
    requires is_int_list<T>::value
      : value(AttrValue::int_tuple(std::vector<int64_t>(v))) {}
  // `.pad_width = {{0, 1}, {2, 3}}`
  Field(std::initializer_list<std::array<int64_t, 2>> v)
    requires std::is_same_v<T, std::vector<std::array<int64_t, 2>>>
      : value(to_attr(T(v))) {}
  // A number keeps whether it was written as an integer or a float.
  Field(std::integral auto v)
    requires std::is_same_v<T, Scalar>
      : value(AttrValue::integer(int64_t(v))) {}
  Field(std::floating_point auto v)
    requires std::is_same_v<T, Scalar>
      : value(AttrValue::floating(double(v))) {}
  // A choice made at run time, by its name (checked with the other values).
  Field(const std::string& name)
    requires std::is_enum_v<T>
      : value(AttrValue::string(name)) {}
};

// A required attribute: no default, so a write struct that leaves it out does not compile.
template <class T>
struct Required : Field<T> {
  using Field<T>::Field;
  Required() = delete;
};

// Whether an attrs.def default is kRequired, by the same overloads ir/attr_table.cpp reads
// the defaults with.
std::true_type required_int(RequiredTag);
std::false_type required_int(int64_t);
std::false_type required_opt_int(NoneTag);
std::false_type required_opt_int(int64_t);
std::true_type required_num(RequiredTag);
template <class T>
std::false_type required_num(T);
std::true_type required_bool(RequiredTag);
std::false_type required_bool(bool);
std::true_type required_ints(RequiredTag);
std::false_type required_ints(std::initializer_list<int64_t>);
std::false_type required_opt_ints(NoneTag);
std::true_type required_pairs(RequiredTag);
std::true_type required_dtype(RequiredTag);
std::false_type required_dtype(DType);
std::false_type required_opt_dtype(NoneTag);

template <class T, bool required>
using field_t = std::conditional_t<required, Required<T>, Field<T>>;

template <class D>
inline constexpr bool always_false = false;
// The default member initializer of a write struct's field (see MLVM_ATTR below).
template <class D, class T, bool required>
field_t<T, required> unset() {
  static_assert(!required || always_false<D>, "a required attribute is left out");
  return field_t<T, required>(Unset{});
}

// Every attribute of `set` in declared order: the given ones, the defaults for the others.
std::vector<AttrValue> stored_values(AttrSet set, std::vector<std::optional<AttrValue>> given);

}  // namespace write_detail

namespace write {

// Each struct is a template instantiated once (write::<set> = write::<set>_t<>), so that a
// field's default member initializer is instantiated only where the field is left out: there
// it is the unset field, or for a required attribute a compile error. (Having one also tells
// the compiler that leaving a field out is intended.)
#define MLVM_WRITE_REQUIRED(kind, ...) decltype(write_detail::required_##kind(__VA_ARGS__))::value
#define MLVM_ATTR(name, kind, lo, hi, ...)                                                 \
  write_detail::field_t<attr_field::kind##_t, MLVM_WRITE_REQUIRED(kind, __VA_ARGS__)> name = \
      write_detail::unset<D, attr_field::kind##_t, MLVM_WRITE_REQUIRED(kind, __VA_ARGS__)>();
#define MLVM_CHOICE(name, choices, dflt) \
  write_detail::Field<typename read_type::name##_choice> name = {};
#define MLVM_ATTRS(set, ...)                          \
  template <class D = void>                           \
  struct set##_t {                                    \
    using read_type = set##_attrs;                    \
    static constexpr AttrSet kSet = AttrSet::set;     \
    __VA_ARGS__                                       \
    std::vector<AttrValue> values() const;            \
  };                                                  \
  using set = set##_t<>;
#include "ir/attrs.def"
#undef MLVM_ATTRS
#undef MLVM_ATTR
#undef MLVM_CHOICE

#define MLVM_ATTR(name, kind, lo, hi, ...) name.value,
#define MLVM_CHOICE(name, choices, dflt) name.value,
#define MLVM_ATTRS(set, ...)                                                        \
  template <class D>                                                                \
  std::vector<AttrValue> set##_t<D>::values() const {                               \
    return write_detail::stored_values(kSet, std::vector<std::optional<AttrValue>>{ \
                                                 __VA_ARGS__});                     \
  }
#include "ir/attrs.def"
#undef MLVM_ATTRS
#undef MLVM_ATTR
#undef MLVM_CHOICE
#undef MLVM_WRITE_REQUIRED

}  // namespace write

namespace op {

template <Opcode C, int R, class A>
struct Tag {
  static constexpr Opcode code = C;
  static constexpr int results = R;
  using attrs = A;
};

#define MLVM_OP(code_, id, inputs, res, set, flags) \
  inline constexpr Tag<Opcode::id, res, write::set> id{};
#include "ir/ops.def"
#undef MLVM_OP

}  // namespace op

// The attribute values of `a` for `op`, an op chosen at run time: Error(invalid) (a bug in
// mlvm) unless `a` is the struct of op's attribute set.
void check_attr_set(Opcode op, AttrSet set);
template <class A>
std::vector<AttrValue> values_for(Opcode op, const A& a) {
  check_attr_set(op, A::kSet);
  return a.values();
}

}  // namespace mlvm
