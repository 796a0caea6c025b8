// The .mlasm parser: source text -> statements with source positions (docs/language.md,
// "Statements").
// A line with a syntax error is reported and skipped; parsing goes on with the next line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ir/attr_value.hpp"
#include "ir/types.hpp"

namespace mlvm::asm_detail {

struct Pos {
  int line = 0;  // 1-based
  int col = 0;   // 1-based byte column
};

struct NameRef {
  std::string name;  // "" with is_none for `none`; the generated constant's name for a literal
  Pos pos;
  bool is_none = false;
  bool is_literal = false;  // a number standing for a one-element constant (`add x, 1.0`)
  Scalar literal;
};

struct AttrAst {
  std::string name;
  Pos name_pos;
  AttrValue value;
  Pos value_pos;
};

// `broken`: what could be recovered from a line with a syntax error (already reported), so
// that cross-line checks neither miss it nor report its consequences: the name a broken
// .input/.const declares (broken_decl), or the results and op of a broken instruction.
// `flag`: a module flag directive (`.no_precision_check`), named by `name`.
enum class StmtKind { program, flag, input, constant, output, label, instruction, broken };

struct Stmt {
  StmtKind kind = StmtKind::instruction;
  Pos pos;  // where the statement starts
  // .program / .input / .const / .output / label
  std::string name;
  Pos name_pos;
  // .input / .const / .output: the (resolved) type
  bool has_type = false;
  TensorType type;
  Pos type_pos;
  Pos precision_pos;  // .input ... precision=P
  bool scalar = false;  // .input / .output declared rank 0 (`i64[]`); `type` is then [1]
  Tensor value;       // .const
  // instruction
  std::vector<NameRef> results;
  NameRef op;
  std::vector<NameRef> args;
  std::vector<AttrAst> attrs;
  // broken
  bool broken_decl = false;   // a declaration: `name` is declared, its type is unknown
  bool flow_unknown = false;  // an instruction that may have been a jump or halt (or unparsed)
};

struct SyntaxError {
  Pos pos;
  std::string message;
};

struct ParsedSource {
  std::vector<std::string_view> lines;  // views into the source, without newline
  std::vector<Stmt> statements;
  std::vector<SyntaxError> errors;
  bool truncated = false;  // parsing stopped at max_errors before the last line
};

// `base_dir` resolves load("...") paths. Stops collecting after `max_errors` errors.
ParsedSource parse_source(std::string_view source, const std::string& base_dir, int max_errors);

}  // namespace mlvm::asm_detail
