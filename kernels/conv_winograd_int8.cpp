#include "kernels/conv_winograd_int8.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "kernels/cancel.hpp"
#include "kernels/conv_winograd.hpp"
#include "kernels/gemm.hpp"
#include "kernels/op_api.hpp"
#include "kernels/parallel_items.hpp"
#include "kernels/prepare.hpp"
#include "kernels/simd/cpu_features.hpp"
#include "kernels/simd/gemm_kernels.hpp"
#include "kernels/simd/winograd_int.hpp"
#include "kernels/thread_pool.hpp"
#include "kernels/thread_scratch.hpp"

namespace mlvm {

namespace {

using namespace conv_detail;

// Per-thread scratch (kernels/thread_scratch.hpp). i16 slots: 0 V, 1 the input transform's
// work, 2 the filters transformed at run time; i32 slots: 0 M, 1 a band's outputs before their
// requantization; char slot 0: those filters packed.
struct WinogradInt8Scratch;
template <class E>
E* scratch(int slot, int64_t count) {
  return thread_scratch<WinogradInt8Scratch, E>(slot, count);
}

// G' = diag(s) G of F(M x M, 3x3) (kernels/simd/winograd_int.hpp) over a column of 3 filter
// values: t[r] = Σ_a G'[r][a] · g_a, G' rows (1, 0, 0), (-1, -1, -1), (-1, 1, -1), (1, 2, 4),
// (1, -2, 4), (0, 0, 1) for F(4x4), (1, 0, 0), (1, 1, 1), (1, -1, 1), (0, 0, 1) for F(2x2).
// |t| <= 7 · 128 after one pass and 49 · 128 after two: exact in i16.
template <int M, class R>
inline void filter_column(R a, R b, R d, R (&t)[M + 2]) {
  if constexpr (M == 4) {
    t[0] = a;
    t[1] = R(-(a + b + d));
    t[2] = R(b - a - d);
    t[3] = R(a + 2 * b + 4 * d);
    t[4] = R(a - 2 * b + 4 * d);
    t[5] = d;
  } else {
    t[0] = a;
    t[1] = R(a + b + d);
    t[2] = R(a - b + d);
    t[3] = d;
  }
}

// GCC's vector extension: 8 lanes at the baseline's SSE2. The compiler's own vectorizer does
// not take this loop at -O2 (its trip count is c), and it ran one filter at a time, a sixth
// of an i8 Winograd convolution whose filters are inputs.
using I16x8 = int16_t __attribute__((vector_size(16)));

// filter_column for c filters at once: t[r·stride + i] from g0[i], g1[i], g2[i].
template <int M>
void filter_1d(const int16_t* g0, const int16_t* g1, const int16_t* g2, int16_t* t, int64_t stride, int64_t c) {
  int64_t i = 0;
  for (; i + 8 <= c; i += 8) {
    I16x8 a, b, d, r[M + 2];
    std::memcpy(&a, g0 + i, sizeof a);
    std::memcpy(&b, g1 + i, sizeof b);
    std::memcpy(&d, g2 + i, sizeof d);
    filter_column<M>(a, b, d, r);
    for (int k = 0; k < M + 2; ++k) std::memcpy(t + k * stride + i, &r[k], sizeof r[k]);
  }
  for (; i < c; ++i) {
    int16_t r[M + 2];
    filter_column<M>(g0[i], g1[i], g2[i], r);
    for (int k = 0; k < M + 2; ++k) t[k * stride + i] = r[k];
  }
}

// U'[ξ][o][i] = (G' g G'ᵀ)[ξ] for the filter g of output channel o and input channel i. Per
// output channel all c filters at once, input channel innermost, so the arithmetic vectorizes
// across filters (as transform_filters_m in conv_winograd.cpp).
template <int M>
void transform_filters(const int8_t* w, int64_t oc, int64_t c, int16_t* u) {
  constexpr int n = M + 2;
  const int64_t plane = oc * c;
  // g[j][i]: tap j of every filter; t[k][r][i]: (G' g)[r][k].
  std::vector<int16_t> g(std::size_t(9 * c)), t(std::size_t(3 * n * c));
  for (int64_t o = 0; o < oc; ++o) {
    const int8_t* wo = w + o * c * 9;
    for (int64_t i = 0; i < c; ++i)
      for (int j = 0; j < 9; ++j) g[std::size_t(j * c + i)] = wo[i * 9 + j];
    for (int k = 0; k < 3; ++k)
      filter_1d<M>(g.data() + k * c, g.data() + (3 + k) * c, g.data() + (6 + k) * c, t.data() + k * n * c, c, c);
    for (int r = 0; r < n; ++r)
      filter_1d<M>(t.data() + r * c, t.data() + (n + r) * c, t.data() + (2 * n + r) * c, u + n * r * plane + o * c,
                   plane, c);
  }
}

// The power of two in L² (4 = 2^2, 576 = 2^6 · 9): the outputs are exact within ±2^(31 - k).
int shifted_bits(int m) { return m == 4 ? 6 : 2; }

// Whether every output channel's sum stays exact: Σ|w| · 128 < 2^(31 - k).
bool sums_in_range(const int8_t* w, int64_t oc, int64_t c, int m) {
  const int64_t limit = (int64_t(1) << (31 - shifted_bits(m))) / 128;
  for (int64_t o = 0; o < oc; ++o) {
    int64_t sum = 0;
    for (int64_t e = 0; e < c * 9; ++e) sum += std::abs(int(w[o * c * 9 + e]));
    if (sum >= limit) return false;
  }
  return true;
}

int64_t tile_count(int64_t m, int64_t extent) { return (extent + m - 1) / m; }

// V and M of one band of tile rows at most (about): half of a 1 MB L2, and register tiles of
// columns (tiles) a band's GEMMs take at least. Twice the float path's minimum
// (conv_winograd.cpp): each position GEMM has a fixed cost (its plan, A's panels, the last
// partial B panel) that the i16 products, at twice the float rate, repay over twice the tiles.
// A 56 x 56 plane (196 tiles) is then one band, not two.
constexpr int64_t kBandBytes = int64_t(512) << 10;
constexpr int64_t kBandMinPanels = 12;

using Parts = std::vector<std::shared_ptr<const PackedOperand>>;

// The filters transformed (into u, npos·oc·c) and packed for the position GEMMs: into their
// own memory, or with `buffer` into the calling thread's scratch (gemm_prepack_together).
Parts pack_filters(const int8_t* w, int64_t oc, int64_t c, int m, int16_t* u, char* (*buffer)(int64_t)) {
  if (m == 4) transform_filters<4>(w, oc, c, u);
  else transform_filters<2>(w, oc, c, u);
  std::vector<GemmArgs<int16_t>> gemms;
  for (int xi = 0; xi < winograd_positions(m); ++xi)
    gemms.push_back(winograd_position_gemm<int16_t>(oc, c, u, xi, false, 0, oc));
  return gemm_prepack_together<int16_t>(gemms, true, buffer);
}

char* packing_scratch(int64_t bytes) { return scratch<char>(0, bytes); }

// Tile rows [r0, r1) of image n through the whole pipeline on the calling thread, in its own
// scratch, with the packed filters `parts`: every channel's input transform, the position
// GEMMs, the output transform with the bias, and the fused requantization of the band's rows.
// The results are exact, so the split does not change a bit.
void winograd_band(const ConvShape& s, const ConvParams& p, const ConvData<int8_t>& d, const Parts& parts, int m,
                   int64_t n, int64_t r0, int64_t r1) {
  const int npos = winograd_positions(m);
  const int64_t tw = tile_count(m, s.ow), rows = r1 - r0, tiles = rows * tw;
  const int64_t ts = tiles + simd::kWinogradIntSlack;  // row stride of V and M
  const simd::WinogradIntTable& kern = simd::winograd_int_kernels();
  int16_t* v = scratch<int16_t>(0, npos * s.c * ts);
  int32_t* mm = scratch<int32_t>(0, npos * s.oc * ts);
  // The band's first padded input row is r0·m: that many input rows in, or padding still.
  const int64_t first = r0 * m - p.top;
  const int64_t skip = std::clamp<int64_t>(first, 0, s.h), top = std::max<int64_t>(-first, 0);
  for (int64_t i = 0; i < s.c; ++i) {
    poll_cancel();  // a channel's transform is microseconds; all of them a millisecond or more
    int16_t* work = scratch<int16_t>(1, simd::winograd_int_input_work(m, rows, tw));
    kern.input({m, d.x + ((n * s.c + i) * s.h + skip) * s.w, s.h - skip, s.w, top, p.left, rows, tw, v + i * ts,
                s.c * ts, work});
  }
  for (int xi = 0; xi < npos; ++xi) {
    GemmArgs<int16_t> g = winograd_position_gemm<int16_t>(s.oc, s.c, nullptr, xi, false, 0, s.oc);
    g.n = tiles;
    g.a_packed = parts[std::size_t(xi)].get();
    g.b = v + xi * s.c * ts;
    g.rsb = ts;
    g.csb = 1;
    g.c = mm + xi * s.oc * ts;
    g.ldc = ts;
    // The output transform reads up to a register past the last tile of each row, into lanes
    // it drops: integers, so whatever the scratch held there does no harm (the float path
    // zeroes its slack against NaNs and subnormals).
    gemm(g, nullptr);
  }
  const int64_t y0 = r0 * m, oh = std::min(s.oh - y0, rows * m), plane = s.oh * s.ow;
  // Into y when it takes the accumulators as they are, else into scratch for the requantization.
  const bool direct = d.y && !d.rq;
  int32_t* out = direct ? d.y + n * s.oc * plane + y0 * s.ow : scratch<int32_t>(1, s.oc * oh * s.ow);
  const int64_t out_stride = direct ? plane : oh * s.ow;
  for (int64_t o = 0; o < s.oc; ++o) {
    poll_cancel();
    const int32_t bias = d.bias ? d.bias[o * d.bias_stride] : 0;
    kern.output({m, mm + o * ts, s.oc * ts, rows, tw, oh, s.ow, bias, out + o * out_stride});
  }
  if (!direct) requant_rows_into(d, out, n * s.oc * plane + y0 * s.ow, oh * s.ow, s.oc, 0, plane);
}

}  // namespace

int winograd_int8_tile(int64_t c, int64_t oc, int64_t kh, int64_t kw, const ConvParams& p, int64_t oh, int64_t ow) {
  if (simd::gemm_kernels().u8s8_quads.fn) return 0;
  return winograd_tile(c, oc, kh, kw, p, oh, ow);
}

std::shared_ptr<PackedWeights> winograd_int8_prepare(const int8_t* w, int64_t oc, int64_t c, int m) {
  if (!sums_in_range(w, oc, c, m)) return nullptr;
  // Every element is written by the transform: no zero fill first.
  std::unique_ptr<int16_t[]> u(new int16_t[std::size_t(winograd_positions(m) * oc * c)]);
  auto packed = std::make_shared<PackedWeights>();
  packed->winograd_level = int(simd::level());
  packed->winograd_tile = m;
  packed->parts = pack_filters(w, oc, c, m, u.get(), nullptr);
  if (packed->parts.empty()) return nullptr;
  return packed;
}

namespace conv_detail {

bool conv_winograd_int8(const ConvShape& s, const ConvParams& p, ConvData<int8_t>& d, ExecEnv& env) {
  const int m = winograd_int8_tile(s.c, s.oc, s.kh, s.kw, p, s.oh, s.ow);
  const PackedWeights* pw = d.packed;
  const bool prepared = pw && pw->winograd_level >= 0;
  const bool use_prepared = prepared && m && pw->winograd_level == int(simd::level()) && pw->winograd_tile == m &&
                            int64_t(pw->parts.size()) == winograd_positions(m);
  if (prepared && !use_prepared) d.packed = nullptr;
  // Weights packed for the GEMM stay with it: the prepared filters' sums were out of range.
  if (m == 0 || (d.packed && !use_prepared)) return false;
  // Else the filters are transformed and packed here, once, for every band to read.
  Parts run_parts;
  if (!use_prepared) {
    if (!sums_in_range(d.w, s.oc, s.c, m)) return false;
    int16_t* u = scratch<int16_t>(2, winograd_positions(m) * s.oc * s.c);
    run_parts = pack_filters(d.w, s.oc, s.c, m, u, packing_scratch);
    if (run_parts.empty()) return false;
  }
  const Parts& parts = use_prepared ? pw->parts : run_parts;
  const int64_t th = tile_count(m, s.oh), tw = tile_count(m, s.ow);
  const int64_t threads = env.pool ? env.pool->size() : 1;
  const int64_t row_bytes = winograd_positions(m) * (s.c * 2 + s.oc * 4) * tw;
  const int64_t min_tiles = kBandMinPanels * gemm_tile_shape<int16_t>().nr;
  // Bands of whole tile rows, at least one a thread (of rows enough) per image.
  int64_t bands = std::min((th * row_bytes + kBandBytes - 1) / kBandBytes, th * tw / min_tiles);
  bands = std::clamp<int64_t>(std::max(bands, threads), 1, th);
  for_each_item(env.pool, s.n * bands, [&](int64_t t) {
    const int64_t n = t / bands, b = t % bands;
    winograd_band(s, p, d, parts, m, n, th * b / bands, th * (b + 1) / bands);
  });
  return true;
}

}  // namespace conv_detail
}  // namespace mlvm
