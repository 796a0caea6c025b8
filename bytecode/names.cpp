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
