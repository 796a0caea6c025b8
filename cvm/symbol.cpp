#include "cvm/symbol.hpp"

#include <nlohmann/json.hpp>

#include <cctype>

#include "tensor/error.hpp"

namespace mlvm {

namespace {

using json = nlohmann::json;

// nlohmann's parser keeps its own stack, but values nested thousands deep are no CVM graph
// (the deepest is a shape list inside attrs: 4 levels); refuse them before parsing.
constexpr int kMaxDepth = 32;

[[noreturn]] void bad(const std::string& path, const std::string& message) {
  throw Error(ErrorKind::malformed, message, "symbol " + path);
}

const char* type_name(const json& v) { return v.type_name(); }

void check_depth(std::span<const uint8_t> text, const std::string& where) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = char(text[i]);
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth)
        throw Error(ErrorKind::malformed, "JSON nested more than " + std::to_string(kMaxDepth) + " deep",
                    where + " byte " + std::to_string(i));
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

json parse_json(std::span<const uint8_t> text, const std::string& where) {
  check_depth(text, where);
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    // e.what() is "[json.exception.parse_error.101] parse error at line 1, column 5: ..."
    std::string what = e.what();
    auto colon = what.find("] ");
    throw Error(ErrorKind::malformed, "not JSON: " + (colon == std::string::npos ? what : what.substr(colon + 2)),
                where + " byte " + std::to_string(e.byte));
  } catch (const json::exception& e) {
    throw Error(ErrorKind::malformed, std::string("not JSON: ") + e.what(), where);
  }
}

int64_t get_int(const json& v, const std::string& path, int64_t min = 0) {
  if (!v.is_number_integer()) bad(path, std::string("expected an integer, found ") + type_name(v));
  int64_t x = 0;
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u > uint64_t(INT64_MAX)) bad(path, "integer out of range");
    x = int64_t(u);
  } else {
    x = v.get<int64_t>();
  }
  if (x < min) bad(path, "expected an integer >= " + std::to_string(min) + ", found " + std::to_string(x));
  return x;
}

const std::string& get_string(const json& v, const std::string& path) {
  if (!v.is_string()) bad(path, std::string("expected a string, found ") + type_name(v));
  return v.get_ref<const std::string&>();
}

const json::array_t& get_array(const json& v, const std::string& path) {
  if (!v.is_array()) bad(path, std::string("expected a list, found ") + type_name(v));
  return v.get_ref<const json::array_t&>();
}

const json::object_t& get_object(const json& v, const std::string& path) {
  if (!v.is_object()) bad(path, std::string("expected an object, found ") + type_name(v));
  return v.get_ref<const json::object_t&>();
}

std::vector<int64_t> get_ints(const json& v, const std::string& path, int64_t min = 0) {
  std::vector<int64_t> out;
  const auto& a = get_array(v, path);
  for (std::size_t i = 0; i < a.size(); ++i) out.push_back(get_int(a[i], path + "[" + std::to_string(i) + "]", min));
  return out;
}

CvmEntry get_entry(const json& v, const std::string& path) {
  const auto& a = get_array(v, path);
  if (a.size() != 2 && a.size() != 3) bad(path, "expected [node_id, output_index, version], found " + std::to_string(a.size()) + " items");
  CvmEntry e;
  e.node = get_int(a[0], path + "[0]");
  e.index = get_int(a[1], path + "[1]");
  if (a.size() == 3) get_int(a[2], path + "[2]");
  return e;
}

// "cvm_right_shift_1" -> "cvm_right_shift": the runtime drops a trailing _<digits>.
std::string op_name_of(const std::string& func_name) {
  std::size_t end = func_name.size();
  while (end > 0 && std::isdigit(static_cast<unsigned char>(func_name[end - 1]))) --end;
  if (end < func_name.size() && end > 0 && func_name[end - 1] == '_') return func_name.substr(0, end - 1);
  return func_name;
}

int64_t count_string(const std::string& s, const std::string& path) {
  try {
    std::size_t used = 0;
    long long v = std::stoll(s, &used);
    if (used != s.size() || v < 0) bad(path, "expected a count as a string, found \"" + s + "\"");
    return v;
  } catch (const Error&) {
    throw;
  } catch (const std::exception&) {
    bad(path, "expected a count as a string, found \"" + s + "\"");
  }
}

void read_node_attrs(const json& v, CvmNode& node, const std::string& path) {
  bool has_func = false;
  for (const auto& [key, value] : get_object(v, path)) {
    const std::string p = path + "." + key;
    const std::string& s = get_string(value, p);  // the runtime reads every value as a string
    if (key == "func_name") {
      node.func_name = s;
      node.op = op_name_of(s);
      has_func = true;
    } else if (key == "num_inputs") {
      node.num_inputs = count_string(s, p);
    } else if (key == "num_outputs") {
      node.num_outputs = count_string(s, p);
    } else if (key != "flatten_data" && key != "op_attrs") {
      bad(p, "unknown node attribute '" + key + "'");
    }
  }
  if (!node.variable && !has_func) bad(path, "a cvm_op node needs attrs.func_name");
}

CvmNode read_node(const json& v, const std::string& at) {
  CvmNode node;
  const auto& obj = get_object(v, at);
  std::string path = at;
  if (auto it = obj.find("name"); it != obj.end()) path += " '" + get_string(it->second, at + ".name") + "'";
  bool has_op = false, has_name = false, has_inputs = false;
  const json* attrs = nullptr;
  for (const auto& [key, value] : obj) {
    const std::string p = path + "." + key;
    if (key == "op") {
      const std::string& op = get_string(value, p);
      if (op != "null" && op != "cvm_op") bad(p, "op is \"" + op + "\"; expected \"null\" or \"cvm_op\"");
      node.variable = op == "null";
      has_op = true;
    } else if (key == "name") {
      node.name = get_string(value, p);
      has_name = true;
    } else if (key == "inputs") {
      const auto& a = get_array(value, p);
      for (std::size_t i = 0; i < a.size(); ++i) node.inputs.push_back(get_entry(a[i], p + "[" + std::to_string(i) + "]"));
      has_inputs = true;
    } else if (key == "attrs") {
      attrs = &value;
    } else if (key == "precision") {
      get_int(value, p, -1);
    } else {
      bad(p, "unknown node key '" + key + "'");
    }
  }
  if (!has_op || !has_name || !has_inputs) bad(path, "a node needs op, name and inputs");
  if (attrs) read_node_attrs(*attrs, node, path + ".attrs");
  else if (!node.variable) bad(path, "a cvm_op node needs attrs (func_name)");
  return node;
}

// A graph attribute: [type_name, list].
const json& attr_list(const json& v, const std::string& path, const std::string& want_type) {
  const auto& a = get_array(v, path);
  if (a.size() != 2) bad(path, "expected [\"" + want_type + "\", [...]]");
  const std::string& t = get_string(a[0], path + "[0]");
  if (t != want_type) bad(path + "[0]", "type is \"" + t + "\"; expected \"" + want_type + "\"");
  get_array(a[1], path + "[1]");
  return a[1];
}

void read_graph_attrs(const json& v, CvmSymbol& s) {
  bool shape = false, storage = false, op_attrs = false, precision = false;
  for (const auto& [key, value] : get_object(v, "attrs")) {
    const std::string p = "attrs." + key;
    if (key == "shape") {
      const auto& list = get_array(attr_list(value, p, "list_shape"), p + "[1]");
      for (std::size_t i = 0; i < list.size(); ++i) s.shapes.push_back(get_ints(list[i], p + "[1][" + std::to_string(i) + "]", INT64_MIN));
      shape = true;
    } else if (key == "precision") {
      s.precisions = get_ints(attr_list(value, p, "list_int"), p + "[1]", INT64_MIN);
      precision = true;
    } else if (key == "storage_id") {
      s.storage_ids = get_ints(attr_list(value, p, "list_int"), p + "[1]");
      storage = true;
    } else if (key == "dltype") {
      std::vector<std::string> d;
      const auto& list = get_array(attr_list(value, p, "list_str"), p + "[1]");
      for (std::size_t i = 0; i < list.size(); ++i) d.push_back(get_string(list[i], p + "[1][" + std::to_string(i) + "]"));
      s.dltypes = std::move(d);
    } else if (key == "op_attrs") {
      const auto& list = get_array(attr_list(value, p, "list_str"), p + "[1]");
      for (std::size_t i = 0; i < list.size(); ++i) s.op_attrs.push_back(get_string(list[i], p + "[1][" + std::to_string(i) + "]"));
      op_attrs = true;
    } else if (key == "dtype") {  // NNVM type codes: informational
      get_ints(attr_list(value, p, "list_int"), p + "[1]", INT64_MIN);
    } else if (key == "device_index") {  // the runtime requires it empty
      if (!get_array(attr_list(value, p, "list_int"), p + "[1]").empty()) bad(p, "device_index must be empty");
    } else {
      bad(p, "unknown graph attribute '" + key + "'");
    }
  }
  if (!shape || !storage || !op_attrs || !precision)
    bad("attrs", "the graph attributes need shape, precision, storage_id and op_attrs");
}

}  // namespace

CvmSymbol parse_cvm_symbol(std::span<const uint8_t> text) {
  const json doc = parse_json(text, "symbol");
  CvmSymbol s;
  bool nodes = false, heads = false, attrs = false;
  for (const auto& [key, value] : get_object(doc, "(top level)")) {
    if (key == "nodes") {
      const auto& a = get_array(value, "nodes");
      for (std::size_t i = 0; i < a.size(); ++i) s.nodes.push_back(read_node(a[i], "nodes[" + std::to_string(i) + "]"));
      nodes = true;
    } else if (key == "arg_nodes") {
      s.arg_nodes = get_ints(value, "arg_nodes");
    } else if (key == "node_row_ptr") {
      s.node_row_ptr = get_ints(value, "node_row_ptr");
    } else if (key == "heads") {
      const auto& a = get_array(value, "heads");
      for (std::size_t i = 0; i < a.size(); ++i) s.heads.push_back(get_entry(a[i], "heads[" + std::to_string(i) + "]"));
      heads = true;
    } else if (key == "attrs") {
      read_graph_attrs(value, s);
      attrs = true;
    } else if (key == "version") {
      s.version = get_string(value, "version");
      if (s.version != "cvm_1.0.0" && s.version != "cvm_1.1.0")
        bad("version", "version \"" + s.version + "\" is not cvm_1.0.0 or cvm_1.1.0");
    } else if (key == "postprocess") {
      s.postprocess = get_string(value, "postprocess");
      if (s.postprocess != "argmax" && s.postprocess != "detection")
        bad("postprocess", "postprocess \"" + s.postprocess + "\" is not argmax or detection");
    } else {
      bad(key, "unknown top-level key '" + key + "'");
    }
  }
  if (!nodes || !heads || !attrs) bad("(top level)", "a symbol needs nodes, heads and attrs");
  return s;
}

std::map<std::string, std::string> parse_cvm_op_attrs(const std::string& text, const std::string& location) {
  std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  const json v = parse_json(bytes, location + " op_attrs");
  std::map<std::string, std::string> out;
  if (!v.is_object())
    throw Error(ErrorKind::malformed, std::string("op_attrs is a JSON ") + v.type_name() + ", expected an object", location);
  for (const auto& [key, value] : v.items()) {
    if (!value.is_string())
      throw Error(ErrorKind::malformed, "op_attrs." + key + " is a JSON " + value.type_name() + ", expected a string", location);
    out[key] = value.get<std::string>();
  }
  return out;
}

}  // namespace mlvm
