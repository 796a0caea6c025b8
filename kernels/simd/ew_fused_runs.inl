// The runs of the activations the planner fuses into a producing kernel (vm/fuse.cpp): part
// of ew_impl.inl's body, included there inside its namespace after the ops they reuse
// (SigmoidOp, MulOp, unary_run), so it includes nothing itself.

// v itself, opaque to the optimizer: a product passed through it is rounded on its own before
// an add that follows, which this file's levels (compiled with contraction allowed) could
// otherwise turn into one fused multiply-add with other bits than the mul and add runs'.
template <class Vt>
Vt rounded(Vt v) {
  auto r = static_cast<typename Vt::register_type>(v);
  __asm__("" : "+v"(r));
  return Vt(r);
}
inline float rounded(float v) {
  __asm__("" : "+v"(v));
  return v;
}

// y = x < 0 ? alpha·x : x (leaky_relu's expression), then y < lo ? lo : y (a maximum with a
// constant lo that is not NaN; lo = -inf: none), over contiguous f32, y == x allowed. One
// product rounded once and comparisons: the same bits as the scalar loop whatever the width.
// The fused leaky_relu of openWakeWord's embedding CNN was a branchy scalar loop over every
// convolution's result, half the model's time on random signs.
void leaky_run(float* y, const float* x, int64_t n, float alpha, float lo) {
  constexpr int64_t W = kLanes<float>;
  const V<float> va(alpha), vlo(lo), zero(0.0f);
  auto leaky = [&](const V<float>& v) {
    const V<float> r = xsimd::select(v < zero, va * v, v);
    return xsimd::select(r < vlo, vlo, r);
  };
  int64_t k = 0;
  for (; k + 2 * W <= n; k += 2 * W) {
    const V<float> r0 = leaky(load(x + k)), r1 = leaky(load(x + k + W));
    store(y + k, r0);
    store(y + k + W, r1);
  }
  for (; k + W <= n; k += W) store(y + k, leaky(load(x + k)));
  for (; k < n; ++k) {
    const float r = x[k] < 0.0f ? alpha * x[k] : x[k];
    y[k] = r < lo ? lo : r;
  }
}

// y = (x·c) / 6, c = x + 3 clipped to [0, 6] as clip_run clips (NaN passes), over contiguous
// f32, y == x allowed: the add, clip, mul and div kernels' runs in one pass. Each step rounds
// once as theirs do: the add and the product feed a compare and a division, never an add, so
// no level can contract them into a fused multiply-add, and the division stays a division.
// The unfused four passes were an eighth of PaddleOCR's recognizers.
// Tail 1 then multiplies by s, tail 2 by s and adds t (PP-OCRv4's learnable scale and bias
// after each HardSwish), each rounded once as the mul and add runs round them: the product
// goes through rounded(), so that the level's FMA cannot fuse it with the add.
template <int Tail>
void hardswish_tail_run(float* y, const float* x, int64_t n, float s, float t) {
  constexpr int64_t W = kLanes<float>;
  const V<float> three(3.0f), zero(0.0f), six(6.0f), vs(s), vt(t);
  auto hs = [&](const V<float>& v) {
    const V<float> r = (v * clip_lanes(v + three, zero, six)) / six;
    if constexpr (Tail == 0) return r;
    else if constexpr (Tail == 1) return r * vs;
    else return rounded(r * vs) + vt;
  };
  int64_t k = 0;
  for (; k + 2 * W <= n; k += 2 * W) {
    const V<float> r0 = hs(load(x + k)), r1 = hs(load(x + k + W));
    store(y + k, r0);
    store(y + k + W, r1);
  }
  for (; k + W <= n; k += W) store(y + k, hs(load(x + k)));
  for (; k < n; ++k) {
    const float a = x[k] + 3.0f;
    const float c = a < 0.0f ? 0.0f : a > 6.0f ? 6.0f : a;
    float r = (x[k] * c) / 6.0f;
    if constexpr (Tail >= 1) r = r * s;
    if constexpr (Tail == 2) r = rounded(r) + t;
    y[k] = r;
  }
}

void hardswish_run(void* yv, const void* xv, int64_t n) {
  hardswish_tail_run<0>(static_cast<float*>(yv), static_cast<const float*>(xv), n, 1.0f, 0.0f);
}

// y = x·sigmoid(x) (SigmoidFirst: sigmoid(x)·x) over contiguous f32, y == x allowed: the
// sigmoid run followed by the mul run in one pass, with the same bits — whole registers as
// both compute them, and the last partial register's sigmoid through a buffer (the sigmoid
// run's vector tail) and its products one by one (the mul run's scalar tail). The separate
// mul pass was a fifth of a fused silu.
template <bool SigmoidFirst>
void silu_run(void* yv, const void* xv, int64_t n) {
  using T = float;
  constexpr int64_t W = kLanes<T>;
  T* y = static_cast<T*>(yv);
  const T* x = static_cast<const T*>(xv);
  auto silu = [](const V<T>& v) {
    const V<T> s = SigmoidOp::vector<T>(v);
    return SigmoidFirst ? s * v : v * s;
  };
  int64_t k = 0;
  for (; k + 2 * W <= n; k += 2 * W) {
    const V<T> r0 = silu(load(x + k)), r1 = silu(load(x + k + W));
    store(y + k, r0);
    store(y + k + W, r1);
  }
  for (; k + W <= n; k += W) store(y + k, silu(load(x + k)));
  if (k == n) return;
  T s[W];
  unary_run<T, SigmoidOp>(s, x + k, n - k);  // fewer than W: the sigmoid run's own tail
  for (int64_t j = 0; j < n - k; ++j)
    y[k + j] = SigmoidFirst ? MulOp::scalar(s[j], x[k + j]) : MulOp::scalar(x[k + j], s[j]);
}
