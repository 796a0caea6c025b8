#include "quantize/lower.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "tensor/error.hpp"

namespace mlvm::quant {

namespace {

std::string program_name(const Module& m, bool probe) {
  const std::string base = m.name.empty() ? "quantized" : m.name;
  return probe ? base + "_int_probe" : (m.name.empty() ? base : base + "_int8");
}

}  // namespace

// What an instruction of the integer program implements, as the disassembler's comment shows
// it: the float instruction's own origin (an ONNX node), else its line and text.
std::string Lowerer::origin_of(const Module& m, const GraphNode& n) const {
  const std::size_t pc = std::size_t(n.pc);
  if (pc < m.origins.size() && !m.origins[pc].empty()) return m.origins[pc];
  return (m.line_of(pc) ? "line " + std::to_string(m.line_of(pc)) : "instruction " + std::to_string(pc)) + ": " +
         g_.text(n);
}

Lowerer::Lowerer(const Graph& g, const QuantPlan& p, const std::vector<ValueStats>& stats, bool probe)
    : g_(g), p_(p), stats_(stats), probe_(probe), e_(program_name(*g.module, probe)) {
  regs_.resize(g.values.size());
  q_.resize(g.values.size());
  f_.resize(g.values.size());
  exact_.resize(g.values.size());
}

Lowered lower_to_integers(const Graph& g, const QuantPlan& p, const std::vector<ValueStats>& stats,
                          bool probe) {
  return Lowerer(g, p, stats, probe).run();
}

std::string Lowerer::hint(int32_t value, const std::string& suffix) const { return g_.name(value) + suffix; }

Lowered Lowerer::run() {
  const Module& m = *g_.module;
  if (!probe_) {
    // The integer program keeps the float one's inputs and outputs, by name.
    for (std::size_t k = 0; k < m.outputs.size(); ++k) {
      exact_[std::size_t(g_.outputs[k])] = m.outputs[k].name;
      e_.reserve(m.outputs[k].name);
    }
    for (const InputDecl& in : m.inputs) e_.reserve(in.name);
  }
  declare_inputs();
  // The input is quantized only if something reads its integers: float ops read the f32.
  const std::vector<int32_t>& readers = g_.values[std::size_t(p_.input)].readers;
  if (std::any_of(readers.begin(), readers.end(), [&](int32_t pc) { return p_.role[std::size_t(pc)] != NodeRole::float_op; }))
    quantize_input();
  for (const GraphNode& n : g_.nodes) {
    if (probe_ && !p_.in_slice[std::size_t(n.pc)]) continue;
    std::string origin = origin_of(m, n);
    for (int32_t pc : p_.fused_affine[std::size_t(n.pc)]) origin += " + " + origin_of(m, g_.nodes[std::size_t(pc)]);
    const std::vector<int32_t>& chain = p_.chain[std::size_t(n.pc)];
    for (std::size_t k = 0; k + 1 < chain.size(); ++k) origin = origin_of(m, g_.nodes[std::size_t(chain[k])]) + " + " + origin;
    if (const int32_t relu = p_.fused_relu[std::size_t(n.pc)]; relu >= 0)
      origin += " + " + origin_of(m, g_.nodes[std::size_t(relu)]);
    e_.set_origin(origin, g_.where(n));
    try {
      lower_node(n);
    } catch (const Error& err) {
      if (!err.location().empty()) throw;
      const std::string op = op_info(n.op).name;
      const bool named = err.message().rfind(op + ":", 0) == 0;
      throw Error(err.kind(), named ? err.message() : op + ": " + err.message(), g_.where(n));
    }
  }
  Lowered out;
  if (probe_) finish_probe(out);
  else finish_outputs();
  out.module = e_.finish();
  if (probe_) out.probe.module = out.module;
  out.layers = layers_;
  out.locations = e_.locations();
  return out;
}

void Lowerer::lower_node(const GraphNode& n) {
  switch (p_.role[std::size_t(n.pc)]) {
    case NodeRole::copy: return copy_node(n);
    case NodeRole::same: return same_scale_node(n);
    case NodeRole::reader: return reader_node(n);
    case NodeRole::fused: return;  // done by the layer before it
    case NodeRole::float_op: return float_node(n);
    case NodeRole::layer: break;
  }
  if (!p_.chain[std::size_t(n.pc)].empty()) return chain_table(n);
  switch (n.op) {
    case Opcode::conv2d:
    case Opcode::dense: return weighted_layer(n);
    case Opcode::avg_pool2d: return avg_pool(n);
    case Opcode::mean: return mean(n);
    case Opcode::add:
    case Opcode::sub: return add(n);
    case Opcode::mul:
    case Opcode::div: return mul(n);
    case Opcode::concatenate: return concatenate(n);
    case Opcode::matmul: return matmul(n);
    default:
      if (is_table_op(n.op)) return table(n);
      fail_invalid("internal: no lowering for " + op_info(n.op).name);
  }
}

void Lowerer::declare_inputs() {
  const Module& m = *g_.module;
  const GraphValue& in = g_.values[std::size_t(p_.input)];
  if (probe_) {
    regs_[std::size_t(p_.input)] = e_.input(g_.name(p_.input), in.type);
    return;
  }
  // Inputs are the first values (graph.cpp), in declaration order.
  for (std::size_t k = 0; k < m.inputs.size(); ++k) regs_[k] = e_.input(m.inputs[k].name, m.inputs[k].type);
  if (in.constant >= 0) {
    const ConstDecl& c = m.constants[std::size_t(in.constant)];
    regs_[std::size_t(p_.input)] = e_.constant(c.name, c.value, true);
  }
}

void Lowerer::quantize_input() {
  const int32_t in = p_.input;
  const std::string& name = g_.name(in);
  e_.set_origin("the input '" + name + "', quantized");
  const int e = activation_exponent(stats_[std::size_t(in)], 8);
  q_[std::size_t(in)] = quantize_f32(regs_[std::size_t(in)], e, hint(in, ".q"));
  LayerReport l;
  l.value = in;
  l.layer = "input '" + name + "'";
  l.op = "input";
  l.result = name;
  l.exponent = e;
  l.bits = 8;
  l.float_max = stats_[std::size_t(in)].max_abs;
  layers_.push_back(l);
}

std::string Lowerer::reg_of(int32_t value, const GraphNode* at) {
  if (value == kNoValue) return "none";
  std::string& r = regs_[std::size_t(value)];
  if (!r.empty()) return r;
  const GraphValue& v = g_.values[std::size_t(value)];
  if (v.constant >= 0) {
    const ConstDecl& c = g_.module->constants[std::size_t(v.constant)];
    return r = e_.constant(c.name, c.value, !exact_[std::size_t(value)].empty());
  }
  if (v.input >= 0)
    throw Error(ErrorKind::invalid,
                "the activations depend on input '" + g_.name(value) + "' as well as on '" + g_.name(p_.input) +
                    "'; the quantizer calibrates one input (no instruction computed from it may read another input)",
                at ? g_.where(*at) : std::string());
  fail_invalid("internal: value " + std::to_string(value) + " has no register");
}

std::vector<std::string> Lowerer::result_names(const GraphNode& n, std::vector<bool>& exact) const {
  std::vector<std::string> names;
  exact.clear();
  for (int32_t r : n.results) {
    const std::string& want = exact_[std::size_t(r)];
    names.push_back(want.empty() ? g_.name(r) : want);
    exact.push_back(!want.empty());
  }
  return names;
}

void Lowerer::copy_node(const GraphNode& n) {
  std::vector<std::string> args;
  for (int32_t a : n.args) args.push_back(reg_of(a, &n));
  std::vector<bool> exact;
  const std::vector<std::string> want = result_names(n, exact);
  const auto r = e_.emit_stored(n.op, args, g_.module->code[std::size_t(n.pc)].attrs, want, exact);
  for (std::size_t k = 0; k < r.size(); ++k) regs_[std::size_t(n.results[k])] = r[k];
}

void Lowerer::same_scale_node(const GraphNode& n) {
  const QValue& x = q_[std::size_t(n.args[0])];
  std::vector<std::string> args{x.reg};
  for (std::size_t k = 1; k < n.args.size(); ++k) args.push_back(reg_of(n.args[k], &n));
  const int32_t r = n.results[0];
  const std::string y =
      n.op == Opcode::clip
          ? clip_ints(x, g_.attrs(n).get<clip_attrs>(), hint(r, ".q"))
          : e_.emit_stored(n.op, args, g_.module->code[std::size_t(n.pc)].attrs, {hint(r, ".q")}, {})[0];
  q_[std::size_t(r)] = QValue{y, x.exp, e_.type(y).precision};
  // Views are bookkeeping; relu and pooling are layers a user looks for in the report.
  if (n.op == Opcode::relu || n.op == Opcode::max_pool2d || n.op == Opcode::clip) {
    LayerReport& l = report(n, r, op_info(n.op).name);
    l.exponent = x.exp;
    l.bits = x.precision;
  }
}

void Lowerer::reader_node(const GraphNode& n) {
  std::vector<std::string> args{q_[std::size_t(n.args[0])].reg};
  for (std::size_t k = 1; k < n.args.size(); ++k) args.push_back(reg_of(n.args[k], &n));
  std::vector<bool> exact;
  const std::vector<std::string> want = result_names(n, exact);
  const auto r = e_.emit_stored(n.op, args, g_.module->code[std::size_t(n.pc)].attrs, want, exact);
  for (std::size_t k = 0; k < r.size(); ++k) regs_[std::size_t(n.results[k])] = r[k];
}

LayerReport& Lowerer::report(const GraphNode& n, int32_t value, const std::string& op) {
  LayerReport l;
  l.value = value;
  l.layer = g_.where(n);
  l.op = op;
  l.result = g_.name(value);
  l.float_max = stats_[std::size_t(value)].max_abs;
  layers_.push_back(l);
  return layers_.back();
}

void Lowerer::finish_outputs() {
  const Module& m = *g_.module;
  for (std::size_t k = 0; k < m.outputs.size(); ++k) {
    const OutputDecl& o = m.outputs[k];
    const int32_t v = g_.outputs[k];
    e_.set_origin("output '" + o.name + "'");
    if (p_.activation[std::size_t(v)] && !p_.floating[std::size_t(v)] && v != p_.input) {
      dequantize(q_[std::size_t(v)], o.name, true);
    } else if (reg_of(v, nullptr) != o.name) {
      fail_invalid("internal: output '" + o.name + "' is in register '" + regs_[std::size_t(v)] + "'");
    }
    e_.output(o.name, &o);
  }
}

void Lowerer::finish_probe(Lowered& out) {
  out.probe.input = regs_[std::size_t(p_.input)];
  std::set<std::string> seen;
  for (std::size_t v = 0; v < g_.values.size(); ++v) {
    // Float activations as themselves (exponent 0), so their error is measured too.
    const bool held_float = p_.floating[v] && !f_[v].empty();
    const QValue q = held_float ? QValue{f_[v], 0, 32} : q_[v];
    if (q.reg.empty() || !seen.insert(q.reg).second) continue;
    e_.output(q.reg);
    out.probe.outputs.push_back(ProbeOutput{int32_t(v), q.reg, q.exp});
  }
}

}  // namespace mlvm::quant
