// Control flow: If becomes a branch, Loop and Scan become loops in bytecode (no unrolling, so
// trip counts and sequence lengths may be dynamic; only Scan-8's static batch is unrolled). Loop-carried values and If results live in
// placeholder registers that every path assigns (Emitter::assign, a zero-copy view); scan
// outputs grow by one slice per iteration.
#include <onnx/onnx_pb.h>

#include <optional>

#include "onnx/lowering.hpp"
#include "tensor/error.hpp"

namespace mlvm {

namespace {

// The join of two types at a merge point: same dtype, same rank; differing dims become `?`.
TensorType join(NodeContext& c, const TensorType& a, const TensorType& b, const std::string& what) {
  if (a.dims.size() != b.dims.size()) c.note_shape_dependent();
  if (a.dtype != b.dtype || a.dims.size() != b.dims.size())
    c.fail(what + ": " + a.to_string() + " on one path, " + b.to_string() + " on the other");
  TensorType t = a;
  for (int k = 0; k < t.dims.size(); ++k)
    if (a.dims[k] != b.dims[k]) t.dims[k] = kDynamic;
  t.precision = kUnknownPrecision;
  return t;
}

// A loop-carried value's type: its dims as the body declares them (a dim the body leaves
// symbolic or unstated may change between iterations, so it is `?`).
TensorType carried_type(TensorType t, const onnx::ValueInfoProto& declared) {
  t.precision = kUnknownPrecision;
  const bool has_shape = declared.type().has_tensor_type() && declared.type().tensor_type().has_shape();
  const auto* shape = has_shape ? &declared.type().tensor_type().shape() : nullptr;
  for (int k = 0; k < t.dims.size(); ++k) {
    bool fixed = shape && shape->dim_size() == t.dims.size() && shape->dim(k).has_dim_value() &&
                 shape->dim(k).dim_value() == t.dims[k];
    if (!fixed) t.dims[k] = kDynamic;
  }
  return t;
}

Val bool_const(NodeContext& c, bool v) {
  Tensor t = Tensor::empty(DType::boolean, Dims{1});
  t.data<uint8_t>()[0] = v;
  return c.e.constant(std::move(t), true);
}

// One branch of an If whose condition is known only at run time. ONNX runs a branch only when
// it is taken, so one that cannot be built for the shapes at hand (a TorchScript export's
// 8 kHz path fed 16 kHz frames) must not refuse the model: its code is dropped and a trap put
// in its place, whose origin says why. Empty when it failed; `why` then holds the reason.
// A branch holding an op mlvm does not have still refuses the model, as it would in ONNX
// Runtime: every such node is listed when the model is loaded.
std::optional<std::vector<Val>> try_branch(NodeContext& c, const char* branch, std::string& why) {
  const auto at = c.e.checkpoint();
  const int unsupported = c.unsupported_nodes();
  try {
    return c.lower_subgraph(branch, {});
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::invalid || c.unsupported_nodes() != unsupported) throw;
    c.e.rollback(at);
    why = e.what();
    // One line: the origin is also the disassembler's trailing comment.
    std::string line;
    for (std::size_t i = 0; i < why.size(); ++i) {
      if (why[i] != '\n') {
        line += why[i];
        continue;
      }
      while (i + 1 < why.size() && why[i + 1] == ' ') ++i;
      line += " | ";
    }
    c.e.trap("If '" + c.node.name() + "' " + branch + " cannot run: " + line);
    return std::nullopt;
  }
}

std::vector<Val> lower_if(NodeContext& c) {
  Val cond = c.input(0);
  if (c.e.is_const(cond))
    return c.lower_subgraph(c.e.ints(cond, "If's condition")[0] != 0 ? "then_branch" : "else_branch", {});
  const std::string then_label = c.e.new_label("then"), end_label = c.e.new_label("endif");
  c.e.br(cond, then_label);
  std::string else_why, then_why;
  std::optional<std::vector<Val>> else_out = try_branch(c, "else_branch", else_why);
  std::vector<Val> out;
  auto make_outputs = [&](const std::vector<Val>& from) {
    for (Val v : from) out.push_back(c.e.placeholder(c.e.type(v), c.e.scalar(v), "if_out"));
  };
  if (else_out) {
    make_outputs(*else_out);
    for (std::size_t k = 0; k < else_out->size(); ++k) c.e.assign(out[k], (*else_out)[k]);
    c.e.jmp(end_label);
  }
  c.e.place_label(then_label);
  std::optional<std::vector<Val>> then_out = try_branch(c, "then_branch", then_why);
  if (!else_out && !then_out)
    c.fail("neither branch can be built: else_branch: " + else_why + "\n    then_branch: " + then_why);
  if (then_out) {
    if (!else_out) make_outputs(*then_out);
    if (then_out->size() != out.size()) c.fail("the branches have different output counts");
    for (std::size_t k = 0; k < then_out->size(); ++k) {
      if (else_out)
        c.e.set_type(out[k], join(c, c.e.type((*then_out)[k]), c.e.type((*else_out)[k]),
                                  "If output " + std::to_string(k)));
      c.e.assign(out[k], (*then_out)[k]);
    }
  }
  c.e.place_label(end_label);
  return out;
}

// Scan-output accumulators: a placeholder per output, first set (at `init`) to an empty
// tensor with a 0 at `axis`, then joined with each iteration's slice.
struct Accumulator {
  Val acc;
  int axis = 0;
  bool prepend = false;
};

Val slice_of(NodeContext& c, Val elem, int axis) {
  return c.e.emit(op::expand_dims, {elem}, {.axis = axis});
}

// Joins this iteration's slice to the accumulator. When the slice's dims are not known at
// import time the accumulator's empty start cannot be shaped, so the first iteration (`step`
// 0) takes the slice itself.
void accumulate(NodeContext& c, Accumulator& a, Val elem, Val step) {
  // An ONNX scalar is held as [1]: already a slice of length 1.
  Val piece = c.e.scalar(elem) ? elem : slice_of(c, elem, a.axis);
  std::string first_label, done_label;
  if (c.e.type(elem).has_dynamic_dims()) {
    first_label = c.e.new_label("first_slice");
    done_label = c.e.new_label("joined");
    c.e.br(c.e.emit(op::equal, {step, c.e.scalar_const(DType::i64, 0)}), first_label);
  }
  Val joined = a.prepend ? c.e.emit(op::concatenate, {piece, a.acc}, {.axis = a.axis})
                         : c.e.emit(op::concatenate, {a.acc, piece}, {.axis = a.axis});
  c.e.assign(a.acc, joined);
  if (!first_label.empty()) {
    c.e.jmp(done_label);
    c.e.place_label(first_label);
    c.e.assign(a.acc, piece);
    c.e.place_label(done_label);
  }
}

// The accumulator's start: empty along the scan axis (and along any dim unknown at import).
void init_accumulator(NodeContext& c, Accumulator& a, const TensorType& elem) {
  std::vector<int64_t> shape(elem.dims.begin(), elem.dims.end());
  for (int64_t& d : shape)
    if (d == kDynamic) d = 0;
  shape.insert(shape.begin() + a.axis, 0);
  Val empty = c.e.emit(op::zeros, {}, {.shape = shape, .dtype = elem.dtype});
  c.e.assign(a.acc, empty);
}

Val one_i64(NodeContext& c, double v) { return c.e.scalar_const(DType::i64, v); }

std::vector<Val> lower_loop(NodeContext& c) {
  Val trip = c.input(0), cond0 = c.input(1);
  const int n_carried = c.num_inputs() - 2;
  const onnx::GraphProto* body = c.attr_graph("body");
  if (!body) c.fail("Loop without a body");
  const int n_scan = body->output_size() - 1 - n_carried;
  if (n_scan < 0) c.fail("the body has fewer outputs than carried values");
  if (body->input_size() != 2 + n_carried)
    c.fail("the body takes " + std::to_string(body->input_size()) + " inputs, the Loop gives " +
           std::to_string(2 + n_carried));
  Val i = c.e.placeholder(TensorType{DType::i64, Dims{1}}, true, "iter");
  Val cond = c.e.placeholder(TensorType{DType::boolean, Dims{1}}, true, "cond");
  c.e.assign(i, one_i64(c, 0));
  c.e.assign(cond, cond0.present() ? cond0 : bool_const(c, true));
  std::vector<Val> carried;
  for (int k = 0; k < n_carried; ++k) {
    Val v0 = c.input(2 + k);
    carried.push_back(c.e.placeholder(carried_type(c.e.type(v0), body->input(2 + k)), c.e.scalar(v0), "carried"));
    c.e.assign(carried.back(), v0);
  }
  const std::string body_label = c.e.new_label("loop_body"), init_label = c.e.new_label("loop_init"),
                    check_label = c.e.new_label("loop_check");
  c.e.jmp(init_label);
  c.e.place_label(body_label);
  std::vector<Val> inputs{i, cond};
  inputs.insert(inputs.end(), carried.begin(), carried.end());
  std::vector<Val> out = c.lower_subgraph("body", inputs);
  std::vector<Accumulator> scans(static_cast<std::size_t>(n_scan));
  for (int j = 0; j < n_scan; ++j) {
    Val elem = out[std::size_t(1 + n_carried + j)];
    TensorType t = c.e.type(elem);
    if (c.e.scalar(elem)) t.dims = Dims{};
    t.dims.insert(0, kDynamic);
    scans[std::size_t(j)].acc = c.e.placeholder(t, false, "scan_out");
    accumulate(c, scans[std::size_t(j)], elem, i);
  }
  c.e.assign(cond, out[0]);
  for (int k = 0; k < n_carried; ++k) c.e.assign(carried[std::size_t(k)], out[std::size_t(1 + k)]);
  c.e.assign(i, c.e.emit(op::add, {i, one_i64(c, 1)}));
  c.e.jmp(check_label);
  c.e.place_label(init_label);
  for (int j = 0; j < n_scan; ++j) {
    Val elem = out[std::size_t(1 + n_carried + j)];
    TensorType t = c.e.type(elem);
    if (c.e.scalar(elem)) t.dims = Dims{};
    init_accumulator(c, scans[std::size_t(j)], t);
  }
  c.e.place_label(check_label);
  Val more = cond;
  if (trip.present()) {
    Val below = c.e.emit(op::less, {i, trip});
    more = c.e.emit(op::logical_and, {below, cond});
  }
  c.e.br(more, body_label);
  std::vector<Val> results = carried;
  for (auto& s : scans) results.push_back(s.acc);
  return results;
}

// The directions and axes of a Scan's inputs and outputs (opset 9's attributes; opset 8 has
// `directions` for its inputs and scans along axis 0 of each batch element).
struct ScanShape {
  int n = 0, m = 0, k_out = 0;  // states, scan inputs, scan outputs
  std::vector<int64_t> in_dirs, in_axes, out_dirs, out_axes;
};

// One Scan-9 over `states` (n values) and `xs` (m values): the body lowered once, as a loop.
std::vector<Val> scan_loop(NodeContext& c, const onnx::GraphProto* body, const ScanShape& sh,
                           const std::vector<Val>& init, const std::vector<Val>& xs) {
  const int n = sh.n, m = sh.m, k_out = sh.k_out;
  const std::vector<int64_t>&in_dirs = sh.in_dirs, &in_axes = sh.in_axes, &out_dirs = sh.out_dirs,
                            &out_axes = sh.out_axes;
  // T from the first scan input's scanned dim (a run-time value if dynamic).
  Val x0 = xs[0];
  int64_t ax0 = c.axis(in_axes[0], c.e.rank(x0));
  Val t_len = c.e.emit(op::take, {c.e.emit(op::shape_of, {x0}), c.e.int_vector({ax0})}, {.axis = 0});
  Val i = c.e.placeholder(TensorType{DType::i64, Dims{1}}, true, "step");
  c.e.assign(i, one_i64(c, 0));
  std::vector<Val> states;
  for (int k = 0; k < n; ++k) {
    Val v0 = init[std::size_t(k)];
    states.push_back(c.e.placeholder(carried_type(c.e.type(v0), body->input(k)), c.e.scalar(v0), "state"));
    c.e.assign(states.back(), v0);
  }
  const std::string body_label = c.e.new_label("scan_body"), init_label = c.e.new_label("scan_init"),
                    check_label = c.e.new_label("scan_check");
  c.e.jmp(init_label);
  c.e.place_label(body_label);
  std::vector<Val> inputs = states;
  for (int j = 0; j < m; ++j) {
    Val x = xs[std::size_t(j)];
    int64_t ax = c.axis(in_axes[std::size_t(j)], c.e.rank(x));
    Val idx = in_dirs[std::size_t(j)] ? c.e.emit(op::sub, {c.e.emit(op::sub, {t_len, one_i64(c, 1)}), i}) : i;
    Val slice = c.e.emit(op::take, {x, idx}, {.axis = ax, .mode = take_attrs::mode_choice::raise});
    Val elem = c.e.emit(op::squeeze, {slice}, {.axes = {ax}});
    inputs.push_back(c.e.with_scalar(elem, c.e.rank(x) == 1));
  }
  std::vector<Val> out = c.lower_subgraph("body", inputs);
  std::vector<Accumulator> scans(static_cast<std::size_t>(k_out));
  for (int j = 0; j < k_out; ++j) {
    Val elem = out[std::size_t(n + j)];
    int r = c.e.rank(elem) + 1;
    Accumulator& a = scans[std::size_t(j)];
    a.axis = int(c.axis(out_axes[std::size_t(j)], r));
    a.prepend = out_dirs[std::size_t(j)] != 0;
    TensorType t = c.e.type(elem);
    if (c.e.scalar(elem)) t.dims = Dims{};
    t.dims.insert(a.axis, kDynamic);
    a.acc = c.e.placeholder(t, false, "scan_out");
    accumulate(c, a, elem, i);
  }
  for (int k = 0; k < n; ++k) c.e.assign(states[std::size_t(k)], out[std::size_t(k)]);
  c.e.assign(i, c.e.emit(op::add, {i, one_i64(c, 1)}));
  c.e.jmp(check_label);
  c.e.place_label(init_label);
  for (int j = 0; j < k_out; ++j) {
    TensorType t = c.e.type(out[std::size_t(n + j)]);
    if (c.e.scalar(out[std::size_t(n + j)])) t.dims = Dims{};
    init_accumulator(c, scans[std::size_t(j)], t);
  }
  c.e.place_label(check_label);
  c.e.br(c.e.emit(op::less, {i, t_len}), body_label);
  // After the loop each scan output holds T slices along its axis (known when x0's length is).
  const int64_t t_static = c.e.dims(x0)[int(ax0)];
  for (auto& a : scans) {
    TensorType done = c.e.type(a.acc);
    done.dims[a.axis] = t_static;
    c.e.set_type(a.acc, done);
  }
  std::vector<Val> results = states;
  for (auto& s : scans) results.push_back(s.acc);
  return results;
}

std::vector<Val> lower_scan_8(NodeContext& c);

// The body and the counts, checked against the node.
const onnx::GraphProto* scan_body(NodeContext& c, int first_state, ScanShape& sh) {
  sh.m = int(c.attr_int("num_scan_inputs", 0));
  sh.n = c.num_inputs() - first_state - sh.m;
  if (sh.m < 1 || sh.n < 0) c.fail("num_scan_inputs " + std::to_string(sh.m) + " does not fit the inputs");
  const onnx::GraphProto* body = c.attr_graph("body");
  if (!body) c.fail("Scan without a body");
  sh.k_out = body->output_size() - sh.n;
  if (sh.k_out < 0) c.fail("the body has fewer outputs than states");
  if (body->input_size() != sh.n + sh.m)
    c.fail("the body takes " + std::to_string(body->input_size()) + " inputs, the Scan gives " +
           std::to_string(sh.n + sh.m));
  return body;
}

std::vector<Val> lower_scan(NodeContext& c) {
  if (c.opset < 9) return lower_scan_8(c);
  ScanShape sh;
  const onnx::GraphProto* body = scan_body(c, 0, sh);
  const std::size_t m = std::size_t(sh.m), k_out = std::size_t(sh.k_out);
  sh.in_dirs = c.attr_ints("scan_input_directions", std::vector<int64_t>(m, 0));
  sh.in_axes = c.attr_ints("scan_input_axes", std::vector<int64_t>(m, 0));
  sh.out_dirs = c.attr_ints("scan_output_directions", std::vector<int64_t>(k_out, 0));
  sh.out_axes = c.attr_ints("scan_output_axes", std::vector<int64_t>(k_out, 0));
  if (sh.in_dirs.size() != m || sh.in_axes.size() != m || sh.out_dirs.size() != k_out || sh.out_axes.size() != k_out)
    c.fail("scan direction/axis lists do not match the scan inputs and outputs");
  std::vector<Val> init, xs;
  for (int k = 0; k < sh.n; ++k) init.push_back(c.input(k));
  for (int j = 0; j < sh.m; ++j) xs.push_back(c.input(sh.n + j));
  return scan_loop(c, body, sh, init, xs);
}

// Scan-8: states [B, ...] and scan inputs [B, T, ...], batch element b scanned on its own (its
// slices along axis 0 of x[b]) and the results stacked along a new axis 0. The batch (static)
// is unrolled: the body is lowered once per element. sequence_lens may be absent or a constant
// equal to T for every element (shorter sequences are refused).
std::vector<Val> lower_scan_8(NodeContext& c) {
  ScanShape sh;
  const onnx::GraphProto* body = scan_body(c, 1, sh);
  sh.in_dirs = c.attr_ints("directions", std::vector<int64_t>(std::size_t(sh.m), 0));
  if (int(sh.in_dirs.size()) != sh.m) c.fail("directions does not list every scan input");
  sh.in_axes.assign(std::size_t(sh.m), 0);
  sh.out_dirs.assign(std::size_t(sh.k_out), 0);
  sh.out_axes.assign(std::size_t(sh.k_out), 0);
  Val x0 = c.input(1 + sh.n);
  if (c.e.rank(x0) < 2) c.fail("a Scan-8 input must be [batch, sequence, ...]");
  const int64_t batch = c.e.dims(x0)[0], t = c.e.dims(x0)[1];
  if (batch == kDynamic || batch > 64) c.fail("Scan-8's batch must be static and at most 64 (it is unrolled)");
  if (c.input(0).present()) {
    for (int64_t len : c.e.ints(c.input(0), "Scan-8's sequence_lens"))
      if (len != t) c.fail("sequence_lens " + std::to_string(len) + " shorter than the sequence (" +
                           std::to_string(t) + ") is not supported");
  }
  auto element = [&](Val v, int64_t b) {
    if (c.e.rank(v) < 1 || c.e.dims(v)[0] != batch) c.fail("every Scan-8 input has the batch as its dim 0");
    Val one = c.e.emit(op::take, {v, c.e.int_vector({b})}, {.axis = 0, .mode = take_attrs::mode_choice::raise});
    Val e = c.e.emit(op::squeeze, {one}, {.axes = {0}});
    return c.e.with_scalar(e, c.e.rank(v) == 1);
  };
  std::vector<std::vector<Val>> per_output;
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<Val> init, xs;
    for (int k = 0; k < sh.n; ++k) init.push_back(element(c.input(1 + k), b));
    for (int j = 0; j < sh.m; ++j) xs.push_back(element(c.input(1 + sh.n + j), b));
    std::vector<Val> out = scan_loop(c, body, sh, init, xs);
    per_output.resize(out.size());
    for (std::size_t k = 0; k < out.size(); ++k)
      per_output[k].push_back(c.e.scalar(out[k]) ? out[k] : c.e.emit(op::expand_dims, {out[k]}, {.axis = 0}));
  }
  std::vector<Val> results;
  for (auto& parts : per_output)
    results.push_back(parts.size() == 1 ? parts[0] : c.e.emit(op::concatenate, parts, {.axis = 0}));
  return results;
}

constexpr LoweringEntry kTable[] = {
    {"If", 1, lower_if},
    {"Loop", 1, lower_loop},
    {"Scan", 8, lower_scan},
};

}  // namespace

std::span<const LoweringEntry> control_lowerings() { return kTable; }

}  // namespace mlvm
