// Affine steps folded into the Conv, ConvTranspose or Gemm before them (../shared/spec/onnx.md,
// "inference-time simplifications"): when a Conv's (Gemm's, ConvTranspose's of one group)
// output is read by nothing but a
// BatchNormalization in inference mode, or a Mul, Add or Sub by a constant of one element or
// one per output channel, and that node's output in turn by nothing but another of them (up to
// kMaxFolded), and the weights, the bias and those constants are constants of the graph
// (initializers or Constant nodes), the Conv is emitted with weights scaled per output channel
// by k and bias b * k + shift, where y·k + shift is the chain's composition (a BatchNormalization
// is k = scale / sqrt(var + epsilon), shift = bias - mean * k). Each folded node becomes its
// input: no instruction is left for it. PP-OCRv4's LCNetV3 follows every convolution with a
// BatchNormalization and a learnable scale and bias (a Mul and an Add of one-element
// constants); folded, the HardSwish after them meets the convolution's result and fuses with it
// (vm/fuse.cpp). As with ONNX Runtime's Conv-Mul and Conv-Add fusions, the folded weights round
// differently from the step-by-step evaluation.
//
// The Emitter does not record which instruction made a value or who reads it, so the decision
// is taken on the ONNX graph (NodeContext::graph): the Conv looks ahead at its readers, a
// folded node looks back along its non-constant input to the Conv, and both ask the same
// question of the same graph (plan()), so they always agree. Without a graph nothing is folded.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "tensor/copy.hpp"

#include "onnx/graph_walk.hpp"
#include "onnx/lower_nn_util.hpp"
#include "onnx/tensor_proto.hpp"

namespace mlvm::nn {

namespace {

bool float_proto(const onnx::TensorProto& t) {
  return t.data_type() == onnx::TensorProto::FLOAT || t.data_type() == onnx::TensorProto::DOUBLE;
}

const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const char* name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

// The values of the constant `name`, one per channel, when it broadcasts against a result of
// rank r whose channels lie on axis 1 without changing its dims: one element of rank <= r, or
// `channels` elements on the dim that lines up with axis 1 and 1 on every other.
std::optional<std::vector<double>> channel_values(NodeContext& c, const GraphIndex& g,
                                                  const std::string& name, int r, int64_t channels) {
  const onnx::TensorProto* t = g.constant(name);
  if (!t || !float_proto(*t) || t->dims_size() > r) return std::nullopt;
  const int q = t->dims_size(), axis = 1 - (r - q);  // axis 1 of the result in t's dims
  int64_t count = 1;
  for (int d = 0; d < q; ++d) {
    if (t->dims(d) != 1 && (d != axis || t->dims(d) != channels)) return std::nullopt;
    count *= t->dims(d);
  }
  OnnxTensor v = tensor_from_proto(*t, "constant '" + name + "'", {c.model_dir()});
  // Its rank is q, or 1 for an ONNX scalar (q = 0, one element).
  std::vector<int64_t> idx(std::size_t(v.value.rank()), 0);
  std::vector<double> out;
  for (int64_t i = 0; i < channels; ++i) {
    if (count != 1) idx[std::size_t(axis)] = i;
    out.push_back(v.value.get_double(idx));
  }
  return out;
}

// The factors a BatchNormalization in inference mode reading `in` applies per channel, when its
// statistics are constants of g.
std::optional<AffineFold> batch_norm_factors(NodeContext& c, const GraphIndex& g,
                                             const onnx::NodeProto& bn, const std::string& in,
                                             int64_t channels) {
  if (bn.input_size() < 5 || bn.input(0) != in) return std::nullopt;
  for (int k = 1; k < bn.output_size(); ++k)
    if (!bn.output(k).empty()) return std::nullopt;  // training statistics
  if (const auto* a = find_attr(bn, "training_mode"); a && a->i() != 0) return std::nullopt;
  if (const auto* a = find_attr(bn, "spatial"); a && a->i() == 0) return std::nullopt;
  std::vector<double> stats[4];  // scale, bias, mean, var
  for (int k = 0; k < 4; ++k) {
    const onnx::TensorProto* t = g.constant(bn.input(k + 1));
    if (!t || !float_proto(*t) || t->dims_size() != 1 || t->dims(0) != channels) return std::nullopt;
    OnnxTensor v = tensor_from_proto(*t, "BatchNormalization input '" + bn.input(k + 1) + "'",
                                     {c.model_dir()});
    for (int64_t i = 0; i < channels; ++i) {
      int64_t idx[1] = {i};
      stats[k].push_back(v.value.get_double(idx));
    }
  }
  double eps = 1e-5;
  if (const auto* a = find_attr(bn, "epsilon"); a && a->type() == onnx::AttributeProto::FLOAT) eps = a->f();
  AffineFold f;
  for (int64_t i = 0; i < channels; ++i) {
    const std::size_t j = std::size_t(i);
    const double k = stats[0][j] / std::sqrt(stats[3][j] + eps);
    f.k.push_back(k);
    f.shift.push_back(stats[1][j] - stats[2][j] * k);
  }
  return f;
}

// At most this many nodes fold into one producer (PP-OCRv4: BatchNormalization, Mul, Add;
// its detector's ConvTranspose: Add, BatchNormalization).
constexpr int kMaxFolded = 4;
bool foldable_op(const onnx::NodeProto& n) {
  const std::string& t = n.op_type();
  return default_domain(n) &&
         (t == "BatchNormalization" || t == "Mul" || t == "Add" || t == "Sub");
}

struct Plan {
  std::vector<const onnx::NodeProto*> folded;  // in the order they apply
  AffineFold fold;
};

// Which nodes after producer p (a Conv, ConvTranspose or Gemm of c.graph) it takes in, and the
// per-channel factors they make: a chain whose every link but the last is read by nothing but
// the next.
std::optional<Plan> plan(NodeContext& c, const onnx::NodeProto& p) {
  if (!c.graph) return std::nullopt;
  const GraphIndex& g = *c.graph;
  const bool conv = p.op_type() == "Conv", transposed = p.op_type() == "ConvTranspose";
  if (!default_domain(p) || (!conv && !transposed && p.op_type() != "Gemm")) return std::nullopt;
  if (p.output_size() != 1 || p.output(0).empty() || p.input_size() < 2) return std::nullopt;
  // The weights: W (Conv: (OC, C/group, k...); ConvTranspose: (C, OC/group, k...), group 1
  // only; Gemm: B, (K, N) or (N, K) with transB).
  const onnx::TensorProto* w = g.constant(p.input(1));
  if (!w || !float_proto(*w)) return std::nullopt;
  int64_t channels;
  int rank;  // of the result
  if (conv || transposed) {
    if (w->dims_size() < 3) return std::nullopt;
    if (const auto* group = find_attr(p, "group"); transposed && group && group->i() != 1) return std::nullopt;
    channels = w->dims(transposed ? 1 : 0);
    rank = w->dims_size();
  } else {
    if (w->dims_size() != 2) return std::nullopt;
    const auto* tb = find_attr(p, "transB");
    channels = tb && tb->i() != 0 ? w->dims(0) : w->dims(1);
    rank = 2;
  }
  if (p.input_size() > 2 && !p.input(2).empty() && !g.constant(p.input(2))) return std::nullopt;
  if (channels < 1 || channels > (int64_t(1) << 24)) return std::nullopt;
  Plan out;
  out.fold.k.assign(std::size_t(channels), 1.0);
  out.fold.shift.assign(std::size_t(channels), 0.0);
  std::string value = p.output(0);
  for (int step = 0; step < kMaxFolded; ++step) {
    const onnx::NodeProto* n = g.only_reader(value);
    if (!n || !foldable_op(*n) || n->output_size() != 1 || n->output(0).empty()) break;
    std::vector<double> k(std::size_t(channels), 1.0), shift(std::size_t(channels), 0.0);
    if (n->op_type() == "BatchNormalization") {
      std::optional<AffineFold> f = batch_norm_factors(c, g, *n, value, channels);
      if (!f) break;
      k = f->k;
      shift = f->shift;
    } else {
      if (n->input_size() != 2 || n->input(0) == n->input(1)) break;
      const int at = n->input(0) == value ? 0 : 1;  // value's operand; the other is the constant
      std::optional<std::vector<double>> v = channel_values(c, g, n->input(1 - at), rank, channels);
      if (!v) break;
      const std::string& t = n->op_type();
      if (t == "Mul") k = *v;
      else if (t == "Add") shift = *v;
      else if (at == 0) {  // y - v
        for (std::size_t j = 0; j < shift.size(); ++j) shift[j] = -(*v)[j];
      } else {  // v - y
        k.assign(k.size(), -1.0);
        shift = *v;
      }
    }
    for (std::size_t j = 0; j < k.size(); ++j) {
      out.fold.k[j] *= k[j];
      out.fold.shift[j] = out.fold.shift[j] * k[j] + shift[j];
    }
    out.folded.push_back(n);
    value = n->output(0);
  }
  if (out.folded.empty()) return std::nullopt;
  return out;
}

// The input of n its fold takes over (BatchNormalization's X; the operand of Mul, Add or Sub
// that is not a constant of g), or -1.
int data_input(const GraphIndex& g, const onnx::NodeProto& n) {
  if (n.op_type() == "BatchNormalization") return n.input_size() >= 1 ? 0 : -1;
  if (n.input_size() != 2) return -1;
  const bool c0 = g.constant(n.input(0)) != nullptr, c1 = g.constant(n.input(1)) != nullptr;
  return c0 == c1 ? -1 : c0 ? 1 : 0;
}

}  // namespace

std::optional<AffineFold> affine_fold_into(NodeContext& c) {
  std::optional<Plan> p = plan(c, c.node);
  if (!p) return std::nullopt;
  return p->fold;
}

std::optional<Val> folded_into_producer(NodeContext& c) {
  if (!c.graph || !foldable_op(c.node)) return std::nullopt;
  const GraphIndex& g = *c.graph;
  const int at = data_input(g, c.node);
  if (at < 0 || c.node.input(at).empty()) return std::nullopt;
  // Back along the chain to the producer that would fold it; producers come first.
  const onnx::NodeProto* n = &c.node;
  for (int step = 0; step < kMaxFolded; ++step) {
    const int k = data_input(g, *n);
    if (k < 0) return std::nullopt;
    const onnx::NodeProto* producer = g.writer_before(n->input(k), *n);
    if (!producer || !default_domain(*producer)) return std::nullopt;
    if (producer->op_type() == "Conv" || producer->op_type() == "ConvTranspose" ||
        producer->op_type() == "Gemm") {
      std::optional<Plan> p = plan(c, *producer);
      if (!p || std::find(p->folded.begin(), p->folded.end(), &c.node) == p->folded.end())
        return std::nullopt;
      return c.input(at);
    }
    if (!foldable_op(*producer)) return std::nullopt;
    n = producer;
  }
  return std::nullopt;
}

// Subnormal weights made zero: an Intel core multiplies a subnormal operand through a microcode
// assist of some hundred cycles, and PaddleOCR's PP-OCRv3 recognizers have convolutions whose
// weights are two-thirds subnormal (trained filters that died), which ran 50 times slower than
// with zeros, in mlvm and not in ONNX Runtime. A subnormal weight's products are below the
// rounding of any sum that holds a normal term, so results change only where a whole sum is
// subnormal. The weights are copied (an initializer may feed other nodes), and only then.
template <class T>
bool is_subnormal(T v) {
  return v != T(0) && std::fabs(v) < std::numeric_limits<T>::min();
}

Val flush_subnormals(NodeContext& c, Val w) {
  if (!w.present() || !c.e.is_const(w)) return w;
  const DType dt = c.e.dtype(w);
  if (dt != DType::f32 && dt != DType::f64) return w;
  Tensor t = contiguous(c.e.value(w));
  auto flush = [&](auto* p) {
    using T = std::remove_pointer_t<decltype(p)>;
    const int64_t n = t.numel();
    if (std::none_of(p, p + n, is_subnormal<T>)) return false;
    Tensor copy = Tensor::empty(dt, t.shape());
    T* q = copy.data<T>();
    for (int64_t i = 0; i < n; ++i) q[i] = is_subnormal(p[i]) ? std::copysign(T(0), p[i]) : p[i];
    t = std::move(copy);
    return true;
  };
  const bool changed = dt == DType::f32 ? flush(t.data<float>()) : flush(t.data<double>());
  return changed ? c.e.constant(std::move(t), c.e.scalar(w)) : w;
}

void fold_into_weights(NodeContext& c, const AffineFold& f, Val& w, Val& b, int axis) {
  const DType dt = c.e.dtype(w);
  const int64_t oc = int64_t(f.k.size());
  std::vector<int64_t> kd(std::size_t(c.e.rank(w)), 1);
  kd[std::size_t(axis)] = oc;
  w = c.e.emit(op::mul, {w, const_values(c, dt, f.k, kd)});
  Val shift = const_values(c, dt, f.shift, {oc});
  b = b.present() ? c.e.emit(op::add, {c.e.emit(op::mul, {c.e.with_scalar(b, false), const_values(c, dt, f.k, {oc})}),
                                       shift})
                  : shift;
}

Val const_values(NodeContext& c, DType dt, const std::vector<double>& v, const std::vector<int64_t>& dims) {
  // Callers pass the dtype of a model's input: one a lowering did not check (a bool or integer
  // x where the op computes in float) is refused here, not written as floats into its bytes.
  if (dt != DType::f32 && dt != DType::f64)
    c.fail("the input is " + std::string(dtype_name(dt)) + " where this op computes in f32 or f64");
  Tensor t = Tensor::empty(dt, Dims(std::span<const int64_t>(dims)));
  if (std::size_t(t.numel()) != v.size())
    c.fail("internal: " + std::to_string(v.size()) + " values for a constant of " +
           std::to_string(t.numel()) + " elements");
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (dt == DType::f64) t.data<double>()[i] = v[i];
    else t.data<float>()[i] = float(v[i]);
  }
  return c.e.constant(std::move(t));
}

}  // namespace mlvm::nn
