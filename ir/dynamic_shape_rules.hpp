// What the static rules of the run-time shape-argument ops (ir/infer_dynamic_shape.cpp) share
// with their kernels (kernels/dynamic_shape.cpp, kernels/dynamic_attrs.cpp): docs/ops.md,
// "Run-time shape arguments". Each `<op>_dyn` takes as tensors what `<op>` takes as attributes;
// several run `<op>`'s own static rule and kernel with the attributes filled in, so the two
// cannot drift apart. An error `<op>` reports is renamed to the `_dyn` op (and, at run time, is
// a trap naming the values read).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/attr_check.hpp"
#include "ir/opcode.hpp"
#include "ir/rules.hpp"
#include "ir/types.hpp"
#include "tensor/error.hpp"

namespace mlvm {

// Checked attributes of `op` from named values (defaults filled in). Error(invalid) for a bad
// value, worded as the attribute checks word it.
Attrs named_attrs_for(Opcode op, const std::vector<NamedAttr>& attrs);

// `e` with its message's leading "<from>: " replaced by "<to>: " (prefixed when it has neither),
// `note` appended in parentheses when not empty, and, when `run_time`, kind invalid made trap.
Error renamed_error(const Error& e, const char* from, const char* to, bool run_time,
                    const std::string& note = {});

// Runs f(); an Error of kind invalid or trap leaves as renamed_error(...). Other kinds (limit,
// ...) pass unchanged.
template <class F>
decltype(auto) renaming_errors(const char* from, const char* to, bool run_time,
                               const std::string& note, F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::invalid && e.kind() != ErrorKind::trap) throw;
    throw renamed_error(e, from, to, run_time, note);
  }
}

// "[2, -1, 0]" (at most 16 values, then "...").
std::string values_text(const std::vector<int64_t>& v);

// The static reduction reduce_dyn's `op` attribute names (sum, mean, ..., logsumexp).
Opcode reduce_dyn_op(const reduce_dyn_attrs& a);

// A vector argument holding integers (shape, starts, axes, pads, ...): an integer dtype and
// rank 1, else Error(invalid) "<op>: <what> must be ...". Returns its length (kDynamic: `?`).
int64_t int_vector_arg(const char* op, const char* what, const TensorType& t);
// The same with a length the result's rank depends on: static, in [lo, hi].
int64_t static_vector_arg(const char* op, const char* what, const TensorType& t, int64_t lo,
                          int64_t hi);
// A one-element argument (every static dim 1) of a dtype in `allowed`.
void one_element_arg(const char* op, const char* what, const TensorType& t, ew::DTypeSet allowed,
                     const char* why);

}  // namespace mlvm
