// Ops of opsets 18-23 that transformer and diffusion exports write, composed from mlvm's
// elementwise, reduction, matmul and softmax ops (no op of their own): Gelu (20), Mish (18),
// GroupNormalization (18: scale and bias per group; 21: per channel), RMSNormalization (23),
// RotaryEmbedding (23) and Attention (23), as ONNX Runtime 1.30 computes them (checked by
// tests/onnx/opset_suite_test.py).
#include <onnx/onnx_pb.h>

#include <cmath>
#include <limits>

#include "onnx/lower_nn_util.hpp"
#include "onnx/tensor_proto.hpp"

namespace mlvm::nn {

namespace {

Val transpose(NodeContext& c, Val v, std::vector<int64_t> axes) {
  return c.e.emit(op::transpose, {v}, {.axes = std::move(axes)});
}

Val slice(NodeContext& c, Val v, int64_t axis, int64_t from, int64_t to, int64_t step = 1) {
  return c.e.emit(op::strided_slice, {v},
                  {.begin = {from}, .end = {to}, .strides = {step}, .axes = {axis}});
}

// t (B, S, h·d) as (B, h, S, d) (head_axis 1) or (B, S, h, d) (head_axis 2). With B and S
// both dynamic a reshape cannot say so (one -1 at most): the heads are then sliced off the
// last dim and stacked along head_axis.
Val split_heads(NodeContext& c, Val t, int64_t h, int64_t d, int64_t head_axis) {
  const std::vector<int64_t> dims = onnx_dims(c, t);
  if (dims[0] != kDynamic || dims[1] != kDynamic) {
    Val r = reshape(c, t, {dims[0], dims[1], h, d});
    return head_axis == 1 ? transpose(c, r, {0, 2, 1, 3}) : r;
  }
  std::vector<Val> heads;
  for (int64_t i = 0; i < h; ++i)
    heads.push_back(
        c.e.emit(op::expand_dims, {slice(c, t, 2, i * d, (i + 1) * d)}, {.axis = head_axis}));
  return h == 1 ? heads[0] : c.e.emit(op::concatenate, heads, {.axis = head_axis});
}

// The inverse of split_heads: y (B, h, S, d) or (B, S, h, d) as (B, S, h·d).
Val merge_heads(NodeContext& c, Val y, int64_t head_axis) {
  const std::vector<int64_t> dims = onnx_dims(c, y);
  const int64_t h = static_dim(c, y, int(head_axis), "the heads"),
                d = static_dim(c, y, 3, "a head");
  const int64_t b = dims[0], len = dims[head_axis == 1 ? 2 : 1];
  if (b != kDynamic || len != kDynamic)
    return reshape(c, head_axis == 1 ? transpose(c, y, {0, 2, 1, 3}) : y, {b, len, h * d});
  std::vector<Val> heads;
  for (int64_t i = 0; i < h; ++i)
    heads.push_back(
        c.e.emit(op::squeeze, {slice(c, y, head_axis, i, i + 1)}, {.axes = {head_axis}}));
  return h == 1 ? heads[0] : c.e.emit(op::concatenate, heads, {.axis = 2});
}

std::vector<Val> lower_gelu(NodeContext& c) {
  require_float(c, c.input(0));
  const std::string a = c.attr_string("approximate", "none");
  if (a != "none" && a != "tanh") c.fail("approximate=" + a + " is not supported");
  using A = gelu_attrs::approximate_choice;
  return one(ew(c, op::gelu, {c.input(0)}, {.approximate = a == "tanh" ? A::tanh : A::none}));
}

// x · tanh(softplus(x))
std::vector<Val> lower_mish(NodeContext& c) {
  Val x = c.input(0);
  require_float(c, x);
  return one(ew(c, op::mul, {x, ew(c, op::tanh, {ew(c, op::softplus, {x})})}));
}

// Statistics over the dims of each group of C / num_groups channels: y = (x - mean) /
// sqrt(var + epsilon), then scale and bias per channel (opset 21) or per group (18, each
// repeated over its group's channels).
std::vector<Val> lower_group_norm(NodeContext& c) {
  Val x = c.input(0);
  require_float(c, x);
  const int r = c.e.rank(x);
  if (r < 2) c.fail("the input must have rank >= 2 (N, C, D...), got rank " + std::to_string(r));
  const int64_t groups = c.attr_int("num_groups", 0);
  const int64_t ch = static_dim(c, x, 1, "GroupNormalization");
  if (groups < 1 || ch % groups != 0)
    c.fail("num_groups=" + std::to_string(groups) + " does not divide the " + std::to_string(ch) +
           " channels");
  const DType dt = c.e.dtype(x);
  std::vector<int64_t> dims = onnx_dims(c, x);
  int64_t rest = ch / groups;
  for (int k = 2; k < r; ++k)
    rest = dims[std::size_t(k)] == kDynamic ? kDynamic : rest * dims[std::size_t(k)];
  // (N, G, C/G · spatial); with N and the spatial dims dynamic, a run-time reshape.
  const bool run_time = dims[0] == kDynamic && rest == kDynamic;
  Val t = run_time ? c.e.emit(op::reshape_dyn, {x, c.e.int_vector({0, groups, -1})})
                   : reshape(c, x, {dims[0], groups, rest});
  Val mean = reduce(c, Opcode::mean, t, {2}, true);
  Val d = c.e.emit(op::sub, {t, mean});
  Val var = reduce(c, Opcode::mean, c.e.emit(op::mul, {d, d}), {2}, true);
  Val sd =
      c.e.emit(op::sqrt, {c.e.emit(op::add, {var, num(c, var, c.attr_float("epsilon", 1e-5))})});
  Val y = c.e.emit(op::div, {d, sd});
  y = run_time ? c.e.emit(op::reshape_dyn, {y, c.e.emit(op::shape_of, {x})}) : reshape(c, y, dims);
  auto param = [&](Val p) {
    if (c.e.dtype(p) != dt) p = c.e.emit(op::cast, {p}, {.dtype = dt});
    const int64_t want = c.opset >= 21 ? ch : groups;
    if (c.e.rank(p) != 1 || c.e.dims(p)[0] != want)
      c.fail("scale and bias must have " + std::to_string(want) + " entries (opset " +
             std::to_string(c.opset) + ": one per " + (c.opset >= 21 ? "channel" : "group") + ")");
    if (c.opset < 21 && ch != groups)
      p = c.e.emit(op::repeat, {p}, {.repeats = ch / groups, .axis = 0});
    return per_channel(c, p, r);
  };
  y = c.e.emit(op::mul, {y, param(c.input(1))});
  return one(c.e.emit(op::add, {y, param(c.input(2))}));
}

// x / sqrt(mean(x², dims [axis, rank)) + epsilon) · scale
std::vector<Val> lower_rms_norm(NodeContext& c) {
  Val x = c.input(0);
  require_float(c, x);
  const int r = c.e.rank(x);
  const int64_t axis = c.axis(c.attr_int("axis", -1), r);
  const DType dt = c.e.dtype(x);
  Val ms = reduce(c, Opcode::mean, c.e.emit(op::mul, {x, x}), iota(axis, r), true);
  Val rms =
      c.e.emit(op::sqrt, {c.e.emit(op::add, {ms, num(c, ms, c.attr_float("epsilon", 1e-5))})});
  Val scale = c.input(1);
  if (c.e.dtype(scale) != dt) scale = c.e.emit(op::cast, {scale}, {.dtype = dt});
  return one(c.e.emit(op::mul, {c.e.emit(op::div, {x, rms}), c.e.with_scalar(scale, false)}));
}

// Rotates pairs of the first rotary_embedding_dim features of each head by the angles whose
// cosines and sines the caches hold (read at position_ids when given): the pairs are the two
// halves, or (interleaved) the even and odd features. X is (B, H, S, D), or (B, S, H·D) with
// num_heads.
std::vector<Val> lower_rotary(NodeContext& c) {
  Val x = c.input(0);
  require_float(c, x);
  const DType dt = c.e.dtype(x);
  const int r = c.e.rank(x);
  if (r == 4) {
    x = transpose(c, x, {0, 2, 1, 3});
  } else if (r == 3) {
    const int64_t heads = c.attr_int("num_heads", 0);
    const int64_t hidden = static_dim(c, x, 2, "RotaryEmbedding");
    if (heads < 1 || hidden % heads != 0)
      c.fail("num_heads=" + std::to_string(heads) + " must divide the hidden size");
    x = split_heads(c, x, heads, hidden / heads, 2);
  } else {
    c.fail("the input must be 3-D or 4-D, got rank " + std::to_string(r));
  }
  const int64_t head = static_dim(c, x, 3, "RotaryEmbedding");
  int64_t dim = c.attr_int("rotary_embedding_dim", 0);
  if (dim == 0) dim = head;
  if (dim < 2 || dim > head || dim % 2 != 0)
    c.fail("rotary_embedding_dim=" + std::to_string(dim) + " is not supported");
  const bool interleaved = c.attr_int("interleaved", 0) != 0;
  auto cache = [&](Val v) {
    if (c.e.dtype(v) != dt) v = c.e.emit(op::cast, {v}, {.dtype = dt});
    if (c.input(3).present())
      v = c.e.emit(op::take, {v, c.input(3)}, {.axis = 0, .mode = take_attrs::mode_choice::raise});
    if (c.e.rank(v) != 3)
      c.fail("the caches must be (B, S, D/2), or (positions, D/2) with position_ids");
    if (static_dim(c, v, 2, "RotaryEmbedding's caches") != dim / 2)
      c.fail("the caches' last dim must be rotary_embedding_dim / 2");
    return c.e.emit(op::expand_dims, {v}, {.axis = 2});
  };
  Val cos = cache(c.input(1)), sin = cache(c.input(2));
  Val rot = dim == head ? x : slice(c, x, 3, 0, dim);
  Val x1 = interleaved ? slice(c, rot, 3, 0, dim, 2) : slice(c, rot, 3, 0, dim / 2);
  Val x2 = interleaved ? slice(c, rot, 3, 1, dim, 2) : slice(c, rot, 3, dim / 2, dim);
  Val real = c.e.emit(op::sub, {c.e.emit(op::mul, {cos, x1}), c.e.emit(op::mul, {sin, x2})});
  Val imag = c.e.emit(op::add, {c.e.emit(op::mul, {sin, x1}), c.e.emit(op::mul, {cos, x2})});
  rot = c.e.emit(op::concatenate, {real, imag}, {.axis = 3});
  if (interleaved) {  // (r0, r1, ..., i0, i1, ...) read as (r0, i0, r1, i1, ...): no reshape
    std::vector<int64_t> order;
    for (int64_t j = 0; j < dim / 2; ++j) order.insert(order.end(), {j, dim / 2 + j});
    rot = c.e.emit(op::take, {rot, c.e.int_vector(order)}, {.axis = 3});
  }
  Val y =
      dim == head ? rot : c.e.emit(op::concatenate, {rot, slice(c, x, 3, dim, head)}, {.axis = 3});
  return one(r == 4 ? transpose(c, y, {0, 2, 1, 3}) : merge_heads(c, y, 2));
}

// softmax(softcap(Q·Kᵀ·scale) + bias)·V per head, with K and V after past_key/past_value
// (also the present outputs), kv heads repeated for grouped queries, a bool (allowed) or
// additive mask, is_causal (a query attends keys up to its own position, offset by the past's
// length, which may be known at run time only) and softcap (c·tanh(s / c) on the scores), as
// ONNX Runtime 1.30 computes it. Q, K, V are (B, H, S, D), or (B, S, H·D) with q_num_heads and
// kv_num_heads.
std::vector<Val> lower_attention(NodeContext& c) {
  Val q = c.input(0), k = c.input(1), v = c.input(2);
  require_float(c, q);
  const DType dt = c.e.dtype(q);
  const int r = c.e.rank(q);
  if (c.e.rank(k) != r || c.e.rank(v) != r) c.fail("Q, K and V must have the same rank");
  const int64_t qk_mode = c.attr_int("qk_matmul_output_mode", 0);
  if (c.output_wanted(3) && (qk_mode < 0 || qk_mode > 3))
    c.fail("qk_matmul_output_mode=" + std::to_string(qk_mode) + " is not supported");
  if (c.input(6).present()) c.fail("nonpad_kv_seqlen is not supported");
  auto heads_first = [&](Val t, const char* attr) {
    const int64_t h = c.attr_int(attr, 0);
    const int64_t hidden = static_dim(c, t, 2, "Attention");
    if (h < 1 || hidden % h != 0)
      c.fail(std::string(attr) + "=" + std::to_string(h) + " must divide the hidden size");
    return split_heads(c, t, h, hidden / h, 1);
  };
  if (r == 3) {
    q = heads_first(q, "q_num_heads");
    k = heads_first(k, "kv_num_heads");
    v = heads_first(v, "kv_num_heads");
  } else if (r != 4) {
    c.fail("Q, K and V must be 3-D or 4-D, got rank " + std::to_string(r));
  }
  int64_t past = 0;
  Val past_len;  // the past's length when only known at run time (a growing KV cache)
  if (c.input(4).present() != c.input(5).present())
    c.fail("past_key and past_value must be given together");
  if (c.input(4).present()) {
    if (c.e.rank(c.input(4)) != 4) c.fail("past_key must be 4-D (B, kv heads, past, D)");
    past = c.e.dims(c.input(4))[2];
    if (past == kDynamic)
      past_len = c.e.emit(op::strided_slice, {c.e.emit(op::shape_of, {c.input(4)})},
                          {.begin = {2}, .end = {3}});
    k = c.e.emit(op::concatenate, {c.input(4), k}, {.axis = 2});
    v = c.e.emit(op::concatenate, {c.input(5), v}, {.axis = 2});
  }
  Val present_k = k, present_v = v;
  const int64_t hq = static_dim(c, q, 1, "Attention"), hk = static_dim(c, k, 1, "Attention");
  if (hq != hk) {
    if (hk < 1 || hq % hk != 0)
      c.fail(std::to_string(hq) + " query heads are not a multiple of " + std::to_string(hk) +
             " kv heads");
    k = c.e.emit(op::repeat, {k}, {.repeats = hq / hk, .axis = 1});
    v = c.e.emit(op::repeat, {v}, {.repeats = hq / hk, .axis = 1});
  }
  const int64_t head = static_dim(c, q, 3, "Attention");
  const double scale =
      c.has_attr("scale") ? c.attr_float("scale", 1.0) : 1.0 / std::sqrt(double(head));
  Val s = c.e.emit(op::matmul, {q, transpose(c, k, {0, 1, 3, 2})});
  s = c.e.emit(op::mul, {s, num(c, s, scale)});
  Val scores = s;
  const double softcap = c.attr_float("softcap", 0.0);
  if (softcap > 0)
    s = c.e.emit(op::mul, {c.e.emit(op::tanh, {c.e.emit(op::div, {s, num(c, s, softcap)})}),
                           num(c, s, softcap)});
  Val capped = s;
  const double inf = std::numeric_limits<double>::infinity();
  Val mask = c.input(3);
  if (mask.present()) {
    mask = c.e.with_scalar(mask, false);
    if (c.e.dtype(mask) == DType::boolean)
      mask = c.e.emit(op::where, {mask, num(c, q, 0.0), num(c, q, -inf)});
    else if (c.e.dtype(mask) != dt)
      mask = c.e.emit(op::cast, {mask}, {.dtype = dt});
    const int64_t kv = c.e.dims(k)[2], m = c.e.dims(mask)[std::size_t(c.e.rank(mask) - 1)];
    if (m != kv && m != kDynamic && kv != kDynamic)
      c.fail("a mask shorter than the keys (padded with -inf) is not supported");
    s = c.e.emit(op::add, {s, mask});
  }
  if (c.attr_int("is_causal", 0) != 0) {
    // Key j is seen by query i when j <= i + past: the lower triangle, so sequence lengths may
    // be dynamic.
    Val seen =
        c.e.emit(op::trilu, {c.e.emit(op::ones_like, {s}, {.dtype = DType::boolean}), past_len},
                 {.upper = false, .k = past_len.present() ? 0 : past});
    s = c.e.emit(op::where, {seen, s, num(c, s, -inf)});
  }
  const int64_t precision = c.attr_int("softmax_precision", 0);
  if (precision != 0 && dtype_from_onnx(int32_t(precision)) != dt && precision != 1)
    c.fail("softmax_precision=" + std::to_string(precision) + " is not supported");
  Val p = c.e.emit(op::softmax, {s}, {.axis = -1});
  Val y = c.e.emit(op::matmul, {p, v});
  if (r == 3) y = merge_heads(c, y, 1);
  // qk_matmul_output as ONNX Runtime 1.30 numbers the stages (softcap before the mask, as
  // ONNX's current reference computes them): 0 the scaled scores, 1 softcapped, 2 with the
  // mask and causal bias, 3 the softmax.
  Val qk = qk_mode == 0 ? scores : qk_mode == 1 ? capped : qk_mode == 2 ? s : p;
  return {y, present_k, present_v, qk};
}

constexpr LoweringEntry kTable[] = {
    {"Gelu", 20, lower_gelu},
    {"Mish", 18, lower_mish},
    {"GroupNormalization", 18, lower_group_norm},
    {"RMSNormalization", 23, lower_rms_norm},
    {"RotaryEmbedding", 23, lower_rotary},
    {"Attention", 23, lower_attention},
};

}  // namespace

std::span<const LoweringEntry> transformer_table() {
  return kTable;
}

}  // namespace mlvm::nn
