// The GEMM core's machinery behind kernels/gemm.hpp's entry points (kernels/gemm.cpp):
// per-thread packing scratch (the plan is kernels/gemm_plan.hpp's), and GemmRun, which
// packs panels and runs the register tiles over them for one GEMM. Internal: included by
// kernels/gemm.cpp only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include "kernels/cancel.hpp"
#include "kernels/gemm.hpp"
#include "kernels/gemm_plan.hpp"
#include "kernels/parallel_items.hpp"
#include "kernels/simd/gemm_kernels.hpp"
#include "kernels/simd/gemm_pack.hpp"
#include "kernels/thread_pool.hpp"
#include "tensor/huge_pages.hpp"

namespace mlvm {

namespace gemm_run {

// 64-byte aligned scratch owned by the calling thread and kept between calls, so that a GEMM
// does not pay for fresh pages (a few MB at most per thread). `slot` separates buffers that
// live at the same time.
inline void* scratch(int slot, int64_t bytes) {
  thread_local std::vector<std::unique_ptr<char[]>> bufs(3);
  thread_local std::vector<int64_t> sizes(3, 0);
  if (sizes[slot] < bytes) {
    bufs[slot].reset(new char[std::size_t(bytes + 64)]);
    sizes[slot] = bytes;
  }
  const auto p = reinterpret_cast<std::uintptr_t>(bufs[slot].get());
  return reinterpret_cast<void*>((p + 63) & ~std::uintptr_t(63));
}
enum ScratchSlot { kSlotA = 0, kSlotB = 1, kSlotShared = 2 };

// Packed A, all of it, fits in this many bytes: keep it resident (see run_a_resident).
constexpr int64_t kResidentABytes = int64_t(384) << 10;
// Below this many multiply-adds the fork/join costs more than it saves.
constexpr double kParallelMinMacs = 1.0e6;

template <class T>
class GemmRun {
 public:
  using Out = gemm_out_t<T>;

  GemmRun(const GemmArgs<T>& g, const Plan<T>& plan) : g_(g), p_(plan), k_(plan.kern) {
    mr_ = k_.mr;
    nr_ = k_.nr;
    mpanels_ = (g.m + mr_ - 1) / mr_;
    npanels_ = (g.n + nr_ - 1) / nr_;
    // K splits into equal blocks of at most the kernel's KC (rounded up to whole 4-k groups):
    // K slightly past KC gives two half blocks, not a full one and a sliver. Depends on K and
    // the level only, never on threads.
    if (g.k > 0) {
      kblocks_ = (g.k + k_.kc - 1) / k_.kc;
      kc_ = ((g.k + kblocks_ - 1) / kblocks_ + 3) / 4 * 4;
      kblocks_ = (g.k + kc_ - 1) / kc_;
    }
    apb_ = a_panel_bytes(kc_);
    if (g.bias) {
      // Contiguous and padded to whole panels, as the kernels read them.
      if (g.bias_per_row) {
        row_bias_.assign(std::size_t(mpanels_ * mr_), Out(0));
        for (int64_t i = 0; i < g.m; ++i) row_bias_[i] = g.bias[i * g.bias_stride];
      } else {
        col_bias_.assign(std::size_t(npanels_ * nr_), Out(0));
        for (int64_t j = 0; j < g.n; ++j) col_bias_[j] = g.bias[j * g.bias_stride];
      }
    }
  }

  // Bytes prepack() needs for every panel of A (or B), a multiple of 64.
  int64_t packed_bytes(bool side_a) const {
    const int64_t bytes = (side_a ? mpanels_ * a_panel_bytes(kc_) : npanels_ * b_panel_bytes(kc_)) * kblocks_;
    return (bytes + 63) / 64 * 64;
  }

  // Packs every panel of A (or B) into a PackedOperand, at `data` (64-byte aligned,
  // packed_bytes long, inside `raw`) or, without one, into a buffer of its own.
  std::shared_ptr<const PackedOperand> prepack(bool side_a, std::shared_ptr<char[]> raw = nullptr,
                                               char* data = nullptr) const {
    auto p = std::make_shared<PackedOperand>();
    p->kernel = p_.pack_key;
    p->rows = side_a ? g_.m : g_.n;
    p->k = g_.k;
    p->panels = side_a ? mpanels_ : npanels_;
    p->panel_bytes = side_a ? a_panel_bytes(kc_) : b_panel_bytes(kc_);
    if (!data) {
      const int64_t bytes = packed_bytes(side_a) + 64;
      raw.reset(static_cast<char*>(huge_page_alloc(std::size_t(bytes))), HugePageDeleter{});
      if (!raw) throw std::bad_alloc();
      data = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(raw.get()) + 63) & ~std::uintptr_t(63));
    }
    p->raw = std::move(raw);
    p->data = data;
    for (int64_t kb = 0; kb < kblocks_; ++kb)
      for (int64_t q = 0; q < p->panels; ++q) {
        char* dst = p->data + (kb * p->panels + q) * p->panel_bytes;
        if (side_a) pack_a(q, kb, dst);
        else pack_b(q, kb, dst);
      }
    return p;
  }

  void run(ThreadPool* pool) {
    if (g_.m <= 0 || g_.n <= 0) return;
    // Operands packed ahead are used when they were packed for this very GEMM.
    pa_ = fits(g_.a_packed, g_.m, g_.a_packed_row0, mr_) ? g_.a_packed : nullptr;
    const bool b_fits = fits(g_.b_packed, g_.n, g_.b_packed_col0, nr_);
    pb_ = b_fits && !g_.b_row_offsets && !g_.b_window ? g_.b_packed : nullptr;
    if (pa_) pa0_ = g_.a_packed_row0 / mr_;
    if (pb_) pb0_ = g_.b_packed_col0 / nr_;
    if (g_.k <= 0) return fill_bias_only();
    if (!pb_) find_b_in_place();
    if (double(g_.m) * double(g_.n) * double(g_.k) < kParallelMinMacs) pool = nullptr;
    threads_ = pool ? pool->size() : 1;
    if (mpanels_ * a_panel_bytes(kc_) * kblocks_ <= kResidentABytes) run_a_resident(pool);
    else if (threads_ > 1 && !g_.b_window && pool->far_apart()) run_blocked_apart(pool);
    else run_blocked(pool);
  }

 private:
  // Rows [first, first + rows) of p, whole panels of `height`.
  bool fits(const PackedOperand* p, int64_t rows, int64_t first, int64_t height) const {
    return packed_fits(p, p_.pack_key, g_.k, rows, first, height);
  }
  // Few row panels (a 1x1 convolution to few channels: MobileNet's projections) reuse each
  // packed B panel only that many times, and packing B cost a third of such a GEMM: f32 B whose
  // rows are runs of contiguous columns is then read in place by the kernel (all but a last
  // partial panel, which would read past the end of B's rows), rows equally spaced or, as an
  // implicit-GEMM convolution's taps, at their row offsets (ResNet-18's 7x7 stem packed its
  // 147 tap rows for 12% of its time).
  // A panel read in place touches two or three cache lines per row (its rows are not
  // aligned), so each row panel finds it in L1 only while a k block of it stays there: a
  // larger one was re-read from L2, strided, and packing it won (AVX-512, SqueezeNet's
  // 512 -> 64 squeeze at 13 x 13 and MobileNet-V2's 384 -> 64 projections at 14 x 14; at
  // K 192 and below reading in place still wins).
  static constexpr int64_t kInPlaceMaxRowPanels = 8;
  static constexpr int64_t kInPlaceMaxPanelBytes = int64_t(24) << 10;
  void find_b_in_place() {
    if constexpr (std::is_same_v<T, float>) {
      if (p_.fb != PackFormat::plain || !k_.strip || g_.csb != 1 || mpanels_ > kInPlaceMaxRowPanels || g_.m == 1 ||
          kc_ * nr_ * int64_t(sizeof(T)) > kInPlaceMaxPanelBytes)
        return;
      int64_t first = 0, stride = g_.rsb;
      if (g_.b_row_offsets) {
        first = g_.b_row_offsets[0];
        stride = g_.k > 1 ? g_.b_row_offsets[1] - first : 0;
        for (int64_t k = 2; k < g_.k; ++k)
          if (g_.b_row_offsets[k] - g_.b_row_offsets[k - 1] != stride) {
            b_in_place_ = g_.b;
            b_in_place_rows_ = g_.b_row_offsets;
            return;
          }
      }
      if (stride <= 0 && g_.k > 1) return;
      b_in_place_ = g_.b + first;
      b_in_place_stride_ = g_.k > 1 ? stride : nr_;
    }
  }
  // Row panel ir of A over k block kb: in pa_, or in `apack` (all of A packed, k block by k block).
  const char* a_panel(const char* apack, int64_t kb, int64_t ir) const {
    return pa_ ? pa_->panel(kb, pa0_ + ir) : apack + (kb * mpanels_ + ir) * apb_;
  }
  int64_t kc_of(int64_t kb) const { return std::min(kc_, g_.k - kb * kc_); }
  int64_t a_panel_bytes(int64_t kc) const { return simd::packed_panel_bytes(p_.fa, sizeof(T), mr_, kc); }
  int64_t b_panel_bytes(int64_t kc) const { return simd::packed_panel_bytes(p_.fb, sizeof(T), nr_, kc); }

  void pack_a(int64_t ir, int64_t kb, void* dst) const {
    const int64_t i0 = ir * mr_;
    const T* src = g_.a + i0 * g_.rsa + kb * kc_ * g_.csa;
    const int rvalid = int(std::min<int64_t>(mr_, g_.m - i0));
    if (p_.pack_a) p_.pack_a(src, g_.rsa, g_.csa, nullptr, rvalid, mr_, kc_of(kb), dst);
    else simd::pack_panel<T>(p_.fa, src, g_.rsa, g_.csa, nullptr, rvalid, mr_, kc_of(kb), dst);
  }
  void pack_b(int64_t jr, int64_t kb, void* dst) const {
    const int64_t j0 = jr * nr_, k0 = kb * kc_;
    const int rvalid = int(std::min<int64_t>(nr_, g_.n - j0));
    if constexpr (std::is_same_v<T, int8_t>)
      if (g_.b_window) return p_.pack_window(g_.b, *g_.b_window, j0, rvalid, nr_, k0, kc_of(kb), dst);
    const T* src = g_.b + j0 * g_.csb;
    const int64_t* koff = g_.b_row_offsets ? g_.b_row_offsets + k0 : nullptr;
    if (!koff) src += k0 * g_.rsb;
    if (p_.pack_b) p_.pack_b(src, g_.csb, g_.rsb, koff, rvalid, nr_, kc_of(kb), dst);
    else simd::pack_panel<T>(p_.fb, src, g_.csb, g_.rsb, koff, rvalid, nr_, kc_of(kb), dst);
  }

  // The tile of row panel ir and column panel jr0 over k block kb, as wide as column panel
  // last_jr (jr0 itself, or the last of a strip or row call, which start at jr0).
  MicroTile tile_of(int64_t ir, int64_t jr0, int64_t last_jr, int64_t kb, const void* a, const void* b) const {
    MicroTile t;
    t.kc = kc_of(kb);
    t.a = a;
    t.b = b;
    t.c = g_.c + ir * mr_ * g_.ldc + jr0 * nr_;
    t.ldc = g_.ldc;
    t.mr = int(std::min<int64_t>(mr_, g_.m - ir * mr_));
    t.nr = int(std::min<int64_t>(nr_, g_.n - last_jr * nr_));
    t.accumulate = kb > 0;
    if (!row_bias_.empty()) t.row_bias = row_bias_.data() + ir * mr_;
    if (!col_bias_.empty()) t.col_bias = col_bias_.data() + jr0 * nr_;
    if (kb == kblocks_ - 1) t.clamp = g_.clamp;
    return t;
  }

  void tile(int64_t ir, int64_t jr, int64_t kb, const void* apanel, const void* bpanel) const {
    k_.fn(tile_of(ir, jr, jr, kb, apanel, bpanel));
  }

  // Row panels against the consecutive B panels jr0..jr1 (the first at bfirst, bpb bytes
  // apart), one k_.strip call per row panel: the tiles tile() would run one by one. Set up
  // once per chunk and k block; each row panel then changes only its A panel, C rows, height
  // and row bias — a small-k strip (Winograd's position GEMMs) is a few hundred cycles, and
  // building the whole RowTile for each one took 8% of SqueezeNet.
  // With b_stride (elements), B is read in place: row k of panel jr0 at bfirst + k·b_stride;
  // with b_rows, at bfirst + b_rows[k].
  class Strips {
   public:
    Strips(const GemmRun& r, int64_t jr0, int64_t jr1, int64_t kb, const char* bfirst, int64_t bpb,
           int64_t b_stride = 0, const int64_t* b_rows = nullptr)
        : r_(r) {
      rt_.tile = r.tile_of(0, jr0, jr1 - 1, kb, nullptr, bfirst);
      rt_.tile.b_stride = b_stride;
      rt_.tile.b_rows = b_rows;
      rt_.b_panel_bytes = bpb;
      rt_.panels = int(jr1 - jr0);
      c0_ = static_cast<Out*>(rt_.tile.c);
    }
    void run(int64_t ir, const void* apanel) {
      const int64_t i0 = ir * r_.mr_;
      const int mr = int(std::min<int64_t>(r_.mr_, r_.g_.m - i0));
      if (mr <= kRowTail && mr < r_.mr_ && r_.k_.row && !rt_.tile.b_rows) return rows(i0, mr, apanel);
      rt_.tile.a = apanel;
      rt_.tile.c = c0_ + i0 * r_.g_.ldc;
      rt_.tile.mr = mr;
      if (!r_.row_bias_.empty()) rt_.tile.row_bias = r_.row_bias_.data() + i0;
      r_.k_.strip(rt_);
    }

   private:
    // A last row panel of at most kRowTail rows (M = 49 pixels, a 7 x 7 plane run transposed,
    // leaves one of MR 6) row by row through the row kernel, which sums and stores each row as
    // the tile would: the tile spends MR rows of multiply-adds on it whatever its height.
    static constexpr int kRowTail = 3;
    void rows(int64_t i0, int mr, const void* apanel) const {
      const int step = r_.k_.row_panels;
      for (int i = 0; i < mr; ++i)
        for (int p0 = 0; p0 < rt_.panels; p0 += step) {
          simd::RowTile rt = rt_;
          const int panels = std::min(step, rt_.panels - p0);
          rt.panels = panels;
          rt.a_stride = r_.mr_;
          rt.tile.a = static_cast<const T*>(apanel) + i;
          rt.tile.b = static_cast<const char*>(rt_.tile.b) + p0 * rt_.b_panel_bytes;
          rt.tile.c = c0_ + (i0 + i) * r_.g_.ldc + int64_t(p0) * r_.nr_;
          rt.tile.mr = 1;
          if (p0 + panels < rt_.panels) rt.tile.nr = r_.nr_;
          if (!r_.row_bias_.empty()) rt.tile.row_bias = r_.row_bias_.data() + i0 + i;
          if (rt_.tile.col_bias) rt.tile.col_bias = static_cast<const Out*>(rt_.tile.col_bias) + int64_t(p0) * r_.nr_;
          r_.k_.row(rt);
        }
    }

    const GemmRun& r_;
    simd::RowTile rt_;
    Out* c0_ = nullptr;
  };

  // Row 0 against the consecutive B panels jr0..jr1 (M = 1): k_.row, which sums and stores
  // exactly as tile() would, panel by panel.
  // A's k-th element of the block is at a + k·a_stride: a packed panel (stride MR) or A itself.
  void row_tiles(int64_t jr0, int64_t jr1, int64_t kb, const void* a, int64_t a_stride, const char* bfirst,
                 int64_t bpb) const {
    simd::RowTile rt;
    rt.tile = tile_of(0, jr0, jr1 - 1, kb, a, bfirst);
    rt.a_stride = a_stride;
    rt.b_panel_bytes = bpb;
    rt.panels = int(jr1 - jr0);
    k_.row(rt);
  }

  void fill_bias_only() const {
    for (int64_t i = 0; i < g_.m; ++i)
      for (int64_t j = 0; j < g_.n; ++j)
        g_.c[i * g_.ldc + j] = clamped(!row_bias_.empty() ? row_bias_[i] : !col_bias_.empty() ? col_bias_[j] : Out(0));
  }
  Out clamped(Out v) const {
    if constexpr (std::is_floating_point_v<Out>)
      if (g_.clamp) return v < g_.clamp[0] ? g_.clamp[0] : v > g_.clamp[1] ? g_.clamp[1] : v;
    return v;
  }

  // Packed A (every row panel, every k block) fits in L2: pack it once, shared, then split the
  // columns into chunks that threads claim one by one. Per chunk and k block a thread packs the
  // chunk's B panels and runs every A panel against each (the B micro-panel stays in L1).
  // This is the small-M shape: conv2d (M = output channels) and dense with a small batch.
  void run_a_resident(ThreadPool* pool) {
    const int64_t apb = a_panel_bytes(kc_), bpb = b_panel_bytes(kc_);
    // One row (M = 1): the row kernel, reading A in place (no panel to pack for one row), over
    // chunks of as many panels as it takes at once.
    const bool row = g_.m == 1 && k_.row && k_.row_panels >= 4;
    // Otherwise chunks as wide as keep their packed B (one k block) within 64 KiB, and at
    // least four per thread: each row panel then writes C in runs of the chunk's width, so
    // the MR rows being written are few long streams the prefetcher follows, not a line
    // each in all M rows (the 1x1 convolutions of a large plane write megabytes of C).
    // With few column panels a thread (Winograd's position GEMMs: 2-7 panels of tiles; 7 x 7
    // planes run transposed: 10-20 panels of output channels) a thread's share is one chunk
    // as far as its B stays in L1 (32 KiB): each strip call then runs all of them with one
    // set-up, which a small-k strip (SqueezeNet's 16-channel Winograd GEMMs) cannot amortize
    // over one panel; threads still split the panels evenly.
    const int64_t kChunkPanels =
        row ? 4
        : npanels_ >= 16 * int64_t(threads_)
            ? std::clamp<int64_t>(std::min((int64_t(64) << 10) / bpb, npanels_ / (4 * int64_t(threads_))), 4, 64)
            : std::clamp<int64_t>(std::min((int64_t(32) << 10) / bpb, (npanels_ + threads_ - 1) / threads_), 1, 64);
    const char* apack = nullptr;
    if (!pa_ && !row) {
      char* buf = static_cast<char*>(scratch(kSlotShared, apb * mpanels_ * kblocks_));
      parallel_for(pool, mpanels_ * kblocks_, 8, [&](int64_t t0, int64_t t1) {
        for (int64_t t = t0; t < t1; ++t) pack_a(t % mpanels_, t / mpanels_, buf + t * apb);
      });
      apack = buf;
    }
    const int64_t chunks = (npanels_ + kChunkPanels - 1) / kChunkPanels;
    for_each_item(pool, chunks, [&](int64_t ch) {
      poll_cancel();  // a chunk is at most 64 column panels against a resident A, per k block
      char* bpack = static_cast<char*>(scratch(kSlotB, bpb * kChunkPanels));
      const int64_t jr0 = ch * kChunkPanels, jr1 = std::min(npanels_, jr0 + kChunkPanels);
      // In place: the chunk's full panels, and a last partial one packed.
      const int64_t full1 = b_in_place_ && g_.n % nr_ && jr1 == npanels_ ? jr1 - 1 : jr1;
      for (int64_t kb = 0; kb < kblocks_; ++kb) {
        if (kb > 0) poll_cancel();
        if (b_in_place_) {
          const char* bfirst = reinterpret_cast<const char*>(b_in_place_ + kb * kc_ * b_in_place_stride_ + jr0 * nr_);
          const int64_t* rows = b_in_place_rows_ ? b_in_place_rows_ + kb * kc_ : nullptr;
          if (full1 < jr1) pack_b(full1, kb, bpack);
          std::optional<Strips> whole, last;
          if (full1 > jr0)
            whole.emplace(*this, jr0, full1, kb, bfirst, nr_ * int64_t(sizeof(T)), b_in_place_stride_, rows);
          if (full1 < jr1) last.emplace(*this, full1, jr1, kb, bpack, bpb);
          for (int64_t ir = 0; ir < mpanels_; ++ir) {
            if ((ir & 15) == 15) poll_cancel();  // a k block over M rows can take milliseconds
            const char* ap = a_panel(apack, kb, ir);
            if (whole) whole->run(ir, ap);
            if (last) last->run(ir, ap);
          }
          continue;
        }
        if (!pb_)
          for (int64_t jr = jr0; jr < jr1; ++jr) pack_b(jr, kb, bpack + (jr - jr0) * bpb);
        const char* bfirst = pb_ ? pb_->panel(kb, pb0_ + jr0) : bpack;
        const int64_t bstride = pb_ ? pb_->panel_bytes : bpb;
        if (row) {
          if (pa_) row_tiles(jr0, jr1, kb, a_panel(apack, kb, 0), mr_, bfirst, bstride);
          else row_tiles(jr0, jr1, kb, g_.a + kb * kc_ * g_.csa, g_.csa, bfirst, bstride);
          continue;
        }
        // Row panel by row panel across the chunk: C is written in runs of the chunk's width
        // along MR rows at a time, not in one NR-wide column down all M rows (M streams).
        if (k_.strip) {
          Strips strips(*this, jr0, jr1, kb, bfirst, bstride);
          for (int64_t ir = 0; ir < mpanels_; ++ir) {
            if ((ir & 15) == 15) poll_cancel();
            strips.run(ir, a_panel(apack, kb, ir));
          }
          continue;
        }
        for (int64_t ir = 0; ir < mpanels_; ++ir) {
          if ((ir & 15) == 15) poll_cancel();
          for (int64_t jr = jr0; jr < jr1; ++jr)
            tile(ir, jr, kb, a_panel(apack, kb, ir), bfirst + (jr - jr0) * bstride);
        }
      }
    });
  }

  // Row block mb (MC rows) against the column panels jp0 + [q0, q1) over k block kb, for the
  // blocked loops: A's block packed into apack first (unless packed ahead), B's panel q at
  // bpack + q·bpb (unless packed ahead).
  void block_tiles(int64_t mb, int64_t jp0, int64_t q0, int64_t q1, int64_t kb, char* apack, const char* bpack) const {
    const int64_t mc_panels = k_.mc / mr_, bpb = b_panel_bytes(kc_);
    const int64_t ir0 = mb * mc_panels, ir1 = std::min(mpanels_, ir0 + mc_panels);
    if (!pa_)
      for (int64_t ir = ir0; ir < ir1; ++ir) pack_a(ir, kb, apack + (ir - ir0) * apb_);
    for (int64_t q = q0; q < q1; ++q) {
      poll_cancel();  // a column panel against MC rows: tens of microseconds
      const char* bp = pb_ ? pb_->panel(kb, pb0_ + jp0 + q) : bpack + q * bpb;
      for (int64_t ir = ir0; ir < ir1; ++ir)
        tile(ir, jp0 + q, kb, pa_ ? pa_->panel(kb, pa0_ + ir) : apack + (ir - ir0) * apb_, bp);
    }
  }

  // The GotoBLAS loop nest: per NC column block and KC k block, the threads pack the B block
  // together (shared), then claim MC-row blocks of A (packed per thread, kept in L2). With
  // fewer than two row blocks per thread, row blocks are split into column groups too (each
  // group packs its A block again) so that every thread has work.
  void run_blocked(ThreadPool* pool) {
    const int64_t nc_panels = k_.nc / nr_, mc_panels = k_.mc / mr_, bpb = b_panel_bytes(kc_);
    char* bpack = static_cast<char*>(scratch(kSlotShared, bpb * nc_panels));
    const int64_t mblocks = (mpanels_ + mc_panels - 1) / mc_panels;
    for (int64_t jp0 = 0; jp0 < npanels_; jp0 += nc_panels) {
      const int64_t jp1 = std::min(npanels_, jp0 + nc_panels), npan = jp1 - jp0;
      const int64_t groups =
          threads_ > 1 && mblocks < 2 * threads_ ? std::min<int64_t>(npan, (2 * threads_ + mblocks - 1) / mblocks) : 1;
      for (int64_t kb = 0; kb < kblocks_; ++kb) {
        if (!pb_)
          parallel_for(pool, npan, 4, [&](int64_t p0, int64_t p1) {
            for (int64_t p = p0; p < p1; ++p) pack_b(jp0 + p, kb, bpack + p * bpb);
          });
        const int64_t tasks = mblocks * groups;
        for_each_item(pool, tasks, [&](int64_t t) {
          char* apack = static_cast<char*>(scratch(kSlotA, apb_ * mc_panels));
          const int64_t grp = t % groups;
          block_tiles(t / groups, jp0, npan * grp / groups, npan * (grp + 1) / groups, kb, apack, bpack);
        });
      }
    }
  }

  // run_blocked for a pool whose cores share no cache (ThreadPool::far_apart): each thread
  // computes its own share of C and packs every panel of A and B it reads itself, so that no
  // packed panel crosses between cores (through memory, there: 1024³ at 2 threads ran at
  // 1.70-1.78x its 1-thread speed against 1.97x near). The share: whole row blocks, or with
  // fewer row blocks than threads, every row block against a part of each column block.
  void run_blocked_apart(ThreadPool* pool) {
    const int64_t nc_panels = k_.nc / nr_, mc_panels = k_.mc / mr_, bpb = b_panel_bytes(kc_);
    const int64_t mblocks = (mpanels_ + mc_panels - 1) / mc_panels, threads = threads_;
    const bool by_rows = mblocks >= threads;
    for_each_item(pool, threads, [&](int64_t t) {
      char* apack = static_cast<char*>(scratch(kSlotA, apb_ * mc_panels));
      char* bpack = static_cast<char*>(scratch(kSlotB, bpb * nc_panels));
      const int64_t mb0 = by_rows ? mblocks * t / threads : 0, mb1 = by_rows ? mblocks * (t + 1) / threads : mblocks;
      for (int64_t jp0 = 0; jp0 < npanels_; jp0 += nc_panels) {
        const int64_t npan = std::min(npanels_, jp0 + nc_panels) - jp0;
        const int64_t q0 = by_rows ? 0 : npan * t / threads, q1 = by_rows ? npan : npan * (t + 1) / threads;
        for (int64_t kb = 0; kb < kblocks_; ++kb) {
          if (!pb_)
            for (int64_t q = q0; q < q1; ++q) pack_b(jp0 + q, kb, bpack + q * bpb);
          for (int64_t mb = mb0; mb < mb1 && q0 < q1; ++mb) block_tiles(mb, jp0, q0, q1, kb, apack, bpack);
        }
      }
    });
  }

  const GemmArgs<T>& g_;
  const Plan<T>& p_;
  const GemmKernel& k_;
  int mr_ = 0, nr_ = 0;
  int64_t mpanels_ = 0, npanels_ = 0, kblocks_ = 0, kc_ = 0;
  int threads_ = 1;
  const PackedOperand* pa_ = nullptr;
  const PackedOperand* pb_ = nullptr;
  int64_t pa0_ = 0, pb0_ = 0;  // the panels of pa_ and pb_ that are this GEMM's first
  int64_t apb_ = 0;            // bytes of one packed A panel
  const T* b_in_place_ = nullptr;  // B's first row when read in place (find_b_in_place), else null
  int64_t b_in_place_stride_ = 0;
  const int64_t* b_in_place_rows_ = nullptr;  // or B's row offsets (b_in_place_ is then B itself)
  std::vector<Out> row_bias_, col_bias_;
};

}  // namespace gemm_run

}  // namespace mlvm
