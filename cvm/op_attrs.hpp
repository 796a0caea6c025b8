// A CVM node's op attributes: the JSON object of strings from the graph's `op_attrs` list
// ("(1, 1)", "True", "[3, 3]", "None", "NCHW"), read by name with the runtime's defaults.
// Every read marks the name as used; finish() rejects any attribute no reader asked for, so a
// misspelled or unsupported attribute is an error rather than silently ignored. Problems are
// Error(invalid) messages naming the attribute; the importer adds the node.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mlvm {

// The value grammars (exposed for tests).
int64_t parse_cvm_int(const std::string& text, const std::string& name);
std::vector<int64_t> parse_cvm_ints(const std::string& text, const std::string& name);  // "(1, 2)", "[1,2]", "1", "()"
bool parse_cvm_bool(const std::string& text, const std::string& name);  // True/False/true/false/1/0

class CvmOpAttrs {
 public:
  explicit CvmOpAttrs(std::map<std::string, std::string> values) : values_(std::move(values)) {}

  bool has(const std::string& name) const { return values_.count(name) != 0; }
  int64_t integer(const std::string& name);  // required
  int64_t integer(const std::string& name, int64_t fallback);
  std::optional<int64_t> optional_integer(const std::string& name);  // absent or "None"
  std::vector<int64_t> ints(const std::string& name);  // required
  std::vector<int64_t> ints(const std::string& name, std::vector<int64_t> fallback);
  bool boolean(const std::string& name, bool fallback);
  // A string that must be one of `allowed` (compared ignoring case) when present.
  void expect_choice(const std::string& name, const std::vector<std::string>& allowed);
  // Accepted and ignored (informational in the runtime, e.g. a reduction's dtype).
  void ignore(const std::string& name) { used_.insert(name); }
  // Error(invalid) naming the first attribute no reader asked for.
  void finish() const;

 private:
  const std::string* find(const std::string& name);
  std::map<std::string, std::string> values_;
  std::set<std::string> used_;
};

}  // namespace mlvm
