#include "kernels/gemm.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/precision.hpp"
#include "kernels/thread_pool.hpp"

namespace mlvm {

namespace {

// The arithmetic type: floats compute in their own type; integers in the unsigned type of the
// result's width, so that wrapping is defined behaviour (two's complement modulo 2^w).
template <class T> struct work_of { using type = T; };
template <> struct work_of<int8_t> { using type = uint32_t; };
template <> struct work_of<uint8_t> { using type = uint32_t; };
template <> struct work_of<int16_t> { using type = uint32_t; };
template <> struct work_of<int32_t> { using type = uint32_t; };
template <> struct work_of<int64_t> { using type = uint64_t; };
template <class T> using work_t = typename work_of<T>::type;

// Register block MR x NR (about 8 vector accumulators at 128-bit width) and cache blocks:
// an MC x KC block of A stays in L2, a KC x NC block of B in L3.
template <class W>
struct Blocking {
  static constexpr int MR = 4;
  static constexpr int NR = sizeof(W) == 4 ? 8 : 4;
  static constexpr int64_t KC = 256;
  static constexpr int64_t MC = 128;   // multiple of MR
  static constexpr int64_t NC = 2048;  // multiple of NR
};

// Input element -> arithmetic type. Going through the (signed) result type first sign-extends
// signed inputs, so the unsigned arithmetic equals the two's complement one.
template <class T>
inline work_t<T> widen(T x) {
  return static_cast<work_t<T>>(static_cast<gemm_out_t<T>>(x));
}

// Packs B[0:kc, 0:nc] panel `p` (columns p*NR ..) as kc rows of NR, zero-padded past nc.
template <class T, int NR>
void pack_b_panel(const T* b, int64_t rsb, int64_t csb, int64_t kc, int64_t nc, int64_t p,
                  work_t<T>* out) {
  using W = work_t<T>;
  const int64_t j0 = p * NR;
  const int nr = int(std::min<int64_t>(NR, nc - j0));
  W* dst = out + p * kc * NR;
  const T* src = b + j0 * csb;
  if (nr < NR || (csb < 0 ? -csb : csb) <= (rsb < 0 ? -rsb : rsb)) {
    // Rows of B are the closer dimension: walk k outer, j inner.
    for (int64_t k = 0; k < kc; ++k) {
      const T* row = src + k * rsb;
      W* d = dst + k * NR;
      for (int j = 0; j < nr; ++j) d[j] = widen(row[j * csb]);
      for (int j = nr; j < NR; ++j) d[j] = W(0);
    }
  } else {
    // Columns of B are contiguous-ish (dense's wᵀ): walk j outer, k inner.
    for (int j = 0; j < NR; ++j) {
      const T* col = src + j * csb;
      for (int64_t k = 0; k < kc; ++k) dst[k * NR + j] = widen(col[k * rsb]);
    }
  }
}

// Packs A[0:mc, 0:kc] as MR-high panels: panel p holds kc columns of MR, zero-padded past mc.
template <class T, int MR>
void pack_a(const T* a, int64_t rsa, int64_t csa, int64_t mc, int64_t kc, work_t<T>* out) {
  using W = work_t<T>;
  for (int64_t i0 = 0; i0 < mc; i0 += MR) {
    const int mr = int(std::min<int64_t>(MR, mc - i0));
    W* dst = out + i0 * kc;
    for (int i = 0; i < mr; ++i) {
      const T* row = a + (i0 + i) * rsa;
      for (int64_t k = 0; k < kc; ++k) dst[k * MR + i] = widen(row[k * csa]);
    }
    for (int i = mr; i < MR; ++i)
      for (int64_t k = 0; k < kc; ++k) dst[k * MR + i] = W(0);
  }
}

// acc (MR x NR) = Apanel · Bpanel over kc. Plain C++ the compiler vectorizes over j.
template <class W, int MR, int NR>
inline void micro_kernel(int64_t kc, const W* __restrict a, const W* __restrict b,
                         W* __restrict acc) {
  W c[MR][NR] = {};
  for (int64_t k = 0; k < kc; ++k, a += MR, b += NR) {
    for (int i = 0; i < MR; ++i) {
      const W ai = a[i];
      for (int j = 0; j < NR; ++j) c[i][j] += ai * b[j];
    }
  }
  std::memcpy(acc, c, sizeof(c));
}

template <class T>
void gemm_impl(const GemmArgs<T>& g, ThreadPool* pool) {
  using W = work_t<T>;
  using Out = gemm_out_t<T>;
  using B = Blocking<W>;
  constexpr int MR = B::MR, NR = B::NR;
  if (g.m <= 0 || g.n <= 0) return;

  auto bias_at = [&](int64_t i, int64_t j) -> W {
    if (!g.bias) return W(0);
    return static_cast<W>(g.bias[(g.bias_per_row ? i : j) * g.bias_stride]);
  };
  if (g.k <= 0) {
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) g.c[i * g.ldc + j] = static_cast<Out>(bias_at(i, j));
    return;
  }

  const int threads = pool ? pool->size() : 1;
  // Below ~1 MFLOP the fork/join costs more than it saves.
  ThreadPool* use_pool = double(g.m) * double(g.n) * double(g.k) >= 1.0e6 ? pool : nullptr;
  std::vector<W> bpack;

  for (int64_t jc = 0; jc < g.n; jc += B::NC) {
    const int64_t nc = std::min(B::NC, g.n - jc);
    const int64_t npan = (nc + NR - 1) / NR;
    for (int64_t pc = 0; pc < g.k; pc += B::KC) {
      const int64_t kc = std::min(B::KC, g.k - pc);
      const bool first = pc == 0;
      bpack.resize(std::size_t(npan * kc * NR));
      const T* bsrc = g.b + pc * g.rsb + jc * g.csb;
      parallel_for(use_pool, npan, 16, [&](int64_t p0, int64_t p1) {
        for (int64_t p = p0; p < p1; ++p) pack_b_panel<T, NR>(bsrc, g.rsb, g.csb, kc, nc, p, bpack.data());
      });

      // Tasks: M blocks, each further split into column groups when there are fewer M blocks
      // than threads (dense with a small batch).
      const int64_t mb = (g.m + B::MC - 1) / B::MC;
      const int64_t ng = use_pool && mb < threads ? std::min<int64_t>(npan, (threads + mb - 1) / mb) : 1;
      parallel_for(use_pool, mb * ng, 1, [&](int64_t t0, int64_t t1) {
        thread_local std::vector<W> apack;
        apack.resize(std::size_t(B::MC * kc));
        W acc[MR * NR];
        for (int64_t t = t0; t < t1; ++t) {
          const int64_t ib = t / ng, gi = t % ng;
          const int64_t ic = ib * B::MC;
          const int64_t mc = std::min(B::MC, g.m - ic);
          pack_a<T, MR>(g.a + ic * g.rsa + pc * g.csa, g.rsa, g.csa, mc, kc, apack.data());
          const int64_t pan0 = npan * gi / ng, pan1 = npan * (gi + 1) / ng;
          for (int64_t p = pan0; p < pan1; ++p) {
            const int64_t j0 = jc + p * NR;
            const int nr = int(std::min<int64_t>(NR, g.n - j0));
            const W* bp = bpack.data() + p * kc * NR;
            for (int64_t i0 = 0; i0 < mc; i0 += MR) {
              const int mr = int(std::min<int64_t>(MR, mc - i0));
              micro_kernel<W, MR, NR>(kc, apack.data() + i0 * kc, bp, acc);
              for (int i = 0; i < mr; ++i) {
                const int64_t row = ic + i0 + i;
                Out* c = g.c + row * g.ldc + j0;
                for (int j = 0; j < nr; ++j) {
                  W v = acc[i * NR + j];
                  v += first ? bias_at(row, j0 + j) : static_cast<W>(c[j]);
                  c[j] = static_cast<Out>(v);
                }
              }
            }
          }
        }
      });
    }
  }
}

}  // namespace

template <class T>
void gemm(const GemmArgs<T>& g, ThreadPool* pool) {
  gemm_impl<T>(g, pool);
}

void check_gemm_dtypes(const char* op, const TensorType& x, const TensorType& w) {
  if (x.dtype != w.dtype)
    fail_invalid(std::string(op) + ": inputs must have one dtype, got " + x.to_string() + " and " +
                 w.to_string() + " (cast one of them)");
  if (x.dtype == DType::boolean)
    fail_invalid(std::string(op) + ": bool inputs are not supported (expected f32, f64, i8, u8, i16, i32 or i64)");
}

DType gemm_result_dtype(DType input) {
  switch (input) {
    case DType::i8:
    case DType::u8:
    case DType::i16: return DType::i32;
    default: return input;
  }
}

int gemm_result_precision(const TensorType& x, const TensorType& w, const TensorType* bias, int64_t k) {
  if (!is_signed_int(gemm_result_dtype(x.dtype)) || k == kDynamic) return kUnknownPrecision;
  auto input_precision = [](const TensorType& t) { return t.dtype == DType::u8 ? 9 : t.precision; };
  const int px = input_precision(x), pw = input_precision(w);
  if (px == kUnknownPrecision || pw == kUnknownPrecision) return kUnknownPrecision;
  int p = px + pw + ceil_log2(k);
  if (bias) {
    if (bias->precision == kUnknownPrecision) return kUnknownPrecision;
    p = std::max(p, bias->precision) + 1;
  }
  return p;
}

template void gemm<float>(const GemmArgs<float>&, ThreadPool*);
template void gemm<double>(const GemmArgs<double>&, ThreadPool*);
template void gemm<int8_t>(const GemmArgs<int8_t>&, ThreadPool*);
template void gemm<uint8_t>(const GemmArgs<uint8_t>&, ThreadPool*);
template void gemm<int16_t>(const GemmArgs<int16_t>&, ThreadPool*);
template void gemm<int32_t>(const GemmArgs<int32_t>&, ThreadPool*);
template void gemm<int64_t>(const GemmArgs<int64_t>&, ThreadPool*);

}  // namespace mlvm
