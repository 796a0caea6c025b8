#include "quantize/plan.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "ir/precision.hpp"
#include "tensor/error.hpp"

namespace mlvm::quant {

namespace {

bool is_f32_constant(const Graph& g, int32_t v) {
  return v != kNoValue && g.values[std::size_t(v)].is_constant() &&
         g.values[std::size_t(v)].type.dtype == DType::f32;
}

std::string list(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "none" : s;
}

// The first --keep-float pattern naming the node, or "".
std::string kept_by(const Graph& g, const GraphNode& n, const std::vector<std::string>& patterns) {
  std::vector<std::string> names{op_info(n.op).name};
  for (int32_t r : n.results) names.push_back(g.name(r));
  const std::size_t pc = std::size_t(n.pc);
  if (pc < g.module->origins.size() && !g.module->origins[pc].empty()) {
    const std::string& origin = g.module->origins[pc];
    names.push_back(origin);
    const std::size_t a = origin.find('\''), b = origin.rfind('\'');
    if (a != std::string::npos && b > a) names.push_back(origin.substr(a + 1, b - a - 1));
  }
  for (const std::string& pattern : patterns)
    for (const std::string& name : names)
      if (fnmatch(pattern.c_str(), name.c_str(), 0) == 0) return pattern;
  return "";
}

struct Verdict {
  NodeRole role = NodeRole::float_op;
  std::string why;  // for float_op: what the integer lowering lacks
};

// How a node reading activations runs on integers, or why it cannot.
Verdict integer_verdict(const Graph& g, const GraphNode& n, const std::function<bool(int32_t)>& act) {
  auto no = [](const std::string& why) { return Verdict{NodeRole::float_op, "no integer lowering: " + why}; };
  const GraphValue& x = g.values[std::size_t(n.args[0] == kNoValue ? n.results[0] : n.args[0])];
  switch (n.op) {
    case Opcode::conv2d:
    case Opcode::dense:
      if (!act(n.args[0])) return no("the weights or bias are computed from the input");
      if (!is_f32_constant(g, n.args[1])) return no("the weights '" + g.name(n.args[1]) + "' are not an f32 constant");
      if (n.args.size() > 2 && n.args[2] != kNoValue && !is_f32_constant(g, n.args[2]))
        return no("the bias '" + g.name(n.args[2]) + "' is not an f32 constant");
      return {NodeRole::layer, ""};
    case Opcode::div:
      // x / c is x * (1/c): the constant divisor only, every element non-zero.
      if (!act(n.args[0]) || !is_f32_constant(g, n.args[1]))
        return no("only an activation divided by an f32 constant is lowered");
      for (float c : to_vector<float>(g.module->constants[std::size_t(g.values[std::size_t(n.args[1])].constant)].value))
        if (!(std::fabs(c) > 0) || !std::isfinite(c)) return no("the divisor '" + g.name(n.args[1]) + "' has a zero or non-finite element");
      return {NodeRole::layer, ""};
    case Opcode::add:
    case Opcode::sub:
    case Opcode::mul: {
      if (act(n.args[0]) && act(n.args[1])) return {NodeRole::layer, ""};
      const int32_t other = act(n.args[0]) ? n.args[1] : n.args[0];
      if (!is_f32_constant(g, other))
        return no("'" + g.name(other) + "' is neither an activation nor an f32 constant");
      return {NodeRole::layer, ""};
    }
    case Opcode::matmul:
      if (act(n.args[0]) && act(n.args[1])) return {NodeRole::layer, ""};
      if (!act(n.args[0]) || !is_f32_constant(g, n.args[1]) || g.values[std::size_t(n.args[1])].type.dims.size() != 2)
        return no("only a product of two activations, or of an activation and an f32 constant matrix [K, N], is lowered");
      return {NodeRole::layer, ""};
    case Opcode::concatenate:
      for (int32_t a : n.args)
        if (!act(a)) return no("it joins '" + g.name(a) + "', which is not computed from the input");
      return {NodeRole::layer, ""};
    case Opcode::avg_pool2d: {
      const auto& a = g.attrs(n).get<avg_pool2d_attrs>();
      const bool padded = std::any_of(a.padding.begin(), a.padding.end(), [](int64_t p) { return p != 0; });
      if (a.ceil_mode || (padded && !a.count_include_pad))
        return no("only a constant divisor can be requantized: ceil_mode=false, and no padding unless "
                  "count_include_pad=true");
      if (x.type.dims.size() != 4 || x.type.dims[1] == kDynamic)
        return no("the channel count of x must be known, got " + x.type.to_string());
      return {NodeRole::layer, ""};
    }
    case Opcode::mean:
      if (reduced_count(x.type.dims, g.attrs(n).get<reduce_attrs>()) < 1)
        return no("the reduced dims of " + x.type.to_string() + " must be known");
      return {NodeRole::layer, ""};
    default:
      break;
  }
  if (is_table_op(n.op)) {
    if (x.type.dtype != DType::f32) return no("a lookup table needs an f32 input, got " + x.type.to_string());
    return {NodeRole::layer, ""};
  }
  if (n.op == Opcode::resize) {
    // Nearest sampling picks input elements, so it commutes with the scale; tf_crop_and_resize
    // also writes extrapolation_value, which has none.
    const auto& a = g.attrs(n).get<resize_attrs>();
    if (a.mode != resize_attrs::mode_choice::nearest ||
        a.coordinate_transformation_mode == resize_attrs::coordinate_transformation_mode_choice::tf_crop_and_resize)
      return no("only a nearest resize (not tf_crop_and_resize) keeps the scale");
  }
  // Padding adds elements of its own: only zeros (or copies of x's, edge and reflect) keep
  // the scale.
  if (n.op == Opcode::pad) {
    const auto& a = g.attrs(n).get<pad_attrs>();
    if (a.mode == pad_attrs::mode_choice::constant && a.value.as_double() != 0)
      return no("a constant pad keeps the scale only with value 0");
  }
  if (n.op == Opcode::pad_dyn && n.args.size() > 2 && n.args[2] != kNoValue &&
      g.attrs(n).get<pad_dyn_attrs>().mode == pad_dyn_attrs::mode_choice::constant)
    return no("a constant pad keeps the scale only without a value operand (zeros)");
  if (is_same_scale_op(n.op) || is_reader_op(n.op)) {
    if (!act(n.args[0])) return no("it reads an activation as its shape argument");
    for (std::size_t k = 1; k < n.args.size(); ++k)
      if (act(n.args[k])) return no("it reads an activation as a shape argument");
    return {is_reader_op(n.op) ? NodeRole::reader : NodeRole::same, ""};
  }
  return {NodeRole::float_op, "no integer lowering"};
}

}  // namespace

int64_t reduced_count(const Dims& dims, const reduce_attrs& a) {
  const int rank = int(dims.size());
  std::vector<bool> reduced(std::size_t(rank), a.axes.empty() && !a.exclude);
  for (int64_t ax : a.axes) {
    const int64_t k = ax < 0 ? ax + rank : ax;
    if (k < 0 || k >= rank) return -1;
    reduced[std::size_t(k)] = true;
  }
  if (a.exclude)
    for (std::size_t k = 0; k < reduced.size(); ++k) reduced[k] = !reduced[k];
  int64_t n = 1;
  for (int k = 0; k < rank; ++k) {
    if (!reduced[std::size_t(k)]) continue;
    if (dims[std::size_t(k)] == kDynamic) return -1;
    n *= dims[std::size_t(k)];
  }
  return n;
}

bool is_layer_op(Opcode op) {
  switch (op) {
    case Opcode::conv2d: case Opcode::dense: case Opcode::avg_pool2d: case Opcode::add:
    case Opcode::concatenate: case Opcode::mean: case Opcode::mul: case Opcode::sub: case Opcode::div:
    case Opcode::matmul:
      return true;
    default:
      return is_table_op(op);
  }
}

bool is_same_scale_op(Opcode op) {
  switch (op) {
    case Opcode::relu: case Opcode::max_pool2d: case Opcode::reshape: case Opcode::flatten:
    case Opcode::transpose: case Opcode::squeeze: case Opcode::expand_dims: case Opcode::copy:
    case Opcode::strided_slice: case Opcode::clip: case Opcode::upsampling: case Opcode::resize:
    case Opcode::broadcast_to: case Opcode::flip: case Opcode::depth_to_space: case Opcode::space_to_depth:
    case Opcode::repeat: case Opcode::tile: case Opcode::pad: case Opcode::max: case Opcode::min:
    case Opcode::take: case Opcode::gather_elements: case Opcode::gather_nd: case Opcode::reshape_dyn:
    case Opcode::slice_dyn: case Opcode::broadcast_dyn: case Opcode::tile_dyn: case Opcode::squeeze_dyn:
    case Opcode::expand_dims_dyn: case Opcode::pad_dyn:
      return true;
    default:
      return false;
  }
}

bool is_reader_op(Opcode op) {
  return op == Opcode::argmax || op == Opcode::argmin || op == Opcode::shape_of;
}

bool is_table_op(Opcode op) {
  switch (op) {
    case Opcode::sigmoid: case Opcode::tanh: case Opcode::exp: case Opcode::erf: case Opcode::softplus:
    case Opcode::softsign: case Opcode::hard_sigmoid: case Opcode::hard_swish: case Opcode::gelu:
    case Opcode::leaky_relu: case Opcode::elu: case Opcode::selu: case Opcode::celu:
    case Opcode::thresholded_relu: case Opcode::sin: case Opcode::cos: case Opcode::atan:
      return true;
    default:
      return false;
  }
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

int64_t channel_constant(const Graph& g, int32_t v, int64_t channels) {
  if (!is_f32_constant(g, v)) return -1;
  const Dims& d = g.values[std::size_t(v)].type.dims;
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  if (n == 1 && d.size() <= 4) return 1;
  // Broadcast against [N, C, H, W]: C must sit at axis 1 once right-aligned, all else 1.
  if (n != channels || d.size() < 3 || d.size() > 4 || d[d.size() - 3] != channels) return -1;
  return channels;
}

bool column_constant(const Graph& g, int32_t v, int64_t columns) {
  if (!is_f32_constant(g, v)) return false;
  const Dims& d = g.values[std::size_t(v)].type.dims;
  if (d.empty() || d.back() != columns) return false;
  return std::all_of(d.begin(), d.end() - 1, [](int64_t x) { return x == 1; });
}

namespace {

bool is_scalar_f32(const Graph& g, int32_t v) {
  if (!is_f32_constant(g, v)) return false;
  int64_t n = 1;
  for (int64_t d : g.values[std::size_t(v)].type.dims) n *= d;
  return n == 1;
}

// An op a pointwise chain may hold: its activation arguments are in `vals`, the others scalar
// f32 constants.
bool chain_op(const Graph& g, const QuantPlan& p, const GraphNode& n, const std::vector<bool>& vals) {
  const NodeRole role = p.role[std::size_t(n.pc)];
  if (role != NodeRole::layer && role != NodeRole::same) return false;
  const bool binary = n.op == Opcode::add || n.op == Opcode::sub || n.op == Opcode::mul || n.op == Opcode::div;
  if (!binary && n.op != Opcode::clip && n.op != Opcode::relu && !is_table_op(n.op)) return false;
  if (n.results.size() != 1) return false;
  bool reads = false;
  for (int32_t a : n.args) {
    if (a == kNoValue) continue;
    if (vals[std::size_t(a)]) reads = true;
    else if (!is_scalar_f32(g, a)) return false;
  }
  return reads;
}

}  // namespace

// Grows each chain from a node reading one i8 activation x: later nodes join while they read
// only x, earlier chain results and scalar constants; the chain is cut back until only its last
// result is read outside it (and no other is an output). Two or more nodes make a table.
void find_pointwise_chains(const Graph& g, QuantPlan& p) {
  p.chain.assign(g.nodes.size(), {});
  p.chain_root.assign(g.nodes.size(), kNoValue);
  std::vector<bool> used(g.nodes.size(), false);
  for (const GraphNode& n : g.nodes) {
    if (used[std::size_t(n.pc)] || n.args.empty()) continue;
    int32_t x = kNoValue;
    for (int32_t a : n.args)
      if (a != kNoValue && p.activation[std::size_t(a)]) x = a;
    if (x == kNoValue || p.floating[std::size_t(x)] || g.values[std::size_t(x)].type.dtype != DType::f32) continue;
    std::vector<bool> vals(g.values.size(), false);
    vals[std::size_t(x)] = true;
    if (!chain_op(g, p, n, vals)) continue;
    std::vector<int32_t> nodes;
    for (std::size_t k = std::size_t(n.pc); k < g.nodes.size() && nodes.size() < 16; ++k) {
      const GraphNode& m = g.nodes[k];
      if (used[k] || !chain_op(g, p, m, vals)) continue;
      nodes.push_back(m.pc);
      vals[std::size_t(m.results[0])] = true;
    }
    auto closed = [&](std::size_t count) {  // only the last result is read outside
      for (std::size_t i = 0; i + 1 < count; ++i) {
        const int32_t r = g.nodes[std::size_t(nodes[i])].results[0];
        if (g.is_output(r)) return false;
        for (int32_t reader : g.values[std::size_t(r)].readers)
          if (std::find(nodes.begin(), nodes.begin() + std::ptrdiff_t(count), reader) == nodes.begin() + std::ptrdiff_t(count))
            return false;
      }
      return true;
    };
    std::size_t count = nodes.size();
    while (count >= 2 && !closed(count)) --count;
    if (count < 2) continue;
    nodes.resize(count);
    for (int32_t pc : nodes) {
      used[std::size_t(pc)] = true;
      p.role[std::size_t(pc)] = NodeRole::fused;
    }
    p.role[std::size_t(nodes.back())] = NodeRole::layer;
    p.chain_root[std::size_t(nodes.back())] = x;
    p.chain[std::size_t(nodes.back())] = std::move(nodes);
  }
}

int input_bits(const Graph& g, const GraphNode& n, int32_t v, int most) {
  // mul (and div by a constant) multiplies i32s exactly: 14 bits by 14 (a squeeze-excitation's
  // x * gate) or by the constant's 16 stay within 30.
  if (n.op == Opcode::mul || n.op == Opcode::div) return 14;
  if ((n.op != Opcode::conv2d && n.op != Opcode::dense) || n.args.size() < 2 || n.args[0] != v) return 8;
  const Dims& w = g.values[std::size_t(n.args[1])].type.dims;
  int64_t k = 1;  // the products one accumulator sums: I * KH * KW, or dense's K
  for (int d = 1; d < w.size(); ++d) {
    if (w[d] == kDynamic) return 8;
    k *= w[d];
  }
  // P + 8 + ceil(log2 K) + 1 (the bias) bits must fit the i32 accumulator (31 bits proven).
  return std::clamp(31 - 8 - 1 - ceil_log2(k), 8, std::clamp(most, 8, 16));
}

void assign_bits(const Graph& g, QuantPlan& p) {
  p.bits.assign(g.values.size(), 16);
  // Backwards: a value keeps 16 bits unless a layer reads it, directly or through nodes that
  // keep its scale (their results are decided first: readers come after what they read); then
  // as many as the readers take (input_bits).
  for (auto it = g.nodes.rbegin(); it != g.nodes.rend(); ++it) {
    const NodeRole role = p.role[std::size_t(it->pc)];
    for (int32_t a : it->args) {
      if (a == kNoValue || !p.activation[std::size_t(a)]) continue;
      int& b = p.bits[std::size_t(a)];
      if (role == NodeRole::layer)
        b = std::min(b, p.chain[std::size_t(it->pc)].empty() ? input_bits(g, *it, a, p.input_cap[std::size_t(it->pc)])
                                                             : kTableInputBits);
      if (role == NodeRole::same || role == NodeRole::fused) b = std::min(b, p.bits[std::size_t(it->results[0])]);
    }
  }
}

QuantPlan plan_quantization(const Graph& g, int32_t input, const PlanOptions& options) {
  QuantPlan p;
  p.input = input;
  p.activation.assign(g.values.size(), false);
  p.floating.assign(g.values.size(), false);
  p.bits.assign(g.values.size(), 16);
  p.role.assign(g.nodes.size(), NodeRole::copy);
  p.fused_relu.assign(g.nodes.size(), -1);
  p.float_reason.assign(g.nodes.size(), "");
  p.in_slice.assign(g.nodes.size(), false);
  p.activation[std::size_t(input)] = true;
  const std::function<bool(int32_t)> act = [&](int32_t v) { return v != kNoValue && p.activation[std::size_t(v)]; };
  auto held_float = [&](int32_t v) { return v != kNoValue && p.floating[std::size_t(v)]; };

  for (const GraphNode& n : g.nodes) {
    if (std::none_of(n.args.begin(), n.args.end(), act)) continue;
    Verdict v;
    if (const std::string pattern = kept_by(g, n, options.keep_float); !pattern.empty()) {
      v.why = "kept float by option --keep-float '" + pattern + "'";
    } else {
      v = integer_verdict(g, n, act);
      // An op fed only by float ops stays float (quantizing costs more than it saves), except
      // a conv2d, dense or matmul by constant weights, which is what integers are for.
      const bool fed_by_float = std::all_of(n.args.begin(), n.args.end(), [&](int32_t a) { return !act(a) || held_float(a); });
      const bool weighted = n.op == Opcode::conv2d || n.op == Opcode::dense ||
                            (n.op == Opcode::matmul && is_f32_constant(g, n.args[1]));
      if (v.role != NodeRole::float_op && fed_by_float && !weighted)
        v = Verdict{NodeRole::float_op, "its input is float (computed by a float op)"};
    }
    p.role[std::size_t(n.pc)] = v.role;
    p.float_reason[std::size_t(n.pc)] = v.why;
    for (int32_t r : n.results) {
      if (v.role == NodeRole::layer || v.role == NodeRole::same) p.activation[std::size_t(r)] = true;
      // A float op's f32 results are activations held in float; others (an argmax's indices)
      // are ordinary values.
      if (v.role == NodeRole::float_op && g.values[std::size_t(r)].type.dtype == DType::f32)
        p.activation[std::size_t(r)] = p.floating[std::size_t(r)] = true;
    }
  }

  // A mul or add by a per-channel constant that is the only reader of a conv2d's result (a
  // batch norm left as Mul and Add) is folded into the conv's weights and bias. Quantized on
  // their own, the conv's result gets one scale for channels the mul then scales by factors
  // far apart (PP-OCRv4: the first depthwise conv's outputs lose 13 % to rounding), and each
  // step rounds again; folded, the per-channel weight scales absorb the factors exactly.
  p.fused_affine.assign(g.nodes.size(), {});
  for (const GraphNode& n : g.nodes) {
    // A matmul by a constant [K, N] and an add of a constant over N (ONNX's MatMul and Add for
    // a Gemm) is a dense with its bias: the product is not rounded to its own scale first.
    // PP-OCRv4's head: the logits were rounded to steps of 0.5 before the bias was added.
    if (p.role[std::size_t(n.pc)] == NodeRole::layer && n.op == Opcode::matmul && is_f32_constant(g, n.args[1])) {
      const Dims& w = g.values[std::size_t(n.args[1])].type.dims;
      const GraphValue& r = g.values[std::size_t(n.results[0])];
      if (w.size() != 2 || r.readers.size() != 1 || g.is_output(n.results[0])) continue;
      const GraphNode& reader = g.nodes[std::size_t(r.readers[0])];
      if (reader.op == Opcode::add && p.role[std::size_t(reader.pc)] == NodeRole::layer && reader.args.size() == 2 &&
          column_constant(g, reader.args[reader.args[0] == n.results[0] ? 1 : 0], w[1])) {
        p.fused_affine[std::size_t(n.pc)].push_back(reader.pc);
        p.role[std::size_t(reader.pc)] = NodeRole::fused;
      }
      continue;
    }
    if (p.role[std::size_t(n.pc)] != NodeRole::layer || n.op != Opcode::conv2d) continue;
    const Dims& dims = g.values[std::size_t(n.results[0])].type.dims;
    if (dims.size() != 4 || dims[1] == kDynamic) continue;
    int32_t end = n.results[0];
    while (true) {
      const GraphValue& r = g.values[std::size_t(end)];
      if (r.readers.size() != 1 || g.is_output(end)) break;
      const GraphNode& reader = g.nodes[std::size_t(r.readers[0])];
      if ((reader.op != Opcode::mul && reader.op != Opcode::add) || p.role[std::size_t(reader.pc)] != NodeRole::layer ||
          reader.args.size() != 2 || channel_constant(g, reader.args[reader.args[0] == end ? 1 : 0], dims[1]) < 0)
        break;
      p.fused_affine[std::size_t(n.pc)].push_back(reader.pc);
      p.role[std::size_t(reader.pc)] = NodeRole::fused;
      end = reader.results[0];
    }
  }

  p.chain.assign(g.nodes.size(), {});
  p.chain_root.assign(g.nodes.size(), kNoValue);
  if (options.pointwise_tables) find_pointwise_chains(g, p);

  // A relu that is the only reader of a conv2d, dense or add result runs on the i32
  // accumulator, before the requantization: the scale is then chosen for the non-negative
  // part only, which is all that survives the relu. A clip (ReLU6) there sets the result's
  // scale to the clipped range and clips the requantized integers.
  for (const GraphNode& n : g.nodes) {
    if (p.role[std::size_t(n.pc)] != NodeRole::layer) continue;
    if (n.op != Opcode::conv2d && n.op != Opcode::dense && n.op != Opcode::add) continue;
    if (!p.chain[std::size_t(n.pc)].empty()) continue;  // a table: a relu after it is its own node
    const std::vector<int32_t>& affine = p.fused_affine[std::size_t(n.pc)];
    const int32_t end = affine.empty() ? n.results[0] : g.nodes[std::size_t(affine.back())].results[0];
    const GraphValue& r = g.values[std::size_t(end)];
    if (r.readers.size() != 1 || g.is_output(end)) continue;
    const GraphNode& reader = g.nodes[std::size_t(r.readers[0])];
    if ((reader.op != Opcode::relu && reader.op != Opcode::clip) || p.role[std::size_t(reader.pc)] != NodeRole::same)
      continue;
    p.fused_relu[std::size_t(n.pc)] = reader.pc;
    p.role[std::size_t(reader.pc)] = NodeRole::fused;
  }

  p.input_cap.assign(g.nodes.size(), std::clamp(options.layer_input_bits, 8, 16));
  if (options.weight_bits != 7 && options.weight_bits != 8)
    fail_invalid("weight bits must be 7 or 8, got " + std::to_string(options.weight_bits));
  p.weight_bits = options.weight_bits;
  assign_bits(g, p);
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
