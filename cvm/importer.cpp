#include "cvm/importer.hpp"

#include <cstring>
#include <map>

#include "bytecode/codec.hpp"
#include "bytecode/verifier.hpp"
#include "cvm/emitter.hpp"
#include "cvm/graph.hpp"
#include "cvm/lower.hpp"
#include "cvm/outputs.hpp"
#include "cvm/params.hpp"
#include "tensor/error.hpp"

namespace mlvm {

namespace {

std::string shape_text(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

Tensor int32_tensor(const std::vector<int64_t>& dims, const std::vector<int32_t>& values) {
  Tensor t = Tensor::empty(DType::i32, Dims(std::span<const int64_t>(dims)));
  if (!values.empty()) std::memcpy(t.data<int32_t>(), values.data(), values.size() * sizeof(int32_t));
  return t;
}

// The parameters by name, each checked against its variable: known, once, the declared shape,
// every value within the declared precision (the runtime's check at load).
std::map<int64_t, const CvmParam*> match_params(const CvmGraph& g, const std::vector<CvmParam>& params) {
  const CvmSymbol& s = g.symbol;
  std::map<std::string, int64_t> variable;
  for (std::size_t i = 0; i < s.nodes.size(); ++i)
    if (s.nodes[i].variable) variable[s.nodes[i].name] = int64_t(i);
  std::map<int64_t, const CvmParam*> of_node;
  for (const CvmParam& p : params) {
    const std::string loc = "params byte " + std::to_string(p.offset);
    auto it = variable.find(p.name);
    if (it == variable.end() || it->second == g.data_node)
      throw Error(ErrorKind::invalid, "parameter '" + p.name + "' is not a parameter of the graph" +
                                          (p.name == "data" ? " ('data' is the input)" : ""), loc);
    if (!of_node.emplace(it->second, &p).second)
      throw Error(ErrorKind::invalid, "parameter '" + p.name + "' is given twice", loc);
    const std::size_t e = std::size_t(g.row_ptr[std::size_t(it->second)]);
    if (p.dims != s.shapes[e])
      throw Error(ErrorKind::invalid, "parameter '" + p.name + "' has shape " + shape_text(p.dims) +
                                          "; the graph declares " + shape_text(s.shapes[e]), loc);
    const int64_t prec = s.precisions[e];
    if (prec < 1) continue;  // -1: no declared precision; the constant's is computed exactly
    const int64_t bound = (int64_t(1) << (prec - 1)) - 1;
    for (std::size_t k = 0; k < p.values.size(); ++k)
      if (p.values[k] > bound || p.values[k] < -bound)
        throw Error(ErrorKind::invalid, "parameter '" + p.name + "' element " + std::to_string(k) + " is " +
                                            std::to_string(p.values[k]) + ", outside its precision " +
                                            std::to_string(prec) + " (+-" + std::to_string(bound) + ")", loc);
  }
  for (std::size_t i = 0; i < s.nodes.size(); ++i)
    if (s.nodes[i].variable && int64_t(i) != g.data_node && !of_node.count(int64_t(i)))
      throw Error(ErrorKind::invalid, "parameter '" + s.nodes[i].name + "' is not in the params file",
                  cvm_node_location(s, int64_t(i)));
  return of_node;
}

class Importer {
 public:
  Importer(const CvmGraph& g, const std::map<int64_t, const CvmParam*>& params, const CvmImportOptions& o)
      : g_(g), s_(g.symbol), params_(params), e_(o.program_name), regs_(std::size_t(g.row_ptr.back())) {}

  CvmImport run() {
    declare_variables();
    for (int64_t node : g_.order)
      if (!s_.nodes[std::size_t(node)].variable) {
        lower_node(node);
        node_of_.resize(std::size_t(e_.size()), node);
      }
    CvmImport r;
    r.version = s_.version;
    r.postprocess = s_.postprocess;
    r.input_precision = int(s_.precisions[std::size_t(g_.row_ptr[std::size_t(g_.data_node)])]);
    std::vector<std::string> heads;
    for (const CvmEntry& h : s_.heads) heads.push_back(regs_[std::size_t(g_.entry(h))]);
    r.outputs = emit_cvm_outputs(e_, heads, s_.postprocess);
    r.module = e_.finish();
    r.verified = verify(r.module);
    return r;
  }

 private:
  // `data` first, then the parameters in node order: registers are then numbered as the
  // assembler numbers the --emit-asm text.
  void declare_variables() {
    const std::size_t de = std::size_t(g_.row_ptr[std::size_t(g_.data_node)]);
    const int64_t p = s_.precisions[de];
    TensorType t;
    t.dtype = (p >= 1 && p <= 8) ? DType::i8 : DType::i32;
    t.dims = Dims(std::span<const int64_t>(s_.shapes[de]));
    t.precision = p >= 1 ? int(p) : kUnknownPrecision;
    const std::string data = e_.input("data", t);
    for (const auto& [node, param] : params_)
      regs_[std::size_t(g_.row_ptr[std::size_t(node)])] = e_.constant(param->name, int32_tensor(param->dims, param->values));
    // The CVM computes in int32: an i8 input is widened once (precision is kept).
    if (t.dtype == DType::i8) {
      e_.set_origin("data (node " + std::to_string(g_.data_node) + ")");
      regs_[de] = e_.emit(op::cast, {data}, {.dtype = DType::i32}, "data.i32");
      node_of_.resize(std::size_t(e_.size()), g_.data_node);
    } else {
      regs_[de] = data;
    }
  }

  void lower_node(int64_t node) {
    const CvmNode& n = s_.nodes[std::size_t(node)];
    const std::string loc = cvm_node_location(s_, node);
    try {
      const CvmOpRule* rule = find_cvm_op(n.op);  // known: check_cvm_graph looked
      e_.set_origin(n.op + " '" + n.name + "' (node " + std::to_string(node) + ")");
      CvmOpAttrs attrs(parse_cvm_op_attrs(s_.op_attrs[std::size_t(node)], loc));
      CvmLowering l{e_, n.name, {}, attrs};
      for (const CvmEntry& in : n.inputs) l.args.push_back(regs_[std::size_t(g_.entry(in))]);
      std::vector<std::string> results = rule->lower(l);
      attrs.finish();
      for (std::size_t k = 0; k < results.size(); ++k) {
        const std::size_t e = std::size_t(g_.row_ptr[std::size_t(node)]) + k;
        const Dims& got = e_.dims(results[k]);
        if (std::vector<int64_t>(got.begin(), got.end()) != s_.shapes[e])
          fail_invalid("output " + std::to_string(k) + " has shape " + shape_text(s_.shapes[e]) +
                       " in the graph, but mlvm infers " + e_.type(results[k]).to_string());
        regs_[e] = results[k];
      }
    } catch (const Error& err) {
      if (!err.location().empty()) throw;
      // mlvm's own messages often start with the op's name already.
      const bool named = err.message().rfind(n.op + ":", 0) == 0;
      throw Error(err.kind(), named ? err.message() : n.op + ": " + err.message(), loc);
    }
  }

  // The precision proof: CVM programs must be free of overflow, so every integer value is
  // proven (strict precision). The first problem is reported at the node it came from.
  VerifyResult verify(const Module& m) const {
    VerifyOptions o;
    o.precision_check = true;
    o.strict_precision = true;
    o.max_errors = 1;
    VerifyResult r = verify_module(m, o);
    if (r.ok()) return r;
    const VerifyDiagnostic& d = r.errors.front();
    std::string where = "symbol";  // the postprocess, or a declaration
    if (d.instruction >= 0 && std::size_t(d.instruction) < node_of_.size())
      where = cvm_node_location(s_, node_of_[std::size_t(d.instruction)]);
    else if (d.instruction >= 0)
      where = "symbol " + m.origins[std::size_t(d.instruction)];
    throw Error(ErrorKind::invalid, d.message, where);
  }

  const CvmGraph& g_;
  const CvmSymbol& s_;
  const std::map<int64_t, const CvmParam*>& params_;
  CvmEmitter e_;
  std::vector<std::string> regs_;  // per node output: its register
  std::vector<int64_t> node_of_;   // per instruction (before the postprocess): its node
};

// "symbol node 3 'x'" -> "model.json: node 3 'x'"; "params byte 40" -> "m.params: byte 40".
Error relocate(const Error& e, const std::string& symbol_path, const std::string& params_path) {
  std::string loc = e.location();
  if (loc.rfind("symbol ", 0) == 0) loc = symbol_path + ": " + loc.substr(7);
  else if (loc == "symbol") loc = symbol_path;
  else if (loc.rfind("params ", 0) == 0) loc = params_path + ": " + loc.substr(7);
  return Error(e.kind(), e.message(), loc);
}

}  // namespace

CvmImport import_cvm(std::span<const uint8_t> symbol_json, std::span<const uint8_t> params,
                     const CvmImportOptions& options) {
  try {
    CvmGraph graph = check_cvm_graph(parse_cvm_symbol(symbol_json));
    std::vector<CvmParam> list = read_cvm_params(params);
    std::map<int64_t, const CvmParam*> by_node = match_params(graph, list);
    return Importer(graph, by_node, options).run();
  } catch (const Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw Error(ErrorKind::limit, "out of memory importing the CVM model");
  } catch (const std::exception& e) {
    // Nothing else should escape; if a library throws, it is still an import error.
    throw Error(ErrorKind::malformed, std::string("cannot import the CVM model: ") + e.what());
  }
}

CvmImport import_cvm_files(const std::string& symbol_path, const std::string& params_path,
                           const CvmImportOptions& options) {
  const std::vector<uint8_t> symbol = read_file_bytes(symbol_path);
  const std::vector<uint8_t> params = read_file_bytes(params_path);
  try {
    return import_cvm(symbol, params, options);
  } catch (const Error& e) {
    throw relocate(e, symbol_path, params_path);
  }
}

std::string cvm_program_name(const std::string& stem) { return register_name(stem); }

std::vector<std::string> supported_cvm_ops() {
  std::vector<std::string> out;
  for (const CvmOpRule& r : cvm_op_rules()) out.push_back(r.name);
  return out;
}

}  // namespace mlvm
