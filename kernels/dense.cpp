// dense (y = x·wᵀ + b) and matmul (NumPy semantics) over the blocked GEMM core; their static
// rules are in ir/infer_dense.cpp.
#include <algorithm>
#include <array>
#include <type_traits>

#include "ir/rules.hpp"
#include "kernels/broadcast.hpp"
#include "kernels/fused_activation.hpp"
#include "kernels/gemm.hpp"
#include "kernels/prepare.hpp"
#include "kernels/run_table.hpp"
#include "kernels/run_time_type.hpp"
#include "kernels/parallel_items.hpp"
#include "kernels/thread_pool.hpp"
#include "kernels/thread_scratch.hpp"

namespace mlvm {

namespace {

struct DenseScratch;

// gemm(g), with an integer result requantized (kernels/fused_activation.hpp) on its way to C:
// rows in blocks whose result stays in cache (L2; larger when B is packed per call, so that
// fewer blocks pack it again), each computed into the thread's scratch and requantized into C
// there. Integer sums are exact, so blocking changes no bit. Without `rq`, plain gemm(g).
template <class T>
void gemm_requantized(const GemmArgs<T>& g, const FusedActivation* rq, ThreadPool* pool) {
  using Out = gemm_out_t<T>;
  if (!rq || g.m <= 0 || g.n <= 0) {
    gemm(g, pool);
    if (rq)
      for (int64_t i = 0; i < g.m; ++i) apply_fused_requant<Out>(*rq, g.c + i * g.ldc, g.c + i * g.ldc, g.n);
    return;
  }
  const int64_t bytes = g.b_packed ? int64_t(256) << 10 : int64_t(2) << 20;
  const int64_t most_rows = std::clamp<int64_t>(bytes / int64_t(sizeof(Out)) / g.n, 1, g.m);
  const int64_t blocks = (g.m + most_rows - 1) / most_rows, rows = (g.m + blocks - 1) / blocks;
  auto block = [&](int64_t bi, ThreadPool* inner) {
    const int64_t i0 = bi * rows, mb = std::min(rows, g.m - i0);
    Out* out = thread_scratch<DenseScratch, Out>(0, mb * g.n);
    GemmArgs<T> b = g;
    b.m = mb;
    b.a = g.a + i0 * g.rsa;
    b.a_packed = nullptr;  // whole panels of it would not line up with the block's rows
    b.c = out;
    b.ldc = g.n;
    if (g.bias && g.bias_per_row) b.bias = g.bias + i0 * g.bias_stride;
    gemm(b, inner);
    for (int64_t i = 0; i < mb; ++i) apply_fused_requant<Out>(*rq, out + i * g.n, g.c + (i0 + i) * g.ldc, g.n);
  };
  if (pool && blocks >= 2 * int64_t(pool->size()))
    for_each_item(pool, blocks, [&](int64_t bi) { block(bi, nullptr); });
  else
    for (int64_t bi = 0; bi < blocks; ++bi) block(bi, pool);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// dense

void run_dense(KernelContext& ctx) {
  const TensorType ot = infer_at_run_time(ctx, infer_dense);
  const Tensor& x = ctx.in[0];
  const Tensor& w = ctx.in[1];
  const Tensor* b = ctx.in.size() > 2 && ctx.in[2].defined() ? &ctx.in[2] : nullptr;
  Tensor y = ctx.output(ot.dtype, ot.dims);
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    GemmArgs<T> g;
    g.m = x.dim(0);
    g.n = w.dim(0);
    g.k = x.dim(1);
    g.a = x.template data<T>();
    g.rsa = x.strides()[0];
    g.csa = x.strides()[1];
    // B(k, j) = w[j, k]
    g.b = w.template data<T>();
    g.rsb = w.strides()[1];
    g.csb = w.strides()[0];
    if (const PackedWeights* pw = ctx.prepared ? static_cast<const PackedWeights*>(ctx.prepared)->for_tensor(w) : nullptr)
      g.b_packed = pw->parts[0].get();
    g.c = y.template data<gemm_out_t<T>>();
    g.ldc = g.n;
    if (b) {
      g.bias = b->template data<gemm_out_t<T>>();
      g.bias_stride = b->strides()[0];
    }
    std::array<gemm_out_t<T>, 2> bounds{};
    if constexpr (std::is_floating_point_v<T>)
      if (ctx.activation && ctx.activation->kind == FusedActivation::Kind::clamp) {
        bounds = clamp_bounds<T>(ctx.activation);
        g.clamp = bounds.data();
      }
    gemm_requantized(g, fused_requant(ctx.activation), ctx.env.pool);
  });
  if (y.dtype() == DType::f32) apply_fused_after(ctx.activation, y.data<float>(), y.numel(), ctx.env.pool);
  ctx.out[0] = y;
}

// ---------------------------------------------------------------------------------------------
// matmul

void run_matmul(KernelContext& ctx) {
  const TensorType ot = infer_at_run_time(ctx, infer_matmul);
  const Tensor& a = ctx.in[0];
  const Tensor& b = ctx.in[1];
  // Promote rank-1 operands: a (K) -> (1, K), b (K) -> (K, 1).
  Tensor a2 = a.rank() == 1 ? a.with_layout(Dims{1, a.dim(0)}, Dims{0, a.strides()[0]}, a.offset()) : a;
  Tensor b2 = b.rank() == 1 ? b.with_layout(Dims{b.dim(0), 1}, Dims{b.strides()[0], 0}, b.offset()) : b;
  const int64_t m = a2.dim(a2.rank() - 2), k = a2.dim(a2.rank() - 1), n = b2.dim(b2.rank() - 1);
  Dims batch_a, batch_b;
  for (int i = 0; i + 2 < a2.rank(); ++i) batch_a.push_back(a2.dim(i));
  for (int i = 0; i + 2 < b2.rank(); ++i) batch_b.push_back(b2.dim(i));
  Dims batch = batch_a.empty() ? batch_b : batch_b.empty() ? batch_a : broadcast_shapes(batch_a, batch_b);
  Dims full_a = batch, full_b = batch;
  full_a.push_back(m);
  full_a.push_back(k);
  full_b.push_back(k);
  full_b.push_back(n);
  const Tensor A = broadcast_view(a2, full_a);
  const Tensor B = broadcast_view(b2, full_b);
  Tensor y = ctx.output(ot.dtype, ot.dims);
  const int nb = batch.size();
  int64_t batches = 1;
  for (int64_t d : batch) batches *= d;

  visit_dtype(a.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    using Out = gemm_out_t<T>;
    GemmArgs<T> g;
    g.m = m;
    g.n = n;
    g.k = k;
    g.rsa = A.strides()[nb];
    g.csa = A.strides()[nb + 1];
    g.rsb = B.strides()[nb];
    g.csb = B.strides()[nb + 1];
    // A constant 2-D b packed at plan time: the same matrix for every batch.
    if (b.rank() == 2 && ctx.prepared)
      if (const PackedWeights* pw = static_cast<const PackedWeights*>(ctx.prepared)->for_tensor(b))
        g.b_packed = pw->parts[0].get();
    g.ldc = n;
    std::array<Out, 2> bounds{};
    if constexpr (std::is_floating_point_v<T>)
      if (ctx.activation && ctx.activation->kind == FusedActivation::Kind::clamp) {
        bounds = clamp_bounds<T>(ctx.activation);
        g.clamp = bounds.data();
      }
    // When B is the same matrix for every batch and A's batch dims fold into its rows (the
    // common (batch, M, K) x (K, N) case), run one GEMM with batches*M rows. A dim of size 1
    // has no stride to respect: attention's (seq, 1, d) x (d, 3d) projection, M = 1 under a
    // transposed batch, folds into one GEMM over seq rows instead of seq GEMMs that each pack B.
    bool fold = batches > 1 && m > 0;
    int64_t row_stride = g.rsa, rows = m;
    for (int d = nb - 1; d >= 0 && fold; --d) {
      if (batch[d] == 1) continue;
      if (B.strides()[d] != 0) fold = false;
      if (rows == 1) row_stride = A.strides()[d];
      else if (A.strides()[d] != row_stride * rows) fold = false;
      rows *= batch[d];
    }
    if (fold || batches <= 1) {
      g.m = fold ? batches * m : m;
      if (fold) g.rsa = row_stride;
      g.a = A.template data<T>();
      g.b = B.template data<T>();
      g.c = y.template data<Out>();
      if (batches > 0) gemm_requantized(g, fused_requant(ctx.activation), ctx.env.pool);
      return;
    }
    // One GEMM per batch index; small ones share the pool across batches instead.
    const bool small = double(m) * double(n) * double(k) < 1.0e6;
    auto run_batches = [&](int64_t first, int64_t last, ThreadPool* inner_pool) {
      for (int64_t t = first; t < last; ++t) {
        ctx.env.check_cancelled();
        int64_t oa = 0, ob = 0, rem = t;
        for (int d = nb - 1; d >= 0; --d) {
          const int64_t i = rem % batch[d];
          rem /= batch[d];
          oa += i * A.strides()[d];
          ob += i * B.strides()[d];
        }
        GemmArgs<T> gb = g;
        gb.a = A.template data<T>() + oa;
        gb.b = B.template data<T>() + ob;
        gb.c = y.template data<Out>() + t * m * n;
        gemm_requantized(gb, fused_requant(ctx.activation), inner_pool);
      }
    };
    // Across batches only when there is enough work for a fork/join to pay (the GEMM's own
    // threshold): attention's per-head products of a short sequence are a few microseconds.
    ThreadPool* batch_pool = double(batches) * double(m) * double(n) * double(k) >= 1.0e6 ? ctx.env.pool : nullptr;
    if (small) parallel_for(batch_pool, batches, 1, [&](int64_t f, int64_t l) { run_batches(f, l, nullptr); });
    else run_batches(0, batches, ctx.env.pool);
  });
  if (y.dtype() == DType::f32) apply_fused_after(ctx.activation, y.data<float>(), y.numel(), ctx.env.pool);
  ctx.out[0] = y;
}

// ---------------------------------------------------------------------------------------------
// Constant weights packed at plan time (kernels/prepare.hpp): the B operand of both ops.

namespace {

// B (k x n) read as b[k·rsb + j·csb], packed for the current level.
std::shared_ptr<const void> prepare_b(const Tensor& w, int64_t n, int64_t k, int64_t rsb, int64_t csb) {
  auto packed = std::make_shared<PackedWeights>();
  packed->data = w.raw_data();
  packed->dtype = w.dtype();
  packed->shape = w.shape();
  packed->strides = w.strides();
  visit_dtype(w.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    GemmArgs<T> g;
    g.n = n;
    g.k = k;
    g.b = w.template data<T>();
    g.rsb = rsb;
    g.csb = csb;
    packed->parts.push_back(gemm_prepack_b(g));
  });
  return packed->parts.size() == 1 && packed->parts[0] ? packed : nullptr;
}

}  // namespace

std::shared_ptr<const void> prepare_dense(const PrepareContext& ctx) {
  if (ctx.in.size() < 2 || !ctx.in[1].defined() || ctx.in[1].rank() != 2) return nullptr;
  const Tensor& w = ctx.in[1];  // B(k, j) = w[j, k]
  return prepare_b(w, w.dim(0), w.dim(1), w.strides()[1], w.strides()[0]);
}

std::shared_ptr<const void> prepare_matmul(const PrepareContext& ctx) {
  if (ctx.in.size() < 2 || !ctx.in[1].defined() || ctx.in[1].rank() != 2) return nullptr;
  const Tensor& b = ctx.in[1];
  return prepare_b(b, b.dim(1), b.dim(0), b.strides()[0], b.strides()[1]);
}

}  // namespace mlvm
