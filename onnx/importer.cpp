#include "onnx/importer.hpp"

#include <onnx/checker.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <onnx/onnx_pb.h>

#include <exception>
#include <filesystem>
#include <map>
#include <set>

#include "bytecode/verifier.hpp"
#include "onnx/graph_check.hpp"
#include "onnx/graph_index.hpp"
#include "onnx/graph_walk.hpp"
#include "onnx/lowering.hpp"
#include "onnx/node_order.hpp"
#include "onnx/tensor_proto.hpp"
#include "onnx/upgrade.hpp"
#include "tensor/error.hpp"
#include "tensor/file_read.hpp"

namespace mlvm {

namespace {

// The newest opset the importer reads (what ONNX Runtime 1.30 runs); models above it are refused.
constexpr int kMaxOpset = 23;
// The newest opset Debian's onnx 1.12 defines: its checker and version converter know nothing
// later, so above it they are not run (spec/onnx.md: never the reason a model ORT runs is
// refused); onnx/graph_check.cpp's structure check still is.
constexpr int kLibOnnxMaxOpset = 17;
// Below this ONNX's version converter upgrades the model first (spec/onnx.md).
constexpr int kMinNativeOpset = 7;
constexpr int64_t kMaxModelBytes = int64_t(2) << 30;

const std::map<std::string, const LoweringEntry*>& lowering_table() {
  static const std::map<std::string, const LoweringEntry*> table = [] {
    std::map<std::string, const LoweringEntry*> t;
    for (auto family : {elementwise_lowerings(), shape_lowerings(), reduce_lowerings(),
                         control_lowerings(), rnn_lowerings(), nn_lowerings(),
                         index_lowerings(), scan_lowerings(), quant_lowerings(),
                         loss_lowerings(), signal_lowerings(),
                         einsum_lowerings(), sequence_lowerings(), text_lowerings()})
      for (const LoweringEntry& e : family) t[e.op_type] = &e;
    return t;
  }();
  return table;
}

std::string node_label(const onnx::NodeProto& n, int index) {
  std::string name = n.name().empty() ? "#" + std::to_string(index) : "'" + n.name() + "'";
  return n.op_type() + " " + name;
}

// An output's type as the graph declares it (for the interface of a model imported per run):
// symbolic dims and an unstated rank are `?` (an unstated rank shows as one `?`).
OnnxValue declared_output(const onnx::ValueInfoProto& vi) {
  OnnxValue v;
  v.name = vi.name();
  v.type.dtype = DType::f32;
  if (!vi.type().has_tensor_type()) return v;
  const auto& tt = vi.type().tensor_type();
  if (auto dt = dtype_from_onnx(tt.elem_type())) v.type.dtype = *dt;
  if (!tt.has_shape() || tt.shape().dim_size() > kMaxRank) {
    v.type.dims.push_back(kDynamic);
    return v;
  }
  v.scalar = tt.shape().dim_size() == 0;
  if (v.scalar) v.type.dims.push_back(1);
  for (const auto& d : tt.shape().dim())
    v.type.dims.push_back(d.has_dim_value() && d.dim_value() >= 0 ? d.dim_value() : kDynamic);
  return v;
}

// The input's type from its ValueInfo, with --input-shape overrides.
TensorType input_type(const onnx::ValueInfoProto& vi, const std::string& mlvm_name,
                      const OnnxImportOptions& options, bool& scalar) {
  const std::string what = "graph input '" + vi.name() + "'";
  if (!vi.type().has_tensor_type())
    throw Error(ErrorKind::invalid, what + " is not a tensor (sequences, maps and optionals are not supported)");
  const auto& tt = vi.type().tensor_type();
  auto dt = dtype_from_onnx(tt.elem_type());
  if (!dt)
    throw Error(ErrorKind::invalid, what + ": dtype " + onnx_dtype_name(tt.elem_type()) +
                                        " is not supported by mlvm");
  TensorType t;
  t.dtype = *dt;
  const std::vector<int64_t>* fixed = nullptr;
  if (auto it = options.input_shapes.find(vi.name()); it != options.input_shapes.end())
    fixed = &it->second;
  else if (auto it2 = options.input_shapes.find(mlvm_name); it2 != options.input_shapes.end())
    fixed = &it2->second;
  if (!tt.has_shape() && !fixed)
    throw Error(ErrorKind::invalid, what + " has no shape (give one with --input-shape " +
                                        mlvm_name + "=D0,D1,...)");
  if (fixed) {
    if (tt.has_shape() && tt.shape().dim_size() != int(fixed->size()))
      throw Error(ErrorKind::usage, "--input-shape " + mlvm_name + " gives " +
                                        std::to_string(fixed->size()) + " dims, the model declares " +
                                        std::to_string(tt.shape().dim_size()));
    for (std::size_t k = 0; k < fixed->size(); ++k) {
      int64_t d = (*fixed)[k];
      if (tt.has_shape() && tt.shape().dim(int(k)).has_dim_value() &&
          tt.shape().dim(int(k)).dim_value() != d)
        throw Error(ErrorKind::usage, "--input-shape " + mlvm_name + ": dim " + std::to_string(k) +
                                          " is fixed at " +
                                          std::to_string(tt.shape().dim(int(k)).dim_value()) +
                                          " by the model, not " + std::to_string(d));
      if (d < 0) throw Error(ErrorKind::usage, "--input-shape " + mlvm_name + ": negative dim");
    }
  }
  int rank = fixed ? int(fixed->size()) : tt.shape().dim_size();
  if (rank > kMaxRank)
    throw Error(ErrorKind::invalid, what + " has rank " + std::to_string(rank) +
                                        ", above mlvm's " + std::to_string(kMaxRank));
  scalar = rank == 0;
  if (scalar) t.dims.push_back(1);
  for (int k = 0; k < rank; ++k) {
    if (fixed) {
      t.dims.push_back((*fixed)[std::size_t(k)]);
      continue;
    }
    const auto& d = tt.shape().dim(k);
    if (d.has_dim_value() && d.dim_value() < 0)
      throw Error(ErrorKind::malformed, what + ": dim " + std::to_string(d.dim_value()));
    t.dims.push_back(d.has_dim_value() ? d.dim_value() : kDynamic);
  }
  return t;
}

class GraphImporter : public SubgraphLowerer {
 public:
  GraphImporter(std::shared_ptr<const onnx::ModelProto> model, int opset, const OnnxImportOptions& options,
                OnnxImport& out)
      : model_(model), g_(model->graph()), opset_(opset), options_(options), out_(out),
        e_(g_.name().empty() ? options.default_name : sanitize_name(g_.name())) {}

  Module run() {
    // Names first: outputs and inputs keep their ONNX names where they can.
    std::set<std::string> initializer_names;
    for (const auto& init : g_.initializer()) initializer_names.insert(init.name());
    std::vector<std::pair<std::string, std::string>> output_names;
    for (const auto& o : g_.output()) {
      output_names.emplace_back(o.name(), take_name(o.name()));
      e_.reserve_output(o.name(), output_names.back().second);
    }
    for (const auto& in : g_.input()) {
      if (initializer_names.count(in.name())) continue;  // a default: held as a constant
      std::string name = take_name(in.name());
      bool scalar = false;
      TensorType t = input_type(in, name, options_, scalar);
      out_.inputs.push_back({in.name(), t, scalar});
      Val v = e_.input(name, t, scalar);
      if (auto it = options_.input_values.find(in.name()); it != options_.input_values.end()) {
        const Tensor& value = it->second;
        if (value.dtype() != t.dtype || !(value.shape() == t.dims))
          throw Error(ErrorKind::invalid, "graph input '" + in.name() + "' is " + t.to_string() +
                                              "; its fixed value is " + value.type_string());
        // Still declared, and each run passes it: a run with another value traps rather than
        // computing with the fixed one (a module written with these values keeps the check).
        Val fixed = e_.constant(value, scalar);
        e_.set_origin("graph input '" + in.name() + "' fixed at import");
        Val same = e_.emit(op::min, {e_.emit(op::cast, {e_.emit(op::equal, {v, fixed})}, {.dtype = DType::i8})});
        const std::string ok = e_.new_label("fixed_input_ok");
        e_.br(e_.emit(op::cast, {same}, {.dtype = DType::boolean}), ok);
        e_.trap("input '" + in.name() + "' differs from the value the model was imported with");
        e_.place_label(ok);
        v = fixed;
      }
      define(in.name(), v);
    }
    for (const auto& init : g_.initializer()) {
      OnnxTensor t = tensor_from_proto(init, "initializer '" + init.name() + "'",
                                       {options_.model_dir}, model_);
      define(init.name(), e_.constant(std::move(t.value), t.scalar));
    }
    const GraphIndex index(g_);
    graph_ = &index;
    for (int k = 0; k < g_.node_size(); ++k) lower_node(g_.node(k), k);
    graph_ = nullptr;
    if (!problems_.empty()) {
      std::string msg = std::to_string(problems_.size()) + " node" +
                        (problems_.size() == 1 ? "" : "s") + " cannot be imported:";
      for (const auto& p : problems_) msg += "\n  " + p;
      out_.shape_dependent = shape_dependent_ && open_dims();
      // Every failure for want of small inputs' values: importable per run, with them known.
      if (value_problems_ == problems_.size())
        for (std::size_t k = 0; k < out_.inputs.size(); ++k)
          if (needed_values_ >> std::min<std::size_t>(k, 63) & 1) out_.value_inputs.push_back(out_.inputs[k].name);
      if (out_.shape_dependent || !out_.value_inputs.empty()) {
        for (const auto& o : g_.output()) out_.outputs.push_back(declared_output(o));
        throw OnnxShapeDependent(Error(ErrorKind::invalid, msg), out_);
      }
      throw Error(ErrorKind::invalid, msg);
    }
    out_.shape_dependent = shape_dependent_ && open_dims();
    std::vector<std::pair<std::string, Val>> outputs;
    for (int k = 0; k < g_.output_size(); ++k) {
      const auto& [onnx_name, name] = output_names[std::size_t(k)];
      const Val* v = lookup(onnx_name);
      if (!v) throw Error(ErrorKind::invalid, "graph output '" + onnx_name + "' is not produced by any node");
      // Declared rank 0: given back 0-d, as ONNX Runtime gives it.
      const auto& type = g_.output(k).type();
      if (type.has_tensor_type() && type.tensor_type().has_shape() &&
          type.tensor_type().shape().dim_size() == 0)
        e_.set_scalar(*v, true);
      out_.outputs.push_back({name, e_.type(*v), e_.scalar(*v)});
      outputs.emplace_back(name, *v);
    }
    Module m = e_.finish(outputs);
    m.source_name = options_.model_dir.empty() ? "<onnx>" : options_.model_dir;
    return m;
  }

  // A subgraph (If branch, Loop/Scan body) in a new scope that sees the enclosing ones: its
  // inputs bound to `inputs`, its nodes lowered in place; its outputs' values. Any node it
  // cannot import fails the whole subgraph, listing them all.
  std::vector<Val> lower_subgraph(const onnx::GraphProto& g, const std::vector<Val>& inputs) override {
    if (g.input_size() != int(inputs.size()))
      throw Error(ErrorKind::invalid, "subgraph '" + g.name() + "' declares " +
                                          std::to_string(g.input_size()) + " inputs, " +
                                          std::to_string(inputs.size()) + " are given");
    scopes_.emplace_back();
    std::vector<std::string> saved_problems;
    saved_problems.swap(problems_);
    struct Restore {
      GraphImporter& gi;
      std::vector<std::string>& saved;
      const GraphIndex* graph;
      ~Restore() {
        gi.scopes_.pop_back();
        gi.problems_.swap(saved);
        gi.graph_ = graph;
      }
    } restore{*this, saved_problems, graph_};
    const GraphIndex index(g);
    graph_ = &index;
    for (int k = 0; k < g.input_size(); ++k) define(g.input(k).name(), inputs[std::size_t(k)]);
    for (const auto& init : g.initializer()) {
      OnnxTensor t = tensor_from_proto(init, "initializer '" + init.name() + "'", {options_.model_dir}, model_);
      define(init.name(), e_.constant(std::move(t.value), t.scalar));
    }
    for (int k = 0; k < g.node_size(); ++k) lower_node(g.node(k), k);
    if (!problems_.empty()) {
      std::string msg = "in subgraph '" + g.name() + "':";
      for (const auto& p : problems_) msg += "\n    " + p;
      throw Error(ErrorKind::invalid, msg);
    }
    std::vector<Val> out;
    for (const auto& o : g.output()) {
      const Val* v = lookup(o.name());
      if (!v) throw Error(ErrorKind::invalid, "subgraph output '" + o.name() + "' is not produced");
      out.push_back(*v);
    }
    return out;
  }

  void note_shape_dependent() override { shape_dependent_ = true; }
  int unsupported_nodes() const override { return unsupported_; }

 private:
  void define(const std::string& name, Val v) { scopes_.back()[name] = v; }

  // Whether an input dim is left open (`?`): then a shape-dependent model is imported per run.
  bool open_dims() const {
    for (const OnnxValue& v : out_.inputs)
      for (int64_t d : v.type.dims)
        if (d == kDynamic) return true;
    return false;
  }
  const Val* lookup(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end()) return &f->second;
    }
    return nullptr;
  }

  std::string take_name(const std::string& onnx_name) {
    std::string n = e_.interface_name(onnx_name);
    if (n != onnx_name) out_.renamed.emplace_back(onnx_name, n);
    return n;
  }

  void lower_node(const onnx::NodeProto& node, int index) {
    const std::string label = node_label(node, index);
    auto problem = [&](const std::string& why) {
      int opset = default_domain(node.domain()) ? opset_ : 0;
      problems_.push_back(label + " (domain '" + (node.domain().empty() ? "ai.onnx" : node.domain()) +
                          "', opset " + std::to_string(opset) + "): " + why);
    };
    if (!default_domain(node.domain())) {
      ++unsupported_;
      return problem("unsupported domain");
    }
    auto it = lowering_table().find(node.op_type());
    std::vector<Val> inputs;
    bool inputs_ok = true;
    for (const std::string& name : node.input()) {
      if (name.empty()) {
        inputs.push_back(Val{});
        continue;
      }
      const Val* v = lookup(name);
      if (!v) {
        if (!failed_.count(name))
          problem("input '" + name + "' is not produced by an earlier node (a cycle, or nodes "
                  "out of order)");
        inputs_ok = false;
        continue;
      }
      inputs.push_back(*v);
    }
    auto mark_failed = [&] {
      for (const std::string& o : node.output()) failed_.insert(o);
    };
    if (it == lowering_table().end()) {
      ++unsupported_;
      problem("unsupported op");
      return mark_failed();
    }
    if (!inputs_ok) return mark_failed();
    e_.set_origin(label);
    e_.take_needed_inputs();
    try {
      NodeContext ctx(node, opset_, e_, std::move(inputs), options_.model_dir, this);
      ctx.original_opset = out_.original_opset;
      ctx.graph = graph_;
      std::vector<Val> results = it->second->fn(ctx);
      for (int k = 0; k < node.output_size(); ++k) {
        const std::string& name = node.output(k);
        if (name.empty()) continue;
        if (k >= int(results.size()) || !results[std::size_t(k)].present())
          throw Error(ErrorKind::invalid, "output " + std::to_string(k) + " is not supported");
        if (scopes_.back().count(name))
          throw Error(ErrorKind::invalid, "value '" + name + "' is assigned twice");
        define(name, results[std::size_t(k)]);
        e_.name_value(results[std::size_t(k)], name);
      }
    } catch (const Error& err) {
      // (A subgraph's failures reach here as its node's one error: not keyed by values.)
      const uint64_t needed = e_.take_needed_inputs();
      if (scopes_.size() == 1 && small_inputs(needed)) ++value_problems_;
      problem(err.message());
      mark_failed();
    }
  }

  // Whether `mask` names graph inputs (Emitter::take_needed_inputs) that are all small enough
  // to key a per-run import by their values: static dims, at most 64 elements. Records them.
  bool small_inputs(uint64_t mask) {
    if (mask == 0 || (mask >> 63 && out_.inputs.size() > 64)) return false;
    for (std::size_t k = 0; k < out_.inputs.size() && k < 64; ++k) {
      if (!(mask >> k & 1)) continue;
      const TensorType& t = out_.inputs[k].type;
      int64_t n = 1;
      for (int64_t d : t.dims) n = d == kDynamic || d > 64 ? 65 : n * d;
      if (n > 64) return false;
    }
    needed_values_ |= mask;
    return true;
  }

  std::shared_ptr<const onnx::ModelProto> model_;
  const onnx::GraphProto& g_;
  const GraphIndex* graph_ = nullptr;  // the graph whose nodes are being lowered
  int opset_;
  const OnnxImportOptions& options_;
  OnnxImport& out_;
  Emitter e_;
  std::vector<std::map<std::string, Val>> scopes_{1};
  std::set<std::string> failed_;
  std::vector<std::string> problems_;
  int unsupported_ = 0;
  bool shape_dependent_ = false;
  std::size_t value_problems_ = 0;  // top-level nodes that failed only for small inputs' values
  uint64_t needed_values_ = 0;      // those inputs (bit k: out_.inputs[k])
};

int default_opset(const onnx::ModelProto& model) {
  int opset = 0;
  for (const auto& o : model.opset_import())
    if (default_domain(o.domain())) opset = int(std::min<int64_t>(o.version(), INT32_MAX));
  return opset;
}

}  // namespace

namespace {

std::shared_ptr<onnx::ModelProto> parse_model(std::span<const uint8_t> bytes) {
  if (int64_t(bytes.size()) >= kMaxModelBytes)
    throw Error(ErrorKind::malformed, "model of " + std::to_string(bytes.size()) +
                                          " bytes is above protobuf's 2 GiB limit");
  auto model = std::make_shared<onnx::ModelProto>();
  if (!model->ParseFromArray(bytes.data(), int(bytes.size())))
    throw Error(ErrorKind::malformed, "not an ONNX model: the protobuf does not parse "
                                      "(truncated, or wrong wire types)");
  return model;
}

// Protobuf reads the file through this in 64 KiB blocks, so a model's bytes are never held
// whole before parsing (ResNet-18: 46 MB less memory first touched, a tenth of its first run).
// InputFile's errors are kept and rethrown after the parse, not thrown through protobuf.
class FileBlocks : public google::protobuf::io::CopyingInputStream {
 public:
  explicit FileBlocks(InputFile& f) : f_(f) {}
  int Read(void* buffer, int size) override {
    try {
      return int(f_.read(buffer, std::size_t(size)));
    } catch (const Error&) {
      error_ = std::current_exception();
      return -1;
    }
  }
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  InputFile& f_;
  std::exception_ptr error_;
};

// A regular file's model parsed as it is read; standard input ("-") read whole first, bounded.
std::shared_ptr<onnx::ModelProto> parse_model_file(const std::string& path) {
  if (path == "-") return parse_model(read_file_bounded(path, kMaxModelBytes, "ONNX model"));
  InputFile f(path);
  if (f.size() >= kMaxModelBytes)
    fail(ErrorKind::limit, "cannot read " + path + ": the ONNX model holds " + std::to_string(f.size()) +
                               " bytes, more than the limit of " + std::to_string(kMaxModelBytes));
  auto model = std::make_shared<onnx::ModelProto>();
  FileBlocks blocks(f);
  google::protobuf::io::CopyingInputStreamAdaptor stream(&blocks, 1 << 16);
  const bool parsed = model->ParseFromZeroCopyStream(&stream);
  blocks.rethrow();
  if (!parsed)
    throw Error(ErrorKind::malformed, "not an ONNX model: the protobuf does not parse "
                                      "(truncated, or wrong wire types)");
  return model;
}

// The parsed model is kept alive by the module's constants, which are views of its
// initializers' raw data (held once, never copied).
OnnxImport import_model(std::shared_ptr<onnx::ModelProto> model, const OnnxImportOptions& options) {
  OnnxImport out;
  out.original_opset = default_opset(*model);
  if (out.original_opset <= 0 && model->graph().node_size() > 0)
    throw Error(ErrorKind::malformed, "the model imports no default-domain (ai.onnx) opset");
  if (out.original_opset > kMaxOpset)
    throw Error(ErrorKind::invalid, "opset " + std::to_string(out.original_opset) +
                                        " is newer than the newest this build knows (" +
                                        std::to_string(kMaxOpset) + ")");
  if (model->has_graph()) sort_nodes(*model->mutable_graph());
  check_graph_structure(*model);
  // ONNX's checker stops at the first unknown op; the importer lists every node it cannot
  // import, so the checker's verdict is reported only when the import itself found nothing.
  std::string checker_error;
  // ONNX 1.12's checker wants a shape on every graph output's tensor type, where the format
  // (and ONNX Runtime) allow a type alone: such outputs get an empty shape for the checker's
  // sake only, taken off again before the import reads them.
  std::vector<onnx::TypeProto_Tensor*> shapeless;
  for (auto& out : *model->mutable_graph()->mutable_output())
    if (out.type().has_tensor_type() && !out.type().tensor_type().has_shape()) {
      shapeless.push_back(out.mutable_type()->mutable_tensor_type());
      shapeless.back()->mutable_shape();
    }
  if (out.original_opset <= kLibOnnxMaxOpset) {
    try {
      onnx::checker::check_model(*model);
    } catch (const std::exception& ex) {
      checker_error = std::string("ONNX checker: ") + ex.what();
    }
  }
  for (onnx::TypeProto_Tensor* t : shapeless) t->clear_shape();
  if (out.original_opset > 0 && out.original_opset < kMinNativeOpset) {
    if (!checker_error.empty()) throw Error(ErrorKind::invalid, checker_error);
    upgrade_opset(*model, kMinNativeOpset);
  }
  out.opset = std::max(default_opset(*model), out.original_opset);
  out.module = GraphImporter(model, out.opset, options, out).run();
  if (!checker_error.empty()) throw Error(ErrorKind::invalid, checker_error);
  VerifyOptions vo;
  vo.precision_check = false;
  out.verified = verify_or_throw(out.module, vo);
  return out;
}

}  // namespace

OnnxShapeDependent::OnnxShapeDependent(const Error& e, const OnnxImport& partial)
    : Error(e), inputs(partial.inputs), outputs(partial.outputs), value_inputs(partial.value_inputs) {}

OnnxImport import_onnx(std::span<const uint8_t> bytes, const OnnxImportOptions& options) {
  return import_model(parse_model(bytes), options);
}

OnnxImport import_onnx_file(const std::string& path, OnnxImportOptions options) {
  std::shared_ptr<onnx::ModelProto> model = parse_model_file(path);
  if (options.model_dir.empty()) {
    std::filesystem::path p(path);
    options.model_dir = p.has_parent_path() ? p.parent_path().string() : ".";
  }
  return import_model(std::move(model), options);
}

OnnxImport import_giving_values(const std::function<OnnxImport(const OnnxImportOptions&)>& import,
                                OnnxImportOptions& options,
                                const std::function<std::optional<Tensor>(const OnnxValue&)>& value_of) {
  for (;;) {
    try {
      return import(options);
    } catch (const OnnxShapeDependent& e) {
      bool added = false;
      for (const std::string& name : e.value_inputs) {
        if (options.input_values.count(name)) continue;
        for (const OnnxValue& in : e.inputs)
          if (in.name == name)
            if (std::optional<Tensor> v = value_of(in)) {
              options.input_values[name] = std::move(*v);
              added = true;
            }
      }
      if (!added) throw;  // nothing more to fix: the import's own error
    }
  }
}

std::vector<std::pair<std::string, std::string>> supported_onnx_ops() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, e] : lowering_table())
    out.emplace_back(name, std::to_string(e->since) + "-" + std::to_string(kMaxOpset));
  return out;
}

}  // namespace mlvm
