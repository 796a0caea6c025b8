// Building Diagnostics from source positions (the caret rendering is Diagnostic::render), and
// the "did you mean" hints they carry.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "assembler/assembler.hpp"
#include "bytecode/names.hpp"  // closest_name, for "did you mean" hints

namespace mlvm::asm_detail {

// A diagnostic at line:col of `lines` (1-based; line 0 = no position). Very long lines are
// cut to a window around the column so a 1 MB line does not become a 1 MB message.
Diagnostic make_diagnostic(const std::string& file, const std::vector<std::string_view>& lines,
                           int line, int col, std::string message);

// The dtype meant by a misspelled one ("F32", "f33", "float32" -> "f32"); "" if none.
std::string suggest_dtype(std::string_view typed);

}  // namespace mlvm::asm_detail
