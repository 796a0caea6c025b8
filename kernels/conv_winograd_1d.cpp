#include "kernels/conv_winograd_1d.hpp"

#include <algorithm>
#include <array>
#include <memory>
#include <span>
#include <vector>

#include "kernels/fused_activation.hpp"
#include "kernels/gemm.hpp"
#include "kernels/op_api.hpp"
#include "kernels/parallel_items.hpp"
#include "kernels/thread_pool.hpp"
#include "kernels/thread_scratch.hpp"

namespace mlvm {

namespace {

// thread_scratch owner: slot 0 the transformed input, slot 1 the GEMMs' results, slot 2 a
// zero line (the rows above or below the input along H).
struct Winograd1dScratch;

// A band's transformed input and GEMM results together stay within about a third of a 1 MiB
// L2, where the output transform reads the results back.
constexpr int64_t kBandBytes = int64_t(384) << 10;

// One image as `outer` units of `inner` GEMM columns each: along H, the output row pairs
// (tile rows) of ow columns; along W, the rows of ow / 2 tiles. Unit o's column i is GEMM
// column (o - o0)·inner + i of the band starting at unit o0.
struct Units {
  int64_t outer, inner;
};

Units units_of(const Winograd1dConv& a) { return a.along_h ? Units{a.oh / 2, a.ow} : Units{a.oh, a.ow / 2}; }

// Bᵀd of n tiles, tile t's d_j at dj[S·t] (S 1: rows of a column each; 2: along one row).
// Unaliased, so that the loop is vectorized.
template <int S>
void input_tiles(const float* __restrict d0, const float* __restrict d1, const float* __restrict d2,
                 const float* __restrict d3, int64_t n, float* __restrict u0, float* __restrict u1,
                 float* __restrict u2, float* __restrict u3) {
  for (int64_t t = 0; t < n; ++t) {
    u0[t] = d0[S * t] - d2[S * t];
    u1[t] = d1[S * t] + d2[S * t];
    u2[t] = d2[S * t] - d1[S * t];
    u3[t] = d1[S * t] - d3[S * t];
  }
}

// Aᵀm of n tiles, bias b added when has_bias, then clamped to [lo, hi] when kClamp: output s of tile t at
// ys[S·t] (S 1: two rows; 2: y0 and y1 = y0 + 1 interleaved along one row).
template <int S, bool kClamp>
void output_tiles(const float* __restrict m0, const float* __restrict m1, const float* __restrict m2,
                  const float* __restrict m3, int64_t n, bool has_bias, float b, float lo, float hi,
                  float* __restrict y0, float* __restrict y1) {
  auto finish = [&](float v) {
    if (has_bias) v = v + b;
    if constexpr (kClamp) v = v < lo ? lo : v > hi ? hi : v;
    return v;
  };
  for (int64_t t = 0; t < n; ++t) {
    y0[S * t] = finish(m0[t] + m1[t] + m2[t]);
    y1[S * t] = finish(m1[t] - m2[t] - m3[t]);
  }
}

// Input positions of a tile: d_j = x at 2t + j - pad0 along the axis (j = 0..3), zero outside.
// Units [g0, g0 + gb) of the batch (unit g: image g / outer, unit g % outer of it); u + k·(C·cols)
// is Bᵀd's row k, a C x cols matrix (channel c's row at c·cols).
void transform_input(const Winograd1dConv& a, const Units& un, int64_t g0, int64_t gb, float* u, float* line) {
  const int64_t inner = un.inner, cols = gb * inner, ksz = a.c * cols;
  // Along W: tile t reads inputs 2t - pad0 .. 2t + 3 - pad0, all inside the row for t in
  // [t_lo, t_hi) (empty when none is).
  const int64_t t_lo = std::min(inner, (a.pad0 + 1) / 2), last = a.w - 4 + a.pad0;
  const int64_t t_hi = last < 0 ? t_lo : std::clamp(last / 2 + 1, t_lo, inner);
  for (int64_t c = 0; c < a.c; ++c) {
    for (int64_t g = g0; g < g0 + gb; ++g) {
      const int64_t o = g % un.outer;
      const float* xc = a.x + ((g / un.outer) * a.c + c) * a.h * a.w;
      float* u0 = u + c * cols + (g - g0) * inner;
      float* u1 = u0 + ksz;
      float* u2 = u1 + ksz;
      float* u3 = u2 + ksz;
      if (a.along_h) {
        // Input rows 2o + j - pad0; a row outside the input reads the zero line.
        std::array<const float*, 4> d;
        for (int j = 0; j < 4; ++j) {
          const int64_t r = 2 * o + j - a.pad0;
          d[std::size_t(j)] = r >= 0 && r < a.h ? xc + r * a.w : line;
        }
        input_tiles<1>(d[0], d[1], d[2], d[3], inner, u0, u1, u2, u3);
      } else {
        // Row o in place for the tiles whose 4 inputs are all inside it, [t_lo, t_hi); the
        // edge tiles one input at a time. (Through a zero-padded copy of the row, each row's
        // loads waited on the copy's stores: 15% of the model's time.)
        const float* xr = xc + o * a.w;
        for (int64_t t = 0; t < inner; ++t) {
          if (t == t_lo) t = t_hi;
          if (t >= inner) break;
          std::array<float, 4> d;
          for (int j = 0; j < 4; ++j) {
            const int64_t q = 2 * t + j - a.pad0;
            d[std::size_t(j)] = q >= 0 && q < a.w ? xr[q] : 0.0f;
          }
          u0[t] = d[0] - d[2];
          u1[t] = d[1] + d[2];
          u2[t] = d[2] - d[1];
          u3[t] = d[1] - d[3];
        }
        if (t_hi > t_lo) {
          const float* xi = xr + 2 * t_lo - a.pad0;
          input_tiles<2>(xi, xi + 1, xi + 2, xi + 3, t_hi - t_lo, u0 + t_lo, u1 + t_lo, u2 + t_lo, u3 + t_lo);
        }
      }
    }
  }
}

// y from Aᵀ m over units [g0, g0 + gb) (m + k·(OC·cols): position k's GEMM result), then the
// bias and the fused clamp (lo, hi: ±inf for none) as conv2d's GEMM path applies them:
// (sum + bias), then clamped.
void transform_output(const Winograd1dConv& a, const Units& un, int64_t g0, int64_t gb, const float* m, float lo,
                      float hi) {
  const int64_t inner = un.inner, cols = gb * inner, msz = a.oc * cols;
  const bool has_bias = a.bias != nullptr, clamp = lo > -__builtin_inff() || hi < __builtin_inff();
  for (int64_t oc = 0; oc < a.oc; ++oc) {
    const float b = has_bias ? a.bias[oc * a.bias_stride] : 0.0f;
    for (int64_t g = g0; g < g0 + gb; ++g) {
      const int64_t o = g % un.outer;
      float* yo = a.y + ((g / un.outer) * a.oc + oc) * a.oh * a.ow;
      const float* m0 = m + oc * cols + (g - g0) * inner;
      const float* m1 = m0 + msz;
      const float* m2 = m1 + msz;
      const float* m3 = m2 + msz;
      if (a.along_h) {
        float* y0 = yo + 2 * o * a.ow;
        if (clamp) output_tiles<1, true>(m0, m1, m2, m3, inner, has_bias, b, lo, hi, y0, y0 + a.ow);
        else output_tiles<1, false>(m0, m1, m2, m3, inner, has_bias, b, lo, hi, y0, y0 + a.ow);
      } else {
        float* yr = yo + o * a.ow;
        if (clamp) output_tiles<2, true>(m0, m1, m2, m3, inner, has_bias, b, lo, hi, yr, yr + 1);
        else output_tiles<2, false>(m0, m1, m2, m3, inner, has_bias, b, lo, hi, yr, yr + 1);
      }
    }
  }
}

}  // namespace

bool takes_winograd_1d(int64_t c, int64_t oc, int64_t kh, int64_t kw, const ConvParams& p, int64_t oh, int64_t ow) {
  if (p.groups != 1 || p.sh != 1 || p.sw != 1 || p.dh != 1 || p.dw != 1 || c < 16 || oc < 16) return false;
  if (kh == 1 && kw == 3) return p.top == 0 && p.bottom == 0 && ow % 2 == 0 && c * oc >= kWinograd1dMinRowChannels;
  if (kh == 3 && kw == 1) return p.left == 0 && p.right == 0 && oh % 2 == 0 && c * oc >= kWinograd1dMinColumnChannels;
  return false;
}

void conv_winograd_1d(const Winograd1dConv& a, ExecEnv& env) {
  // v + k·(OC·C) = G g's row k: V_k (OC x C), packed once for every band's GEMMs.
  std::vector<float> v(std::size_t(4 * a.oc * a.c));
  const int64_t vsz = a.oc * a.c;
  for (int64_t o = 0; o < a.oc; ++o)
    for (int64_t c = 0; c < a.c; ++c) {
      const float* g = a.filt + (o * a.c + c) * 3;
      const int64_t e = o * a.c + c;
      v[std::size_t(e)] = g[0];
      v[std::size_t(vsz + e)] = (g[0] + g[1] + g[2]) * 0.5f;
      v[std::size_t(2 * vsz + e)] = (g[0] - g[1] + g[2]) * 0.5f;
      v[std::size_t(3 * vsz + e)] = g[2];
    }
  std::array<GemmArgs<float>, 4> va;
  for (int k = 0; k < 4; ++k) {
    va[std::size_t(k)].m = a.oc;
    va[std::size_t(k)].k = a.c;
    va[std::size_t(k)].a = v.data() + k * vsz;
    va[std::size_t(k)].rsa = a.c;
    va[std::size_t(k)].csa = 1;
  }
  const auto packed = gemm_prepack_together<float>(std::span<const GemmArgs<float>>(va), true);
  const std::array<float, 2> bounds = clamp_bounds<float>(a.act);
  const Units un = units_of(a);
  const int64_t most = std::max<int64_t>(1, kBandBytes / std::max<int64_t>(1, 16 * (a.c + a.oc) * un.inner));
  const int64_t line_len = a.w;
  // Units [g0, g0 + gb) through the transforms and the 4 GEMMs, on the calling thread's scratch.
  auto units = [&](int64_t g0, int64_t gb, ThreadPool* inner_pool) {
    const int64_t cols = gb * un.inner;
    float* u = thread_scratch<Winograd1dScratch, float>(0, 4 * a.c * cols);
    float* m = thread_scratch<Winograd1dScratch, float>(1, 4 * a.oc * cols);
    float* line = thread_scratch<Winograd1dScratch, float>(2, line_len);
    std::fill(line, line + line_len, 0.0f);
    transform_input(a, un, g0, gb, u, line);
    for (int k = 0; k < 4; ++k) {
      GemmArgs<float> g = va[std::size_t(k)];
      if (!packed.empty()) g.a_packed = packed[std::size_t(k)].get();
      g.n = cols;
      g.b = u + k * a.c * cols;
      g.rsb = cols;
      g.csb = 1;
      g.c = m + k * a.oc * cols;
      g.ldc = cols;
      gemm(g, inner_pool);
    }
    transform_output(a, un, g0, gb, m, bounds[0], bounds[1]);
  };
  const int64_t plane = a.oc * a.oh * a.ow;
  // Threads take whole items (each on its own scratch) when there are at least two a thread.
  ThreadPool* pool = env.pool;
  auto items = [&](int64_t count, auto&& item) {
    if (pool && count >= 2 * int64_t(pool->size()))
      for_each_item(pool, count, [&](int64_t t) { item(t, nullptr); });
    else
      for (int64_t t = 0; t < count; ++t) item(t, pool);
  };
  if (un.outer <= most) {
    // Small planes: a band is whole images (as many as fit, in groups of equal size), one GEMM
    // column per tile position of each; the fused activation follows each band's images.
    const int64_t groups = (a.n + most / un.outer - 1) / (most / un.outer), size = (a.n + groups - 1) / groups;
    items(groups, [&](int64_t gi, ThreadPool* inner_pool) {
      env.check_cancelled();
      const int64_t i0 = gi * size, ni = std::min(size, a.n - i0);
      if (ni <= 0) return;
      units(i0 * un.outer, ni * un.outer, inner_pool);
      apply_fused_after(a.act, a.y + i0 * plane, ni * plane, inner_pool);
    });
    return;
  }
  // Large planes: an image at a time, in bands of equal size (a last sliver would be a GEMM of
  // few columns), the fused activation after its last band.
  const int64_t bands = (un.outer + most - 1) / most, size = (un.outer + bands - 1) / bands;
  items(a.n, [&](int64_t i, ThreadPool* inner_pool) {
    env.check_cancelled();
    for (int64_t o0 = 0; o0 < un.outer; o0 += size) units(i * un.outer + o0, std::min(size, un.outer - o0), inner_pool);
    apply_fused_after(a.act, a.y + i * plane, plane, inner_pool);
  });
}

}  // namespace mlvm
