// conv2d (NCHW) over the blocked GEMM core, per (image, group):
// y[n, g] (OCg x OH·OW) = w[g] (OCg x Cg·KH·KW) · col (Cg·KH·KW x OH·OW) + b, where col is the
// im2col matrix of x[n, g]. col is never built: the GEMM packs its B panels straight from the
// zero-padded input split by stride phase (conv_group_implicit), where every column of col
// is a unit-stride run — or, at stride 1 where the level can (i8 with VNNI), straight from the
// unpadded input seen as a window (kernels/simd/conv_window.hpp), the padding masked off and
// the output rows written in place. One input channel per group (depthwise) has direct kernels
// (kernels/simd/conv_depthwise.hpp): f32 with one output per input channel a register of
// channels at a time (conv_depthwise_blocked), other floats over the same phase planes. A 3x3
// stride-1 convolution with enough channels and tiles runs as Winograd (f32:
// kernels/conv_winograd.hpp; i8: conv_winograd_int8.hpp), an f32 3x1 or 1x3 one as 1-D
// Winograd (conv_winograd_1d.hpp). A relu or clip the planner fused into the convolution
// (kernels/fused_activation.hpp) is applied as each tile of output is stored; a silu as each
// plane or group block is finished. The static rule is in ir/infer_conv.cpp; the rules it
// shares with the kernel, ir/nn_rules.hpp.
#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <type_traits>
#include <vector>

#include "ir/nn_rules.hpp"
#include "kernels/conv_data.hpp"
#include "kernels/conv_phases.hpp"
#include "kernels/conv_stacked.hpp"
#include "kernels/conv_winograd.hpp"
#include "kernels/conv_winograd_1d.hpp"
#include "kernels/conv_winograd_int8.hpp"
#include "kernels/depthwise_exact.hpp"
#include "kernels/fused_activation.hpp"
#include "kernels/gemm.hpp"
#include "kernels/parallel_items.hpp"
#include "kernels/prepare.hpp"
#include "kernels/run_table.hpp"
#include "kernels/run_time_type.hpp"
#include "kernels/simd/conv_depthwise.hpp"
#include "kernels/simd/gemm_pack.hpp"
#include "kernels/thread_scratch.hpp"
#include "kernels/thread_pool.hpp"
#include "tensor/copy.hpp"

namespace mlvm {

namespace {

using namespace conv_detail;

// Per-thread scratch (kernels/thread_scratch.hpp): 0 the padded input or planes, 1 the GEMM's result.
struct ConvScratch;
template <class E>
E* conv_scratch(int slot, int64_t count) {
  return thread_scratch<ConvScratch, E>(slot, count);
}

// Group g's GEMM over phase planes: w[g] (OCg x Cg·KH·KW) times the taps of `planes` at
// `koff`, `n` columns into c (rows ldc apart), with the bias per row and the fused clamp.
template <class T>
GemmArgs<T> planes_gemm(const ConvShape& s, const ConvData<T>& d, int64_t g, const T* planes, const int64_t* koff,
                        int64_t n, gemm_out_t<T>* c, int64_t ldc, const gemm_out_t<T>* clamp) {
  const int64_t kg = s.cg * s.kh * s.kw;
  GemmArgs<T> a;
  a.m = s.ocg;
  a.n = n;
  a.k = kg;
  a.a = d.w + g * s.ocg * kg;
  a.rsa = kg;
  a.csa = 1;
  if (d.packed && !d.packed->b_side) a.a_packed = packed_a(d, g, a);
  a.b = planes;
  a.b_without_min = d.x_without_min;  // the planes are x and zeros
  a.b_nonnegative = d.x_nonnegative;
  a.b_row_offsets = koff;
  a.csb = 1;
  a.c = c;
  a.ldc = ldc;
  if (d.bias) {
    a.bias = d.bias + g * s.ocg * d.bias_stride;
    a.bias_stride = d.bias_stride;
    a.bias_per_row = true;
  }
  a.clamp = clamp;
  return a;
}

// A stem's column-shifted planes band by band: the planes of `rows` output rows (and the tap
// rows below them) are built, their GEMM writes those rows of y, and the next band reuses the
// same scratch while it is in L2. The whole planes were ~0.9 MB for a 3 x 224² input with a 3x3
// window (4 MB with ResNet's 7x7), written and read back once more per run; a band is a
// tenth of that. Per element the same sum as one GEMM over all rows (the k blocking does not
// depend on N). False when one band would hold every row (conv_group_implicit goes on).
template <class T>
bool conv_stem_bands(const ConvShape& s, const ConvParams& p, const PhaseLayout& l, const ConvData<T>& d, int64_t n,
                     int64_t g, ThreadPool* pool) {
  using Out = gemm_out_t<T>;
  const int64_t halo = (s.kh - 1) * p.dh / p.sh;  // plane rows below a band's last output row
  const int64_t per_row = (int64_t(l.rows.size() * l.cols.size()) * s.cg + s.ocg) * l.wq * int64_t(sizeof(T));
  const int64_t rows = std::max<int64_t>(4, (int64_t(256) << 10) / std::max<int64_t>(1, per_row));
  if (rows >= s.oh) return false;
  const int64_t bands = (s.oh + rows - 1) / rows;
  const T* xg = d.x + (n * s.c + g * s.cg) * s.h * s.w;
  Out* yg = d.y + (n * s.oc + g * s.ocg) * s.oh * s.ow;
  std::array<Out, 2> bounds{};
  const Out* clamp = fused_clamp(d, bounds);
  auto band = [&](int64_t bi, ThreadPool* inner) {
    const int64_t r0 = bi * rows, nr = std::min(rows, s.oh - r0);
    PhaseLayout lb = l;
    lb.hq = nr + halo;
    T* buf = conv_scratch<T>(0, int64_t(lb.size(s.cg)));
    build_phases(xg, s, p, lb, buf, inner, r0);
    const std::vector<int64_t> koff = tap_offsets(s, p, lb, s.cg);
    gemm(planes_gemm(s, d, g, buf, koff.data(), nr * s.ow, yg + r0 * s.ow, s.oh * s.ow, clamp), inner);
  };
  // With at least two bands a thread, threads take whole bands (each on its own scratch).
  if (pool && bands >= 2 * int64_t(pool->size()))
    for_each_item(pool, bands, [&](int64_t bi) { band(bi, nullptr); });
  else
    for (int64_t bi = 0; bi < bands; ++bi) band(bi, pool);
  if constexpr (std::is_same_v<T, float>) apply_fused_after(d.act, yg, s.ocg * s.oh * s.ow, pool);
  return true;
}

// The output rows of one (image, group) in blocks whose result (ocg x rows·width, `width` a
// wide row's columns) stays in L2: f(r0, rows, out, inner) computes rows [r0, r0 + rows) into
// the thread's scratch `out` and moves them to y while they are there. With at least two
// blocks a thread, threads take whole blocks (each its own GEMM on its own scratch) rather than
// splitting every block's small GEMM. Per element the same sum as one GEMM over all rows (the k
// blocking does not depend on N).
template <class T, class F>
void for_row_blocks(const ConvShape& s, int64_t width, ThreadPool* pool, F&& f) {
  using Out = gemm_out_t<T>;
  const int64_t most_rows =
      std::clamp<int64_t>((int64_t(256) << 10) / int64_t(sizeof(Out)) / std::max<int64_t>(1, s.ocg * width), 1, s.oh);
  int64_t blocks = (s.oh + most_rows - 1) / most_rows;
  // With threads, at least two blocks each where a block keeps four register tiles of columns:
  // the threads then also move (or requantize) their own blocks into y, which a block GEMM
  // split across them left to one thread.
  if (const int64_t want = pool ? 2 * int64_t(pool->size()) : 0;
      blocks < want && s.oh >= want && s.oh / want * width >= 4 * gemm_tile_shape<T>().nr)
    blocks = want;
  // Blocks of equal height: a last sliver of a block (2 rows of 56²'s 18-row blocks) is a
  // GEMM of few columns paying the whole set-up.
  const int64_t block_rows = (s.oh + blocks - 1) / blocks;
  blocks = (s.oh + block_rows - 1) / block_rows;
  auto block = [&](int64_t bi, ThreadPool* inner) {
    Out* out = conv_scratch<Out>(1, s.ocg * block_rows * width);
    const int64_t r0 = bi * block_rows;
    f(r0, std::min(block_rows, s.oh - r0), out, inner);
  };
  if (pool && blocks >= 2 * int64_t(pool->size()))
    for_each_item(pool, blocks, [&](int64_t bi) { block(bi, nullptr); });
  else
    for (int64_t bi = 0; bi < blocks; ++bi) block(bi, pool);
}

// One (image, group) as an implicit GEMM over the phase planes: with output pixels numbered
// j = oh·wq + ow (a "wide" output row of wq columns), the im2col element for k = (c, i, j')
// is planes[koff(k) + j], where koff(k) picks the phase of tap (i, j') and the tap's offset
// inside it, so the GEMM packs B straight from the planes and no im2col matrix is written.
// The columns ow >= OW of each wide row are computed and dropped (wq - OW of every wq, e.g.
// 2 of 58 for 3x3 pad 1 on 56x56, 3 of 115 for ResNet's 7x7 stride-2 stem).
template <class T>
void conv_group_implicit(const ConvShape& s, const ConvParams& p, const ConvData<T>& d, int64_t n, int64_t g,
                         ThreadPool* pool) {
  using Out = gemm_out_t<T>;
  const PhaseLayout l = implicit_layout(s, p);
  const int64_t kg = s.cg * s.kh * s.kw;
  const T* xg = d.x + (n * s.c + g * s.cg) * s.h * s.w;
  // Stride 1 and no padding: the input is its own only phase. Not a column-shifted layout,
  // whose planes are as wide as the output: with left + right = KW - 1 that width is the
  // input's, but the planes still hold padding and shifted columns the input does not.
  const bool as_is = p.sh == 1 && p.sw == 1 && unpadded(p) && !l.shifted;
  const int64_t y0 = (n * s.oc + g * s.ocg) * s.oh * s.ow;  // the group's first output element
  Out* yg = d.y ? d.y + y0 : nullptr;                        // null: a narrowing requantization
  std::array<Out, 2> bounds{};
  const Out* clamp = fused_clamp(d, bounds);
  // Stride 1 with padding or wide rows, where the level packs B from a window over the
  // unpadded input (i8 with VNNI): no planes, and the GEMM writes y's rows directly. (Integers
  // only: a float window packer would need the fused SiLU applied here too, as below.)
  if (p.sh == 1 && p.sw == 1 && !(as_is && l.wq == s.ow) && gemm_reads_windows<T>()) {
    const simd::ConvWindow win{s.h, s.w, s.kh, s.kw, p.dh, p.dw, p.top, p.left, s.ow};
    GemmArgs<T> a = planes_gemm(s, d, g, xg, nullptr, s.oh * s.ow, yg, s.oh * s.ow, clamp);
    a.b_window = &win;
    if (!d.rq) return gemm(a, pool);
    // Requantized: output rows in blocks through an L2 scratch, each block's window the
    // same one moved down (its top r0 rows higher), requantized into y while it is in cache.
    return for_row_blocks<T>(s, s.ow, pool, [&](int64_t r0, int64_t rows, Out* out, ThreadPool* inner) {
      simd::ConvWindow wb = win;
      wb.top = win.top - r0;
      GemmArgs<T> b = a;
      b.b_window = &wb;
      b.n = rows * s.ow;
      b.c = out;
      b.ldc = b.n;
      gemm(b, inner);
      requant_rows_into(d, out, y0 + r0 * s.ow, b.n, s.ocg, g * s.ocg, s.oh * s.ow);
    });
  }
  if (l.shifted && !d.rq && conv_stem_bands(s, p, l, d, n, g, pool)) return;
  const T* planes = xg;
  if (!as_is) {
    T* buf = conv_scratch<T>(0, int64_t(l.size(s.cg)));
    build_phases(xg, s, p, l, buf, pool);
    planes = buf;
  }
  const std::vector<int64_t> koff = tap_offsets(s, p, l, s.cg);
  const int64_t wide_n = (s.oh - 1) * l.wq + s.ow;
  const bool direct_out = l.wq == s.ow && !d.rq;  // the wide rows are the output rows
  if constexpr (std::is_floating_point_v<T>) {
    if (swaps_operands(true, s.kh, s.kw, p, s.ocg, s.oh, s.ow) && direct_out && (!d.packed || d.packed->b_side)) {
      // yᵀ (pixels x channels) = planesᵀ · wᵀ: A element (pixel i, channel k) is
      // planes[koff[k] + i], B element (k, channel o) is w[o·kg + k].
      const int64_t pixels = s.oh * s.ow;
      GemmArgs<T> t;
      t.m = pixels;
      t.n = s.ocg;
      t.k = kg;
      t.a = planes;
      t.rsa = 1;
      t.csa = kg > 1 ? koff[1] - koff[0] : 1;
      t.b = d.w + g * s.ocg * kg;
      t.rsb = 1;
      t.csb = kg;
      if (d.packed) t.b_packed = d.packed->parts[std::size_t(g)].get();
      Out* out = conv_scratch<Out>(1, pixels * s.ocg);
      t.c = out;
      t.ldc = s.ocg;
      if (d.bias) {
        t.bias = d.bias + g * s.ocg * d.bias_stride;
        t.bias_stride = d.bias_stride;
      }
      t.clamp = clamp;
      gemm(t, pool);
      // Back to channel planes, 16 channels at a time (the pool's threads share the groups):
      // each read a run, each written plane line kept in cache across the pixels.
      for_each_item(s.ocg * pixels >= 16384 ? pool : nullptr, (s.ocg + 15) / 16, [&](int64_t blk) {
        transpose_columns(out, pixels, s.ocg, blk * 16, std::min(s.ocg, blk * 16 + 16), yg, pixels);
      });
      if constexpr (std::is_same_v<T, float>) apply_fused_after(d.act, yg, s.ocg * pixels, pool);
      return;
    }
  }
  const GemmArgs<T> a = planes_gemm(s, d, g, planes, koff.data(), wide_n, yg, wide_n, clamp);
  if (direct_out) {
    gemm(a, pool);
  } else {
    // Output rows in blocks whose wide result (ocg x rows·wq) stays in L2, each block one
    // GEMM, copied to y while it is there. Output row r0 + r is wide row r of the planes
    // moved down r0 rows (every phase plane is wq wide). Per element the same sum as one GEMM
    // over all rows: the k blocking does not depend on N. A fused requantization is applied
    // to the block in place first (the wide rows' extra columns too, which are dropped).
    const auto copy_rows = simd::conv_row_kernels().copy_rows_4;
    for_row_blocks<T>(s, l.wq, pool, [&](int64_t r0, int64_t rows, Out* out, ThreadPool* inner) {
      const int64_t wide = (rows - 1) * l.wq + s.ow;
      GemmArgs<T> b = a;
      b.b = planes + r0 * l.wq;
      b.n = wide;
      b.c = out;
      b.ldc = wide;
      gemm(b, inner);
      // No wide columns (1x1): each channel's block row is y's, as it is.
      if (d.rq && l.wq == s.ow) return requant_rows_into(d, out, y0 + r0 * s.ow, wide, s.ocg, g * s.ocg, s.oh * s.ow);
      for (int64_t o = 0; o < s.ocg; ++o) {
        Out* row = out + o * wide;
        const int64_t ch = g * s.ocg + o, at = y0 + (o * s.oh + r0) * s.ow;  // at: y's element
        if constexpr (std::is_same_v<Out, int32_t>)
          if (d.y_narrow) {  // narrowed in place over the block's channel row, then its rows copied
            std::byte* packed = reinterpret_cast<std::byte*>(row);
            d.chain->apply_narrow(row, packed, wide, ch);
            for (int64_t r = 0; r < rows; ++r)
              std::memcpy(d.y_narrow + (at + r * s.ow) * d.narrow_bytes, packed + r * l.wq * d.narrow_bytes,
                          std::size_t(s.ow * d.narrow_bytes));
            continue;
          }
        if (d.rq) requant_to(d, row, row, wide, ch);
        if constexpr (sizeof(Out) == 4) copy_rows(yg + at - y0, s.ow, row, l.wq, rows, s.ow);
        else
          for (int64_t r = 0; r < rows; ++r) std::copy(row + r * l.wq, row + r * l.wq + s.ow, yg + at - y0 + r * s.ow);
      }
    });
  }
  if constexpr (std::is_same_v<T, float>) apply_fused_after(d.act, yg, s.ocg * s.oh * s.ow, pool);
}

// f32 depthwise with one output channel per input channel: a register of channels at a time
// (simd::DepthwiseBlocked), the same sums as the rows below.
void conv_depthwise_blocked(const ConvShape& s, const ConvParams& p, const ConvData<float>& d, ExecEnv& env) {
  const auto& table = simd::conv_row_kernels();
  const int64_t lanes = table.lanes, blocks = (s.c + lanes - 1) / lanes;
  const int64_t work = simd::depthwise_blocked_work(lanes, s.kh, s.kw, s.oh, s.ow, p.sh, p.sw, p.dh, p.dw);
  const std::array<float, 2> bounds = clamp_bounds<float>(d.act);
  const int64_t plane = s.h * s.w, oplane = s.oh * s.ow;
  for_each_item(env.pool, s.n * blocks, [&](int64_t t) {
    env.check_cancelled();
    float* buf = conv_scratch<float>(0, work);
    const int64_t n = t / blocks, c0 = t % blocks * lanes, channels = std::min(lanes, s.c - c0);
    float* y = d.y + (n * s.oc + c0) * oplane;
    table.depthwise_blocked({d.x + (n * s.c + c0) * plane, channels, s.h, s.w, s.kh, s.kw, s.oh, s.ow, p.top, p.left,
                             p.sh, p.sw, p.dh, p.dw, d.w + c0 * s.kh * s.kw, d.bias ? d.bias + c0 * d.bias_stride : nullptr,
                             d.bias_stride, bounds[0], bounds[1], y, buf});
    apply_fused_after(d.act, y, channels * oplane);
  });
}

// f32 depthwise with one output channel per input channel, a plane at a time with pixels in
// lanes (simd::DepthwisePlane): no transposes, where the level has it and rows fill most of
// their registers. Narrower rows (7 x 7 at AVX-512) take a register of channels at a time.
bool depthwise_by_planes(const ConvShape& s, const ConvParams& p) {
  const auto& table = simd::conv_row_kernels();
  const int64_t lanes = table.lanes, regs = (s.ow + lanes - 1) / lanes;
  return table.depthwise_plane && simd::depthwise_plane_fits(s.kh, s.kw, p.sh, p.sw, p.dh, p.dw, s.oh) &&
         4 * s.ow >= 3 * regs * lanes;
}

void conv_depthwise_planes(const ConvShape& s, const ConvParams& p, const ConvData<float>& d, ExecEnv& env) {
  const auto& table = simd::conv_row_kernels();
  const std::array<float, 2> bounds = clamp_bounds<float>(d.act);
  const int64_t plane = s.h * s.w, oplane = s.oh * s.ow;
  for_each_item(env.pool, s.n * s.c, [&](int64_t t) {
    env.check_cancelled();
    const int64_t c = t % s.c;
    float* y = d.y + t * oplane;
    table.depthwise_plane({d.x + t * plane, s.h, s.w, s.kh, s.kw, s.oh, s.ow, p.top, p.left, p.sh, p.sw,
                           d.w + c * s.kh * s.kw, d.bias ? d.bias[c * d.bias_stride] : 0.f, bounds[0], bounds[1], y});
    apply_fused_after(d.act, y, oplane);
  });
}

// Float depthwise: each input plane zero-padded and split by stride phase once (consecutive
// output channels of a channel multiplier share it), then every output row is a sum of
// unit-stride runs in SIMD registers (simd::DepthwiseRows).
template <class T>
void conv_depthwise_float(const ConvShape& s, const ConvParams& p, const ConvData<T>& d, ExecEnv& env) {
  if constexpr (std::is_same_v<T, float>)
    if (s.ocg == 1) {
      if (depthwise_by_planes(s, p)) return conv_depthwise_planes(s, p, d, env);
      return conv_depthwise_blocked(s, p, d, env);
    }
  ConvShape one = s;
  one.cg = 1;
  const PhaseLayout l = phase_layout(one, p);
  const std::vector<int64_t> koff = tap_offsets(s, p, l, 1);
  const auto& table = simd::conv_row_kernels();
  const auto rows = [&] {
    if constexpr (std::is_same_v<T, float>) return table.depthwise_f32;
    else return table.depthwise_f64;
  }();
  const std::array<T, 2> bounds = clamp_bounds<T>(d.act);
  const T lo = bounds[0], hi = bounds[1];
  const int64_t planes = s.n * s.oc;
  const int64_t grain = std::max<int64_t>(1, (int64_t(1) << 16) / std::max<int64_t>(1, s.oh * s.ow * s.kh * s.kw));
  parallel_for(env.pool, planes, grain, [&](int64_t f, int64_t last) {
    T* buf = conv_scratch<T>(0, int64_t(l.size(1)) + simd::kDepthwiseSlack);
    int64_t built = -1;  // the input plane now in buf
    for (int64_t t = f; t < last; ++t) {
      if ((t - f) % 64 == 0) env.check_cancelled();
      const int64_t n = t / s.oc, o = t % s.oc, plane = n * s.c + o / s.ocg;
      if (plane != built) {
        build_phases(d.x + plane * s.h * s.w, one, p, l, buf);
        built = plane;
      }
      const simd::DepthwiseRows<T> a{buf, koff.data(), d.w + o * s.kh * s.kw, s.kh * s.kw, s.oh, s.ow, l.wq,
                                     d.bias ? d.bias[o * d.bias_stride] : T(0), lo, hi, d.y + t * s.oh * s.ow};
      rows(a);
      if constexpr (std::is_same_v<T, float>) apply_fused_after(d.act, a.y, s.oh * s.ow);
    }
  });
}

// Depthwise planes of oplane accumulators per requantization run (the chain set up once for
// them, not per plane): up to 16, in at most 64 KiB of scratch; 1 with none (y's own planes).
template <class T>
int64_t planes_per_requant(const ConvData<T>& d, int64_t oplane) {
  if (!d.rq) return 1;
  return std::clamp<int64_t>((int64_t(64) << 10) / (int64_t(sizeof(gemm_out_t<T>)) * oplane), 1, 16);
}

// Integer depthwise with one output channel per input channel a register of channels at a
// time (kernels/depthwise_exact.hpp): in f32 where that is exact, or in i16 pairs.
template <class T>
void conv_depthwise_exact(const ConvShape& s, const ConvParams& p, const ConvData<T>& d, ExactDepthwise how,
                          ExecEnv& env) {
  const simd::DepthwiseGeometry geo{s.h, s.w, s.kh, s.kw, s.oh, s.ow, p.top, p.left, p.sh, p.sw, p.dh, p.dw};
  const int64_t plane = s.h * s.w, oplane = s.oh * s.ow;
  const int64_t lanes = simd::conv_row_kernels().lanes, blocks = (s.c + lanes - 1) / lanes;
  for_each_item(env.pool, s.n * blocks, [&](int64_t t) {
    env.check_cancelled();
    const int64_t n = t / blocks, c0 = t % blocks * lanes, channels = std::min(lanes, s.c - c0);
    const int64_t at = (n * s.oc + c0) * oplane;
    const T* x = d.x + (n * s.c + c0) * plane;
    const T* w = d.w + c0 * s.kh * s.kw;
    const int32_t* bias = d.bias ? d.bias + c0 * d.bias_stride : nullptr;
    // The requantization in the kernel's registers, where the chain allows.
    using Ops = RequantChain::Ops;
    const std::optional<Ops> ops = !d.rq ? std::optional<Ops>(Ops{nullptr, 0, -1, nullptr})
                                   : d.chain ? d.chain->as_ops()
                                             : std::nullopt;
    void* out = d.y_narrow ? static_cast<void*>(d.y_narrow + at * d.narrow_bytes) : static_cast<void*>(d.y + at);
    const int out_bytes = d.y_narrow ? int(d.narrow_bytes) : 4;
    if (how == ExactDepthwise::pairs && ops &&
        depthwise_block_pairs<T>(geo, x, channels, w, bias, d.bias_stride, ops->ops, ops->nops, ops->mul_op,
                                 ops->values ? ops->values + c0 : nullptr, out, out_bytes))
      return;
    if constexpr (std::is_same_v<T, int8_t>)
      if (how == ExactDepthwise::blocked && ops &&
          depthwise_block_i8(geo, x, channels, w, bias, d.bias_stride, ops->ops, ops->nops, ops->mul_op,
                             ops->values ? ops->values + c0 : nullptr, out, out_bytes))
        return;
    // A requantization reads the planes from scratch when it narrows them.
    int32_t* y = d.y_narrow ? conv_scratch<int32_t>(1, channels * oplane) : d.y + at;
    if (how == ExactDepthwise::pairs)
      depthwise_block_pairs<T>(geo, x, channels, w, bias, d.bias_stride, nullptr, 0, -1, nullptr, y, 4);
    else depthwise_block_exact<T>(geo, x, channels, w, bias, d.bias_stride, y);
    if (d.rq) requant_rows_into(d, y, at, oplane, channels, c0, oplane);
  });
}

// Every output plane of one input channel per group (depthwise), integers: the plain kernel.
template <class T>
void conv_depthwise(const ConvShape& s, const ConvParams& p, const ConvData<T>& d, ExecEnv& env) {
  const simd::DepthwiseGeometry geo{s.h, s.w, s.kh, s.kw, s.oh, s.ow, p.top, p.left, p.sh, p.sw, p.dh, p.dw};
  if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, int16_t>)
    if (s.ocg == 1)
      if (const ExactDepthwise how = exact_depthwise(d.w, s.oc * s.kh * s.kw, geo); how != ExactDepthwise::none)
        return conv_depthwise_exact(s, p, d, how, env);
  using Out = gemm_out_t<T>;
  const int64_t oplane = s.oh * s.ow;
  const int64_t group = planes_per_requant(d, oplane);
  const int64_t groups = (s.oc + group - 1) / group;
  const int64_t grain = std::max<int64_t>(1, (int64_t(1) << 16) / std::max<int64_t>(1, group * oplane * s.kh * s.kw));
  parallel_for(env.pool, s.n * groups, grain, [&](int64_t f, int64_t l) {
    for (int64_t t = f; t < l; ++t) {
      if ((t - f) % 64 == 0 || group > 1) env.check_cancelled();
      const int64_t n = t / groups, o0 = t % groups * group, rows = std::min(group, s.oc - o0);
      const int64_t at = (n * s.oc + o0) * oplane;
      Out* y = d.rq ? conv_scratch<Out>(1, rows * oplane) : d.y + at;
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t o = o0 + r, g = o / s.ocg;
        simd::depthwise_plane<T>(d.x + (n * s.c + g) * s.h * s.w, d.w + o * s.kh * s.kw,
                                 d.bias ? d.bias + o * d.bias_stride : nullptr, geo, y + r * oplane);
      }
      if (d.rq) requant_rows_into(d, y, at, oplane, rows, o0, oplane);  // the planes are in cache
    }
  });
}

template <class T>
void run_conv(const ConvShape& s, const ConvParams& p, ConvData<T> d, ExecEnv& env) {
  if constexpr (std::is_same_v<T, float>) {
    // Winograd with its own prepared filters, or with none at all (they are transformed on
    // the fly); weights packed for the GEMM path keep it.
    const bool prepared_winograd = d.packed && d.packed->winograd_level >= 0;
    const int tile = winograd_tile(s.c, s.oc, s.kh, s.kw, p, s.oh, s.ow);
    if (tile && (!d.packed || prepared_winograd))
      return conv_winograd({tile, s.n, s.c, s.h, s.w, s.oc, s.oh, s.ow, p.top, p.left, d.x, d.w, d.bias,
                            d.bias_stride, d.packed, d.act, d.y},
                           env);
    if (prepared_winograd) d.packed = nullptr;
    if (takes_winograd_1d(s.c, s.oc, s.kh, s.kw, p, s.oh, s.ow))
      return conv_winograd_1d({s.kw == 1, s.n, s.c, s.h, s.w, s.oc, s.oh, s.ow, s.kw == 1 ? p.top : p.left, d.x, d.w,
                               d.bias, d.bias_stride, d.act, d.y},
                              env);
    if (takes_stacked(s.n, s.groups, s.kh, s.kw, p, s.oh, s.ow) && (!d.packed || !d.packed->b_side))
      return conv_stacked({s.n, s.c, s.h, s.w, s.oc, s.kh, s.kw, s.oh, s.ow, d.x, d.w,
                           d.packed ? d.packed->parts[0].get() : nullptr, d.bias, d.bias_stride, d.act, d.y},
                          p, env);
  } else if constexpr (std::is_same_v<T, int8_t>) {
    if (conv_winograd_int8(s, p, d, env)) return;  // else d.packed is the GEMM's, or cleared
  }
  if (s.cg == 1 && s.groups > 1) {
    if constexpr (std::is_floating_point_v<T>) return conv_depthwise_float<T>(s, p, d, env);
    return conv_depthwise<T>(s, p, d, env);
  }
  // The GEMM reads x at row offsets, so x is checked here for the i8 kernels that need it free
  // of -128 or of negatives: one pass, against KH·KW·OC/groups multiply-adds per element.
  if constexpr (std::is_same_v<T, int8_t>)
    if (gemm_prefers_b_values<T>() && takes_x_values(d)) {
      const int least = simd::min_int8(d.x, s.n * s.c, s.h * s.w, s.h * s.w, 1);
      d.x_without_min = least > -128;
      d.x_nonnegative = least >= 0;
    }
  const int64_t jobs = s.n * s.groups;
  auto job = [&](int64_t t, ThreadPool* pool) {
    env.check_cancelled();
    conv_group_implicit<T>(s, p, d, t / s.groups, t % s.groups, pool);
  };
  // Small per-job GEMMs share the pool across jobs; big ones use it inside each GEMM. Either
  // way every output element is computed the same way.
  const bool small = double(s.ocg) * double(s.oh * s.ow) * double(s.cg * s.kh * s.kw) < 4.0e6;
  if (small && jobs > 1)
    for_each_item(env.pool, jobs, [&](int64_t t) { job(t, nullptr); });
  else
    for (int64_t t = 0; t < jobs; ++t) job(t, env.pool);
}

}  // namespace

void run_conv2d(KernelContext& ctx) {
  const TensorType ot = infer_at_run_time(ctx, infer_conv2d);
  const ConvParams p = conv_params(ctx.attrs.get<conv2d_attrs>());
  const Tensor x = contiguous(ctx.in[0], ctx.env.budget);
  const Tensor w = contiguous(ctx.in[1], ctx.env.budget);
  const Tensor* b = ctx.in.size() > 2 && ctx.in[2].defined() ? &ctx.in[2] : nullptr;
  // A fused requantization may write narrower integers than the accumulators (vm/fuse.cpp).
  const DType narrow = ot.dtype == DType::i32 ? narrowed_dtype(ctx.activation) : DType::i32;
  Tensor y = ctx.output(narrow == DType::i32 ? ot.dtype : narrow, ot.dims);
  if (y.numel() == 0) {
    ctx.out[0] = y;
    return;
  }
  ConvShape s;
  s.n = x.dim(0), s.c = x.dim(1), s.h = x.dim(2), s.w = x.dim(3);
  s.oc = w.dim(0), s.cg = w.dim(1), s.kh = w.dim(2), s.kw = w.dim(3);
  s.oh = ot.dims[2], s.ow = ot.dims[3];
  s.groups = p.groups, s.ocg = s.oc / s.groups;
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    using Out = gemm_out_t<T>;
    ConvData<T> d{x.template data<T>(), w.template data<T>(), nullptr, 0, nullptr};
    if (narrow == DType::i32) {
      d.y = y.template data<Out>();
    } else {
      d.y_narrow = static_cast<std::byte*>(y.raw_data());
      d.narrow_bytes = int64_t(dtype_size(narrow));
    }
    if (ctx.prepared) d.packed = static_cast<const PackedWeights*>(ctx.prepared)->for_tensor(w);
    if constexpr (std::is_floating_point_v<T>) d.act = ctx.activation;
    else d.rq = fused_requant(ctx.activation);
    std::optional<RequantChain> chain;
    if constexpr (std::is_same_v<Out, int32_t>) d.chain = d.rq ? &chain.emplace(*d.rq) : nullptr;
    if (b) {
      d.bias = b->template data<Out>();
      d.bias_stride = b->strides()[0];
    }
    run_conv<T>(s, p, d, ctx.env);
  });
  ctx.out[0] = y;
}

}  // namespace mlvm
