#include "tensor/copy_tiled.hpp"

#include <emmintrin.h>

#include <cstring>

namespace mlvm {

namespace {

// Tile edge: 64 bytes of elements (one cache line per tile row on each side). Larger tiles
// lose to cache-set conflicts when the strides are powers of two (4096 x 4096: each row of a
// tile maps to the same L1 set), smaller ones to loop overhead.
template <std::size_t S>
constexpr int64_t kTileEdge = int64_t(64 / S);

// Destinations of at least this many bytes are written with non-temporal stores: they would
// be evicted before use anyway, and streaming saves reading each destination line first.
constexpr int64_t kStreamingMinBytes = int64_t(8) << 20;

template <std::size_t S>
void tile_elements(const TileCopy& t, std::byte* dst, const std::byte* src, int64_t r0, int64_t r1,
                   int64_t c0, int64_t c1) {
  for (int64_t c = c0; c < c1; ++c) {
    std::byte* d = dst + c * t.dst_col_stride + r0 * t.dst_row_stride;
    const std::byte* s = src + c * t.src_col_stride + r0 * t.src_row_stride;
    for (int64_t r = r0; r < r1; ++r, d += t.dst_row_stride, s += t.src_row_stride)
      std::memcpy(d, s, S);
  }
}

// The plain transpose (source dense along rows, destination along cols) through SSE2
// registers, the x86-64 baseline: 4 x 4 blocks of 4-byte elements, 2 x 2 of 8-byte ones.
template <bool Stream>
inline void store4(std::byte* d, __m128 v) {
  if constexpr (Stream)
    _mm_stream_ps(reinterpret_cast<float*>(d), v);
  else
    _mm_storeu_ps(reinterpret_cast<float*>(d), v);
}
template <bool Stream>
inline void store8(std::byte* d, __m128d v) {
  if constexpr (Stream)
    _mm_stream_pd(reinterpret_cast<double*>(d), v);
  else
    _mm_storeu_pd(reinterpret_cast<double*>(d), v);
}

template <bool Stream>
void tile_transpose4(const TileCopy& t, std::byte* dst, const std::byte* src, int64_t r0,
                     int64_t r1, int64_t c0, int64_t c1) {
  const int64_t sc = t.src_col_stride, dr = t.dst_row_stride;
  int64_t r = r0;
  for (; r + 4 <= r1; r += 4) {
    int64_t c = c0;
    for (; c + 4 <= c1; c += 4) {
      const std::byte* s = src + r * 4 + c * sc;
      __m128 v0 = _mm_loadu_ps(reinterpret_cast<const float*>(s));
      __m128 v1 = _mm_loadu_ps(reinterpret_cast<const float*>(s + sc));
      __m128 v2 = _mm_loadu_ps(reinterpret_cast<const float*>(s + 2 * sc));
      __m128 v3 = _mm_loadu_ps(reinterpret_cast<const float*>(s + 3 * sc));
      _MM_TRANSPOSE4_PS(v0, v1, v2, v3);
      std::byte* d = dst + r * dr + c * 4;
      store4<Stream>(d, v0);
      store4<Stream>(d + dr, v1);
      store4<Stream>(d + 2 * dr, v2);
      store4<Stream>(d + 3 * dr, v3);
    }
    if (c < c1) tile_elements<4>(t, dst, src, r, r + 4, c, c1);
  }
  if (r < r1) tile_elements<4>(t, dst, src, r, r1, c0, c1);
}

template <bool Stream>
void tile_transpose8(const TileCopy& t, std::byte* dst, const std::byte* src, int64_t r0,
                     int64_t r1, int64_t c0, int64_t c1) {
  const int64_t sc = t.src_col_stride, dr = t.dst_row_stride;
  int64_t r = r0;
  for (; r + 2 <= r1; r += 2) {
    int64_t c = c0;
    for (; c + 2 <= c1; c += 2) {
      const std::byte* s = src + r * 8 + c * sc;
      const __m128d v0 = _mm_loadu_pd(reinterpret_cast<const double*>(s));
      const __m128d v1 = _mm_loadu_pd(reinterpret_cast<const double*>(s + sc));
      std::byte* d = dst + r * dr + c * 8;
      store8<Stream>(d, _mm_unpacklo_pd(v0, v1));
      store8<Stream>(d + dr, _mm_unpackhi_pd(v0, v1));
    }
    if (c < c1) tile_elements<8>(t, dst, src, r, r + 2, c, c1);
  }
  if (r < r1) tile_elements<8>(t, dst, src, r, r1, c0, c1);
}

// One full tile through two L1-resident buffers: each source line (64 bytes of one source
// column) is read whole, the tile is transposed in the buffers, and each destination line is
// written whole. With power-of-two strides every line of a tile maps to one L1 set on both
// sides (4096 x 4096 f32: 16 KiB apart), more lines than the set has ways; touching each line
// once, completely, makes those conflicts harmless, where the direct 4 x 4 walk revisits
// every line four times and misses L1 on nearly every access.
template <std::size_t S, bool Stream>
void tile_buffered(const TileCopy& t, std::byte* dst, const std::byte* src, int64_t r0,
                   int64_t c0) {
  constexpr int64_t E = kTileEdge<S>;
  alignas(64) std::byte in[E][64];
  alignas(64) std::byte out[E][64];
  for (int64_t c = 0; c < E; ++c) std::memcpy(in[c], src + (c0 + c) * t.src_col_stride + r0 * int64_t(S), 64);
  TileCopy local;
  local.rows = E;
  local.cols = E;
  local.src_row_stride = int64_t(S);
  local.src_col_stride = 64;
  local.dst_row_stride = 64;
  local.dst_col_stride = int64_t(S);
  if constexpr (S == 4)
    tile_transpose4<false>(local, &out[0][0], &in[0][0], 0, E, 0, E);
  else
    tile_transpose8<false>(local, &out[0][0], &in[0][0], 0, E, 0, E);
  for (int64_t r = 0; r < E; ++r) {
    std::byte* d = dst + (r0 + r) * t.dst_row_stride + c0 * int64_t(S);
    if constexpr (Stream) {
      for (int k = 0; k < 64; k += 16)
        _mm_stream_si128(reinterpret_cast<__m128i*>(d + k),
                         _mm_load_si128(reinterpret_cast<const __m128i*>(&out[r][k])));
    } else {
      std::memcpy(d, out[r], 64);
    }
  }
}

// Visits the tiles. Streaming runs go in the source's memory order (each tile row of the
// source continues where the previous tile left it: sequential reads the prefetcher follows,
// while the streamed writes need no cache); cached runs in the destination's order.
template <bool SourceOrder, class TileFn>
void for_each_tile(const TileCopy& t, int64_t edge, const TileFn& tile) {
  auto end = [](int64_t start, int64_t step, int64_t limit) {
    return start + step < limit ? start + step : limit;
  };
  if constexpr (SourceOrder) {
    for (int64_t c0 = 0; c0 < t.cols; c0 += edge)
      for (int64_t r0 = 0; r0 < t.rows; r0 += edge)
        tile(r0, end(r0, edge, t.rows), c0, end(c0, edge, t.cols));
  } else {
    for (int64_t r0 = 0; r0 < t.rows; r0 += edge)
      for (int64_t c0 = 0; c0 < t.cols; c0 += edge)
        tile(r0, end(r0, edge, t.rows), c0, end(c0, edge, t.cols));
  }
}

template <std::size_t S>
void copy_tiles(const TileCopy& t, std::byte* dst, const std::byte* src) {
  constexpr int64_t B = kTileEdge<S>;
  if constexpr (S == 4 || S == 8) {
    if (t.src_row_stride == int64_t(S) && t.dst_col_stride == int64_t(S)) {
      // Streaming stores need 16-byte aligned addresses: every block starts at a multiple
      // of 16 bytes along the row when the destination and its row stride are aligned.
      const bool stream = t.rows * t.cols * int64_t(S) >= kStreamingMinBytes &&
                          reinterpret_cast<uintptr_t>(dst) % 16 == 0 && t.dst_row_stride % 16 == 0;
      if (stream) {
        for_each_tile<true>(t, B, [&](int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
          if (r1 - r0 == B && c1 - c0 == B) return tile_buffered<S, true>(t, dst, src, r0, c0);
          if constexpr (S == 4)
            tile_transpose4<true>(t, dst, src, r0, r1, c0, c1);
          else
            tile_transpose8<true>(t, dst, src, r0, r1, c0, c1);
        });
        _mm_sfence();  // streamed stores are weakly ordered: publish them before returning
      } else {
        for_each_tile<false>(t, B, [&](int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
          if (r1 - r0 == B && c1 - c0 == B) return tile_buffered<S, false>(t, dst, src, r0, c0);
          if constexpr (S == 4)
            tile_transpose4<false>(t, dst, src, r0, r1, c0, c1);
          else
            tile_transpose8<false>(t, dst, src, r0, r1, c0, c1);
        });
      }
      return;
    }
  }
  for_each_tile<false>(t, B, [&](int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
    tile_elements<S>(t, dst, src, r0, r1, c0, c1);
  });
}

}  // namespace

void copy_tiled(const TileCopy& t, std::byte* dst, const std::byte* src, int64_t itemsize) {
  switch (itemsize) {
    case 1: return copy_tiles<1>(t, dst, src);
    case 2: return copy_tiles<2>(t, dst, src);
    case 4: return copy_tiles<4>(t, dst, src);
    default: return copy_tiles<8>(t, dst, src);
  }
}

}  // namespace mlvm
