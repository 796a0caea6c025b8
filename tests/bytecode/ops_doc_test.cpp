// Keeps docs/ops.md in step with the op table (ir/ops.def): every op has a `### name`
// section whose first line is its signature, written from the table — inputs in order (`?b`
// optional, `x...` variadic), every attribute in declared order with its default (or a
// `<kind>` placeholder when it is required), the result count — and the alias, if any, is
// mentioned in the section. Every `###` heading names an op of the table. Adding, renaming or
// changing an op without updating the reference fails here.
#include <boost/test/unit_test.hpp>

#include <cctype>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ir/op_table.hpp"

using namespace mlvm;

namespace {

struct Section {
  std::string name;     // the first word of the heading
  std::string heading;  // the whole heading line
  int line = 0;         // 1-based line of the heading in docs/ops.md
  std::vector<std::string> body;
};

std::string doc_path() { return std::string(MLVM_SOURCE_DIR) + "/docs/ops.md"; }

std::string read_doc() {
  std::ifstream f(doc_path(), std::ios::binary);
  if (!f) return {};
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace((unsigned char)s[b])) ++b;
  while (e > b && std::isspace((unsigned char)s[e - 1])) --e;
  return s.substr(b, e - b);
}

// The `### ` sections of the page. A section ends at the next heading of level 1 to 3; lines
// inside ``` fences are never headings.
std::vector<Section> op_sections(const std::string& text) {
  std::vector<Section> out;
  std::istringstream in(text);
  std::string line;
  bool fence = false, in_section = false;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("```", 0) == 0) fence = !fence;
    if (!fence && line.rfind("### ", 0) == 0) {
      Section s;
      s.heading = line;
      s.line = n;
      std::string rest = trim(line.substr(4));
      s.name = rest.substr(0, rest.find_first_of(" \t"));
      out.push_back(std::move(s));
      in_section = true;
      continue;
    }
    if (!fence && (line.rfind("# ", 0) == 0 || line.rfind("## ", 0) == 0)) {
      in_section = false;
      continue;
    }
    if (in_section) out.back().body.push_back(line);
  }
  return out;
}

bool is_word_char(char c) { return std::isalnum((unsigned char)c) || c == '_'; }

// `word` occurs in `text` not as part of a longer identifier.
bool mentions_word(const std::string& text, const std::string& word) {
  for (std::size_t p = text.find(word); p != std::string::npos; p = text.find(word, p + 1)) {
    bool left = p == 0 || !is_word_char(text[p - 1]);
    bool right = p + word.size() >= text.size() || !is_word_char(text[p + word.size()]);
    if (left && right) return true;
  }
  return false;
}

// Splits at commas outside (), [], <> and "...".
std::vector<std::string> split_top_level(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  bool quoted = false;
  for (char c : s) {
    if (quoted) {
      cur += c;
      if (c == '"') quoted = false;
      continue;
    }
    if (c == '"') quoted = true;
    if (c == '(' || c == '[' || c == '<') ++depth;
    if (c == ')' || c == ']' || c == '>') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(trim(cur));
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (!trim(cur).empty()) out.push_back(trim(cur));
  return out;
}

bool all_upper(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isupper((unsigned char)c) && c != '_') return false;
  return true;
}

// The signature as written: `RESULTS = name OPERANDS, attr=value, ...`.
struct Signature {
  bool ok = false;
  std::string error;
  std::vector<std::string> results;
  std::string name;
  std::vector<std::string> inputs;  // as written: `x`, `?b`, `x...` (placeholders dropped)
  std::vector<std::pair<std::string, std::string>> attrs;
};

Signature parse_signature(const std::string& raw) {
  Signature sig;
  std::string line = trim(raw);
  if (line.size() < 2 || line.front() != '`' || line.back() != '`' ||
      line.find('`', 1) != line.size() - 1) {
    sig.error = "the first line of the section is not a signature in one pair of backticks: " + line;
    return sig;
  }
  std::string s = trim(line.substr(1, line.size() - 2));
  // Results: everything before the first " = " that comes before any attribute.
  std::size_t eq = s.find(" = ");
  if (eq != std::string::npos && s.substr(0, eq).find('=') == std::string::npos) {
    for (auto& r : split_top_level(s.substr(0, eq))) sig.results.push_back(r);
    s = trim(s.substr(eq + 3));
  }
  std::size_t sp = s.find(' ');
  sig.name = s.substr(0, sp);
  std::string rest = sp == std::string::npos ? "" : trim(s.substr(sp + 1));
  for (auto& item : split_top_level(rest)) {
    std::size_t e = item.find('=');
    if (e == std::string::npos) {
      if (!all_upper(item)) sig.inputs.push_back(item);  // LABEL and the like are placeholders
    } else {
      sig.attrs.emplace_back(trim(item.substr(0, e)), trim(item.substr(e + 1)));
    }
  }
  sig.ok = true;
  return sig;
}

std::string expected_input(const InputSpec& in) {
  return (in.optional ? "?" : "") + in.name + (in.variadic ? "..." : "");
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (auto& x : v) s += (s.empty() ? "" : " ") + x;
  return "[" + s + "]";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(ops_doc)

BOOST_AUTO_TEST_CASE(the_reference_exists) {
  const std::string text = read_doc();
  BOOST_TEST_REQUIRE(!text.empty(), "cannot read " << doc_path());
  BOOST_TEST(!op_sections(text).empty());
}

BOOST_AUTO_TEST_CASE(every_heading_names_an_op_of_the_table_once) {
  const std::vector<Section> sections = op_sections(read_doc());
  std::map<std::string, int> seen;
  for (const Section& s : sections) {
    BOOST_TEST_CONTEXT("docs/ops.md:" << s.line << ": " << s.heading) {
      const OpInfo* op = find_op(s.name);
      BOOST_TEST((op != nullptr && op->name == s.name),
                 "`### " << s.name << "` is not the name of an op in ir/ops.def");
      BOOST_TEST(++seen[s.name] == 1, "op " << s.name << " has more than one section");
    }
  }
}

BOOST_AUTO_TEST_CASE(every_op_is_documented_from_the_table) {
  const std::vector<Section> sections = op_sections(read_doc());
  std::map<std::string, const Section*> by_name;
  for (const Section& s : sections) by_name.emplace(s.name, &s);

  for (const OpInfo& op : all_ops()) {
    BOOST_TEST_CONTEXT("op " << op.name) {
      auto it = by_name.find(op.name);
      BOOST_TEST_REQUIRE((it != by_name.end()),
                         "docs/ops.md has no `### " << op.name << "` section");
      const Section& s = *it->second;

      std::string text = s.heading + "\n";
      for (auto& l : s.body) text += l + "\n";
      for (auto& alias : op.aliases)
        BOOST_TEST(mentions_word(text, alias), "the section does not mention the alias " << alias);

      // The signature is the first non-empty line of the section.
      std::string first;
      for (auto& l : s.body)
        if (!trim(l).empty()) {
          first = l;
          break;
        }
      const Signature sig = parse_signature(first);
      BOOST_TEST_REQUIRE(sig.ok, sig.error);
      BOOST_TEST(sig.name == op.name, "the signature names " << sig.name);
      BOOST_TEST(int(sig.results.size()) == op.num_results,
                 "the signature shows " << sig.results.size() << " results, the table says "
                                        << op.num_results);

      std::vector<std::string> want_inputs;
      for (auto& in : op.inputs) want_inputs.push_back(expected_input(in));
      BOOST_TEST(sig.inputs == want_inputs,
                 "signature inputs " << join(sig.inputs) << ", table " << join(want_inputs));
      for (auto& in : op.inputs)
        BOOST_TEST(mentions_word(first, in.name), "input '" << in.name << "' is not in the signature");

      std::vector<std::string> got_attrs, want_attrs;
      for (auto& a : sig.attrs) got_attrs.push_back(a.first);
      for (auto& a : op.attrs) want_attrs.push_back(a.name);
      BOOST_TEST(got_attrs == want_attrs,
                 "signature attributes " << join(got_attrs) << ", table " << join(want_attrs));
      for (std::size_t k = 0; k < op.attrs.size() && k < sig.attrs.size(); ++k) {
        const AttrSpec& a = op.attrs[k];
        const std::string& written = sig.attrs[k].second;
        BOOST_TEST_CONTEXT("attribute " << a.name) {
          BOOST_TEST(mentions_word(first, a.name));
          if (a.required) {
            BOOST_TEST((written.size() >= 2 && written.front() == '<' && written.back() == '>'),
                       "a required attribute is written " << a.name << "=<kind>, got " << written);
          } else {
            BOOST_TEST(written == a.default_value.to_string(),
                       "default written " << written << ", table " << a.default_value.to_string());
          }
        }
      }

      int content = 0;
      for (auto& l : s.body)
        if (!trim(l).empty()) ++content;
      BOOST_TEST(content >= 2, "the section has nothing but its signature");
    }
  }
}

// The parser above, on known lines (so that a broken parser cannot pass everything).
BOOST_AUTO_TEST_CASE(signature_parser) {
  Signature s = parse_signature("`y = conv2d x, w, ?b, padding=(0, 0), groups=1`");
  BOOST_TEST_REQUIRE(s.ok);
  BOOST_TEST(s.results == std::vector<std::string>({"y"}));
  BOOST_TEST(s.name == "conv2d");
  BOOST_TEST(s.inputs == std::vector<std::string>({"x", "w", "?b"}));
  BOOST_TEST_REQUIRE(s.attrs.size() == 2u);
  BOOST_TEST(s.attrs[0].second == "(0, 0)");
  Signature c = parse_signature("`valid_count, y = get_valid_count x, score_threshold=0`");
  BOOST_TEST(c.results.size() == 2u);
  Signature b = parse_signature("`br cond, LABEL`");
  BOOST_TEST(b.results.empty());
  BOOST_TEST(b.inputs == std::vector<std::string>({"cond"}));
  Signature m = parse_signature("`y = take x, indices, axis=none, mode=\"clip\"`");
  BOOST_TEST_REQUIRE(m.attrs.size() == 2u);
  BOOST_TEST(m.attrs[1].second == "\"clip\"");
  BOOST_TEST(!parse_signature("y = relu x").ok);
}

BOOST_AUTO_TEST_SUITE_END()
