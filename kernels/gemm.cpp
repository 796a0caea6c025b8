#include "kernels/gemm.hpp"

#include <memory>
#include <span>
#include <vector>

#include "kernels/gemm_run.hpp"
#include "tensor/huge_pages.hpp"

namespace mlvm {

using gemm_run::b_values;
using gemm_run::BValues;
using gemm_run::GemmRun;
using gemm_run::Plan;
using gemm_run::plan_for;
using gemm_run::plan_of;
using gemm_run::prefers_b_values;
using gemm_run::Small;

namespace {

// Whether the i8 matrix (rows x cols, element strides sr, sc) lies within [-64, 64], where
// the level has the kernels for a 7-bit operand: checked once, when constant weights are
// packed ahead.
template <class T>
bool takes_small(const T* data, int64_t rows, int64_t cols, int64_t sr, int64_t sc) {
  if constexpr (std::is_same_v<T, int8_t>) {
    const simd::GemmKernelTable& t = simd::gemm_kernels();
    if (!t.s8_offset_b_quads.fn || t.u8s8_quads.fn) return false;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        if (data[r * sr + c * sc] < -64 || data[r * sr + c * sc] > 64) return false;
    return true;
  }
  return false;
}

}  // namespace

template <class T>
void gemm(const GemmArgs<T>& g, ThreadPool* pool) {
  Plan<T> plan = plan_of(g);
  if constexpr (std::is_same_v<T, float>) gemm_run::fit_rows(plan, g);
  GemmRun<T>(g, plan).run(pool);
}

template <class T>
bool gemm_prefers_b_values() {
  return prefers_b_values<T>();
}

int gemm_int8_kernel(const GemmArgs<int8_t>& g) {
  const simd::GemmKernelTable& t = simd::gemm_kernels();
  const simd::MicroKernel fn = plan_of(g).kern.fn;
  if (fn == t.s8_offset_b_quads.fn) return 4;
  if (fn == t.u8_offset_a_quads.fn) return 5;
  if (fn == t.s8_small_a_unsigned_b_quads.fn) return 6;
  return fn == t.s8_sign_quads.fn ? 1 : fn == t.s8_unsigned_b_quads.fn ? 2 : fn == t.u8s8_quads.fn ? 3 : 0;
}

bool gemm_packed_for_b_values(const PackedOperand* p) {
  const void* key = gemm_run::kernel_key(simd::gemm_kernels().s8_sign_quads);
  return p && key && p->kernel == key;
}

bool gemm_packed_prefers_b_values(const PackedOperand* p) {
  const simd::GemmKernelTable& t = simd::gemm_kernels();
  return gemm_packed_for_b_values(p) ||
         (p && t.s8_small_a_unsigned_b_quads.fn && p->kernel == gemm_run::kernel_key(t.s8_offset_b_quads));
}

template <class T>
std::shared_ptr<const PackedOperand> gemm_prepack_a(const GemmArgs<T>& g, bool b_any) {
  if (g.m <= 0 || g.k <= 0) return nullptr;
  GemmArgs<T> only = g;
  only.n = 1;
  only.bias = nullptr;
  // For the s8 quads kernels where a level has them (B without -128 or without negatives: the
  // same panels), the likelier ones (conv2d's activations, checked per run), unless `b_any`;
  // a GEMM that falls back to the i16 pairs packs A again. A within 7 bits takes every B.
  const Plan<T> plan = takes_small(g.a, g.m, g.k, g.rsa, g.csa)
                           ? plan_for<T>(BValues::any, Small::a)
                           : plan_for<T>(b_any ? BValues::any : BValues::without_min);
  return GemmRun<T>(only, plan).prepack(true);
}

template <class T>
std::vector<std::shared_ptr<const PackedOperand>> gemm_prepack_together(std::span<const GemmArgs<T>> gs, bool side_a,
                                                                         char* (*buffer)(int64_t bytes)) {
  const Plan<T> plan = plan_for<T>();
  std::vector<GemmArgs<T>> only(gs.begin(), gs.end());
  std::vector<int64_t> offsets;
  int64_t total = 0;
  for (GemmArgs<T>& g : only) {
    if ((side_a ? g.m : g.n) <= 0 || g.k <= 0 || (!side_a && g.b_row_offsets)) return {};
    (side_a ? g.n : g.m) = 1;
    g.bias = nullptr;
    offsets.push_back(total);
    total += GemmRun<T>(g, plan).packed_bytes(side_a);
  }
  std::shared_ptr<char[]> raw;
  if (!buffer) raw.reset(static_cast<char*>(huge_page_alloc(std::size_t(total + 64))), HugePageDeleter{});
  char* start = buffer ? buffer(total + 64) : raw.get();
  if (!start) throw std::bad_alloc();
  char* base = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(start) + 63) & ~std::uintptr_t(63));
  std::vector<std::shared_ptr<const PackedOperand>> packed;
  for (std::size_t i = 0; i < only.size(); ++i)
    packed.push_back(GemmRun<T>(only[i], plan).prepack(side_a, raw, base + offsets[i]));
  return packed;
}

template <class T>
bool gemm_reads_windows() {
  return plan_for<T>().pack_window != nullptr;
}

template <class T>
GemmTileShape gemm_tile_shape() {
  const Plan<T> plan = plan_for<T>();
  return {plan.kern.mr, plan.kern.nr};
}

template <class T>
std::shared_ptr<const PackedOperand> gemm_prepack_b(const GemmArgs<T>& g) {
  if (g.n <= 0 || g.k <= 0 || g.b_row_offsets) return nullptr;
  GemmArgs<T> only = g;
  only.m = 1;
  only.bias = nullptr;
  const Plan<T> plan = takes_small(g.b, g.k, g.n, g.rsb, g.csb) ? plan_for<T>(BValues::any, Small::b)
                                                                : plan_for<T>(b_values(g));
  return GemmRun<T>(only, plan).prepack(false);
}

#define MLVM_GEMM(T)                                                                   \
  template void gemm<T>(const GemmArgs<T>&, ThreadPool*);                               \
  template std::shared_ptr<const PackedOperand> gemm_prepack_a<T>(const GemmArgs<T>&, bool); \
  template std::shared_ptr<const PackedOperand> gemm_prepack_b<T>(const GemmArgs<T>&); \
  template bool gemm_reads_windows<T>();                                              \
  template bool gemm_prefers_b_values<T>();                                            \
  template GemmTileShape gemm_tile_shape<T>();
MLVM_GEMM(float)
MLVM_GEMM(double)
MLVM_GEMM(int8_t)
MLVM_GEMM(uint8_t)
MLVM_GEMM(int16_t)
MLVM_GEMM(int32_t)
MLVM_GEMM(int64_t)
#undef MLVM_GEMM
template std::vector<std::shared_ptr<const PackedOperand>> gemm_prepack_together<float>(
    std::span<const GemmArgs<float>>, bool, char* (*)(int64_t));
template std::vector<std::shared_ptr<const PackedOperand>> gemm_prepack_together<int16_t>(
    std::span<const GemmArgs<int16_t>>, bool, char* (*)(int64_t));

}  // namespace mlvm
