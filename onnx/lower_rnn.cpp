// RNN, GRU and LSTM (ONNX's equations, default and the plain activations, every direction,
// seq-major and batch-major layouts) become one loop over time per direction: no unrolling,
// so the sequence length may be dynamic. The input projection X·Wᵀ + Wb of every step is one
// matmul before the loop; each step does H·Rᵀ + Rb and the gates. An LSTM with the default
// activations and no clip, peepholes or sequence lengths is one lstm instruction per
// direction instead (its kernel runs the same loop: kernels/rnn.cpp).
#include <onnx/onnx_pb.h>

#include <algorithm>

#include "onnx/lowering.hpp"
#include "tensor/error.hpp"

namespace mlvm {

namespace {

enum class Cell { rnn, gru, lstm };

struct RnnSpec {
  Cell cell;
  int gates;           // 1, 3, 4
  int64_t hidden;
  std::vector<std::string> acts;  // per direction: f, g, h (as many as the cell uses)
  double clip = 0;     // 0: none
  bool linear_before_reset = false;
};

Val i64(NodeContext& c, int64_t v) { return c.e.scalar_const(DType::i64, double(v)); }

// x[k] along axis 0, without that axis.
Val pick(NodeContext& c, Val x, Val k) {
  Val t = c.e.emit(op::take, {x, k}, {.axis = 0, .mode = take_attrs::mode_choice::raise});
  return c.e.emit(op::squeeze, {t}, {.axes = {0}});
}
Val pick(NodeContext& c, Val x, int64_t k) { return pick(c, x, c.e.int_vector({k})); }

Val gate(NodeContext& c, Val g, int k, int64_t h) {
  return c.e.emit(op::strided_slice, {g}, {.begin = {k * h}, .end = {(k + 1) * h}, .axes = {1}});
}

Val activate(NodeContext& c, const std::string& name, Val x, double clip) {
  if (clip > 0)
    x = c.e.emit(op::clip, {x}, {.a_min = -clip, .a_max = clip});
  if (name == "Sigmoid") return c.e.emit(op::sigmoid, {x});
  if (name == "Tanh") return c.e.emit(op::tanh, {x});
  if (name == "Relu") return c.e.emit(op::relu, {x});
  c.fail("activation " + name + " is not supported");
}

// One direction: returns Y [T, batch, hidden], Y_h and (LSTM) Y_c [batch, hidden].
// `lens` (optional, i64 [batch, 1]): steps at or past a sequence's length leave its state
// unchanged and output zeros, which also starts a reverse pass at each sequence's own end.
std::vector<Val> direction(NodeContext& c, const RnnSpec& s, int d, bool reverse, Val x,
                           Val h0, Val c0, Val lens) {
  const int64_t h = s.hidden;
  const DType dt = c.e.dtype(x);
  Val w = pick(c, c.input(1), d), r = pick(c, c.input(2), d);  // [G*h, in], [G*h, h]
  Val wt = c.e.emit(op::transpose, {w}), rt = c.e.emit(op::transpose, {r});
  Val wb, rb;
  if (c.input(3).present()) {
    Val b = pick(c, c.input(3), d);  // [2*G*h]
    wb = c.e.emit(op::strided_slice, {b}, {.begin = {0}, .end = {s.gates * h}});
    rb = c.e.emit(op::strided_slice, {b}, {.begin = {s.gates * h}, .end = {2 * s.gates * h}});
  }
  // Every step's input projection at once: [T, batch, G*h].
  Val xw = c.e.emit(op::matmul, {x, wt});
  // GRU's candidate gate adds Rbh inside (linear_before_reset) or outside the reset product;
  // the z and r gates, like every gate of the other cells, take Wb + Rb together.
  if (wb.present() && s.cell != Cell::gru) xw = c.e.emit(op::add, {xw, c.e.emit(op::add, {wb, rb})});
  if (wb.present() && s.cell == Cell::gru) xw = c.e.emit(op::add, {xw, wb});
  // The common LSTM (default activations, no clip, peepholes or sequence lengths) is one
  // lstm instruction: the loop below costs ~20 instructions per step, more in dispatch than
  // the step's arithmetic at the sizes LSTMs run at.
  if (s.cell == Cell::lstm && s.acts == std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"} && s.clip <= 0 &&
      !c.input(7).present() && !lens.present())
    return c.e.emit_n(op::lstm, {xw, rt, h0, c0}, {.reverse = reverse});
  Val t_len = c.e.emit(op::take, {c.e.emit(op::shape_of, {x}), c.e.int_vector({0})}, {.axis = 0});

  Val step = c.e.placeholder(TensorType{DType::i64, Dims{1}}, true, "t");
  c.e.assign(step, i64(c, 0));
  Val hs = c.e.placeholder(c.e.type(h0), false, "h");
  c.e.assign(hs, h0);
  Val cs;
  if (s.cell == Cell::lstm) {
    cs = c.e.placeholder(c.e.type(c0), false, "c");
    c.e.assign(cs, c0);
  }
  TensorType ytype{dt, Dims{kDynamic, c.e.dims(h0)[0], h}};
  Val y = c.e.placeholder(ytype, false, "y");
  std::vector<int64_t> empty_shape{0, std::max<int64_t>(c.e.dims(h0)[0], 0), h};
  c.e.assign(y, c.e.emit(op::zeros, {}, {.shape = empty_shape, .dtype = dt}));
  const std::string body = c.e.new_label("rnn_step"), check = c.e.new_label("rnn_check");
  c.e.jmp(check);
  c.e.place_label(body);
  Val t = reverse ? c.e.emit(op::sub, {c.e.emit(op::sub, {t_len, i64(c, 1)}), step}) : step;
  Val xg = pick(c, xw, t);                            // [batch, G*h]
  Val hg = c.e.emit(op::matmul, {hs, rt});              // [batch, G*h]
  const std::string& f = s.acts[0];
  Val h_new, c_new;
  if (s.cell == Cell::rnn) {
    h_new = activate(c, f, c.e.emit(op::add, {xg, hg}), s.clip);
  } else if (s.cell == Cell::lstm) {
    Val g = c.e.emit(op::add, {xg, hg});
    Val gi = gate(c, g, 0, h), go = gate(c, g, 1, h), gf = gate(c, g, 2, h), gc = gate(c, g, 3, h);
    if (c.input(7).present()) {  // peepholes P [num_dir, 3h]: i, o, f
      Val p = pick(c, c.input(7), d);
      auto peep = [&](int k) {
        return c.e.emit(op::strided_slice, {p}, {.begin = {k * h}, .end = {(k + 1) * h}});
      };
      gi = c.e.emit(op::add, {gi, c.e.emit(op::mul, {peep(0), cs})});
      gf = c.e.emit(op::add, {gf, c.e.emit(op::mul, {peep(2), cs})});
      Val it = activate(c, f, gi, s.clip), ft = activate(c, f, gf, s.clip);
      Val ct = activate(c, s.acts[1], gc, s.clip);
      c_new = c.e.emit(op::add, {c.e.emit(op::mul, {ft, cs}), c.e.emit(op::mul, {it, ct})});
      Val ot = activate(c, f, c.e.emit(op::add, {go, c.e.emit(op::mul, {peep(1), c_new})}), s.clip);
      h_new = c.e.emit(op::mul, {ot, activate(c, s.acts[2], c_new, 0)});
    } else {
      Val it = activate(c, f, gi, s.clip), ft = activate(c, f, gf, s.clip);
      Val ct = activate(c, s.acts[1], gc, s.clip), ot = activate(c, f, go, s.clip);
      c_new = c.e.emit(op::add, {c.e.emit(op::mul, {ft, cs}), c.e.emit(op::mul, {it, ct})});
      h_new = c.e.emit(op::mul, {ot, activate(c, s.acts[2], c_new, 0)});
    }
  } else {  // GRU: gates z, r, h
    Val rbz, rbr, rbh;
    if (rb.present()) {
      rbz = c.e.emit(op::strided_slice, {rb}, {.begin = {0}, .end = {2 * h}});
      rbh = c.e.emit(op::strided_slice, {rb}, {.begin = {2 * h}, .end = {3 * h}});
    }
    Val xz_r = gate(c, xg, 0, h), xr = gate(c, xg, 1, h), xh = gate(c, xg, 2, h);
    Val zr_h = c.e.emit(op::strided_slice, {hg}, {.begin = {0}, .end = {2 * h}, .axes = {1}});
    Val zr = c.e.emit(op::add, {c.e.emit(op::concatenate, {xz_r, xr}, {.axis = 1}), zr_h});
    if (rbz.present()) zr = c.e.emit(op::add, {zr, rbz});
    Val zt = activate(c, f, gate(c, zr, 0, h), s.clip), rt_ = activate(c, f, gate(c, zr, 1, h), s.clip);
    Val hh;
    if (s.linear_before_reset) {
      Val hr = gate(c, hg, 2, h);
      if (rbh.present()) hr = c.e.emit(op::add, {hr, rbh});
      hh = c.e.emit(op::add, {xh, c.e.emit(op::mul, {rt_, hr})});
    } else {
      Val rh = c.e.emit(op::strided_slice, {rt}, {.begin = {2 * h}, .end = {3 * h}, .axes = {1}});
      hh = c.e.emit(op::add, {xh, c.e.emit(op::matmul, {c.e.emit(op::mul, {rt_, hs}), rh})});
      if (rbh.present()) hh = c.e.emit(op::add, {hh, rbh});
    }
    Val ht = activate(c, s.acts[1], hh, s.clip);
    Val one = c.e.scalar_const(dt, 1.0);
    h_new = c.e.emit(op::add, {c.e.emit(op::mul, {c.e.emit(op::sub, {one, zt}), ht}),
                               c.e.emit(op::mul, {zt, hs})});
  }
  Val out_h = h_new;
  if (lens.present()) {
    Val live = c.e.emit(op::less, {t, lens});  // bool [batch, 1]
    h_new = c.e.emit(op::where, {live, h_new, hs});
    if (s.cell == Cell::lstm) c_new = c.e.emit(op::where, {live, c_new, cs});
    out_h = c.e.emit(op::where, {live, h_new, c.e.scalar_const(dt, 0.0)});
  }
  Val piece = c.e.emit(op::expand_dims, {out_h}, {.axis = 0});
  c.e.assign(y, reverse ? c.e.emit(op::concatenate, {piece, y}, {.axis = 0})
                        : c.e.emit(op::concatenate, {y, piece}, {.axis = 0}));
  c.e.assign(hs, h_new);
  if (s.cell == Cell::lstm) c.e.assign(cs, c_new);
  c.e.assign(step, c.e.emit(op::add, {step, i64(c, 1)}));
  c.e.place_label(check);
  c.e.br(c.e.emit(op::less, {step, t_len}), body);
  // After the loop y holds one row per step: T rows, known when X's length is.
  TensorType done = c.e.type(y);
  done.dims[0] = c.e.dims(x)[0];
  c.e.set_type(y, done);
  return {y, hs, cs};
}

std::vector<Val> lower_rnn(NodeContext& c) {
  const std::string& op = c.node.op_type();
  RnnSpec s;
  s.cell = op == "RNN" ? Cell::rnn : op == "GRU" ? Cell::gru : Cell::lstm;
  s.gates = s.cell == Cell::rnn ? 1 : s.cell == Cell::gru ? 3 : 4;
  s.hidden = c.attr_int("hidden_size", -1);
  s.clip = c.attr_float("clip", 0);
  s.linear_before_reset = c.attr_int("linear_before_reset", 0) != 0;
  if (c.attr_int("input_forget", 0) != 0) c.fail("input_forget=1 is not supported");
  const std::string dir = c.attr_string("direction", "forward");
  const int num_dir = dir == "bidirectional" ? 2 : 1;
  if (dir != "forward" && dir != "reverse" && dir != "bidirectional") c.fail("direction '" + dir + "'");
  std::vector<std::string> defaults = s.cell == Cell::rnn   ? std::vector<std::string>{"Tanh"}
                                      : s.cell == Cell::gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                            : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  std::vector<std::string> acts;
  if (c.has_attr("activations")) {
    for (const auto& a : c.node.attribute())
      if (a.name() == "activations")
        for (const auto& v : a.strings()) acts.push_back(v);
    if (c.has_attr("activation_alpha") || c.has_attr("activation_beta"))
      c.fail("activation_alpha/activation_beta are not supported");
  } else {
    for (int d = 0; d < num_dir; ++d) acts.insert(acts.end(), defaults.begin(), defaults.end());
  }
  if (acts.size() != defaults.size() * std::size_t(num_dir)) c.fail("activations: wrong count");
  Val x = c.input(0);
  if (c.e.rank(x) != 3) c.fail("X must have rank 3");
  const bool batch_major = c.attr_int("layout", 0) != 0;
  if (batch_major) x = c.e.emit(op::transpose, {x}, {.axes = {1, 0, 2}});
  if (s.hidden <= 0) s.hidden = c.e.dims(c.input(2))[1];
  if (s.hidden <= 0) c.fail("hidden_size is unknown");
  Val lens;
  if (c.input(4).present()) {
    bool all_full = c.e.is_const(c.input(4)) && c.e.dims(x)[0] != kDynamic;
    if (all_full)
      for (int64_t l : c.e.ints(c.input(4), "sequence_lens")) all_full = all_full && l == c.e.dims(x)[0];
    if (!all_full) {
      Val l = c.e.emit(op::cast, {c.input(4)}, {.dtype = DType::i64});
      lens = c.e.emit(op::expand_dims, {l}, {.axis = 1});
    }
  }
  const DType dt = c.e.dtype(x);
  const int64_t batch = c.e.dims(x)[1];
  auto initial = [&](int input, int d) {
    if (c.input(input).present()) {
      Val v = c.input(input);
      if (batch_major) v = c.e.emit(op::transpose, {v}, {.axes = {1, 0, 2}});
      return pick(c, v, d);
    }
    if (batch == kDynamic) c.fail("a dynamic batch without initial states is not supported");
    return c.e.emit(op::zeros, {}, {.shape = {batch, s.hidden}, .dtype = dt});
  };
  std::vector<Val> ys, yhs, ycs;
  for (int d = 0; d < num_dir; ++d) {
    RnnSpec sd = s;
    sd.acts.assign(acts.begin() + std::ptrdiff_t(d * defaults.size()),
                   acts.begin() + std::ptrdiff_t((d + 1) * defaults.size()));
    bool reverse = dir == "reverse" || d == 1;
    std::vector<Val> r = direction(c, sd, d, reverse, x, initial(5, d),
                                   s.cell == Cell::lstm ? initial(6, d) : Val{}, lens);
    ys.push_back(c.e.emit(op::expand_dims, {r[0]}, {.axis = 1}));
    yhs.push_back(c.e.emit(op::expand_dims, {r[1]}, {.axis = 0}));
    if (s.cell == Cell::lstm) ycs.push_back(c.e.emit(op::expand_dims, {r[2]}, {.axis = 0}));
  }
  auto stack = [&](const std::vector<Val>& v, int axis) {
    return v.size() == 1 ? v[0] : c.e.emit(op::concatenate, v, {.axis = axis});
  };
  Val y = stack(ys, 1), yh = stack(yhs, 0);  // [T, D, B, H], [D, B, H]
  Val yc = s.cell == Cell::lstm ? stack(ycs, 0) : Val{};
  if (batch_major) {
    y = c.e.emit(op::transpose, {y}, {.axes = {2, 0, 1, 3}});
    yh = c.e.emit(op::transpose, {yh}, {.axes = {1, 0, 2}});
    if (yc.present()) yc = c.e.emit(op::transpose, {yc}, {.axes = {1, 0, 2}});
  }
  std::vector<Val> out{y, yh};
  if (s.cell == Cell::lstm) out.push_back(yc);
  return out;
}

constexpr LoweringEntry kTable[] = {
    {"RNN", 7, lower_rnn},
    {"GRU", 7, lower_rnn},
    {"LSTM", 7, lower_rnn},
};

}  // namespace

std::span<const LoweringEntry> rnn_lowerings() { return kTable; }

}  // namespace mlvm
