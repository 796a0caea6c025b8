#include "assembler/diagnostics.hpp"

#include <algorithm>

#include "ir/op_table.hpp"

namespace mlvm {

namespace {
constexpr int kWindowBefore = 80;  // bytes of a long line shown before the caret
constexpr int kWindowAfter = 80;   // and after it
}  // namespace

std::string Diagnostic::render() const {
  std::string out = file;
  if (line > 0) out += ":" + std::to_string(line) + ":" + std::to_string(col);
  out += ": error: " + message;
  if (line <= 0) return out;
  // Control bytes would garble a terminal; tabs are kept so the caret lines up below them.
  std::string shown;
  shown.reserve(source_line.size());
  for (char c : source_line) shown += ((unsigned char)c < 0x20 && c != '\t') || c == 0x7f ? '?' : c;
  out += "\n  " + shown + "\n  ";
  int caret = source_col > 0 ? source_col : col;
  for (int k = 1; k < caret && k <= int(shown.size()); ++k)
    out += shown[std::size_t(k - 1)] == '\t' ? '\t' : ' ';
  for (int k = int(shown.size()) + 1; k < caret; ++k) out += ' ';
  out += '^';
  return out;
}

namespace asm_detail {

Diagnostic make_diagnostic(const std::string& file, const std::vector<std::string_view>& lines,
                           int line, int col, std::string message) {
  Diagnostic d;
  d.file = file;
  d.line = line;
  d.col = line > 0 ? std::max(col, 1) : 0;
  d.message = std::move(message);
  if (line > 0 && line <= int(lines.size())) {
    std::string_view l = lines[std::size_t(line - 1)];
    if (int(l.size()) <= kWindowBefore + kWindowAfter) {
      d.source_line = std::string(l);
    } else {
      int begin = std::max(0, d.col - 1 - kWindowBefore);
      int end = std::min(int(l.size()), d.col - 1 + kWindowAfter);
      std::string prefix = begin > 0 ? "..." : "";
      d.source_line =
          prefix + std::string(l.substr(std::size_t(begin), std::size_t(std::max(0, end - begin))));
      if (end < int(l.size())) d.source_line += "...";
      d.source_col = d.col - begin + int(prefix.size());
    }
  }
  return d;
}

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  return out;
}

}  // namespace

std::string suggest_dtype(std::string_view typed) {
  static const char* const kAliases[][2] = {
      {"float", "f32"},   {"float32", "f32"}, {"single", "f32"}, {"double", "f64"},
      {"float64", "f64"}, {"int8", "i8"},     {"uint8", "u8"},   {"int16", "i16"},
      {"short", "i16"},   {"int", "i32"},     {"int32", "i32"},  {"int64", "i64"},
      {"long", "i64"},    {"boolean", "bool"}};
  const std::string l = lower(typed);
  for (auto& a : kAliases)
    if (l == a[0]) return a[1];
  // No 16-bit floats: nearest by spelling (f16 -> f64) would mislead.
  if (l == "f16" || l == "bf16" || l == "half" || l == "float16") return "";
  std::vector<std::string_view> names;
  for (int k = 0; k < kNumDTypes; ++k) names.push_back(dtype_name(DType(k)));
  return closest_name(typed, names, 1);
}

}  // namespace asm_detail
}  // namespace mlvm
