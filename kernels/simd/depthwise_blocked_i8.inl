// The exact i8 depthwise convolution of one SIMD level, channels in lanes, with its bias and
// requantization in registers (interface: DepthwiseBlockedI8 in kernels/simd/conv_depthwise.hpp):
// a part of depthwise_impl.inl's body, inside its namespace after blocked_strips, so it
// includes nothing itself (depthwise_impl.inl includes requant_vec.inl for it).
//
// Otherwise the input would be widened to f32 planes, run through depthwise_blocked into f32
// planes, converted to i32 planes with the bias and requantized into the result: four passes
// over planes in L2, on top of the f32 convolution. Here the i8 rows are widened as they are
// transposed into the pixel-major strip, and each strip's sums go through the conversion, the
// bias and the chain a register of channels at a time (per-channel values are lanes) before
// they are transposed back and stored narrowed: no plane but the result is written.
#if MLVM_SIMD_BYTES == 64 || MLVM_SIMD_BYTES == 32
static_assert(requant_detail::kLanes == kLanes<float>, "a register of i32 results per register of f32 sums");

// n <= L bytes at p widened to f32 lanes (lanes past n zero), reading only those n bytes.
inline V<float> widen_i8(const int8_t* p, int64_t n) {
#if MLVM_SIMD_BYTES == 64
  const __m128i b = n == 16 ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(p))
                            : _mm_maskz_loadu_epi8(__mmask16((1u << n) - 1), p);
  return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(b));
#else
  // Fixed-size loads only: a memcpy of n bytes was a libc call per row of 8 channels (with a
  // vzeroupper each), most of the kernel's time on 14- and 7-wide planes. From 4 bytes on, two
  // 4-byte loads that overlap for n < 8 (the bytes they share are the same); below, bytes.
  uint64_t v = 0;
  if (n >= 4) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + n - 4, 4);
    v = uint64_t(lo) | uint64_t(hi) << (8 * (n - 4));
  } else {
    for (int64_t i = 0; i < n; ++i) v |= uint64_t(uint8_t(p[i])) << (8 * i);
  }
  return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_cvtsi64_si128(int64_t(v))));
#endif
}

// row[q·L ..] = blk[q] for q < n (n <= L), as straight-line stores of the registers: written
// as a loop GCC made it a memcpy of the block spilled to the stack (rep movsq), slower here
// (pixel_major_row's f32 rows, whose block is built from loads alone, are not).
template <int Q = 0>
inline void store_first_columns(float* row, const V<float> (&blk)[kLanes<float>], int64_t n) {
  if constexpr (Q < kLanes<float>)
    if (Q < n) {
      store(row + Q * kLanes<float>, blk[Q]);
      store_first_columns<Q + 1>(row, blk, n);
    }
}

// pixel_major_row for i8 planes: lane c of column col is float(src[c·plane + col]) for
// columns [c_lo, c_hi), 0 elsewhere and in lanes past `channels`.
inline void pixel_major_row_i8(float* row, const int8_t* src, int64_t plane, int64_t channels, int64_t cols,
                               int64_t c_lo, int64_t c_hi) {
  constexpr int64_t L = kLanes<float>;
  const V<float> zero(0.f);
  for (int64_t col = 0; col < c_lo; ++col) store(row + col * L, zero);
  for (int64_t col = c_hi; col < cols; ++col) store(row + col * L, zero);
  if (channels == L) {
    for (int64_t col = c_lo; col < c_hi; col += L) {
      const int64_t n = std::min(L, c_hi - col);
      V<float> blk[L];
      for (int64_t c = 0; c < L; ++c) blk[c] = widen_i8(src + c * plane + col, n);
      transpose_block(blk);
      store_first_columns(row + col * L, blk, n);
    }
    return;
  }
  for (int64_t col = c_lo; col < c_hi; ++col)
    for (int64_t c = 0; c < L; ++c) row[col * L + c] = c < channels ? float(src[c * plane + col]) : 0.f;
}

// The strip's pixel-major sums out[p·L + c], p < pixels, as results into y's planes at pixel
// `at` of each: finish(int32(sum) + bias) per pixel register, in place, then transposed and
// stored as kBytes-byte elements for c < channels. A last partial block of pixels is the last
// whole one again (the same values stored twice); a strip of fewer than L pixels goes lane by
// lane. (Finishing each block in registers just before its transpose spilled the block.)
// kIntSums: out holds i32 sums already (depthwise_blocked_pairs.inl), not f32 ones.
template <int kBytes, bool kIntSums = false, class Finish>
void emit_strip(const DepthwiseBlockedI8& a, float* out, int64_t pixels, int64_t at, requant_detail::IV vb,
                Finish finish) {
  namespace r = requant_detail;
  constexpr int64_t L = kLanes<float>;
  const int64_t oplane = a.f.oh * a.f.ow, channels = a.f.channels;
  auto* y = static_cast<std::byte*>(a.y) + at * kBytes;
  auto sums = [&](int64_t p) {
    if constexpr (kIntSums) return r::load(reinterpret_cast<const int32_t*>(out + p * L));
    else return r::truncate(out + p * L);
  };
  for (int64_t p = 0; p < pixels; ++p) store(out + p * L, V<float>(r::as_f32(finish(r::add(sums(p), vb)))));
  if (pixels >= L) {
    for (int64_t p0 = 0; p0 < pixels; p0 += L) {
      const int64_t p = std::min(p0, pixels - L);
      V<float> blk[L];
      for (int64_t k = 0; k < L; ++k) blk[k] = load(out + (p + k) * L);
      transpose_block(blk);
      for (int64_t c = 0; c < channels; ++c) r::store(y + c * oplane * kBytes, p, r::as_i32(blk[c]), kBytes);
    }
    return;
  }
  const auto* v = reinterpret_cast<const int32_t*>(out);
  for (int64_t p = 0; p < pixels; ++p)
    for (int64_t c = 0; c < channels; ++c) {
      const uint32_t u = uint32_t(v[p * L + c]);
      std::memcpy(y + (c * oplane + p) * kBytes, &u, kBytes);  // little-endian: the low bytes
    }
}

// run.template operator()<kBytes>() at a's element size.
template <class Run>
void with_out_bytes(const DepthwiseBlockedI8& a, Run run) {
  if (a.out_bytes == 1) run.template operator()<1>();
  else if (a.out_bytes == 2) run.template operator()<2>();
  else run.template operator()<4>();
}

// run(vb, finish): a's bias as a register of channels and its chain as a function of a
// register of i32 sums plus bias.
template <class Run>
void with_requant(const DepthwiseBlockedI8& a, Run run) {
  namespace r = requant_detail;
  constexpr int64_t L = kLanes<float>;
  const DepthwiseBlocked& f = a.f;
  alignas(64) int32_t bias[L] = {}, mul[L] = {};
  for (int64_t c = 0; c < f.channels; ++c) {
    bias[c] = a.bias ? a.bias[c * f.bias_stride] : 0;
    mul[c] = a.mul_op >= 0 ? a.mul_values[c] : 0;
  }
  const r::IV vb = r::load(bias), vm = r::load(mul);
  // A layer's chain with its multipliers in i16 (requant_vec.inl's LayerChain): every step
  // in registers; any other chain its steps in order, the per-channel one by the lanes.
  const auto layer = a.mul_op == 1 ? r::layer_chain_of(a.ops, a.nops) : std::nullopt;
  if (layer && std::all_of(mul, mul + L, [](int32_t m) { return r::in_i16(m); })) {
    alignas(64) int32_t halves[L];
    for (int64_t c = 0; c < L; ++c) halves[c] = int32_t(uint32_t(mul[c]) & 0xFFFFu);
    const r::IV mh = r::load(halves);  // lanes past the channels 0
    r::with_layer_chain(*layer, [&]<int H, bool W, int T>() {
      const r::LayerChain l = *layer;
      // By value: the chain's splats then leave the loops (stores to the strip cannot alias it).
      run(vb, [l, mh](r::IV v) { return r::layer_register<H, W, T>(l, mh, v); });
    });
    return;
  }
  run(vb, [&](r::IV v) {
    for (int s = 0; s < a.nops; ++s) v = s == a.mul_op ? r::mul(v, vm) : r::any_step(a.ops[s], v);
    return v;
  });
}

void depthwise_blocked_i8(const DepthwiseBlockedI8& a) {
  const int64_t plane = a.f.h * a.f.w;
  auto fill = [&](float* row, int64_t ih, int64_t cols, int64_t c_lo, int64_t c_hi) {
    pixel_major_row_i8(row, a.x + ih * a.f.w - a.f.left, plane, a.f.channels, cols, c_lo, c_hi);
  };
  with_requant(a, [&](requant_detail::IV vb, auto finish) {
    with_out_bytes(a, [&]<int kBytes>() {
      blocked_strips(a.f, fill, [&](float* out, int64_t pixels, int64_t at) {
        emit_strip<kBytes>(a, out, pixels, at, vb, finish);
      });
    });
  });
}
#else
constexpr void (*depthwise_blocked_i8)(const DepthwiseBlockedI8&) = nullptr;
#endif
