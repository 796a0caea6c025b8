#include "kernels/conv_winograd.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "kernels/cancel.hpp"
#include "kernels/fused_activation.hpp"
#include "kernels/gemm.hpp"
#include "kernels/op_api.hpp"
#include "kernels/parallel_items.hpp"
#include "kernels/prepare.hpp"
#include "kernels/simd/cpu_features.hpp"
#include "kernels/simd/winograd.hpp"
#include "kernels/thread_scratch.hpp"
#include "kernels/thread_pool.hpp"
#include "tensor/huge_pages.hpp"

namespace mlvm {

namespace {

// Per-thread scratch floats (kernels/thread_scratch.hpp). Slots: 0 V, 1 M, 2 the filters
// transformed at run time, 3 a transform's work.
struct WinogradScratch;
float* scratch(int slot, int64_t count) { return thread_scratch<WinogradScratch, float>(slot, count); }

// G of F(M x M, 3x3): N x 3, N = M + 2.
template <int M>
struct FilterMatrix;
template <>
struct FilterMatrix<4> {
  static constexpr double g[6][3] = {{1.0 / 4, 0, 0},
                                     {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                     {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                     {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                     {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                     {0, 0, 1}};
};
template <>
struct FilterMatrix<2> {
  static constexpr double g[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
};

// U[ξ][o][i] = (G g Gᵀ)[ξ] for the filter g of output channel o and input channel i, computed
// in double and rounded once. ResNet-18 transforms 800,000 filters when it is planned, so per
// output channel all c filters go at once, input channel innermost: the arithmetic vectorizes
// across filters (each value still summed in the order written here) and each position's
// row U[ξ][o][0..c) is written as one run, where a filter at a time scattered its 36 values
// a plane (up to 1 MB) apart.
template <int M>
void transform_filters_m(const float* w, int64_t oc, int64_t c, float* u) {
  constexpr int n = M + 2;
  constexpr auto& G = FilterMatrix<M>::g;
  const int64_t plane = oc * c;
  std::vector<double> g(std::size_t(9 * c)), t(std::size_t(n * 3 * c));  // g[j][i], (G g)[r][k][i]
  for (int64_t o = 0; o < oc; ++o) {
    const float* wo = w + o * c * 9;
    for (int64_t i = 0; i < c; ++i)
      for (int j = 0; j < 9; ++j) g[std::size_t(j * c + i)] = wo[i * 9 + j];
    for (int r = 0; r < n; ++r)
      for (int k = 0; k < 3; ++k) {
        double* tr = t.data() + (r * 3 + k) * c;
        const double *g0 = g.data() + k * c, *g1 = g.data() + (3 + k) * c, *g2 = g.data() + (6 + k) * c;
        for (int64_t i = 0; i < c; ++i) tr[i] = G[r][0] * g0[i] + G[r][1] * g1[i] + G[r][2] * g2[i];
      }
    for (int r = 0; r < n; ++r) {
      const double *t0 = t.data() + (r * 3) * c, *t1 = t0 + c, *t2 = t1 + c;
      for (int s = 0; s < n; ++s) {
        float* dst = u + (n * r + s) * plane + o * c;
        for (int64_t i = 0; i < c; ++i) dst[i] = float(t0[i] * G[s][0] + t1[i] * G[s][1] + t2[i] * G[s][2]);
      }
    }
  }
}

void transform_filters(const float* w, int64_t oc, int64_t c, int m, float* u) {
  if (m == 4) transform_filters_m<4>(w, oc, c, u);
  else transform_filters_m<2>(w, oc, c, u);
}

// Whether the position GEMMs run transposed, Mᵀ = Vᵀ Uᵀ with the tiles as the GEMM's rows:
// the register tile pads M to whole MR and N to whole NR (8 and 32 at AVX-512), so a plane
// of few tiles (ResNet's 14 x 14 and 7 x 7: 16 or 49) as N wastes up to half of every
// multiply-add, where as M it wastes at most MR - 1 rows. Transposed only when that pads a
// quarter less or better: the transposed GEMM packs V across its rows and its result needs
// a transpose back, which cost more than they saved on 49 tiles (64 columns against 56 rows:
// 14 x 14 by F(2x2), 28 x 28 by F(4x4)), and gained 1.5-2.5x on 16 (7 x 7 by F(2x2)).
// Each element gets the same products in the same order either way (the K blocks depend on
// K alone).
bool swaps_operands(int64_t tiles, int64_t oc) {
  const GemmTileShape t = gemm_tile_shape<float>();
  auto up = [](int64_t v, int64_t r) { return (v + r - 1) / r * r; };
  return 4 * up(tiles, t.mr) * up(oc, t.nr) <= 3 * up(oc, t.mr) * up(tiles, t.nr);
}

int64_t tile_count(int m, int64_t oh, int64_t ow) { return ((oh + m - 1) / m) * ((ow + m - 1) / m); }

}  // namespace

int winograd_tile(int64_t c, int64_t oc, int64_t kh, int64_t kw, const ConvParams& p, int64_t oh, int64_t ow) {
  if (kh != 3 || kw != 3 || p.sh != 1 || p.sw != 1 || p.dh != 1 || p.dw != 1 || p.groups != 1 || c < 16 || oc < 16)
    return 0;
  if (((oh + 3) / 4) * ((ow + 3) / 4) >= 32) return 4;
  if (((oh + 1) / 2) * ((ow + 1) / 2) >= 16) return 2;
  return 0;
}

std::shared_ptr<PackedWeights> winograd_prepare(const float* w, int64_t oc, int64_t c, int m, int64_t oh,
                                               int64_t ow) {
  // Every element is written by the transform: no zero fill first.
  std::unique_ptr<float[]> u(new float[std::size_t(winograd_positions(m) * oc * c)]);
  advise_huge_pages(u.get(), std::size_t(winograd_positions(m) * oc * c) * sizeof(float));
  transform_filters(w, oc, c, m, u.get());
  auto packed = std::make_shared<PackedWeights>();
  packed->winograd_level = int(simd::level());
  packed->winograd_tile = m;
  packed->b_side = swaps_operands(tile_count(m, oh, ow), oc);
  std::vector<GemmArgs<float>> gemms;
  for (int xi = 0; xi < winograd_positions(m); ++xi)
    gemms.push_back(winograd_position_gemm<float>(oc, c, u.get(), xi, packed->b_side, 0, oc));
  packed->parts = gemm_prepack_together<float>(gemms, !packed->b_side);
  if (packed->parts.empty()) return nullptr;
  return packed;
}

namespace {

// The slack past each of M's `rows` rows (ts = tiles + kWinogradSlack apart) is read by the
// output transform (into lanes that are dropped), never written by a GEMM: zeros, stored as
// each position's GEMM finishes, while its rows' ends are still in cache (zeroing all of M
// first, 36·oc rows a cache line each, was a pass over memory of its own).
void zero_slack(float* mm, int64_t rows, int64_t tiles, int64_t ts) {
  for (int64_t row = 0; row < rows; ++row) {
    float* slack = mm + row * ts + tiles;
    for (int64_t j = 0; j < simd::kWinogradSlack; ++j) slack[j] = 0.f;
  }
}

// Position xi's GEMM for output channels [o0, o1): M[xi] = U[xi] V[xi], or with `swap` Mᵀ =
// Vᵀ Uᵀ through this thread's work and transposed back into M. V's and M's rows are ts apart
// (`tiles` used), M holds the channels' rows only, and the filters are the prepared ones when
// `packed` (else u's): for the positions across the pool, one thread's output channels and one
// thread's band of tiles alike.
void position_run(const WinogradConv& a, const float* u, bool packed, bool swap, int xi, int64_t o0, int64_t o1,
                  const float* v, float* mm, int64_t tiles, int64_t ts) {
  GemmArgs<float> g = winograd_position_gemm<float>(a.oc, a.c, u, xi, swap, o0, o1);
  const float* vx = v + xi * a.c * ts;
  float* mx = mm + xi * (o1 - o0) * ts;
  if (!swap) {
    if (packed) g.a_packed = a.prepared->parts[std::size_t(xi)].get();
    g.n = tiles;
    g.b = vx;
    g.rsb = ts;
    g.csb = 1;
    g.c = mx;
    g.ldc = ts;
    gemm(g, nullptr);
    return zero_slack(mx, o1 - o0, tiles, ts);
  }
  if (packed) g.b_packed = a.prepared->parts[std::size_t(xi)].get();
  g.m = tiles;
  g.a = vx;
  g.rsa = 1;
  g.csa = ts;
  float* mt = scratch(3, tiles * g.n);
  g.c = mt;
  g.ldc = g.n;
  gemm(g, nullptr);
  for (int64_t j = 0; j < g.n; j += 16) transpose_columns(mt, tiles, g.n, j, std::min(g.n, j + 16), mx, ts);
  zero_slack(mx, g.n, tiles, ts);
}


// Tile rows [r0, r1) of image n, the whole pipeline on the calling thread in its own scratch
// (V and M of just these tiles): input transform of every channel over the rows' part of the
// plane, the position GEMMs over these tiles, the output transform of their output rows. No
// thread reads what another wrote. Each tile gets the same values as in conv_winograd's
// positions-across-the-pool order (the transforms work tile by tile and the GEMMs column by
// column), so the bits do not depend on the split. Not the transposed GEMMs, nor a fused
// SiLU (its runs would then end at the split; the caller applies it per plane).
void winograd_tile_rows(const WinogradConv& a, int64_t n, int64_t r0, int64_t r1, const float* u, bool packed,
                        const std::array<float, 2>& bounds) {
  const int m = a.m, npos = winograd_positions(m);
  const int64_t tw = (a.ow + m - 1) / m, rows = r1 - r0, tiles = rows * tw;
  const int64_t ts = tiles + simd::kWinogradSlack;
  const simd::WinogradTable& kern = simd::winograd_kernels();
  float* v = scratch(0, npos * a.c * ts);
  float* mm = scratch(1, npos * a.oc * ts);
  // The input rows from the first tile row's on (past the top padding unless r0 is 0).
  const int64_t skip = r0 == 0 ? 0 : r0 * m - a.top, top = r0 == 0 ? a.top : 0;
  for (int64_t i = 0; i < a.c; ++i) {
    poll_cancel();  // each transform of a channel's plane is tens of microseconds; all of them milliseconds
    float* work = scratch(3, simd::winograd_input_work(m, rows, tw));
    kern.input({m, a.x + ((n * a.c + i) * a.h + skip) * a.w, a.h - skip, a.w, top, a.left, rows, tw, v + i * ts,
                a.c * ts, work});
  }
  for (int xi = 0; xi < npos; ++xi) position_run(a, u, packed, false, xi, 0, a.oc, v, mm, tiles, ts);
  const int64_t y0 = r0 * m, oh = std::min(a.oh - y0, rows * m);
  float* yn = a.y + n * a.oc * a.oh * a.ow;
  for (int64_t o = 0; o < a.oc; ++o) {
    poll_cancel();
    float* work = scratch(3, simd::winograd_output_work(m, tw));
    const float b = a.bias ? a.bias[o * a.bias_stride] : 0.f;
    kern.output({m, mm + o * ts, a.oc * ts, rows, tw, oh, a.ow, b, bounds[0], bounds[1],
                 yn + (o * a.oh + y0) * a.ow, work});
  }
}

// Input channel i of image n, transformed into V (rows ts apart) over the whole plane's tiles.
void input_channel(const WinogradConv& a, int64_t n, int64_t i, float* v, int64_t ts) {
  poll_cancel();  // as in winograd_tile_rows
  const int m = a.m;
  const int64_t th = (a.oh + m - 1) / m, tw = (a.ow + m - 1) / m;
  float* work = scratch(3, simd::winograd_input_work(m, th, tw));
  simd::winograd_kernels().input(
      {m, a.x + (n * a.c + i) * a.h * a.w, a.h, a.w, a.top, a.left, th, tw, v + i * ts, a.c * ts, work});
}

// Output channel o of image n from its row of M (positions m_stride apart), with its bias,
// the clamp `bounds` and a fused SiLU.
void output_channel(const WinogradConv& a, int64_t n, int64_t o, const float* mrow, int64_t m_stride,
                    const std::array<float, 2>& bounds) {
  poll_cancel();
  const int m = a.m;
  const int64_t th = (a.oh + m - 1) / m, tw = (a.ow + m - 1) / m;
  float* work = scratch(3, simd::winograd_output_work(m, tw));
  float* y = a.y + (n * a.oc + o) * a.oh * a.ow;
  const float b = a.bias ? a.bias[o * a.bias_stride] : 0.f;
  simd::winograd_kernels().output({m, mrow, m_stride, th, tw, a.oh, a.ow, b, bounds[0], bounds[1], y, work});
  apply_fused_after(a.act, y, a.oh * a.ow);
}

// Output channels [o0, o1) of image n, the whole pipeline on the calling thread in its own
// scratch: the input transform of every channel (each thread computes all of V: a fifth of a
// 28 x 28 layer's time at 1 thread), the position GEMMs of these channels' rows (o0 and o1 at
// whole panels of the packed filters), the output transform of these channels. As in
// winograd_tile_rows no thread reads what another wrote, and each output gets the same values
// whatever the split (a GEMM's element does not depend on the other rows or columns of its
// tile).
void winograd_channels(const WinogradConv& a, int64_t n, int64_t o0, int64_t o1, const float* u, bool packed,
                       bool swap, const std::array<float, 2>& bounds) {
  const int npos = winograd_positions(a.m);
  const int64_t tiles = tile_count(a.m, a.oh, a.ow), ts = tiles + simd::kWinogradSlack;
  float* mm = scratch(1, npos * (o1 - o0) * ts);
  float* v = scratch(0, npos * a.c * ts);
  for (int64_t i = 0; i < a.c; ++i) input_channel(a, n, i, v, ts);
  for (int xi = 0; xi < npos; ++xi) position_run(a, u, packed, swap, xi, o0, o1, v, mm, tiles, ts);
  for (int64_t o = o0; o < o1; ++o) output_channel(a, n, o, mm + (o - o0) * ts, (o1 - o0) * ts, bounds);
}

// Filters this large are read from memory by every thread of a tile-row split; beyond it the
// positions or the output channels are split across the pool (ResNet's 128-512-channel
// layers: 2.4-16 MB).
constexpr int64_t kTileSplitMaxFilterBytes = int64_t(1) << 20;

// V and M of one band of tile rows at most (about): half of a 1 MB L2.
constexpr int64_t kBandBytes = int64_t(512) << 10;
// Register tiles of columns (tiles) one band's position GEMMs take at least: 96 tiles at
// AVX2, 192 at AVX-512, where two bands of a 56 x 56 plane's 196 tiles were slower than one.
constexpr int64_t kBandMinPanels = 6;

}  // namespace

void conv_winograd(const WinogradConv& a, ExecEnv& env) {
  const int m = a.m, npos = winograd_positions(m);
  const int64_t th = (a.oh + m - 1) / m, tw = (a.ow + m - 1) / m, tiles = th * tw;
  const int64_t ts = tiles + simd::kWinogradSlack;  // row stride of V and M
  // The prepared filters when they were packed at this level for this tile (then the GEMM
  // takes them as they are), else transformed here for the GEMM to pack.
  const bool swap = swaps_operands(tiles, a.oc);
  const bool packed = a.prepared && a.prepared->winograd_level == int(simd::level()) &&
                      a.prepared->winograd_tile == m && a.prepared->b_side == swap &&
                      int64_t(a.prepared->parts.size()) == npos;
  float* u = nullptr;
  if (!packed) {
    u = scratch(2, npos * a.oc * a.c);
    transform_filters(a.filt, a.oc, a.c, m, u);
  }
  const std::array<float, 2> bounds = clamp_bounds<float>(a.act);
  // Bands of tile rows, each through the whole pipeline on one thread (winograd_tile_rows):
  // one band's V and M (npos·(c + oc) floats a tile) stay in L2, where all of a 56 x 56
  // layer's (4 MB at 64 channels) went through memory twice. With threads, no thread reads
  // what another wrote: on a 2-core VM whose host from time to time runs the two threads on
  // cores that share no cache (a 370 ns cache-line round trip between them instead of 90),
  // V and M exchanged between threads go through memory (split by position, SqueezeNet's
  // 55 x 55 layers took 1.7x their 1-thread time). Only with small filters, which every band
  // reads again.
  const int64_t threads = env.pool ? env.pool->size() : 1;
  const int64_t filter_bytes = npos * a.oc * a.c * int64_t(sizeof(float));
  const int64_t row_bytes = npos * (a.c + a.oc) * tw * int64_t(sizeof(float));
  const int64_t min_tiles = kBandMinPanels * gemm_tile_shape<float>().nr;
  // At least a band a thread, and two tile rows a band.
  const int64_t bands = std::min(
      std::max(std::min((th * row_bytes + kBandBytes - 1) / kBandBytes, tiles / min_tiles), threads), th / 2);
  if (bands > 1 && bands >= threads && !swap && a.top <= m && filter_bytes <= kTileSplitMaxFilterBytes) {
    for (int64_t n = 0; n < a.n; ++n) {
      env.check_cancelled();
      for_each_item(env.pool, bands, [&](int64_t t) {
        winograd_tile_rows(a, n, th * t / bands, th * (t + 1) / bands, u, packed, bounds);
      });
      float* yn = a.y + n * a.oc * a.oh * a.ow;
      if (applied_after(a.act))
        for_each_item(env.pool, a.oc, [&](int64_t o) { apply_fused_after(a.act, yn + o * a.oh * a.ow, a.oh * a.ow); });
    }
    return;
  }
  // Else, while the pool's threads run on cores that share no cache (ThreadPool::far_apart),
  // each thread takes whole panels of output channels through the whole pipeline
  // (winograd_channels), computing all of V itself, so that V and M never cross between
  // cores: 2-thread ResNet-18 9.85 ms instead of 11.0 there, but 8.0 instead of 7.3 on cores
  // that share a cache, where the positions stay split. 1 thread takes all the channels.
  const GemmTileShape shape = gemm_tile_shape<float>();
  const int64_t height = swap ? shape.nr : shape.mr, panels = (a.oc + height - 1) / height;
  if (threads == 1 || (panels >= threads && env.pool->far_apart())) {
    for (int64_t n = 0; n < a.n; ++n) {
      env.check_cancelled();
      for_each_item(env.pool, threads, [&](int64_t t) {
        const int64_t o0 = panels * t / threads * height, o1 = std::min(a.oc, panels * (t + 1) / threads * height);
        winograd_channels(a, n, o0, o1, u, packed, swap, bounds);
      });
    }
    return;
  }
  // Else the positions are split across the pool, V and M shared.
  float* v = scratch(0, npos * a.c * ts);
  float* mm = scratch(1, npos * a.oc * ts);
  for (int64_t n = 0; n < a.n; ++n) {
    env.check_cancelled();
    for_each_item(env.pool, a.c, [&](int64_t i) { input_channel(a, n, i, v, ts); });
    // The GEMMs each on one thread, the positions across the pool: every output element is
    // summed the same way whatever the thread count.
    for_each_item(env.pool, npos,
                  [&](int64_t xi) { position_run(a, u, packed, swap, int(xi), 0, a.oc, v, mm, tiles, ts); });
    for_each_item(env.pool, a.oc, [&](int64_t o) { output_channel(a, n, o, mm + o * ts, a.oc * ts, bounds); });
  }
}

}  // namespace mlvm
