// Values written in the text: attribute values (numbers, bools, none, dtypes, strings, nested
// tuples) and `.const` literals (nested brackets, fill(V), load("file.npy")).
#pragma once

#include <string>

#include "assembler/cursor.hpp"
#include "ir/attr_value.hpp"
#include "ir/types.hpp"

namespace mlvm::asm_detail {

// An attribute value at the cursor (docs/language.md, "Statements"): 42, -1.5, inf, true,
// none, f32, "s", (1, 2), [1, 2], (), (3,), nested tuples. `(x)` without a comma is just x, as in Python.
// `want_dtype`: the attribute takes a dtype, so an unknown word is an unknown dtype.
AttrValue parse_attr_value(Cursor& c, int depth = 0, bool want_dtype = false);

struct ConstLiteral {
  Tensor value;     // contiguous data, or a constant-mode tensor for fill(V)
  TensorType type;  // the declared type with `?` dims resolved and precision computed
};

// The literal after `=` in `.const NAME : TYPE = ...`; `declared` may hold `?` dims (a load's
// file or a nested literal supplies them). `base_dir` resolves relative load paths.
ConstLiteral parse_const_literal(Cursor& c, const TensorType& declared,
                                 const std::string& base_dir);

// "value 300 does not fit in i8 (range -128..127)"; empty if it fits. A float fits f32 when
// rounding it to f32 (to nearest) gives a finite value: 3.4028235e38 is FLT_MAX.
std::string scalar_fit_error(const Scalar& s, DType dtype);

}  // namespace mlvm::asm_detail
