#include "quantize/plan.hpp"

#include <algorithm>

#include "tensor/error.hpp"

namespace mlvm::quant {

namespace {

const char* const kSupported =
    "the quantizer handles conv2d, dense, avg_pool2d, add, concatenate (computed in i32); relu, "
    "max_pool2d, reshape, flatten, transpose, squeeze, expand_dims, copy, strided_slice (the same "
    "scale); argmax, argmin, shape_of (read the integers)";

bool is_f32_constant(const Graph& g, int32_t v) {
  return v != kNoValue && g.values[std::size_t(v)].is_constant() &&
         g.values[std::size_t(v)].type.dtype == DType::f32;
}

std::string list(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "none" : s;
}

}  // namespace

bool is_layer_op(Opcode op) {
  switch (op) {
    case Opcode::conv2d: case Opcode::dense: case Opcode::avg_pool2d: case Opcode::add:
    case Opcode::concatenate:
      return true;
    default:
      return false;
  }
}

bool is_same_scale_op(Opcode op) {
  switch (op) {
    case Opcode::relu: case Opcode::max_pool2d: case Opcode::reshape: case Opcode::flatten:
    case Opcode::transpose: case Opcode::squeeze: case Opcode::expand_dims: case Opcode::copy:
    case Opcode::strided_slice:
      return true;
    default:
      return false;
  }
}

bool is_reader_op(Opcode op) {
  return op == Opcode::argmax || op == Opcode::argmin || op == Opcode::shape_of;
}

int32_t find_activation_input(const Graph& g, const std::string& name) {
  const Module& m = *g.module;
  std::vector<std::string> f32_inputs, inputs, f32_consts;
  for (const InputDecl& in : m.inputs) {
    inputs.push_back(in.name + " : " + in.type.to_string());
    if (in.type.dtype == DType::f32) f32_inputs.push_back(in.name);
  }
  for (const ConstDecl& c : m.constants)
    if (c.type.dtype == DType::f32) f32_consts.push_back(c.name);
  int32_t found = kNoValue;
  // Inputs and constants are the first values, in declaration order (graph.cpp).
  for (std::size_t v = 0; v < m.inputs.size() + m.constants.size(); ++v) {
    const GraphValue& gv = g.values[v];
    if (g.name(int32_t(v)) == name || (name.empty() && gv.input >= 0 && gv.type.dtype == DType::f32)) {
      if (name.empty() && found != kNoValue)
        fail_invalid("the module has several f32 inputs (" + list(f32_inputs) +
                     "); choose the one to quantize with --input NAME");
      found = int32_t(v);
      if (!name.empty()) break;
    }
  }
  if (found == kNoValue && name.empty())
    fail_invalid("the module has no f32 input (inputs: " + list(inputs) +
                 "); name the f32 input or constant to quantize with --input NAME");
  if (found == kNoValue)
    fail_invalid("--input '" + name + "': the module has no input or constant of that name (inputs: " +
                 list(inputs) + "; f32 constants: " + list(f32_consts) + ")");
  const GraphValue& in = g.values[std::size_t(found)];
  if (in.type.dtype != DType::f32)
    fail_invalid("--input '" + g.name(found) + "' is " + in.type.to_string() +
                 "; the quantizer quantizes an f32 input (or f32 constant)");
  if (in.readers.empty())
    fail_invalid("--input '" + g.name(found) + "': no instruction reads it, so there is nothing to quantize");
  return found;
}

QuantPlan plan_quantization(const Graph& g, int32_t input) {
  QuantPlan p;
  p.input = input;
  p.activation.assign(g.values.size(), false);
  p.terminal.assign(g.values.size(), true);
  p.role.assign(g.nodes.size(), NodeRole::copy);
  p.fused_relu.assign(g.nodes.size(), -1);
  p.in_slice.assign(g.nodes.size(), false);
  p.activation[std::size_t(input)] = true;
  auto act = [&](int32_t v) { return v != kNoValue && p.activation[std::size_t(v)]; };

  for (const GraphNode& n : g.nodes) {
    if (std::none_of(n.args.begin(), n.args.end(), act)) continue;
    const std::string op = op_info(n.op).name;
    auto refuse = [&](const std::string& why) {
      throw Error(ErrorKind::invalid, op + ": " + why + " (the instruction: " + g.text(n) + ")", g.where(n));
    };
    const std::string first = n.args.empty() || n.args[0] == kNoValue ? "" : g.name(n.args[0]);
    NodeRole role = NodeRole::copy;
    if (n.op == Opcode::conv2d || n.op == Opcode::dense) {
      if (!act(n.args[0])) refuse("only x may be computed from the quantized input; the weights and bias must be f32 constants");
      if (!is_f32_constant(g, n.args[1]))
        refuse("the weights '" + g.name(n.args[1]) + "' must be an f32 constant to be quantized");
      if (n.args.size() > 2 && n.args[2] != kNoValue && !is_f32_constant(g, n.args[2]))
        refuse("the bias '" + g.name(n.args[2]) + "' must be an f32 constant to be quantized");
      role = NodeRole::layer;
    } else if (n.op == Opcode::add) {
      const bool both = act(n.args[0]) && act(n.args[1]);
      if (!both && !is_f32_constant(g, act(n.args[0]) ? n.args[1] : n.args[0]))
        refuse("adds an activation and '" + g.name(act(n.args[0]) ? n.args[1] : n.args[0]) +
               "', which is neither an activation nor an f32 constant");
      role = NodeRole::layer;
    } else if (n.op == Opcode::concatenate) {
      for (int32_t a : n.args)
        if (!act(a)) refuse("joins the activation with '" + g.name(a) + "', which is not computed from the input");
      role = NodeRole::layer;
    } else if (n.op == Opcode::avg_pool2d) {
      role = NodeRole::layer;
    } else if (is_same_scale_op(n.op) || is_reader_op(n.op)) {
      if (!act(n.args[0])) refuse("reads an activation as its shape argument");
      for (std::size_t k = 1; k < n.args.size(); ++k)
        if (act(n.args[k])) refuse("reads an activation as a shape argument");
      role = is_reader_op(n.op) ? NodeRole::reader : NodeRole::same;
    } else {
      refuse("it reads the activation '" + first +
             "' (computed from the quantized input) and has no integer lowering; " + kSupported);
    }
    p.role[std::size_t(n.pc)] = role;
    if (role == NodeRole::layer || role == NodeRole::same)
      for (int32_t r : n.results) p.activation[std::size_t(r)] = true;
  }

  // A relu that is the only reader of a conv2d, dense or add result runs on the i32
  // accumulator, before the requantization: the scale is then chosen for the non-negative
  // part only, which is all that survives the relu.
  for (const GraphNode& n : g.nodes) {
    if (p.role[std::size_t(n.pc)] != NodeRole::layer) continue;
    if (n.op != Opcode::conv2d && n.op != Opcode::dense && n.op != Opcode::add) continue;
    const GraphValue& r = g.values[std::size_t(n.results[0])];
    if (r.readers.size() != 1 || g.is_output(n.results[0])) continue;
    const GraphNode& reader = g.nodes[std::size_t(r.readers[0])];
    if (reader.op != Opcode::relu) continue;
    p.fused_relu[std::size_t(n.pc)] = reader.pc;
    p.role[std::size_t(reader.pc)] = NodeRole::fused;
  }

  // Backwards: a value keeps 16 bits unless a layer reads it, directly or through nodes that
  // keep its scale (their results are decided first: readers come after what they read).
  for (auto it = g.nodes.rbegin(); it != g.nodes.rend(); ++it) {
    const NodeRole role = p.role[std::size_t(it->pc)];
    for (int32_t a : it->args) {
      if (!act(a)) continue;
      if (role == NodeRole::layer) p.terminal[std::size_t(a)] = false;
      if (role == NodeRole::same || role == NodeRole::fused)
        p.terminal[std::size_t(a)] = p.terminal[std::size_t(a)] && p.terminal[std::size_t(it->results[0])];
    }
  }
  // The calibration run: the nodes the activations need, and whatever those nodes read.
  std::vector<bool> needed(g.values.size(), false);
  for (std::size_t v = 0; v < g.values.size(); ++v) needed[v] = p.activation[v];
  for (auto it = g.nodes.rbegin(); it != g.nodes.rend(); ++it) {
    if (std::none_of(it->results.begin(), it->results.end(), [&](int32_t r) { return needed[std::size_t(r)]; }))
      continue;
    p.in_slice[std::size_t(it->pc)] = true;
    for (int32_t a : it->args)
      if (a != kNoValue) needed[std::size_t(a)] = true;
  }
  return p;
}

}  // namespace mlvm::quant
