#include "assembler/lexer.hpp"

#include <charconv>
#include <cmath>
#include <limits>

#include "bytecode/format.hpp"

namespace mlvm::asm_detail {

namespace {

bool is_ident_start(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool is_ident_char(char c) {
  return is_ident_start(c) || (c >= '0' && c <= '9') || c == '.';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Long tokens (a 1 MB number) are cut in messages.
std::string clip(std::string_view s, std::size_t max = 40) {
  if (s.size() <= max) return std::string(s);
  return std::string(s.substr(0, max)) + "...";
}

class LineLexer {
 public:
  LineLexer(std::string_view line, std::vector<Token>& out, LexError& err)
      : s_(line), out_(out), err_(err) {}

  bool run() {
    while (p_ < s_.size()) {
      char c = s_[p_];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++p_;
      } else if (c == '#' || c == ';') {
        break;
      } else if (is_ident_start(c)) {
        if (!ident(false)) return false;
      } else if (c == '.') {
        if (p_ + 1 < s_.size() && is_ident_start(s_[p_ + 1])) {
          ++p_;
          if (!ident(true)) return false;
        } else {
          return fail(p_,
                      "unexpected '.'; directives are written .program, .input, .const or .output");
        }
      } else if (is_digit(c) || c == '-') {
        if (!number()) return false;
      } else if (c == '"') {
        if (!string()) return false;
      } else if (c == ',' || c == '=' || c == ':' || c == '(' || c == ')' || c == '[' || c == ']' ||
                 c == '?') {
        Token t;
        t.kind = TokKind::punct;
        t.text = std::string(1, c);
        t.col = int(p_) + 1;
        out_.push_back(std::move(t));
        ++p_;
      } else {
        return fail(p_, "unexpected character " + describe_char((unsigned char)c) +
                            " (outside strings and comments only ASCII names, numbers and , = : ( "
                            ") [ ] ? are allowed)");
      }
    }
    Token e;
    e.kind = TokKind::end;
    e.col = int(s_.size()) + 1;
    // A comment ends the line; point "end of line" at the comment, not past it.
    if (p_ < s_.size()) e.col = int(p_) + 1;
    out_.push_back(std::move(e));
    return true;
  }

 private:
  bool fail(std::size_t at, std::string msg) {
    err_.col = int(at) + 1;
    err_.message = std::move(msg);
    return false;
  }

  // The end of the run of name characters from `at`: a malformed number is shown whole
  // ("1.5.5", not "1.5.").
  std::size_t word_end(std::size_t at) const {
    while (at < s_.size() && is_ident_char(s_[at])) ++at;
    return at;
  }
  bool malformed(std::size_t b, std::size_t at, std::string_view why = {}) {
    std::size_t e = word_end(at);
    return fail(b, "malformed number '" + clip(s_.substr(b, e - b)) + "'" +
                       (why.empty() ? std::string() : ": " + std::string(why)));
  }

  bool ident(bool directive) {
    std::size_t b = directive ? p_ - 1 : p_;
    while (p_ < s_.size() && is_ident_char(s_[p_])) ++p_;
    Token t;
    t.kind = directive ? TokKind::directive : TokKind::ident;
    if (p_ - b > format::kMaxStringBytes)
      return fail(b, std::string(directive ? "directive" : "name") + " '" +
                         clip(s_.substr(b, p_ - b)) + "' is " + std::to_string(p_ - b) +
                         " bytes long; a .mlbc module holds names of at most " +
                         std::to_string(format::kMaxStringBytes) + " bytes");
    t.text = std::string(s_.substr(b, p_ - b));
    t.col = int(b) + 1;
    if (!directive && (t.text == "inf" || t.text == "nan")) {
      t.kind = TokKind::floating;
      t.f = t.text == "inf" ? std::numeric_limits<double>::infinity()
                            : std::numeric_limits<double>::quiet_NaN();
    }
    out_.push_back(std::move(t));
    return true;
  }

  bool number() {
    std::size_t b = p_;
    bool neg = false;
    if (s_[p_] == '-') {
      neg = true;
      ++p_;
      // -inf / -nan
      if (p_ < s_.size() && is_ident_start(s_[p_])) {
        std::size_t q = p_;
        while (q < s_.size() && is_ident_char(s_[q])) ++q;
        std::string_view w = s_.substr(p_, q - p_);
        if (w == "inf" || w == "nan") {
          Token t;
          t.kind = TokKind::floating;
          t.text = std::string(s_.substr(b, q - b));
          t.f = w == "inf" ? -std::numeric_limits<double>::infinity()
                           : std::numeric_limits<double>::quiet_NaN();
          t.col = int(b) + 1;
          out_.push_back(std::move(t));
          p_ = q;
          return true;
        }
      }
      if (p_ >= s_.size() || !is_digit(s_[p_]))
        return fail(b, "unexpected '-'; expected a number after it (e.g. -7, -2e-3, -inf)");
    }
    Token t;
    t.col = int(b) + 1;
    if (s_[p_] == '0' && p_ + 1 < s_.size() && (s_[p_ + 1] == 'x' || s_[p_ + 1] == 'X')) {
      p_ += 2;
      std::size_t db = p_;
      uint64_t v = 0;
      bool overflow = false;
      while (p_ < s_.size() && hex_value(s_[p_]) >= 0) {
        if (v > (UINT64_MAX >> 4)) overflow = true;
        v = (v << 4) | uint64_t(hex_value(s_[p_]));
        ++p_;
      }
      if (p_ == db) return fail(b, "malformed hexadecimal integer: expected hex digits after '0x'");
      if (p_ < s_.size() && is_ident_char(s_[p_])) return malformed(b, p_);
      uint64_t limit = neg ? (uint64_t(1) << 63) : uint64_t(INT64_MAX);
      if (overflow || v > limit)
        return fail(b,
                    "integer " + clip(s_.substr(b, p_ - b)) + " does not fit in 64 bits (int64)");
      t.kind = TokKind::integer;
      t.i = neg ? int64_t(0 - v) : int64_t(v);
    } else {
      std::size_t db = p_;
      while (p_ < s_.size() && is_digit(s_[p_])) ++p_;
      bool is_float = false;
      if (p_ < s_.size() && s_[p_] == '.') {
        is_float = true;
        ++p_;
        while (p_ < s_.size() && is_digit(s_[p_])) ++p_;
      }
      bool neg_exp = false;
      if (p_ < s_.size() && (s_[p_] == 'e' || s_[p_] == 'E')) {
        std::size_t q = p_ + 1;
        if (q < s_.size() && (s_[q] == '+' || s_[q] == '-')) {
          neg_exp = s_[q] == '-';
          ++q;
        }
        if (q >= s_.size() || !is_digit(s_[q]))
          return malformed(b, q, "expected digits in the exponent");
        while (q < s_.size() && is_digit(s_[q])) ++q;
        p_ = q;
        is_float = true;
      }
      if (p_ < s_.size() && is_ident_char(s_[p_])) return malformed(b, p_);
      std::string_view digits = s_.substr(db, p_ - db);
      if (is_float) {
        double v = 0;
        auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v);
        if (r.ec == std::errc::result_out_of_range) {
          if (!neg_exp)
            return fail(b, "number " + clip(s_.substr(b, p_ - b)) + " is out of range of f64");
          v = 0;  // underflow: as close to zero as a double gets
        } else if (r.ec != std::errc() || r.ptr != digits.data() + digits.size()) {
          return malformed(b, p_);
        }
        t.kind = TokKind::floating;
        t.f = neg ? -v : v;
      } else {
        uint64_t v = 0;
        bool overflow = false;
        for (char ch : digits) {
          uint64_t d = uint64_t(ch - '0');
          if (v > (UINT64_MAX - d) / 10) {
            overflow = true;
            break;
          }
          v = v * 10 + d;
        }
        uint64_t limit = neg ? (uint64_t(1) << 63) : uint64_t(INT64_MAX);
        if (overflow || v > limit)
          return fail(b,
                      "integer " + clip(s_.substr(b, p_ - b)) + " does not fit in 64 bits (int64)");
        t.kind = TokKind::integer;
        t.i = neg ? int64_t(0 - v) : int64_t(v);
      }
    }
    t.text = std::string(s_.substr(b, p_ - b));
    out_.push_back(std::move(t));
    return true;
  }

  bool string() {
    std::size_t b = p_++;
    std::string v;
    while (p_ < s_.size() && s_[p_] != '"') {
      unsigned char c = (unsigned char)s_[p_];
      if (c == '\\') {
        if (p_ + 1 < s_.size() && (s_[p_ + 1] == '"' || s_[p_ + 1] == '\\')) {
          v += s_[p_ + 1];
          p_ += 2;
          continue;
        }
        if (p_ + 1 >= s_.size())
          return fail(p_, "unterminated string: '\\' at the end of the line");
        return fail(p_,
                    "unknown escape '\\" +
                        std::string(1, s_[p_ + 1] >= 0x20 && s_[p_ + 1] < 0x7f ? s_[p_ + 1] : '?') +
                        "' in string; only \\\" and \\\\ are allowed");
      }
      if (c < 0x20 && c != '\t')
        return fail(p_, "control character " + describe_char(c) + " in string");
      v += char(c);
      ++p_;
    }
    if (p_ >= s_.size())
      return fail(b, "unterminated string: expected a closing '\"' before the end of the line");
    if (v.size() > format::kMaxStringBytes)
      return fail(b, "string is " + std::to_string(v.size()) +
                         " bytes long; a .mlbc module holds strings of at most " +
                         std::to_string(format::kMaxStringBytes) + " bytes");
    ++p_;
    Token t;
    t.kind = TokKind::string;
    t.text = std::move(v);
    t.col = int(b) + 1;
    out_.push_back(std::move(t));
    return true;
  }

  std::string_view s_;
  std::size_t p_ = 0;
  std::vector<Token>& out_;
  LexError& err_;
};

}  // namespace

std::string describe_char(unsigned char c) {
  if (c >= 0x20 && c < 0x7f) return std::string("'") + char(c) + "'";
  static const char* hex = "0123456789abcdef";
  return std::string("'\\x") + hex[c >> 4] + hex[c & 15] + "'";
}

std::string Token::describe() const {
  switch (kind) {
    case TokKind::ident:
    case TokKind::directive:
      return "'" + clip(text) + "'";
    case TokKind::integer:
    case TokKind::floating:
      return clip(text);
    case TokKind::string: {
      std::string s = "string \"";
      for (char c : clip(text)) s += (unsigned char)c < 0x20 ? '?' : c;
      return s + "\"";
    }
    case TokKind::punct:
      return "'" + text + "'";
    case TokKind::end:
      return "end of line";
  }
  return "?";
}

bool lex_line(std::string_view line, std::vector<Token>& out, LexError& error) {
  out.clear();
  return LineLexer(line, out, error).run();
}

}  // namespace mlvm::asm_detail
