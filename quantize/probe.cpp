#include "quantize/probe.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "quantize/emitter.hpp"
#include "quantize/scales.hpp"
#include "tensor/error.hpp"
#include "vm/program_access.hpp"

namespace mlvm::quant {

namespace {

// Every element as a double, whatever the dtype the probe gave (f32 floats, i8/i32 integers).
std::vector<double> as_doubles(const Tensor& t) {
  std::vector<double> out(std::size_t(t.numel()));
  switch (t.dtype()) {
    case DType::f32: {
      const std::vector<float> v = to_vector<float>(t);
      std::copy(v.begin(), v.end(), out.begin());
      break;
    }
    case DType::i8: {
      const std::vector<int8_t> v = to_vector<int8_t>(t);
      std::copy(v.begin(), v.end(), out.begin());
      break;
    }
    case DType::i32: {
      const std::vector<int32_t> v = to_vector<int32_t>(t);
      std::copy(v.begin(), v.end(), out.begin());
      break;
    }
    default:
      fail_invalid("internal: a probe output of dtype " + std::string(dtype_name(t.dtype())));
  }
  return out;
}

Session make_session(const Module& module, int threads) {
  VerifyOptions o;
  o.precision_check = module.precision_check;
  SessionOptions so;
  so.threads = threads;
  return Session(program_from_module(module, o), so);
}

int channel_axis(const Graph& g, int32_t value) {
  const GraphValue& v = g.values[std::size_t(value)];
  if (v.def < 0) return -1;
  const Opcode op = g.node_of(value).op;
  if (op == Opcode::conv2d) return 1;
  if (op == Opcode::dense || op == Opcode::matmul) return v.type.dims.size() - 1;
  return -1;
}

void update(ValueStats& s, const Tensor& t, int axis, bool histogram) {
  const std::vector<double> v = as_doubles(t);
  int64_t inner = 1, channels = 1;
  if (axis >= 0) {
    channels = t.dim(axis);
    for (int k = axis + 1; k < t.rank(); ++k) inner *= t.dim(k);
    s.channel_abs.resize(std::size_t(channels), 0.0);
    s.channel_pos.resize(std::size_t(channels), 0.0);
  }
  // Running channel means of an NCHW value (sums until collect_stats divides them).
  if (t.rank() == 4) {
    const int64_t c4 = t.dim(1), hw = t.dim(2) * t.dim(3);
    s.channel_mean.resize(std::size_t(c4), 0.0);
    for (std::size_t k = 0; k < v.size(); ++k) s.channel_mean[std::size_t((int64_t(k) / hw) % c4)] += v[k];
    s.count += double(t.dim(0) * hw);
  }
  if (histogram) {
    if (!s.histogram) s.histogram = std::make_shared<MagnitudeHistogram>();
    s.histogram->add(v);
  }
  for (std::size_t k = 0; k < v.size(); ++k) {
    const double a = std::fabs(v[k]);
    s.max_abs = std::max(s.max_abs, a);
    s.max_pos = std::max(s.max_pos, v[k]);
    if (axis >= 0) {
      const std::size_t c = std::size_t((int64_t(k) / inner) % channels);
      s.channel_abs[c] = std::max(s.channel_abs[c], a);
      s.channel_pos[c] = std::max(s.channel_pos[c], v[k]);
    }
  }
}

}  // namespace

int activation_exponent(const ValueStats& s, int bits) {
  const int e = pow2_exponent(s.max_abs, bits);
  if (bits > 8 || !s.histogram || !(s.max_abs > 0)) return e;
  return s.histogram->best_exponent(e, magnitude(bits));
}

Probe float_probe(const Graph& g, const QuantPlan& p) {
  const Module& m = *g.module;
  Emitter e(m.name.empty() ? "calibration" : m.name + "_calibration", false);
  Probe out;
  std::vector<std::string> reg(g.values.size());
  out.input = g.name(p.input);
  reg[std::size_t(p.input)] = e.input(out.input, g.values[std::size_t(p.input)].type);
  auto reg_of = [&](int32_t v, const GraphNode& n) -> std::string {
    if (v == kNoValue) return "none";
    std::string& r = reg[std::size_t(v)];
    if (!r.empty()) return r;
    const GraphValue& gv = g.values[std::size_t(v)];
    if (gv.constant >= 0) {
      const ConstDecl& c = m.constants[std::size_t(gv.constant)];
      return r = e.constant(c.name, c.value);
    }
    throw Error(ErrorKind::invalid,
                "the activations depend on input '" + g.name(v) + "' as well as on '" + out.input +
                    "'; the quantizer calibrates one input (no instruction computed from it may read another input)",
                g.where(n));
  };
  for (const GraphNode& n : g.nodes) {
    if (!p.in_slice[std::size_t(n.pc)]) continue;
    std::vector<std::string> args, want;
    for (int32_t a : n.args) args.push_back(reg_of(a, n));
    for (int32_t r : n.results) want.push_back(g.name(r));
    e.set_origin(g.where(n));
    const std::vector<std::string> r = e.emit_stored(n.op, args, m.code[std::size_t(n.pc)].attrs, want, {});
    for (std::size_t k = 0; k < r.size(); ++k) reg[std::size_t(n.results[k])] = r[k];
  }
  for (std::size_t v = 0; v < g.values.size(); ++v) {
    if (!p.activation[v] || reg[v].empty()) continue;
    e.output(reg[v]);
    out.outputs.push_back(ProbeOutput{int32_t(v), reg[v], 0});
  }
  out.module = e.finish();
  return out;
}

std::vector<ValueStats> collect_stats(const Graph& g, const Probe& probe,
                                      const CalibrationBatches& batches, int threads, bool histograms) {
  std::vector<ValueStats> stats(g.values.size());
  Session session = make_session(probe.module, threads);
  for (const Tensor& b : batches.batches) {
    const TensorMap outs = session.run(TensorMap{{probe.input, b}});
    for (const ProbeOutput& o : probe.outputs)
      update(stats[std::size_t(o.value)], outs.at(o.name), channel_axis(g, o.value), histograms);
  }
  for (ValueStats& s : stats)
    for (double& m : s.channel_mean) m /= s.count;
  return stats;
}

std::vector<double> measure_errors(const Graph& g, const Probe& float_probe, const Probe& int_probe,
                                   const CalibrationBatches& batches, int threads) {
  std::vector<double> err(g.values.size(), -1.0);
  std::map<int32_t, std::string> float_name;
  for (const ProbeOutput& o : float_probe.outputs) float_name[o.value] = o.name;
  Session float_run = make_session(float_probe.module, threads);
  Session int_run = make_session(int_probe.module, threads);
  for (const Tensor& b : batches.batches) {
    const TensorMap floats = float_run.run(TensorMap{{float_probe.input, b}});
    const TensorMap ints = int_run.run(TensorMap{{int_probe.input, b}});
    for (const ProbeOutput& o : int_probe.outputs) {
      auto f = float_name.find(o.value);
      if (f == float_name.end()) continue;
      const std::vector<double> fv = as_doubles(floats.at(f->second));
      const std::vector<double> qv = as_doubles(ints.at(o.name));
      double& e = err[std::size_t(o.value)];
      e = std::max(e, 0.0);
      for (std::size_t k = 0; k < fv.size() && k < qv.size(); ++k)
        e = std::max(e, std::fabs(fv[k] - std::ldexp(qv[k], -o.exponent)));
    }
  }
  return err;
}

}  // namespace mlvm::quant
