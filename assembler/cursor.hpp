// A cursor over one line's tokens, shared by the statement parser and the literal parser.
// Parse errors are thrown as ParseError (caught per line; never escapes the assembler).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "assembler/lexer.hpp"

namespace mlvm::asm_detail {

struct ParseError {
  int col = 0;
  std::string message;
};

// Tuples and literals nest at most this deep; deeper input is an error, never a stack overflow.
inline constexpr int kMaxNesting = 64;

class Cursor {
 public:
  explicit Cursor(const std::vector<Token>& tokens) : t_(tokens) {}

  // Never runs past the final `end` token.
  const Token& peek(std::size_t k = 0) const {
    std::size_t i = p_ + k;
    return i < t_.size() ? t_[i] : t_.back();
  }
  const Token& next() {
    const Token& tok = peek();
    if (p_ + 1 < t_.size()) ++p_;
    return tok;
  }
  bool at_end() const { return peek().kind == TokKind::end; }
  bool accept_punct(char c) {
    if (!peek().is_punct(c)) return false;
    next();
    return true;
  }
  // Consumes punct `c` or fails with "expected <what> but found <token>".
  const Token& expect_punct(char c, std::string_view what) {
    if (!peek().is_punct(c)) error_expected(what);
    return next();
  }
  [[noreturn]] void error_expected(std::string_view what) const {
    throw ParseError{peek().col,
                     "expected " + std::string(what) + " but found " + peek().describe()};
  }
  [[noreturn]] static void error_at(const Token& tok, std::string message) {
    throw ParseError{tok.col, std::move(message)};
  }
  // "expected <what_else> or end of line" (just "end of line" when what_else is empty).
  void expect_end(std::string_view what_else = {}) const {
    if (at_end()) return;
    error_expected(what_else.empty() ? std::string("end of line")
                                     : std::string(what_else) + " or end of line");
  }

 private:
  const std::vector<Token>& t_;
  std::size_t p_ = 0;
};

}  // namespace mlvm::asm_detail
