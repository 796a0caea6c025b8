#include "tensor/error.hpp"

#include <string_view>

namespace mlvm {

const char* error_kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::usage: return "usage error";
    case ErrorKind::io: return "i/o error";
    case ErrorKind::malformed: return "malformed";
    case ErrorKind::invalid: return "invalid";
    case ErrorKind::trap: return "trap";
    case ErrorKind::limit: return "limit";
  }
  return "error";
}

std::string Error::describe() const {
  std::string s;
  if (!location_.empty()) s += location_ + ": ";
  s += error_kind_name(kind_);
  s += ": ";
  s += what();
  return s;
}

void fail(ErrorKind kind, std::string message) { throw Error(kind, std::move(message)); }


// --- The parts of a location ------------------------------------------------------------------
// Locations are written in a few fixed shapes (see Error::location()); these read them back so
// that bindings can offer file/line/column/instruction without every thrower filling fields.
namespace {

struct LocationParts {
  std::string file;
  int line = 0, column = 0;
  int64_t instruction = -1;
};

bool all_digits(std::string_view s) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// "instruction 4 (line 9)", "instruction 4 (Conv 'c')", "instruction 4".
void read_instruction(std::string_view s, LocationParts& out) {
  s.remove_prefix(std::string_view("instruction ").size());
  std::size_t n = 0;
  while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n;
  if (!all_digits(s.substr(0, n))) return;
  out.instruction = std::stoll(std::string(s.substr(0, n)));
  std::string_view rest = s.substr(n);
  if (starts_with(rest, " (line ")) {
    rest.remove_prefix(std::string_view(" (line ").size());
    std::size_t m = 0;
    while (m < rest.size() && rest[m] >= '0' && rest[m] <= '9') ++m;
    if (all_digits(rest.substr(0, m))) out.line = std::stoi(std::string(rest.substr(0, m)));
  }
}

LocationParts parse_location(std::string_view loc) {
  LocationParts out;
  if (loc.empty()) return out;
  for (std::string_view marker : {"instruction ", "byte ", "input ", "output ", "node "}) {
    if (starts_with(loc, marker)) {
      if (marker == "instruction ") read_instruction(loc, out);
      return out;
    }
    const std::size_t at = loc.find(std::string(": ") + std::string(marker));
    if (at != std::string_view::npos) {
      out.file = std::string(loc.substr(0, at));
      if (marker == "instruction ") read_instruction(loc.substr(at + 2), out);
      return out;
    }
  }
  // "file:line:col" or "file:line".
  const std::size_t c2 = loc.rfind(':');
  if (c2 != std::string_view::npos && all_digits(loc.substr(c2 + 1))) {
    const std::size_t c1 = c2 > 0 ? loc.rfind(':', c2 - 1) : std::string_view::npos;
    if (c1 != std::string_view::npos && all_digits(loc.substr(c1 + 1, c2 - c1 - 1))) {
      out.file = std::string(loc.substr(0, c1));
      out.line = std::stoi(std::string(loc.substr(c1 + 1, c2 - c1 - 1)));
      out.column = std::stoi(std::string(loc.substr(c2 + 1)));
    } else {
      out.file = std::string(loc.substr(0, c2));
      out.line = std::stoi(std::string(loc.substr(c2 + 1)));
    }
    return out;
  }
  out.file = std::string(loc);  // a bare file name
  return out;
}

}  // namespace

std::string Error::file() const { return parse_location(location_).file; }
int Error::line() const { return parse_location(location_).line; }
int Error::column() const { return parse_location(location_).column; }
int64_t Error::instruction() const { return parse_location(location_).instruction; }

}  // namespace mlvm
