#include "tensor/copy.hpp"

#include <cstring>

#include "tensor/copy_tiled.hpp"
#include "tensor/error.hpp"
#include "tensor/strided_loop.hpp"

namespace mlvm {

namespace {

template <std::size_t S>
void copy_run(std::byte* d, const std::byte* s, int64_t n, int64_t ds, int64_t ss) {
  if (ds == int64_t(S) && ss == int64_t(S)) {
    std::memcpy(d, s, std::size_t(n) * S);
    return;
  }
  for (int64_t k = 0; k < n; ++k, d += ds, s += ss) std::memcpy(d, s, S);
}

int64_t magnitude(int64_t v) {
  return v < 0 ? -v : v;
}

// The outer dim of the plan along which the source is densest, when it is denser than along
// the inner run (whose order follows the destination): copying tiles of that dim and the
// inner one reads and writes whole cache lines on both sides. -1 when the inner run is fine.
int tile_partner_dim(const StridedLoop<2>& L) {
  if (L.ndim < 2) return -1;
  const int inner = L.ndim - 1;
  int best = -1;
  int64_t best_stride = magnitude(L.byte_strides[1][inner]);
  for (int d = 0; d < inner; ++d) {
    const int64_t s = magnitude(L.byte_strides[1][d]);
    if (s != 0 && s < best_stride) {  // stride 0 (broadcast) rereads one line anyway
      best = d;
      best_stride = s;
    }
  }
  return best;
}

// Copies by tiles over dims (j, inner) of the plan, all other dims as outer loops.
void copy_blocked(const StridedLoop<2>& L, int j, std::byte* dst, const std::byte* src,
                  int64_t itemsize) {
  const int inner = L.ndim - 1;
  // The remaining dims, as a plan whose inner run has length 1: for_each_run then visits
  // every combination of them and hands over the two base pointers.
  StridedLoop<2> outer;
  outer.byte_offset = L.byte_offset;
  int m = 0;
  for (int d = 0; d < inner; ++d) {
    if (d == j) continue;
    outer.shape[m] = L.shape[d];
    for (int k = 0; k < 2; ++k) outer.byte_strides[k][m] = L.byte_strides[k][d];
    ++m;
  }
  outer.shape[m] = 1;
  outer.ndim = m + 1;
  TileCopy tile;
  tile.rows = L.shape[j];
  tile.cols = L.shape[inner];
  tile.dst_row_stride = L.byte_strides[0][j];
  tile.dst_col_stride = L.byte_strides[0][inner];
  tile.src_row_stride = L.byte_strides[1][j];
  tile.src_col_stride = L.byte_strides[1][inner];
  for_each_run(outer, {dst, const_cast<std::byte*>(src)}, [&](auto p, int64_t, auto) {
    copy_tiled(tile, p[0], p[1], itemsize);
  });
}

}  // namespace

void copy_into(const Tensor& src, const Tensor& dst) {
  if (src.dtype() != dst.dtype() || !(src.shape() == dst.shape()))
    fail_invalid("copy from " + src.type_string() + " into " + dst.type_string() + ": types differ");
  dst.check_writable("copy destination");
  auto L = plan_strided_loop<2>(dst.shape(), std::array<const Tensor*, 2>{&dst, &src},
                                LoopOptions{true, false});
  if (L.empty) return;
  const int64_t isz = dst.itemsize();
  if (const int j = tile_partner_dim(L); j >= 0) {
    copy_blocked(L, j, dst.raw_data(), src.raw_data(), isz);
    return;
  }
  for_each_run(L, {dst.raw_data(), src.raw_data()}, [&](auto p, int64_t n, auto st) {
    switch (isz) {
      case 1: copy_run<1>(p[0], p[1], n, st[0], st[1]); break;
      case 2: copy_run<2>(p[0], p[1], n, st[0], st[1]); break;
      case 4: copy_run<4>(p[0], p[1], n, st[0], st[1]); break;
      default: copy_run<8>(p[0], p[1], n, st[0], st[1]); break;
    }
  });
}

Tensor contiguous(const Tensor& src, std::shared_ptr<MemoryBudget> budget) {
  if (src.is_contiguous()) return src;
  return clone(src, std::move(budget));
}

Tensor clone(const Tensor& src, std::shared_ptr<MemoryBudget> budget) {
  Tensor out = Tensor::empty(src.dtype(), src.shape(), std::move(budget));
  if (out.numel() > 0) copy_into(src, out);
  return out;
}

}  // namespace mlvm
