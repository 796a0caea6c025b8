// The .mlasm lexer: one source line at a time into tokens with byte columns
// (docs/language.md, "Lexical rules").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mlvm::asm_detail {

enum class TokKind : uint8_t {
  ident,      // [A-Za-z_][A-Za-z0-9_.]*  (also true/false/none/inf/nan, dtypes, op names)
  directive,  // .program .input .const .output (text keeps the dot)
  integer,    // 42, -7, 0x1F (value in `i`)
  floating,   // 1.5, -2e-3, inf, -inf, nan (value in `f`)
  string,     // "..." with \" and \\ escapes (unescaped text in `text`)
  punct,      // one of , = : ( ) [ ] ?
  end,        // end of line
};

struct Token {
  TokKind kind = TokKind::end;
  std::string text;  // identifier / directive / punct text; the unescaped string
  int64_t i = 0;
  double f = 0;
  int col = 1;  // 1-based byte column of the first character

  bool is_punct(char c) const { return kind == TokKind::punct && text.size() == 1 && text[0] == c; }
  bool is_ident(std::string_view w) const { return kind == TokKind::ident && text == w; }
  // How the token reads in a message: 'name', 42, "str", ',' or "end of line".
  std::string describe() const;
};

struct LexError {
  int col = 0;
  std::string message;
};

// Tokenizes one line (without its newline). Comments (# or ;) end the line. On a lexical
// error returns false and fills `error`; `out` then holds the tokens before it.
bool lex_line(std::string_view line, std::vector<Token>& out, LexError& error);

// A printable rendering of a byte for messages: 'a', or '\x00' for control and non-ASCII bytes.
std::string describe_char(unsigned char c);

}  // namespace mlvm::asm_detail
