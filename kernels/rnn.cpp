// lstm (docs/ops.md, "lstm"): one direction of an LSTM over all of its steps in one
// instruction, which the ONNX importer lowers LSTM to when it has the default activations
// (onnx/lower_rnn.cpp). The loop of ~20 instructions per step it replaces cost more in
// dispatch than in arithmetic at the sizes LSTMs run at (batch 1, hidden 48: ~0.5 µs of work
// per step). Per step t (from the last when reverse): g = h·r (one GEMM, r packed once per
// run) + xw[t]; with the gates i, o, f, c in that order along g's last dim, i, o, f =
// sigmoid, c~ = tanh, c = f·c + i·c~, h = o·tanh(c), and y[t] = h. sigmoid and tanh are the
// runs the sigmoid and tanh ops take (kernels/simd/ew.hpp), f64 tanh the C library's. The
// static rule is in ir/infer_rnn.cpp.
#include <cmath>
#include <memory>

#include "kernels/gemm.hpp"
#include "kernels/run_table.hpp"
#include "kernels/run_time_type.hpp"
#include "kernels/simd/ew.hpp"
#include "tensor/copy.hpp"

namespace mlvm {

namespace {

// y[k] = op(x[k]) for k < n (y may be x): the level's SIMD run, else `scalar`.
template <class T>
void apply(simd::UnaryOp op, T* y, const T* x, int64_t n, T (*scalar)(T)) {
  if (const simd::UnaryRun run = simd::ew_kernels().unary[int(op)][int(dtype_of<T>::value)]) {
    run(y, x, n);
    return;
  }
  for (int64_t k = 0; k < n; ++k) y[k] = scalar(x[k]);
}

template <class T>
T sigmoid_scalar(T x) {
  return T(1) / (T(1) + std::exp(-x));
}
template <class T>
T tanh_scalar(T x) {
  return std::tanh(x);
}

template <class T>
void lstm_steps(KernelContext& ctx, const Tensor& y, const Tensor& yh, const Tensor& yc, const Tensor& gates,
                bool reverse) {
  const Tensor& xw = ctx.in[0];
  const Tensor& r = ctx.in[1];
  const int64_t steps = xw.dim(0), batch = xw.dim(1), hidden = r.dim(0), width = 4 * hidden;
  T* h = yh.template data<T>();
  T* c = yc.template data<T>();
  copy_into(ctx.in[2], yh);  // the states start as h0 and c0, read through their strides
  copy_into(ctx.in[3], yc);
  if (steps == 0 || batch == 0 || hidden == 0) return;
  T* g = gates.template data<T>();
  T* ys = y.template data<T>();
  const T* xs = xw.template data<T>();
  const int64_t x0 = xw.strides()[0], x1 = xw.strides()[1], x2 = xw.strides()[2];

  GemmArgs<T> gemm_args;
  gemm_args.m = batch;
  gemm_args.n = width;
  gemm_args.k = hidden;
  gemm_args.a = h;
  gemm_args.rsa = hidden;
  gemm_args.csa = 1;
  gemm_args.b = r.template data<T>();
  gemm_args.rsb = r.strides()[0];
  gemm_args.csb = r.strides()[1];
  gemm_args.c = g;
  gemm_args.ldc = width;
  const std::shared_ptr<const PackedOperand> packed = gemm_prepack_b(gemm_args);
  gemm_args.b_packed = packed.get();

  for (int64_t s = 0; s < steps; ++s) {
    ctx.env.check_cancelled();
    const int64_t t = reverse ? steps - 1 - s : s;
    gemm(gemm_args, ctx.env.pool);
    for (int64_t b = 0; b < batch; ++b) {
      T* gb = g + b * width;
      const T* xb = xs + t * x0 + b * x1;
      for (int64_t j = 0; j < width; ++j) gb[j] = gb[j] + xb[j * x2];
      apply<T>(simd::UnaryOp::sigmoid, gb, gb, 3 * hidden, sigmoid_scalar<T>);
      apply<T>(simd::UnaryOp::tanh, gb + 3 * hidden, gb + 3 * hidden, hidden, tanh_scalar<T>);
      const T* gi = gb;
      const T* gf = gb + 2 * hidden;
      const T* gc = gb + 3 * hidden;
      T* cb = c + b * hidden;
      for (int64_t j = 0; j < hidden; ++j) {
        const T keep = gf[j] * cb[j], add = gi[j] * gc[j];  // two roundings each, as mul, mul, add
        cb[j] = keep + add;
      }
      // tanh(c) into the spent input gate, then h = o · tanh(c).
      apply<T>(simd::UnaryOp::tanh, gb, cb, hidden, tanh_scalar<T>);
      const T* go = gb + hidden;
      T* hb = h + b * hidden;
      T* yt = ys + (t * batch + b) * hidden;
      for (int64_t j = 0; j < hidden; ++j) yt[j] = hb[j] = go[j] * gb[j];
    }
  }
}

}  // namespace

void run_lstm(KernelContext& ctx) {
  const TensorType ot = infer_at_run_time(ctx, infer_lstm);
  const bool reverse = ctx.attrs.get<lstm_attrs>().reverse;
  const int64_t batch = ot.dims[1], hidden = ot.dims[2];
  Tensor y = ctx.output(ot.dtype, ot.dims);
  Tensor yh = ctx.output(ot.dtype, Dims{batch, hidden});
  Tensor yc = ctx.output(ot.dtype, Dims{batch, hidden});
  // The gates of one step, [batch, 4 · hidden], counted against the budget like a result.
  const Tensor gates = ctx.output(ot.dtype, Dims{batch, 4 * hidden});
  if (ot.dtype == DType::f32)
    lstm_steps<float>(ctx, y, yh, yc, gates, reverse);
  else
    lstm_steps<double>(ctx, y, yh, yc, gates, reverse);
  ctx.out[0] = y;
  ctx.out[1] = yh;
  ctx.out[2] = yc;
}

}  // namespace mlvm
