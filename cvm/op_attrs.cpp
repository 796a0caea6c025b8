#include "cvm/op_attrs.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "tensor/error.hpp"

namespace mlvm {

namespace {

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

[[noreturn]] void bad(const std::string& name, const std::string& text, const std::string& want) {
  fail_invalid("attribute " + name + "=\"" + text + "\" is not " + want);
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

int64_t parse_cvm_int(const std::string& text, const std::string& name) {
  const std::string t = trim(text);
  int64_t v = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size()) bad(name, text, "an integer");
  return v;
}

std::vector<int64_t> parse_cvm_ints(const std::string& text, const std::string& name) {
  std::string t = trim(text);
  if (!t.empty() && ((t.front() == '(' && t.back() == ')') || (t.front() == '[' && t.back() == ']'))) {
    if (t.size() < 2) bad(name, text, "a tuple of integers");
    t = trim(t.substr(1, t.size() - 2));
  } else if (t.empty()) {
    bad(name, text, "a tuple of integers");
  }
  std::vector<int64_t> out;
  std::size_t at = 0;
  while (at < t.size()) {
    std::size_t comma = t.find(',', at);
    std::string part = trim(t.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (part.empty()) {
      // Only a trailing comma may leave an empty part: "(1,)".
      if (comma != std::string::npos || out.empty()) bad(name, text, "a tuple of integers");
      break;
    }
    int64_t v = 0;
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (ec != std::errc() || end != part.data() + part.size()) bad(name, text, "a tuple of integers");
    out.push_back(v);
    if (out.size() > 64) bad(name, text, "a tuple of at most 64 integers");
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return out;
}

bool parse_cvm_bool(const std::string& text, const std::string& name) {
  const std::string t = lower(trim(text));
  if (t == "true" || t == "1") return true;
  if (t == "false" || t == "0") return false;
  bad(name, text, "a boolean (True or False)");
}

const std::string* CvmOpAttrs::find(const std::string& name) {
  used_.insert(name);
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

int64_t CvmOpAttrs::integer(const std::string& name) {
  const std::string* v = find(name);
  if (!v) fail_invalid("missing attribute " + name);
  return parse_cvm_int(*v, name);
}

int64_t CvmOpAttrs::integer(const std::string& name, int64_t fallback) {
  const std::string* v = find(name);
  return v ? parse_cvm_int(*v, name) : fallback;
}

std::optional<int64_t> CvmOpAttrs::optional_integer(const std::string& name) {
  const std::string* v = find(name);
  if (!v || lower(trim(*v)) == "none") return std::nullopt;
  return parse_cvm_int(*v, name);
}

std::vector<int64_t> CvmOpAttrs::ints(const std::string& name) {
  const std::string* v = find(name);
  if (!v) fail_invalid("missing attribute " + name);
  return parse_cvm_ints(*v, name);
}

std::vector<int64_t> CvmOpAttrs::ints(const std::string& name, std::vector<int64_t> fallback) {
  const std::string* v = find(name);
  return v ? parse_cvm_ints(*v, name) : fallback;
}

bool CvmOpAttrs::boolean(const std::string& name, bool fallback) {
  const std::string* v = find(name);
  return v ? parse_cvm_bool(*v, name) : fallback;
}

void CvmOpAttrs::expect_choice(const std::string& name, const std::vector<std::string>& allowed) {
  const std::string* v = find(name);
  if (!v) return;
  const std::string got = lower(trim(*v));
  for (const std::string& a : allowed)
    if (lower(a) == got) return;
  std::string list;
  for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
  fail_invalid("attribute " + name + "=\"" + *v + "\" is not supported (only " + list + ")");
}

void CvmOpAttrs::finish() const {
  for (const auto& [name, value] : values_)
    if (!used_.count(name)) fail_invalid("unknown attribute " + name + "=\"" + value + "\"");
}

}  // namespace mlvm
