#include "bytecode/names.hpp"

#include <cstdint>
#include <cstdlib>

#include "ir/op_table.hpp"

namespace mlvm {

namespace {

bool head_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  return out;
}

}  // namespace

bool is_identifier(std::string_view s) {
  if (s.empty() || !head_char(s[0])) return false;
  for (char c : s.substr(1))
    if (!head_char(c) && !(c >= '0' && c <= '9') && c != '.') return false;
  return true;
}

bool is_literal_word(std::string_view s) {
  return s == "none" || s == "true" || s == "false" || s == "inf" || s == "nan";
}

bool is_declaration_name(std::string_view s) {
  if (s.empty()) return false;
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) return false;
    if (c < 0x80) {
      ++i;
      continue;
    }
    // A well-formed UTF-8 sequence: no overlong forms, no surrogates, nothing past U+10FFFF.
    const int len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
    if (len == 0 || c > 0xf4 || i + std::size_t(len) > s.size()) return false;
    uint32_t cp = c & (0x7f >> len);
    for (int k = 1; k < len; ++k) {
      const auto b = static_cast<unsigned char>(s[i + std::size_t(k)]);
      if ((b & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (b & 0x3f);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
      return false;
    i += std::size_t(len);
  }
  return true;
}

std::string quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string name_text(std::string_view s) {
  return is_identifier(s) && !is_literal_word(s) ? std::string(s) : quoted(s);
}

std::string closest_name(std::string_view typed, const std::vector<std::string_view>& candidates,
                         int max_distance) {
  std::string best;
  if (typed.empty() || typed.size() > 64) return best;
  const std::string typed_lower = lower(typed);
  int bestd = max_distance + 1;
  for (std::string_view c : candidates) {
    if (c == typed) continue;
    if (c.size() == typed.size() && lower(c) == typed_lower) return std::string(c);
    // The distance is at least the difference in length: skip the quadratic work.
    if (std::abs(int64_t(c.size()) - int64_t(typed.size())) >= bestd) continue;
    int d = edit_distance(typed, c);
    if (d < bestd && d < int(c.size())) {
      bestd = d;
      best = std::string(c);
    }
  }
  return best;
}

}  // namespace mlvm
