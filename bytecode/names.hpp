// Names in modules and in the text language: what an identifier is, and the closest of some
// names to a misspelled one, for "did you mean" hints (the verifier's about registers, the
// assembler's about labels, directives and dtypes).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mlvm {

// [A-Za-z_][A-Za-z0-9_.]*
bool is_identifier(std::string_view s);

// The words a literal may be (none true false inf nan): never a register's name.
bool is_literal_word(std::string_view s);

// What a declaration (input, constant, output) may be named: any non-empty UTF-8 text without
// control characters, so an imported model keeps its own names (`onnx::Flatten_0`, `53`)
// and every name can still be written in the text form (quoted when not an identifier).
bool is_declaration_name(std::string_view s);

// A name as the text form writes it: an identifier that is not a literal word as it is,
// anything else as a string ("onnx::Flatten_0", with \" and \\ escaped).
std::string name_text(std::string_view s);
std::string quoted(std::string_view s);

// The candidate closest to `typed`; "" if none is close. A candidate differing only in case
// always qualifies; otherwise the edit distance must be at most `max_distance` and less than
// the candidate's length (so `x` never suggests `y`). Ties go to the earliest candidate.
std::string closest_name(std::string_view typed, const std::vector<std::string_view>& candidates,
                         int max_distance = 2);

}  // namespace mlvm
