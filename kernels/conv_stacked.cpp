#include "kernels/conv_stacked.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "kernels/fused_activation.hpp"
#include "kernels/gemm.hpp"
#include "kernels/op_api.hpp"
#include "kernels/parallel_items.hpp"
#include "kernels/thread_pool.hpp"
#include "kernels/thread_scratch.hpp"

namespace mlvm {

namespace {

struct StackedScratch;  // thread_scratch owner: slot 0 the stacked planes, slot 1 the GEMM's result

// A group's planes and result together stay within about half of a 1 MiB L2, where the GEMM
// reads the planes back and the result is copied out.
constexpr int64_t kGroupBytes = int64_t(512) << 10;

// The stacked planes of images [n0, n0 + nb): plane (j, c, image) holds, in its hq x ow
// rows, the zero-padded input rows of that image and channel read at columns q + j·DW - left.
void build_stacked(const StackedConv& s, const ConvParams& p, int64_t hq, int64_t n0, int64_t nb, float* dst) {
  for (int64_t j = 0; j < s.kw; ++j) {
    const int64_t off = j * p.dw - p.left;  // input column of output column 0
    // Output columns q whose input column q + off lies in [0, w).
    const int64_t lo = std::clamp<int64_t>(-off, 0, s.ow), hi = std::clamp<int64_t>(s.w - off, lo, s.ow);
    for (int64_t c = 0; c < s.c; ++c)
      for (int64_t i = 0; i < nb; ++i) {
        float* plane = dst + ((j * s.c + c) * nb + i) * hq * s.ow;
        const float* src = s.x + ((n0 + i) * s.c + c) * s.h * s.w;
        for (int64_t r = 0; r < hq; ++r) {
          float* row = plane + r * s.ow;
          const int64_t ih = r - p.top;
          if (ih < 0 || ih >= s.h) {
            std::fill(row, row + s.ow, 0.0f);
            continue;
          }
          std::fill(row, row + lo, 0.0f);
          std::copy(src + ih * s.w + lo + off, src + ih * s.w + hi + off, row + lo);
          std::fill(row + hi, row + s.ow, 0.0f);
        }
      }
  }
}

}  // namespace

bool takes_stacked(int64_t n, int64_t groups, int64_t kh, int64_t kw, const ConvParams& p, int64_t oh, int64_t ow) {
  return n > 1 && groups == 1 && kh * kw > 1 && p.sh == 1 && p.sw == 1 && oh * ow <= kStackedMaxPixels;
}

void conv_stacked(const StackedConv& s, const ConvParams& p, ExecEnv& env) {
  const int64_t hq = s.h + p.top + p.bottom;  // = oh + (kh - 1)·DH at stride 1
  const int64_t kg = s.c * s.kh * s.kw;
  const int64_t per_image = (s.kw * s.c + s.oc) * hq * s.ow * int64_t(sizeof(float));
  const int64_t most = std::clamp<int64_t>(kGroupBytes / std::max<int64_t>(1, per_image), 1, s.n);
  // Groups of equal size: a last group of a few images would be a GEMM of few columns.
  const int64_t groups = (s.n + most - 1) / most, size = (s.n + groups - 1) / groups;
  std::array<float, 2> bounds{};
  const float* clamp = nullptr;
  if (s.act && s.act->kind == FusedActivation::Kind::clamp) {
    bounds = clamp_bounds<float>(s.act);
    clamp = bounds.data();
  }
  const int64_t out_plane = s.oh * s.ow;
  auto group = [&](int64_t gi, ThreadPool* inner) {
    env.check_cancelled();
    const int64_t n0 = gi * size, nb = std::min(size, s.n - n0);
    if (nb <= 0) return;
    const int64_t stride = nb * hq * s.ow;  // between the planes of two channels
    float* planes = thread_scratch<StackedScratch, float>(0, s.kw * s.c * stride);
    build_stacked(s, p, hq, n0, nb, planes);
    std::vector<int64_t> koff;
    koff.reserve(std::size_t(kg));
    for (int64_t c = 0; c < s.c; ++c)
      for (int64_t i = 0; i < s.kh; ++i)
        for (int64_t j = 0; j < s.kw; ++j) koff.push_back((j * s.c + c) * stride + i * p.dh * s.ow);
    const int64_t cols = (nb - 1) * hq * s.ow + out_plane;
    float* out = thread_scratch<StackedScratch, float>(1, s.oc * cols);
    GemmArgs<float> a;
    a.m = s.oc;
    a.n = cols;
    a.k = kg;
    a.a = s.w_data;
    a.rsa = kg;
    a.csa = 1;
    a.a_packed = s.a_packed;
    a.b = planes;
    a.b_row_offsets = koff.data();
    a.csb = 1;
    a.c = out;
    a.ldc = cols;
    if (s.bias) {
      a.bias = s.bias;
      a.bias_stride = s.bias_stride;
      a.bias_per_row = true;
    }
    a.clamp = clamp;
    gemm(a, inner);
    // Image i's plane of channel o is the run at column i·hq·ow of row o.
    float* y = s.y + n0 * s.oc * out_plane;
    for (int64_t i = 0; i < nb; ++i)
      for (int64_t o = 0; o < s.oc; ++o)
        std::copy(out + o * cols + i * hq * s.ow, out + o * cols + i * hq * s.ow + out_plane,
                  y + (i * s.oc + o) * out_plane);
    apply_fused_after(s.act, y, nb * s.oc * out_plane);
  };
  // With at least two groups a thread, threads take whole groups (each on its own scratch).
  ThreadPool* pool = env.pool;
  if (pool && groups >= 2 * int64_t(pool->size()))
    for_each_item(pool, groups, [&](int64_t gi) { group(gi, nullptr); });
  else
    for (int64_t gi = 0; gi < groups; ++gi) group(gi, pool);
}

}  // namespace mlvm
