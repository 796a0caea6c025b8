// SIMD inner runs of the reductions (sum, mean, max, min), one table per SIMD level, built
// like the elementwise table (kernels/simd/ew.hpp): reduce_<level>.cpp compiles
// kernels/simd/reduce_impl.inl with that level's flags; reduce_kernels() picks by level().
//
// The reduction kernel (kernels/reduce.cpp) walks input and accumulator together; an inner
// run either folds a contiguous run of the input into one accumulator (the reduced dim is
// the run) or combines a contiguous input row into a contiguous row of accumulators (the
// reduced dim is outside the run: "vertical" accumulation).
//
// Results: integer sums wrap in the input's dtype, exactly as a sequential loop; max and
// min (any dtype) and every accumulate run give exactly the scalar loop's result, NaN and
// signed zeros included. Float fold-sums are reordered: each SIMD lane sums its share of a
// block of kSumBlock elements sequentially, blocks are combined pairwise lane by lane, and
// the lanes as a balanced tree, so the error is
// O(eps * (kSumBlock / lanes + log2(n / kSumBlock) + log2(lanes))) * sum|x|, the same order
// as NumPy's pairwise sum.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/simd/ew.hpp"

namespace mlvm::simd {

enum class ReduceOp : int { sum = 0, max, min };
inline constexpr int kNumReduceOps = 3;
inline constexpr int64_t kSumBlock = 1024;

// *acc = combine(*acc, reduce(x[0], ..., x[n-1])), x contiguous.
using FoldRun = void (*)(void* acc, const void* x, int64_t n);
// acc[k] = combine(acc[k], x[k]) for k < n, both contiguous.
using AccumulateRun = void (*)(void* acc, const void* x, int64_t n);

struct ReduceTable {
  FoldRun fold[kNumReduceOps][kNumElems] = {};
  AccumulateRun accumulate[kNumReduceOps][kNumElems] = {};
};

// The table of the current level (simd::level()).
const ReduceTable& reduce_kernels();

namespace avx512 {
const ReduceTable& reduce_table();
}
namespace avx2 {
const ReduceTable& reduce_table();
}
namespace sse2 {
const ReduceTable& reduce_table();
}

}  // namespace mlvm::simd
