// Writes CVM runtime model files in memory for the CVM importer's tests: a graph JSON
// ("symbol") as the runtime's exporter lays it out (nodes, arg_nodes, node_row_ptr, heads,
// attrs with shape/precision/dltype/storage_id/op_attrs) and the binary params file
// (../shared/spec/cvm_format.md). document() is a plain nlohmann::json so that tests can break
// any part of it on purpose.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace mlvm::cvm_test {

using json = nlohmann::json;

struct ParamArray {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<int32_t> values;
  int bits = 32;  // 8 or 32
};

inline void put_u64(std::vector<uint8_t>& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(uint8_t(v >> (8 * i)));
}
inline void put_i32(std::vector<uint8_t>& out, int32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(uint32_t(v) >> (8 * i)));
}

// The params file for `arrays`, in order.
inline std::vector<uint8_t> params_bytes(const std::vector<ParamArray>& arrays) {
  std::vector<uint8_t> out;
  put_u64(out, 0xF7E58D4F05049CB7ull);
  put_u64(out, 0);
  put_u64(out, arrays.size());
  for (const ParamArray& a : arrays) {
    put_u64(out, a.name.size());
    out.insert(out.end(), a.name.begin(), a.name.end());
  }
  put_u64(out, arrays.size());
  for (const ParamArray& a : arrays) {
    put_u64(out, 0xDD5E40F096B4A13Full);
    put_u64(out, 0);
    put_i32(out, 1);  // CPU
    put_i32(out, 0);
    put_i32(out, int32_t(a.shape.size()));
    out.push_back(0);  // int
    out.push_back(uint8_t(a.bits));
    out.push_back(1);  // lanes
    out.push_back(0);
    for (int64_t d : a.shape) put_u64(out, uint64_t(d));
    put_u64(out, a.values.size() * std::size_t(a.bits / 8));
    for (int32_t v : a.values) {
      if (a.bits == 8) out.push_back(uint8_t(int8_t(v)));
      else put_i32(out, v);
    }
  }
  return out;
}

struct Entry {
  int node = 0;
  int index = 0;
};

class CvmWriter {
 public:
  // The input variable `data`.
  int data(std::vector<int64_t> shape, int precision) { return variable("data", std::move(shape), precision); }

  // A parameter variable and its array in the params file.
  int param(const std::string& name, std::vector<int64_t> shape, std::vector<int32_t> values, int precision,
            int bits = 32) {
    arrays_.push_back(ParamArray{name, shape, std::move(values), bits});
    return variable(name, std::move(shape), precision);
  }

  // A cvm_op node; `shapes`/`precisions` hold one entry per output.
  int op(const std::string& func_name, const std::string& name, const std::vector<Entry>& inputs,
         const std::map<std::string, std::string>& op_attrs, std::vector<std::vector<int64_t>> shapes,
         std::vector<int> precisions = {}) {
    json n;
    n["op"] = "cvm_op";
    n["name"] = name;
    json in = json::array();
    for (const Entry& e : inputs) in.push_back({e.node, e.index, 0});
    n["inputs"] = in;
    json attrs_text = json::object();
    for (const auto& [k, v] : op_attrs) attrs_text[k] = v;
    n["attrs"] = {{"func_name", func_name},
                  {"num_inputs", std::to_string(inputs.size())},
                  {"num_outputs", std::to_string(shapes.size())},
                  {"flatten_data", "0"},
                  {"op_attrs", attrs_text.dump()}};
    if (precisions.empty()) precisions.assign(shapes.size(), 32);
    return add(std::move(n), attrs_text.dump(), std::move(shapes), std::move(precisions));
  }

  void head(int node, int index = 0) { heads_.push_back({node, index}); }

  // The symbol; version "" leaves the key out (cvm_1.0.0, whose lists must then match).
  json document(const std::string& version = "", const std::string& postprocess = "") const {
    json doc;
    doc["nodes"] = nodes_;
    json args = json::array(), row_ptr = json::array();
    int64_t at = 0;
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      if (nodes_[i]["op"] == "null") args.push_back(i);
      row_ptr.push_back(at);
      at += int64_t(outputs_[i]);
    }
    row_ptr.push_back(at);
    doc["arg_nodes"] = args;
    doc["node_row_ptr"] = row_ptr;
    json heads = json::array();
    for (const Entry& h : heads_) heads.push_back({h.node, h.index, 0});
    doc["heads"] = heads;
    json storage = json::array(), dltype = json::array();
    for (std::size_t i = 0; i < shapes_.size(); ++i) {
      storage.push_back(i);
      dltype.push_back("int32");
    }
    doc["attrs"] = {{"shape", {"list_shape", shapes_}},
                    {"precision", {"list_int", precisions_}},
                    {"dltype", {"list_str", dltype}},
                    {"storage_id", {"list_int", storage}},
                    {"op_attrs", {"list_str", op_attrs_}}};
    if (!version.empty()) doc["version"] = version;
    if (!postprocess.empty()) doc["postprocess"] = postprocess;
    return doc;
  }

  std::vector<uint8_t> symbol(const std::string& version = "", const std::string& postprocess = "") const {
    return bytes(document(version, postprocess));
  }
  std::vector<uint8_t> params() const { return params_bytes(arrays_); }
  const std::vector<ParamArray>& arrays() const { return arrays_; }

  static std::vector<uint8_t> bytes(const json& doc) {
    const std::string s = doc.dump();
    return std::vector<uint8_t>(s.begin(), s.end());
  }

 private:
  int variable(const std::string& name, std::vector<int64_t> shape, int precision) {
    json n = {{"op", "null"}, {"name", name}, {"inputs", json::array()}};
    return add(std::move(n), "{}", {std::move(shape)}, {precision});
  }
  int add(json node, std::string attrs_text, std::vector<std::vector<int64_t>> shapes, std::vector<int> precisions) {
    nodes_.push_back(std::move(node));
    op_attrs_.push_back(std::move(attrs_text));
    outputs_.push_back(shapes.size());
    for (auto& s : shapes) shapes_.push_back(std::move(s));
    for (int p : precisions) precisions_.push_back(p);
    return int(nodes_.size()) - 1;
  }

  std::vector<json> nodes_;
  std::vector<std::string> op_attrs_;
  std::vector<std::size_t> outputs_;
  std::vector<std::vector<int64_t>> shapes_;
  std::vector<int> precisions_;
  std::vector<Entry> heads_;
  std::vector<ParamArray> arrays_;
};

}  // namespace mlvm::cvm_test
