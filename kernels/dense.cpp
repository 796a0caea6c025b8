// dense (y = x·wᵀ + b) and matmul (NumPy semantics) over the blocked GEMM core.
#include "kernels/dense.hpp"

#include <string>

#include "kernels/broadcast.hpp"
#include "kernels/gemm.hpp"
#include "kernels/thread_pool.hpp"

namespace mlvm {

namespace {

const TensorType* optional_input(const InferContext& ctx, int k) {
  return int(ctx.in.size()) > k && ctx.in[k].present ? &ctx.in[k] : nullptr;
}

std::string dim_str(int64_t d) { return d == kDynamic ? "?" : std::to_string(d); }

// A static size wins over `?` (the run-time check happens when the kernel re-infers).
int64_t merge_dim(int64_t a, int64_t b) { return a == kDynamic ? b : a; }

bool dims_conflict(int64_t a, int64_t b) { return a != kDynamic && b != kDynamic && a != b; }

// The kernel re-applies the static rule to the concrete types: what the verifier could not
// see (a `?` dim) now fails, and must fail as a trap.
TensorType infer_at_run_time(const KernelContext& ctx, InferFn infer) {
  std::vector<TensorType> types;
  for (const Tensor& t : ctx.in) {
    TensorType ty;
    if (t.defined()) ty = type_of(t);
    else ty.present = false;
    types.push_back(ty);
  }
  InferContext ic{types, ctx.attrs, {}, {}};
  ic.options.precision_check = false;
  try {
    infer(ic);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::invalid) fail_trap(e.message());
    throw;
  }
  return ic.out.at(0);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// dense

void infer_dense(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  const TensorType& w = ctx.in[1];
  const TensorType* b = optional_input(ctx, 2);
  check_gemm_dtypes("dense", x, w);
  if (x.dims.size() != 2) fail_invalid("dense: x must have rank 2 (M, K), got " + x.to_string());
  if (w.dims.size() != 2) fail_invalid("dense: w must have rank 2 (N, K), got " + w.to_string());
  if (dims_conflict(x.dims[1], w.dims[1]))
    fail_invalid("dense: inner dims differ: x " + x.to_string() + " has K = " + dim_str(x.dims[1]) + ", w " +
                 w.to_string() + " has K = " + dim_str(w.dims[1]));
  const DType od = gemm_result_dtype(x.dtype);
  int64_t n = w.dims[0];
  if (b) {
    if (b->dtype != od)
      fail_invalid("dense: bias must be " + std::string(dtype_name(od)) + " for " +
                   std::string(dtype_name(x.dtype)) + " inputs, got " + b->to_string());
    if (b->dims.size() != 1 || dims_conflict(b->dims[0], n))
      fail_invalid("dense: bias must have shape [" + dim_str(n) + "] (N of w " + w.to_string() + "), got " +
                   b->to_string());
    n = merge_dim(n, b->dims[0]);
  }
  TensorType out;
  out.dtype = od;
  out.dims = Dims{x.dims[0], n};
  out.precision = gemm_result_precision(x, w, b, merge_dim(x.dims[1], w.dims[1]));
  ctx.out.assign(1, out);
}

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
    g.c = y.template data<gemm_out_t<T>>();
    g.ldc = g.n;
    if (b) {
      g.bias = b->template data<gemm_out_t<T>>();
      g.bias_stride = b->strides()[0];
    }
    gemm(g, ctx.env.pool);
  });
  ctx.out[0] = y;
}

// ---------------------------------------------------------------------------------------------
// matmul

void infer_matmul(InferContext& ctx) {
  const TensorType& a = ctx.in[0];
  const TensorType& b = ctx.in[1];
  check_gemm_dtypes("matmul", a, b);
  const int ra = a.dims.size(), rb = b.dims.size();
  if (ra < 1 || rb < 1) fail_invalid("matmul: operands must have rank >= 1, got " + a.to_string() + " and " + b.to_string());
  const int64_t ka = a.dims[ra - 1];
  const int64_t kb = rb == 1 ? b.dims[0] : b.dims[rb - 2];
  if (dims_conflict(ka, kb))
    fail_invalid("matmul: inner dims differ: " + a.to_string() + " has K = " + dim_str(ka) + ", " + b.to_string() +
                 " has K = " + dim_str(kb));
  TensorType ba{a.dtype, {}}, bb{b.dtype, {}};
  for (int i = 0; i + 2 < ra; ++i) ba.dims.push_back(a.dims[i]);
  for (int i = 0; i + 2 < rb; ++i) bb.dims.push_back(b.dims[i]);
  Dims dims;
  try {
    dims = broadcast_types(ba, bb);
  } catch (const Error& e) {
    fail_invalid("matmul: batch dims of " + a.to_string() + " and " + b.to_string() + " cannot broadcast (" +
                 e.message() + ")");
  }
  if (ra >= 2) dims.push_back(a.dims[ra - 2]);
  if (rb >= 2) dims.push_back(b.dims[rb - 1]);
  if (dims.empty()) dims.push_back(1);  // vector · vector: mlvm has no rank 0, so shape [1]
  TensorType out;
  out.dtype = gemm_result_dtype(a.dtype);
  out.dims = dims;
  out.precision = gemm_result_precision(a, b, nullptr, merge_dim(ka, kb));
  ctx.out.assign(1, out);
}

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
    g.ldc = n;
    // When B is the same matrix for every batch and A's batch dims fold into its rows (the
    // common (batch, M, K) x (K, N) case), run one GEMM with batches*M rows.
    bool fold = batches > 1 && m > 0;
    int64_t row_stride = g.rsa, rows = m;
    for (int d = nb - 1; d >= 0 && fold; --d) {
      if (B.strides()[d] != 0 && batch[d] != 1) fold = false;
      if (batch[d] != 1 && A.strides()[d] != row_stride * rows) fold = false;
      rows *= batch[d];
    }
    if (fold || batches <= 1) {
      g.m = fold ? batches * m : m;
      g.a = A.template data<T>();
      g.b = B.template data<T>();
      g.c = y.template data<Out>();
      if (batches > 0) gemm(g, ctx.env.pool);
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
        gemm(gb, inner_pool);
      }
    };
    if (small) parallel_for(ctx.env.pool, batches, 1, [&](int64_t f, int64_t l) { run_batches(f, l, nullptr); });
    else run_batches(0, batches, ctx.env.pool);
  });
  ctx.out[0] = y;
}

}  // namespace mlvm
