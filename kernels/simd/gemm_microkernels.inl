// The GEMM micro-kernel templates, included by gemm_avx512.cpp, gemm_avx2.cpp and
// gemm_sse2.cpp inside their own level namespace (mlvm::simd::<level>), after each has
// defined its vector traits:
//   float-like  (VF32, VF64):  T, W, L (lanes), V, zero(), load(p), loadu(p), storeu(p, v),
//                              bcast(p), fma(a, b, acc) = a·b + acc, add(a, b),
//                              clamp(v, lo, hi) = v < lo ? lo : v > hi ? hi : v per lane
//   integer     (VI32, VI64):  T, W, L, V, zero(), load(p), loadu(p), storeu(p, v), add(a, b),
//                              sub(a, b), bcast(p) (one lane's worth of bytes from p)
// and the integer step policies (Step::apply(acc, a_broadcast, b) -> acc).
//
// See kernels/simd/gemm_kernels.hpp for the panel layout and the MicroTile contract.
// Everything here is a template in an unnamed namespace of the level namespace: no symbol is
// shared with another translation unit (the ODR note in kernels/simd/cpu_features.hpp).

namespace {

// B read in place at row offsets (an implicit-GEMM convolution's input or phase planes) comes
// from memory on the first row panel's strip, and a strip's next tiles read each row's next
// runs: each k step prefetches its row this many panels ahead (openWakeWord's embedding CNN,
// 55 MB of activations streamed from DRAM, ran 4-6% faster at AVX2).
constexpr int kInPlacePrefetchPanels = 4;
// B read in place with equally spaced rows (a 1x1 convolution's input planes): each row is
// in another page, so no hardware prefetcher follows the k steps, and a row panel's pass would
// wait on L2 for each row's lines; each k step prefetches the lines of the row this many steps
// ahead in its own panel. (Not at row offsets: there the rows are the taps of a few planes,
// which the prefetchers follow, and fetching rows ahead made the stems slower.)
constexpr int kInPlaceRowsAhead = 4;

// Packed operands are streamed: a model's prepared weights (A of a convolution, B of a
// transposed one or of Winograd's position GEMMs) are read once a run, from memory when the
// whole model's weights do not stay in cache, and the hardware prefetchers did not keep the
// FMAs fed. Each k step prefetches the packed A and B this many bytes ahead (a cache line
// past the step's own when the panel's step is shorter); with the operands in cache the
// prefetches cost nothing measurable (bench/results.md, 2026-12-06).
constexpr int kStreamPrefetchBytes = 2048;

// Prefetches `bytes` (one step of a packed panel) kStreamPrefetchBytes ahead of p, a line at a time.
template <int64_t Bytes>
[[gnu::always_inline]] inline void prefetch_stream(const void* p) {
  const char* c = static_cast<const char*>(p) + kStreamPrefetchBytes;
#pragma GCC unroll 4
  for (int64_t l = 0; l < (Bytes + 63) / 64; ++l) _mm_prefetch(c + l * 64, _MM_HINT_T0);
}

// Prefetches the C tile: its rows are read (or written) right after the k loop.
template <class T, int MR, int NR>
inline void prefetch_c(const MicroTile& t) {
  constexpr int kLinesPerRow = int((NR * sizeof(T) + 63) / 64);
  const char* c = static_cast<const char*>(t.c);
  for (int i = 0; i < t.mr; ++i)
    for (int l = 0; l < kLinesPerRow; ++l)
      _mm_prefetch(c + (i * t.ldc) * int64_t(sizeof(T)) + l * 64, _MM_HINT_T0);
}

// Applies the MicroTile update rule to the valid mr x nr corner of a finished tile held in
// `acc` (row-major, NR per row), element by element in the arithmetic type W (unsigned for
// integers, so wrapping is defined). Used for edge tiles and by the generic kernel.
template <class T, class W, int MR, int NR>
inline void update_tile_scalar(const MicroTile& t, const W* acc) {
  T* c = static_cast<T*>(t.c);
  const T* rb = static_cast<const T*>(t.row_bias);
  const T* cb = static_cast<const T*>(t.col_bias);
  for (int i = 0; i < t.mr; ++i) {
    T* ci = c + i * t.ldc;
    for (int j = 0; j < t.nr; ++j) {
      W v = acc[i * NR + j];
      if (t.accumulate) v = W(ci[j]) + v;
      else if (rb) v = v + W(rb[i]);
      else if (cb) v = v + W(cb[j]);
      if constexpr (std::is_floating_point_v<T>)
        if (t.clamp) {
          const T lo = static_cast<const T*>(t.clamp)[0], hi = static_cast<const T*>(t.clamp)[1];
          v = v < lo ? lo : v > hi ? hi : v;
        }
      ci[j] = T(v);
    }
  }
}

// The same rule on registers for a tile of full width (NV·L columns) and any number of rows
// (mr <= MR: the last row tile of an M that is not a multiple of MR), or via
// update_tile_scalar for a narrower one. Rows past mr are neither read nor written.
template <class Vec, int MR, int NV>
inline void update_tile(const MicroTile& t, typename Vec::V (&acc)[MR][NV]) {
  using T = typename Vec::T;
  constexpr int L = Vec::L, NR = NV * L;
  if (t.nr == NR) {
    T* c = static_cast<T*>(t.c);
    const T* rb = static_cast<const T*>(t.row_bias);
    const T* cb = static_cast<const T*>(t.col_bias);
    const int mr = t.mr;
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      if (i >= mr) break;
      T* ci = c + i * t.ldc;
      typename Vec::V add_row = Vec::zero();
      if (!t.accumulate && rb) add_row = Vec::bcast(rb + i);
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) {
        typename Vec::V r = acc[i][v];
        if (t.accumulate) r = Vec::add(Vec::loadu(ci + v * L), r);
        else if (rb) r = Vec::add(r, add_row);
        else if (cb) r = Vec::add(r, Vec::loadu(cb + v * L));
        acc[i][v] = r;
      }
    }
    if constexpr (std::is_floating_point_v<T>)
      if (t.clamp) {
        const typename Vec::V lo = Vec::bcast(static_cast<const T*>(t.clamp));
        const typename Vec::V hi = Vec::bcast(static_cast<const T*>(t.clamp) + 1);
#pragma GCC unroll 16
        for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
          for (int v = 0; v < NV; ++v) acc[i][v] = Vec::clamp(acc[i][v], lo, hi);
      }
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      if (i >= mr) break;
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) Vec::storeu(c + i * t.ldc + v * L, acc[i][v]);
    }
    return;
  }
  alignas(64) typename Vec::W tmp[MR * NR];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) Vec::storeu(reinterpret_cast<T*>(tmp + i * NR + v * L), acc[i][v]);
  update_tile_scalar<T, typename Vec::W, MR, NR>(t, tmp);
}

// Float kernel (f32, f64): per k, NV vectors of B, MR broadcasts of A, MR·NV FMAs. Each
// output element sums its products in k order, one rounding per step (FMA where the level
// has it).
// In place (t.b_stride set), B's rows are loaded unaligned, b_stride apart; with Rows, row k
// at b + t.b_rows[k].
template <class Vec, int MR, int NV, bool InPlace = false, bool Rows = false>
[[gnu::always_inline]] inline void fma_tile(const MicroTile& t) {
  using T = typename Vec::T;
  using V = typename Vec::V;
  constexpr int L = Vec::L;
  prefetch_c<T, MR, NV * L>(t);
  V acc[MR][NV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) acc[i][v] = Vec::zero();
  const T* a = static_cast<const T*>(t.a);
  const T* b = static_cast<const T*>(t.b);
  const int64_t bs = Rows ? 0 : InPlace ? t.b_stride : NV * L;
  const int64_t* rows = t.b_rows;
  for (int64_t k = 0; k < t.kc; ++k, a += MR, b += bs) {
    const T* bk = Rows ? b + rows[k] : b;
    prefetch_stream<MR * sizeof(T)>(a);
    if constexpr (Rows) {
      _mm_prefetch(reinterpret_cast<const char*>(bk + kInPlacePrefetchPanels * NV * L), _MM_HINT_T0);
    } else if constexpr (InPlace) {
      const char* ahead = reinterpret_cast<const char*>(bk + kInPlaceRowsAhead * bs);
      _mm_prefetch(ahead, _MM_HINT_T0);
      _mm_prefetch(ahead + NV * L * sizeof(T) - 1, _MM_HINT_T0);
    } else {
      prefetch_stream<NV * L * sizeof(T)>(b);
    }
    V bv[NV];
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) bv[v] = InPlace || Rows ? Vec::loadu(bk + v * L) : Vec::load(bk + v * L);
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      const V ai = Vec::bcast(a + i);
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) acc[i][v] = Vec::fma(ai, bv[v], acc[i][v]);
    }
  }
  update_tile<Vec, MR, NV>(t, acc);
}

// A tile at most one vector wide (the last column panel of an N just past a multiple of NR:
// SqueezeNet's 13 x 13 = 169 pixels leave 9 of 32) runs on one vector column, reading the first
// L columns of each B row (a packed panel's rows are NR apart): the same products in the same
// order, without the other NV - 1 vectors of FMAs on padding.
template <class Vec, int MR, int NV>
[[gnu::always_inline]] inline bool fma_narrow_tile(const MicroTile& t) {
  if constexpr (NV > 1) {
    if (t.nr <= Vec::L) {
      if (t.b_rows) {
        fma_tile<Vec, MR, 1, true, true>(t);
        return true;
      }
      MicroTile n = t;
      if (!n.b_stride) n.b_stride = NV * Vec::L;
      fma_tile<Vec, MR, 1, true>(n);
      return true;
    }
  }
  return false;
}

// A tile of full width: B at its row offsets, in place, or packed.
template <class Vec, int MR, int NV>
[[gnu::always_inline]] inline void fma_wide_tile(const MicroTile& t) {
  if (t.b_rows) fma_tile<Vec, MR, NV, true, true>(t);
  else if (t.b_stride) fma_tile<Vec, MR, NV, true>(t);
  else fma_tile<Vec, MR, NV>(t);
}

template <class Vec, int MR, int NV>
void fma_kernel(const MicroTile& t) {
  if (fma_narrow_tile<Vec, MR, NV>(t)) return;
  fma_wide_tile<Vec, MR, NV>(t);
}

// The tiles of a StripKernel call (rt.panels consecutive B panels with one A panel), each
// through tile(t), which returns true to stop (a narrow last panel it finished otherwise): the
// tiles a driver would otherwise call one by one, without a call and its set-up per tile (a
// tile of a small-k GEMM, a 1x1 convolution's, is only a few hundred cycles of work).
template <class T, int NR, class Tile>
[[gnu::always_inline]] inline void strip_tiles(const RowTile& rt, Tile tile) {
  MicroTile t = rt.tile;
  const int last_nr = t.nr;
  for (int p = 0; p < rt.panels; ++p) {
    t.nr = p + 1 < rt.panels ? NR : last_nr;
    if (tile(t)) break;
    t.b = static_cast<const char*>(t.b) + rt.b_panel_bytes;
    t.c = static_cast<T*>(t.c) + NR;
    if (t.col_bias) t.col_bias = static_cast<const T*>(t.col_bias) + NR;
  }
}

// fma_kernel over a strip (StripKernel).
template <class Vec, int MR, int NV>
void fma_strip_kernel(const RowTile& rt) {
  strip_tiles<typename Vec::T, NV * Vec::L>(rt, [](const MicroTile& t) {
    if (fma_narrow_tile<Vec, MR, NV>(t)) return true;  // only the last panel can be narrow
    fma_wide_tile<Vec, MR, NV>(t);
    return false;
  });
}

// fma_kernel's row 0 over up to P panels at once (RowTile): P·NV independent accumulator
// chains instead of NV, so the FMA latency is hidden without reordering any sum. A panel past
// `panels` is neither read nor written. B packed, or in place with tile.b_stride (its panels
// then b_panel_bytes apart along the row).
template <class Vec, int MR, int NV, int P>
void fma_row_kernel(const RowTile& rt) {
  using T = typename Vec::T;
  using V = typename Vec::V;
  constexpr int L = Vec::L;
  const MicroTile& t = rt.tile;
  V acc[P][NV];
#pragma GCC unroll 8
  for (int p = 0; p < P; ++p)
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) acc[p][v] = Vec::zero();
  const T* a = static_cast<const T*>(t.a);
  const int64_t as = rt.a_stride;
  const T* b[P];
  const int panels = rt.panels;
  const int64_t bs = t.b_stride ? t.b_stride : NV * L;
  for (int p = 0; p < P; ++p)
    b[p] = reinterpret_cast<const T*>(static_cast<const char*>(t.b) + (p < panels ? p : 0) * rt.b_panel_bytes);
  if (panels == P) {
    for (int64_t k = 0; k < t.kc; ++k, a += as) {
      const V ai = Vec::bcast(a);
#pragma GCC unroll 8
      for (int p = 0; p < P; ++p)
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) acc[p][v] = Vec::fma(ai, Vec::loadu(b[p] + k * bs + v * L), acc[p][v]);
    }
  } else {
    for (int64_t k = 0; k < t.kc; ++k, a += as) {
      const V ai = Vec::bcast(a);
      for (int p = 0; p < panels; ++p)
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) acc[p][v] = Vec::fma(ai, Vec::loadu(b[p] + k * bs + v * L), acc[p][v]);
    }
  }
  for (int p = 0; p < panels; ++p) {
    MicroTile tp = t;
    tp.c = static_cast<T*>(t.c) + p * NV * L;
    if (t.col_bias) tp.col_bias = static_cast<const T*>(t.col_bias) + p * NV * L;
    if (p + 1 < panels) tp.nr = NV * L;
    V row[1][NV];
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) row[0][v] = acc[p][v];
    update_tile<Vec, 1, NV>(tp, row);
  }
}

// Integer kernel over 4-byte groups: per step (KU consecutive k), NV vectors of B, MR 4-byte
// broadcasts of A, MR·NV Step::apply. kCorrect, for the u8·s8 quads whose u8 side was packed
// as x + 128: Correct::b_columns, B's panel is followed by NR i32 corrections (128 · column
// sums of B) subtracted at the end (A shifted); Correct::a_rows, A's panel by MR (128 · row
// sums of A; B shifted).
// A Step with kAbsA reads A as quads_s8_abs panels: each broadcast comes with the one of |a|
// from the panel's second half, Step::apply(acc, a, |a|, b).
template <class Step>
concept StepWithAbsA = Step::kAbsA;
enum class Correct { none, b_columns, a_rows };
// A step that also takes two KU steps at once (apply2), where their sums are cheaper together.
template <class S>
concept StepPaired = S::kPaired;
// A step whose whole k loop is its own (Step::loop, asm where the compiler's registers fell short).
template <class S, int MR, int NV>
concept StepWithLoop = requires { &S::template loop<MR, NV>; };

template <class Vec, class Step, int KU, int MR, int NV, Correct kCorrect>
void int_kernel(const MicroTile& t) {
  using V = typename Vec::V;
  constexpr int L = Vec::L;
  prefetch_c<typename Vec::T, MR, NV * L>(t);
  V acc[MR][NV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) acc[i][v] = Vec::zero();
  const char* a = static_cast<const char*>(t.a);
  const char* b = static_cast<const char*>(t.b);
  const int64_t steps = (t.kc + KU - 1) / KU;
  [[maybe_unused]] const int64_t abs_off = steps * MR * 4;  // |a| half of a quads_s8_abs panel
  int64_t s = 0;
  if constexpr (StepWithLoop<Step, MR, NV>) {
    Step::template loop<MR, NV>(acc, a, b, steps);
    s = steps;
  }
  if constexpr (StepPaired<Step>) {
    // Two steps at once (Step::apply2), each B register loaded where it is used: a0, a1, the
    // two B registers, the ones and two temporaries beside the accumulators fill the registers.
    for (; s + 1 < steps; s += 2, a += 2 * MR * 4, b += 2 * NV * L * 4) {
      prefetch_stream<2 * MR * 4>(a);
      prefetch_stream<2 * NV * L * 4>(b);
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) {
        const V b0 = Vec::load(b + v * L * 4), b1 = Vec::load(b + (NV + v) * L * 4);
#pragma GCC unroll 16
        for (int i = 0; i < MR; ++i)
          acc[i][v] = Step::apply2(acc[i][v], Vec::bcast(a + i * 4), b0, Vec::bcast(a + (MR + i) * 4), b1);
      }
    }
  }
  for (; s < steps; ++s, a += MR * 4, b += NV * L * 4) {
    prefetch_stream<MR * 4>(a);
    if constexpr (StepWithAbsA<Step>) prefetch_stream<MR * 4>(a + abs_off);
    prefetch_stream<NV * L * 4>(b);
    V bv[NV];
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) bv[v] = Vec::load(b + v * L * 4);
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      const V ai = Vec::bcast(a + i * 4);
      if constexpr (StepWithAbsA<Step>) {
        const V ui = Vec::bcast(a + abs_off + i * 4);
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) acc[i][v] = Step::apply(acc[i][v], ai, ui, bv[v]);
      } else {
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) acc[i][v] = Step::apply(acc[i][v], ai, bv[v]);
      }
    }
  }
  if constexpr (kCorrect == Correct::a_rows) {
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      const V corr = Vec::bcast(a + i * 4);
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) acc[i][v] = Vec::sub(acc[i][v], corr);
    }
  }
  if constexpr (kCorrect == Correct::b_columns) {
    V corr[NV];
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) corr[v] = Vec::load(b + v * L * 4);
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) acc[i][v] = Vec::sub(acc[i][v], corr[v]);
  }
  update_tile<Vec, MR, NV>(t, acc);
}

// int_kernel over a strip (StripKernel): the 1x1 convolutions of quantized models have integer
// tiles over as few as 16 channels.
template <class Vec, class Step, int KU, int MR, int NV, Correct kCorrect>
void int_strip_kernel(const RowTile& rt) {
  strip_tiles<typename Vec::T, NV * Vec::L>(rt, [](const MicroTile& t) {
    int_kernel<Vec, Step, KU, MR, NV, kCorrect>(t);
    return false;
  });
}

// Plain C++ kernel for what a level has no vector instruction for (i64 multiply before
// AVX-512, i32 multiply on SSE2): KU 1 panels of T, arithmetic in W. The compiler vectorizes
// what it can with the level's flags.
template <class T, class W, int MR, int NR>
void generic_kernel(const MicroTile& t) {
  W acc[MR * NR] = {};
  const T* a = static_cast<const T*>(t.a);
  const T* b = static_cast<const T*>(t.b);
  for (int64_t k = 0; k < t.kc; ++k, a += MR, b += NR)
    for (int i = 0; i < MR; ++i) {
      const W ai = W(a[i]);
      for (int j = 0; j < NR; ++j) acc[i * NR + j] += ai * W(b[j]);
    }
  update_tile_scalar<T, W, MR, NR>(t, acc);
}

template <class Vec, int MR, int NV>
constexpr GemmKernel fma_entry(int64_t kc, int64_t mc, int64_t nc) {
  return GemmKernel{&fma_kernel<Vec, MR, NV>, MR, NV * Vec::L, kc, mc, nc, &fma_row_kernel<Vec, MR, NV, 4>, 4,
                    &fma_strip_kernel<Vec, MR, NV>};
}

template <class Vec, class Step, int KU, int MR, int NV, Correct kCorrect = Correct::none>
constexpr GemmKernel int_entry(int64_t kc, int64_t mc, int64_t nc) {
  return GemmKernel{&int_kernel<Vec, Step, KU, MR, NV, kCorrect>, MR, NV * Vec::L, kc, mc, nc, nullptr, 0,
                    &int_strip_kernel<Vec, Step, KU, MR, NV, kCorrect>};
}

template <class T, class W, int MR, int NR>
constexpr GemmKernel generic_entry(int64_t kc, int64_t mc, int64_t nc) {
  return GemmKernel{&generic_kernel<T, W, MR, NR>, MR, NR, kc, mc, nc};
}

}  // namespace
