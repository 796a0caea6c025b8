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
  Val t = c.e.emit("take", {x, k}, {attr_i("axis", 0), attr_s("mode", "raise")});
  return c.e.emit("squeeze", {t}, {attr_ints("axes", {0})});
}
Val pick(NodeContext& c, Val x, int64_t k) { return pick(c, x, c.e.int_vector({k})); }

Val gate(NodeContext& c, Val g, int k, int64_t h) {
  return c.e.emit("strided_slice", {g}, {attr_ints("begin", {k * h}), attr_ints("end", {(k + 1) * h}),
                                         attr_ints("axes", {1})});
}

Val activate(NodeContext& c, const std::string& name, Val x, double clip) {
  if (clip > 0)
    x = c.e.emit("clip", {x}, {{"a_min", AttrValue::floating(-clip)}, {"a_max", AttrValue::floating(clip)}});
  if (name == "Sigmoid") return c.e.emit("sigmoid", {x});
  if (name == "Tanh") return c.e.emit("tanh", {x});
  if (name == "Relu") return c.e.emit("relu", {x});
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
  Val wt = c.e.emit("transpose", {w}), rt = c.e.emit("transpose", {r});
  Val wb, rb;
  if (c.input(3).present()) {
    Val b = pick(c, c.input(3), d);  // [2*G*h]
    wb = c.e.emit("strided_slice", {b}, {attr_ints("begin", {0}), attr_ints("end", {s.gates * h})});
    rb = c.e.emit("strided_slice", {b}, {attr_ints("begin", {s.gates * h}), attr_ints("end", {2 * s.gates * h})});
  }
  // Every step's input projection at once: [T, batch, G*h].
  Val xw = c.e.emit("matmul", {x, wt});
  // GRU's candidate gate adds Rbh inside (linear_before_reset) or outside the reset product;
  // the z and r gates, like every gate of the other cells, take Wb + Rb together.
  if (wb.present() && s.cell != Cell::gru) xw = c.e.emit("add", {xw, c.e.emit("add", {wb, rb})});
  if (wb.present() && s.cell == Cell::gru) xw = c.e.emit("add", {xw, wb});
  // The common LSTM (default activations, no clip, peepholes or sequence lengths) is one
  // lstm instruction: the loop below costs ~20 instructions per step, more in dispatch than
  // the step's arithmetic at the sizes LSTMs run at.
  if (s.cell == Cell::lstm && s.acts == std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"} && s.clip <= 0 &&
      !c.input(7).present() && !lens.present())
    return c.e.emit_n("lstm", {xw, rt, h0, c0}, {attr_b("reverse", reverse)});
  Val t_len = c.e.emit("take", {c.e.emit("shape_of", {x}), c.e.int_vector({0})}, {attr_i("axis", 0)});

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
  c.e.assign(y, c.e.emit("zeros", {}, {attr_ints("shape", empty_shape), attr_dt("dtype", dt)}));
  const std::string body = c.e.new_label("rnn_step"), check = c.e.new_label("rnn_check");
  c.e.jmp(check);
  c.e.place_label(body);
  Val t = reverse ? c.e.emit("sub", {c.e.emit("sub", {t_len, i64(c, 1)}), step}) : step;
  Val xg = pick(c, xw, t);                            // [batch, G*h]
  Val hg = c.e.emit("matmul", {hs, rt});              // [batch, G*h]
  const std::string& f = s.acts[0];
  Val h_new, c_new;
  if (s.cell == Cell::rnn) {
    h_new = activate(c, f, c.e.emit("add", {xg, hg}), s.clip);
  } else if (s.cell == Cell::lstm) {
    Val g = c.e.emit("add", {xg, hg});
    Val gi = gate(c, g, 0, h), go = gate(c, g, 1, h), gf = gate(c, g, 2, h), gc = gate(c, g, 3, h);
    if (c.input(7).present()) {  // peepholes P [num_dir, 3h]: i, o, f
      Val p = pick(c, c.input(7), d);
      auto peep = [&](int k) {
        return c.e.emit("strided_slice", {p}, {attr_ints("begin", {k * h}), attr_ints("end", {(k + 1) * h})});
      };
      gi = c.e.emit("add", {gi, c.e.emit("mul", {peep(0), cs})});
      gf = c.e.emit("add", {gf, c.e.emit("mul", {peep(2), cs})});
      Val it = activate(c, f, gi, s.clip), ft = activate(c, f, gf, s.clip);
      Val ct = activate(c, s.acts[1], gc, s.clip);
      c_new = c.e.emit("add", {c.e.emit("mul", {ft, cs}), c.e.emit("mul", {it, ct})});
      Val ot = activate(c, f, c.e.emit("add", {go, c.e.emit("mul", {peep(1), c_new})}), s.clip);
      h_new = c.e.emit("mul", {ot, activate(c, s.acts[2], c_new, 0)});
    } else {
      Val it = activate(c, f, gi, s.clip), ft = activate(c, f, gf, s.clip);
      Val ct = activate(c, s.acts[1], gc, s.clip), ot = activate(c, f, go, s.clip);
      c_new = c.e.emit("add", {c.e.emit("mul", {ft, cs}), c.e.emit("mul", {it, ct})});
      h_new = c.e.emit("mul", {ot, activate(c, s.acts[2], c_new, 0)});
    }
  } else {  // GRU: gates z, r, h
    Val rbz, rbr, rbh;
    if (rb.present()) {
      rbz = c.e.emit("strided_slice", {rb}, {attr_ints("begin", {0}), attr_ints("end", {2 * h})});
      rbh = c.e.emit("strided_slice", {rb}, {attr_ints("begin", {2 * h}), attr_ints("end", {3 * h})});
    }
    Val xz_r = gate(c, xg, 0, h), xr = gate(c, xg, 1, h), xh = gate(c, xg, 2, h);
    Val zr_h = c.e.emit("strided_slice", {hg}, {attr_ints("begin", {0}), attr_ints("end", {2 * h}), attr_ints("axes", {1})});
    Val zr = c.e.emit("add", {c.e.emit("concatenate", {xz_r, xr}, {attr_i("axis", 1)}), zr_h});
    if (rbz.present()) zr = c.e.emit("add", {zr, rbz});
    Val zt = activate(c, f, gate(c, zr, 0, h), s.clip), rt_ = activate(c, f, gate(c, zr, 1, h), s.clip);
    Val hh;
    if (s.linear_before_reset) {
      Val hr = gate(c, hg, 2, h);
      if (rbh.present()) hr = c.e.emit("add", {hr, rbh});
      hh = c.e.emit("add", {xh, c.e.emit("mul", {rt_, hr})});
    } else {
      Val rh = c.e.emit("strided_slice", {rt}, {attr_ints("begin", {2 * h}), attr_ints("end", {3 * h}), attr_ints("axes", {1})});
      hh = c.e.emit("add", {xh, c.e.emit("matmul", {c.e.emit("mul", {rt_, hs}), rh})});
      if (rbh.present()) hh = c.e.emit("add", {hh, rbh});
    }
    Val ht = activate(c, s.acts[1], hh, s.clip);
    Val one = c.e.scalar_const(dt, 1.0);
    h_new = c.e.emit("add", {c.e.emit("mul", {c.e.emit("sub", {one, zt}), ht}), c.e.emit("mul", {zt, hs})});
  }
  Val out_h = h_new;
  if (lens.present()) {
    Val live = c.e.emit("less", {t, lens});  // bool [batch, 1]
    h_new = c.e.emit("where", {live, h_new, hs});
    if (s.cell == Cell::lstm) c_new = c.e.emit("where", {live, c_new, cs});
    out_h = c.e.emit("where", {live, h_new, c.e.scalar_const(dt, 0.0)});
  }
  Val piece = c.e.emit("expand_dims", {out_h}, {attr_i("axis", 0)});
  c.e.assign(y, reverse ? c.e.emit("concatenate", {piece, y}, {attr_i("axis", 0)})
                        : c.e.emit("concatenate", {y, piece}, {attr_i("axis", 0)}));
  c.e.assign(hs, h_new);
  if (s.cell == Cell::lstm) c.e.assign(cs, c_new);
  c.e.assign(step, c.e.emit("add", {step, i64(c, 1)}));
  c.e.place_label(check);
  c.e.br(c.e.emit("less", {step, t_len}), body);
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
  if (batch_major) x = c.e.emit("transpose", {x}, {attr_ints("axes", {1, 0, 2})});
  if (s.hidden <= 0) s.hidden = c.e.dims(c.input(2))[1];
  if (s.hidden <= 0) c.fail("hidden_size is unknown");
  Val lens;
  if (c.input(4).present()) {
    bool all_full = c.e.is_const(c.input(4)) && c.e.dims(x)[0] != kDynamic;
    if (all_full)
      for (int64_t l : c.e.ints(c.input(4), "sequence_lens")) all_full = all_full && l == c.e.dims(x)[0];
    if (!all_full) {
      Val l = c.e.emit("cast", {c.input(4)}, {attr_dt("dtype", DType::i64)});
      lens = c.e.emit("expand_dims", {l}, {attr_i("axis", 1)});
    }
  }
  const DType dt = c.e.dtype(x);
  const int64_t batch = c.e.dims(x)[1];
  auto initial = [&](int input, int d) {
    if (c.input(input).present()) {
      Val v = c.input(input);
      if (batch_major) v = c.e.emit("transpose", {v}, {attr_ints("axes", {1, 0, 2})});
      return pick(c, v, d);
    }
    if (batch == kDynamic) c.fail("a dynamic batch without initial states is not supported");
    return c.e.emit("zeros", {}, {attr_ints("shape", {batch, s.hidden}), attr_dt("dtype", dt)});
  };
  std::vector<Val> ys, yhs, ycs;
  for (int d = 0; d < num_dir; ++d) {
    RnnSpec sd = s;
    sd.acts.assign(acts.begin() + std::ptrdiff_t(d * defaults.size()),
                   acts.begin() + std::ptrdiff_t((d + 1) * defaults.size()));
    bool reverse = dir == "reverse" || d == 1;
    std::vector<Val> r = direction(c, sd, d, reverse, x, initial(5, d),
                                   s.cell == Cell::lstm ? initial(6, d) : Val{}, lens);
    ys.push_back(c.e.emit("expand_dims", {r[0]}, {attr_i("axis", 1)}));
    yhs.push_back(c.e.emit("expand_dims", {r[1]}, {attr_i("axis", 0)}));
    if (s.cell == Cell::lstm) ycs.push_back(c.e.emit("expand_dims", {r[2]}, {attr_i("axis", 0)}));
  }
  auto stack = [&](const std::vector<Val>& v, int axis) {
    return v.size() == 1 ? v[0] : c.e.emit("concatenate", v, {attr_i("axis", axis)});
  };
  Val y = stack(ys, 1), yh = stack(yhs, 0);  // [T, D, B, H], [D, B, H]
  Val yc = s.cell == Cell::lstm ? stack(ycs, 0) : Val{};
  if (batch_major) {
    y = c.e.emit("transpose", {y}, {attr_ints("axes", {2, 0, 1, 3})});
    yh = c.e.emit("transpose", {yh}, {attr_ints("axes", {1, 0, 2})});
    if (yc.present()) yc = c.e.emit("transpose", {yc}, {attr_ints("axes", {1, 0, 2})});
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
