// dense and matmul: static rules, kernels against a naive reference written from the definitions
// (Y = X·Wᵀ + B; NumPy matmul; docs/ops.md, "dense" and "matmul"), every dtype, strided views,
// blocking edges, threads, errors.
#include <boost/test/unit_test.hpp>

#include <array>

#include "nn_test_util.hpp"

using namespace mlvm;
using namespace nn_test;

namespace {

// Y[m, n] = sum_k X[m, k] · W[n, k] + B[n], element by element through get_int/get_double.
Expected ref_dense(const Tensor& x, const Tensor& w, const Tensor* b) {
  Expected e;
  const DType out = acc_dtype(x.dtype());
  for (int64_t m = 0; m < x.dim(0); ++m)
    for (int64_t n = 0; n < w.dim(0); ++n) {
      long double s = 0;
      uint64_t si = 0;
      for (int64_t k = 0; k < x.dim(1); ++k) {
        std::array<int64_t, 2> xi{m, k}, wi{n, k};
        s += (long double)x.get_double(xi) * w.get_double(wi);
        si += uint64_t(x.get_int(xi)) * uint64_t(w.get_int(wi));
      }
      if (b) {
        std::array<int64_t, 1> bi{n};
        s += b->get_double(bi);
        si += uint64_t(b->get_int(bi));
      }
      e.f.push_back(double(s));
      e.i.push_back(wrap_to(out, si));
    }
  return e;
}

// NumPy matmul, index by index: promote rank-1 operands, broadcast batch dims, drop the
// promoted dims from the result (a vector·vector result is shape [1]).
Expected ref_matmul(const Tensor& a, const Tensor& b, Dims* shape_out) {
  const int ra = a.rank(), rb = b.rank();
  const int64_t m = ra == 1 ? 1 : a.dim(ra - 2), k = a.dim(ra - 1), n = rb == 1 ? 1 : b.dim(rb - 1);
  std::vector<int64_t> ba(a.shape().begin(), a.shape().end() - std::min(ra, 2));
  std::vector<int64_t> bb(b.shape().begin(), b.shape().end() - std::min(rb, 2));
  const std::size_t nb = std::max(ba.size(), bb.size());
  while (ba.size() < nb) ba.insert(ba.begin(), 1);
  while (bb.size() < nb) bb.insert(bb.begin(), 1);
  Dims batch;
  for (std::size_t d = 0; d < nb; ++d) batch.push_back(ba[d] == 1 ? bb[d] : ba[d]);
  Dims shape = batch;
  if (ra >= 2) shape.push_back(m);
  if (rb >= 2) shape.push_back(n);
  if (shape.empty()) shape.push_back(1);
  *shape_out = shape;
  Expected e;
  const DType out = acc_dtype(a.dtype());
  Dims full = batch;
  full.push_back(m);
  full.push_back(n);
  for_each_index(full, [&](const std::vector<int64_t>& idx) {
    long double s = 0;
    uint64_t si = 0;
    for (int64_t kk = 0; kk < k; ++kk) {
      std::vector<int64_t> ia, ib;
      for (std::size_t d = nb - (ra - std::min(ra, 2)); d < nb; ++d) ia.push_back(ba[d] == 1 ? 0 : idx[d]);
      for (std::size_t d = nb - (rb - std::min(rb, 2)); d < nb; ++d) ib.push_back(bb[d] == 1 ? 0 : idx[d]);
      if (ra >= 2) ia.push_back(idx[nb]);
      ia.push_back(kk);
      ib.push_back(kk);
      if (rb >= 2) ib.push_back(idx[nb + 1]);
      s += (long double)a.get_double(ia) * b.get_double(ib);
      si += uint64_t(a.get_int(ia)) * uint64_t(b.get_int(ib));
    }
    e.f.push_back(double(s));
    e.i.push_back(wrap_to(out, si));
  });
  return e;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(dense_kernel)

// The CVM formalization's test parameters (../shared/seeds/README.md): X (i, j), i in {1, 14, 27},
// j in {1, 12, 23}; W (k, j), k in {1, 18}; no bias — here for every dtype, plus a bias run for
// each shape.
BOOST_AUTO_TEST_CASE(seed_grid_every_dtype) {
  std::mt19937_64 rng(1);
  for (DType dt : kNumericDTypes)
    for (int64_t i : {1, 14, 27})
      for (int64_t j : {1, 12, 23})
        for (int64_t k : {1, 18}) {
          BOOST_TEST_CONTEXT(dtype_name(dt) << " X(" << i << "," << j << ") W(" << k << "," << j << ")") {
            Tensor x = random_tensor(dt, Dims{i, j}, rng), w = random_tensor(dt, Dims{k, j}, rng);
            Tensor y = run_op(Opcode::dense, {x, w, Tensor()});
            BOOST_TEST(y.dtype() == acc_dtype(dt));
            expect_values(y, Dims{i, k}, ref_dense(x, w, nullptr));
            Tensor b = bias_for(dt, k, rng);
            Tensor yb = run_op(Opcode::dense, {x, w, b});
            expect_values(yb, Dims{i, k}, ref_dense(x, w, &b));
            // Two inputs only (the optional one not even passed) is the same as an absent bias.
            expect_values(run_op(Opcode::dense, {x, w}), Dims{i, k}, ref_dense(x, w, nullptr));
          }
        }
}

BOOST_AUTO_TEST_CASE(hand_computed) {
  Tensor x = make(DType::i8, Dims{2, 3}, {1, 2, 3, -4, 5, -6});
  Tensor w = make(DType::i8, Dims{2, 3}, {1, 0, -1, 2, 2, 2});
  Tensor b = make(DType::i32, Dims{2}, {10, -10});
  // rows: [1-3, 2+4+6] = [-2, 12]; [-4+6, -8+10-12] = [2, -10]; + b
  expect_ints(run_op(Opcode::dense, {x, w, b}), Dims{2, 2}, {8, 2, 12, -20});
  // i8 extremes accumulate in i32 without saturation: 23 · 127 · 127 and 23 · (-128)(-128)
  Tensor xe = make(DType::i8, Dims{2, 23}, std::vector<double>(46, 0));
  for (int k = 0; k < 23; ++k) {
    xe.data<int8_t>()[k] = 127;
    xe.data<int8_t>()[23 + k] = -128;
  }
  Tensor we = make(DType::i8, Dims{1, 23}, std::vector<double>(23, -128));
  expect_ints(run_op(Opcode::dense, {xe, we}), Dims{2, 1}, {-23 * 127 * 128, 23 * 128 * 128});
  // u8 is unsigned: 255 · 255 · 2
  Tensor xu = make(DType::u8, Dims{1, 2}, {255, 255});
  expect_ints(run_op(Opcode::dense, {xu, xu}), Dims{1, 1}, {2 * 255 * 255});
}

BOOST_AUTO_TEST_CASE(integer_wrapping) {
  // i32 inputs give i32 and wrap: (2^31 - 1) · 2 + 3 = 2^32 + 1 -> 1
  Tensor x = make(DType::i32, Dims{1, 2}, {2147483647, 3});
  Tensor w = make(DType::i32, Dims{1, 2}, {2, 1});
  expect_ints(run_op(Opcode::dense, {x, w}), Dims{1, 1}, {1});
  Tensor b = make(DType::i32, Dims{1}, {2147483647});
  expect_ints(run_op(Opcode::dense, {x, w, b}), Dims{1, 1}, {-2147483648LL});
  // i64 wraps modulo 2^64
  Tensor x64 = make(DType::i64, Dims{1, 1}, {0});
  x64.data<int64_t>()[0] = INT64_MAX;
  Tensor w64 = make(DType::i64, Dims{1, 1}, {2});
  expect_ints(run_op(Opcode::dense, {x64, w64}), Dims{1, 1}, {-2});
  // i16 products stay exact in i32: 32767 · 32767 · 2 wraps in i32 (2147352578 - 2^32)
  Tensor x16 = make(DType::i16, Dims{1, 2}, {32767, 32767});
  expect_ints(run_op(Opcode::dense, {x16, x16}), Dims{1, 1}, {int64_t(int32_t(uint32_t(2u * 32767u * 32767u)))});
}

BOOST_AUTO_TEST_CASE(strided_views) {
  std::mt19937_64 rng(2);
  for (DType dt : {DType::f32, DType::i8, DType::i64})
    for (Layout lx : {Layout::contiguous, Layout::transposed, Layout::flipped, Layout::sliced, Layout::broadcast})
      for (Layout lw : {Layout::transposed, Layout::flipped, Layout::sliced, Layout::broadcast}) {
        BOOST_TEST_CONTEXT(dtype_name(dt) << " x " << layout_name(lx) << " w " << layout_name(lw)) {
          // broadcast: x's rows (dim 0) all alike, or w's; K still varies
          Tensor x = random_for(lx, dt, Dims{13, 17}, rng), w = random_for(lw, dt, Dims{11, 17}, rng);
          Tensor b = bias_for(dt, 11, rng);
          Tensor xv = relayout(x, lx), wv = relayout(w, lw), bv = relayout(b, Layout::flipped);
          expect_values(run_op(Opcode::dense, {xv, wv, bv}), Dims{13, 11}, ref_dense(x, w, &b));
        }
      }
  // Broadcast along K (stride 0 on the inner dim the GEMM packs), with rows that differ, for
  // x, for w and for both; and an x broadcast on both dims (one stored value).
  for (DType dt : {DType::f32, DType::u8, DType::i16, DType::i64})
    for (int which = 0; which < 4; ++which) {
      BOOST_TEST_CONTEXT(dtype_name(dt) << " K broadcast, variant " << which) {
        const Layout lx = which == 1 ? Layout::sliced : Layout::broadcast;
        const Layout lw = which == 0 ? Layout::transposed : Layout::broadcast;
        Tensor x = random_for(lx, dt, Dims{9, 21}, rng, 0, 0, which == 3 ? std::vector<int>{0, 1} : std::vector<int>{1});
        Tensor w = random_for(lw, dt, Dims{6, 21}, rng, 0, 0, {1});
        Tensor b = bias_for(dt, 6, rng);
        expect_values(run_op(Opcode::dense, {relayout(x, lx), relayout(w, lw), b}), Dims{9, 6}, ref_dense(x, w, &b));
      }
    }
  // Broadcast rows: x (5, 4) read through a stride-0 dim; bias a stride-0 constant.
  Tensor row = random_tensor(DType::i16, Dims{1, 4}, rng);
  Tensor xb = row.with_layout(Dims{5, 4}, Dims{0, 1}, 0);
  Tensor w = random_tensor(DType::i16, Dims{3, 4}, rng);
  Tensor bc = constant_tensor(DType::i32, Dims{3}, Scalar::from_int(7));
  expect_values(run_op(Opcode::dense, {xb, w, bc}), Dims{5, 3}, ref_dense(xb, w, &bc));
}

// Sizes past every cache block (MC = 128, KC = 256, NR) and with a thread pool: integer
// results are identical, float ones within tolerance.
BOOST_AUTO_TEST_CASE(blocking_edges_and_threads) {
  std::mt19937_64 rng(3);
  ThreadPool pool(2);
  for (DType dt : {DType::f32, DType::f64, DType::i8, DType::u8, DType::i32}) {
    BOOST_TEST_CONTEXT(dtype_name(dt)) {
      Tensor x = random_tensor(dt, Dims{131, 300}, rng), w = random_tensor(dt, Dims{37, 300}, rng);
      Tensor b = bias_for(dt, 37, rng);
      Expected e = ref_dense(x, w, &b);
      Tensor y1 = run_op(Opcode::dense, {x, w, b});
      Tensor y2 = run_op(Opcode::dense, {x, w, b}, {}, &pool);
      expect_values(y1, Dims{131, 37}, e, 1e-4);
      expect_values(y2, Dims{131, 37}, e, 1e-4);
      if (!is_float(dt)) BOOST_TEST(std::memcmp(y1.raw_data(), y2.raw_data(), std::size_t(y1.numel()) * 4) == 0);
    }
  }
  // Wide N (past NC = 2048) with a single row: the threads split columns.
  Tensor x = random_tensor(DType::i8, Dims{1, 64}, rng), w = random_tensor(DType::i8, Dims{2100, 64}, rng);
  expect_values(run_op(Opcode::dense, {x, w}, {}, &pool), Dims{1, 2100}, ref_dense(x, w, nullptr));
}

BOOST_AUTO_TEST_CASE(empty_operands) {
  std::mt19937_64 rng(4);
  Tensor x0 = random_tensor(DType::f32, Dims{0, 5}, rng), w = random_tensor(DType::f32, Dims{3, 5}, rng);
  BOOST_TEST(run_op(Opcode::dense, {x0, w}).shape() == Dims({0, 3}));
  Tensor w0 = random_tensor(DType::f32, Dims{0, 5}, rng), x = random_tensor(DType::f32, Dims{2, 5}, rng);
  BOOST_TEST(run_op(Opcode::dense, {x, w0}).shape() == Dims({2, 0}));
  // K = 0: the empty sum is 0, plus the bias
  Tensor xk = Tensor::empty(DType::i8, Dims{2, 0}), wk = Tensor::empty(DType::i8, Dims{3, 0});
  Tensor b = make(DType::i32, Dims{3}, {1, 2, 3});
  expect_ints(run_op(Opcode::dense, {xk, wk, b}), Dims{2, 3}, {1, 2, 3, 1, 2, 3});
  expect_ints(run_op(Opcode::dense, {xk, wk}), Dims{2, 3}, {0, 0, 0, 0, 0, 0});
}

BOOST_AUTO_TEST_CASE(static_rule) {
  TensorType t = infer_op(Opcode::dense, {tt(DType::i8, Dims{kDynamic, 12}, 8), tt(DType::i8, Dims{18, 12}, 8), absent()});
  BOOST_TEST(t.dtype == DType::i32);
  BOOST_TEST(t.dims == Dims({kDynamic, 18}));
  BOOST_TEST(t.precision == 8 + 8 + 4);
  // with bias: max(20, 25) + 1
  t = infer_op(Opcode::dense, {tt(DType::i8, Dims{2, 12}, 8), tt(DType::i8, Dims{18, 12}, 8), tt(DType::i32, Dims{18}, 25)});
  BOOST_TEST(t.precision == 26);
  t = infer_op(Opcode::dense, {tt(DType::i8, Dims{2, 12}, 8), tt(DType::i8, Dims{18, 12}, 8), tt(DType::i32, Dims{18}, 3)});
  BOOST_TEST(t.precision == 21);
  // unknown input precision, unknown bias precision, or a dynamic K: unknown
  BOOST_TEST(infer_op(Opcode::dense, {tt(DType::i8, Dims{2, 12}), tt(DType::i8, Dims{18, 12}, 8)}).precision == 0);
  BOOST_TEST(infer_op(Opcode::dense, {tt(DType::i8, Dims{2, 12}, 8), tt(DType::i8, Dims{18, 12}, 8), tt(DType::i32, Dims{18})})
                 .precision == 0);
  t = infer_op(Opcode::dense, {tt(DType::i16, Dims{2, kDynamic}, 8), tt(DType::i16, Dims{kDynamic, kDynamic}, 8)});
  BOOST_TEST(t.precision == 0);
  BOOST_TEST(t.dims == Dims({2, kDynamic}));
  // K known from either side
  BOOST_TEST(infer_op(Opcode::dense, {tt(DType::i32, Dims{2, kDynamic}, 3), tt(DType::i32, Dims{4, 5}, 3)}).precision == 9);
  // u8 counts as precision 9; floats have none; i64 stays i64
  BOOST_TEST(infer_op(Opcode::dense, {tt(DType::u8, Dims{2, 2}), tt(DType::u8, Dims{4, 2})}).precision == 19);
  t = infer_op(Opcode::dense, {tt(DType::f64, Dims{2, 3}), tt(DType::f64, Dims{4, 3})});
  BOOST_TEST((t.dtype == DType::f64 && t.precision == 0 && t.dims == Dims({2, 4})));
  BOOST_TEST(infer_op(Opcode::dense, {tt(DType::i64, Dims{2, 3}, 40), tt(DType::i64, Dims{4, 3}, 30)}).precision == 72);
  // the bias fixes a dynamic N
  BOOST_TEST(infer_op(Opcode::dense, {tt(DType::f32, Dims{2, 3}), tt(DType::f32, Dims{kDynamic, 3}), tt(DType::f32, Dims{7})})
                 .dims == Dims({2, 7}));
}

BOOST_AUTO_TEST_CASE(static_errors) {
  auto f = [](std::vector<TensorType> in) { return [in] { infer_op(Opcode::dense, in); }; };
  expect_error(f({tt(DType::f32, Dims{2, 3, 1}), tt(DType::f32, Dims{4, 3})}), ErrorKind::invalid,
               "dense: x must have rank 2 (M, K), got f32[2, 3, 1]");
  expect_error(f({tt(DType::f32, Dims{2, 3}), tt(DType::f32, Dims{3})}), ErrorKind::invalid,
               "dense: w must have rank 2 (N, K), got f32[3]");
  expect_error(f({tt(DType::f32, Dims{2, 3}), tt(DType::f64, Dims{4, 3})}), ErrorKind::invalid,
               "dense: inputs must have one dtype, got f32[2, 3] and f64[4, 3]");
  expect_error(f({tt(DType::boolean, Dims{2, 3}), tt(DType::boolean, Dims{4, 3})}), ErrorKind::invalid,
               "dense: bool inputs are not supported");
  expect_error(f({tt(DType::f32, Dims{2, 3}), tt(DType::f32, Dims{4, 5})}), ErrorKind::invalid,
               "dense: inner dims differ: x f32[2, 3] has K = 3, w f32[4, 5] has K = 5");
  expect_error(f({tt(DType::i8, Dims{2, 3}), tt(DType::i8, Dims{4, 3}), tt(DType::i8, Dims{4})}), ErrorKind::invalid,
               "dense: bias must be i32 for i8 inputs, got i8[4]");
  expect_error(f({tt(DType::f32, Dims{2, 3}), tt(DType::f32, Dims{4, 3}), tt(DType::f32, Dims{5})}), ErrorKind::invalid,
               "dense: bias must have shape [4] (N of w f32[4, 3]), got f32[5]");
  expect_error(f({tt(DType::f32, Dims{2, 3}), tt(DType::f32, Dims{4, 3}), tt(DType::f32, Dims{4, 1})}),
               ErrorKind::invalid, "dense: bias must have shape [4]");
}

BOOST_AUTO_TEST_CASE(run_time_mismatch_traps) {
  // What `?` dims hid from the verifier fails at run time as a trap.
  Tensor x = Tensor::zeros_owned(DType::f32, Dims{2, 3}), w = Tensor::zeros_owned(DType::f32, Dims{4, 5});
  expect_error([&] { run_op(Opcode::dense, {x, w}); }, ErrorKind::trap, "dense: inner dims differ");
  Tensor w2 = Tensor::zeros_owned(DType::f32, Dims{4, 3}), b = Tensor::zeros_owned(DType::f32, Dims{3});
  expect_error([&] { run_op(Opcode::dense, {x, w2, b}); }, ErrorKind::trap, "dense: bias must have shape [4]");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(matmul_kernel)

BOOST_AUTO_TEST_CASE(numpy_shapes_every_dtype) {
  std::mt19937_64 rng(5);
  const std::vector<std::pair<Dims, Dims>> cases = {
      {{2, 3}, {3, 4}},          {{5}, {5}},                {{5}, {5, 3}},          {{4, 5}, {5}},
      {{2, 3, 5}, {5}},          {{5}, {2, 5, 3}},          {{2, 1, 3, 4}, {5, 4, 2}}, {{3, 4, 5}, {5, 6}},
      {{1, 4, 5}, {3, 5, 2}},    {{2, 3, 4}, {2, 4, 3}},    {{0, 3, 4}, {4, 2}},    {{2, 0}, {0, 3}},
      {{2, 2, 1, 3}, {1, 3, 2}}, {{1, 1, 2, 2}, {2, 2}}};
  for (DType dt : kNumericDTypes)
    for (auto& [sa, sb] : cases) {
      BOOST_TEST_CONTEXT(dtype_name(dt) << " " << dims_to_string(sa) << " @ " << dims_to_string(sb)) {
        Tensor a = random_tensor(dt, sa, rng), b = random_tensor(dt, sb, rng);
        Dims shape;
        Expected e = ref_matmul(a, b, &shape);
        Tensor y = run_op(Opcode::matmul, {a, b});
        BOOST_TEST(y.dtype() == acc_dtype(dt));
        expect_values(y, shape, e);
        TensorType t = infer_op(Opcode::matmul, {type_of(a), type_of(b)});
        BOOST_TEST(t.dims == shape);
      }
    }
}

BOOST_AUTO_TEST_CASE(strided_and_broadcast_views) {
  std::mt19937_64 rng(6);
  ThreadPool pool(2);
  for (DType dt : {DType::f64, DType::i8, DType::i32})
    for (Layout la : {Layout::contiguous, Layout::transposed, Layout::flipped, Layout::sliced})
      for (Layout lb : {Layout::contiguous, Layout::transposed, Layout::sliced}) {
        BOOST_TEST_CONTEXT(dtype_name(dt) << " " << layout_name(la) << " " << layout_name(lb)) {
          Tensor a = random_tensor(dt, Dims{3, 7, 9}, rng), b = random_tensor(dt, Dims{9, 5}, rng);
          Dims shape;
          Expected e = ref_matmul(a, b, &shape);
          expect_values(run_op(Opcode::matmul, {relayout(a, la), relayout(b, lb)}, {}, &pool), shape, e);
          Tensor b3 = random_tensor(dt, Dims{3, 9, 5}, rng);
          e = ref_matmul(a, b3, &shape);
          expect_values(run_op(Opcode::matmul, {relayout(a, la), relayout(b3, lb)}), shape, e);
        }
      }
  // a broadcast along its batch dim (stride 0) against a per-batch b
  Tensor a1 = random_tensor(DType::i16, Dims{1, 4, 6}, rng);
  Tensor ab = a1.with_layout(Dims{3, 4, 6}, Dims{0, 6, 1}, 0);
  Tensor b = random_tensor(DType::i16, Dims{3, 6, 2}, rng);
  Dims shape;
  Expected e = ref_matmul(ab, b, &shape);
  expect_values(run_op(Opcode::matmul, {ab, b}), shape, e);
  // a's batch dims folded into its rows across size-1 dims of any stride: a transposed
  // (1, seq, d) -> (seq, 1, d) (M = 1, as attention's projection), and a size-1 batch dim in
  // the middle with a stride that fits nothing
  for (DType dt : {DType::f32, DType::i32}) {
    Tensor x = random_tensor(dt, Dims{1, 6, 9}, rng), w = random_tensor(dt, Dims{9, 5}, rng);
    Tensor xt = x.with_layout(Dims{6, 1, 9}, Dims{9, 54, 1}, 0);
    e = ref_matmul(xt, w, &shape);
    expect_values(run_op(Opcode::matmul, {xt, w}, {}, &pool), shape, e);
    Tensor x4 = random_tensor(dt, Dims{2, 3, 9}, rng);
    Tensor x4v = x4.with_layout(Dims{2, 1, 3, 9}, Dims{27, 999, 9, 1}, 0);
    e = ref_matmul(x4v, w, &shape);
    expect_values(run_op(Opcode::matmul, {x4v, w}), shape, e);
    // a batch dim between them that does not fold (rows of batch 1 are not after batch 0's)
    Tensor x5 = random_tensor(dt, Dims{3, 2, 9}, rng);
    Tensor x5v = x5.with_layout(Dims{2, 3, 1, 9}, Dims{9, 18, 7, 1}, 0);
    e = ref_matmul(x5v, w, &shape);
    expect_values(run_op(Opcode::matmul, {x5v, w}), shape, e);
  }
  // larger batched product with the pool: per-batch GEMMs past the blocking sizes
  Tensor big_a = random_tensor(DType::i8, Dims{2, 140, 260}, rng), big_b = random_tensor(DType::i8, Dims{2, 260, 20}, rng);
  e = ref_matmul(big_a, big_b, &shape);
  expect_values(run_op(Opcode::matmul, {big_a, big_b}, {}, &pool), shape, e);
}

BOOST_AUTO_TEST_CASE(static_rule_and_errors) {
  TensorType t = infer_op(Opcode::matmul, {tt(DType::i8, Dims{kDynamic, 3, 4}, 7), tt(DType::i8, Dims{4, kDynamic}, 7)});
  BOOST_TEST(t.dims == Dims({kDynamic, 3, kDynamic}));
  BOOST_TEST(t.dtype == DType::i32);
  BOOST_TEST(t.precision == 7 + 7 + 2);
  t = infer_op(Opcode::matmul, {tt(DType::f32, Dims{kDynamic, 1, 2, 4}), tt(DType::f32, Dims{5, 4, 3})});
  BOOST_TEST(t.dims == Dims({kDynamic, 5, 2, 3}));
  BOOST_TEST(infer_op(Opcode::matmul, {tt(DType::i32, Dims{4}, 3), tt(DType::i32, Dims{4}, 3)}).dims == Dims({1}));
  BOOST_TEST(infer_op(Opcode::matmul, {tt(DType::i32, Dims{kDynamic}, 3), tt(DType::i32, Dims{kDynamic}, 3)}).precision == 0);
  auto f = [](std::vector<TensorType> in) { return [in] { infer_op(Opcode::matmul, in); }; };
  expect_error(f({tt(DType::f32, Dims{2, 3}), tt(DType::f32, Dims{4, 5})}), ErrorKind::invalid,
               "matmul: inner dims differ: f32[2, 3] has K = 3, f32[4, 5] has K = 4");
  expect_error(f({tt(DType::f32, Dims{3}), tt(DType::f32, Dims{4})}), ErrorKind::invalid, "matmul: inner dims differ");
  expect_error(f({tt(DType::f32, Dims{2, 2, 3}), tt(DType::f32, Dims{3, 3, 1})}), ErrorKind::invalid,
               "matmul: batch dims of f32[2, 2, 3] and f32[3, 3, 1] cannot broadcast");
  expect_error(f({tt(DType::i8, Dims{2, 3}), tt(DType::i16, Dims{3, 1})}), ErrorKind::invalid,
               "matmul: inputs must have one dtype");
  expect_error(f({tt(DType::boolean, Dims{2, 3}), tt(DType::boolean, Dims{3, 1})}), ErrorKind::invalid,
               "matmul: bool inputs are not supported");
  Tensor a = Tensor::zeros_owned(DType::f32, Dims{2, 2, 3}), b = Tensor::zeros_owned(DType::f32, Dims{3, 3, 1});
  expect_error([&] { run_op(Opcode::matmul, {a, b}); }, ErrorKind::trap, "matmul: batch dims");
}

BOOST_AUTO_TEST_SUITE_END()
