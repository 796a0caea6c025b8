// Building Diagnostics from source positions (the caret rendering is Diagnostic::render).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "assembler/assembler.hpp"

namespace mlvm::asm_detail {

// A diagnostic at line:col of `lines` (1-based; line 0 = no position). Very long lines are
// cut to a window around the column so a 1 MB line does not become a 1 MB message.
Diagnostic make_diagnostic(const std::string& file, const std::vector<std::string_view>& lines,
                           int line, int col, std::string message);

}  // namespace mlvm::asm_detail
