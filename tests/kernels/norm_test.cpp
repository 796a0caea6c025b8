// batch_norm, instance_norm and layer_norm against references written from the ONNX operator
// definitions (BatchNormalization in inference mode, InstanceNormalization,
// LayerNormalization-17), element by element in long double: every spatial rank, every
// layout (strided, flipped, transposed, broadcast), threads, ONNX's documented examples,
// large offsets (cancellation), NaN, empty tensors, static rules and every error.
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "nn_test_util.hpp"

using namespace mlvm;
using namespace nn_test;

namespace {

using LD = long double;

// Channel values as doubles, by index.
std::vector<double> vec(const Tensor& t) { return values(t); }

// y[n, c, ...] = (x - mean[c]) / sqrt(var[c] + eps) * scale[c] + bias[c]
std::vector<double> ref_batch_norm(const Tensor& x, const Tensor& s, const Tensor& b, const Tensor& m,
                                   const Tensor& v, double eps) {
  const auto S = vec(s), B = vec(b), M = vec(m), V = vec(v);
  std::vector<double> out;
  for_each_index(x.shape(), [&](const std::vector<int64_t>& i) {
    const std::size_t c = std::size_t(i[1]);
    out.push_back(double((LD(x.get_double(i)) - M[c]) / std::sqrt(LD(V[c]) + eps) * S[c] + B[c]));
  });
  return out;
}

// Per (n, c): mean and biased variance over the spatial dims.
std::vector<double> ref_instance_norm(const Tensor& x, const Tensor& s, const Tensor& b, double eps) {
  const auto S = vec(s), B = vec(b);
  const int64_t N = x.dim(0), C = x.dim(1);
  int64_t sp = 1;
  for (int d = 2; d < x.rank(); ++d) sp *= x.dim(d);
  const std::vector<double> xv = values(x);  // row-major: plane (n, c) is [(n·C + c)·sp, ...)
  std::vector<double> out(xv.size());
  for (int64_t p = 0; p < N * C; ++p) {
    LD sum = 0, sq = 0;
    for (int64_t k = 0; k < sp; ++k) sum += xv[p * sp + k];
    const LD mean = sum / sp;
    for (int64_t k = 0; k < sp; ++k) sq += (xv[p * sp + k] - mean) * (xv[p * sp + k] - mean);
    const LD var = sq / sp;
    const std::size_t c = std::size_t(p % C);
    for (int64_t k = 0; k < sp; ++k)
      out[p * sp + k] = double((xv[p * sp + k] - mean) / std::sqrt(var + eps) * S[c] + B[c]);
  }
  return out;
}

struct LayerRef {
  std::vector<double> y, mean, inv;
};
// Rows over dims [0, axis), columns over [axis, rank); scale/bias broadcast to the columns.
LayerRef ref_layer_norm(const Tensor& x, int axis, const Tensor& scale, const Tensor* bias, double eps) {
  int64_t rows = 1, cols = 1;
  for (int d = 0; d < x.rank(); ++d) (d < axis ? rows : cols) *= x.dim(d);
  Dims norm;
  for (int d = axis; d < x.rank(); ++d) norm.push_back(x.dim(d));
  // The value of a broadcast parameter at column multi-index j (trailing alignment).
  auto param = [&](const Tensor& t, const std::vector<int64_t>& j) {
    std::vector<int64_t> k;
    for (int i = 0; i < t.rank(); ++i) {
      const int64_t v = j[j.size() - t.rank() + i];
      k.push_back(t.dim(i) == 1 ? 0 : v);
    }
    return t.get_double(k);
  };
  const std::vector<double> xv = values(x);
  LayerRef r;
  r.y.resize(xv.size());
  for (int64_t row = 0; row < rows; ++row) {
    LD sum = 0, sq = 0;
    for (int64_t c = 0; c < cols; ++c) sum += xv[row * cols + c];
    const LD mean = sum / cols;
    for (int64_t c = 0; c < cols; ++c) sq += (xv[row * cols + c] - mean) * (xv[row * cols + c] - mean);
    const LD inv = 1 / std::sqrt(sq / cols + eps);
    r.mean.push_back(double(mean));
    r.inv.push_back(double(inv));
    int64_t c = 0;
    for_each_index(norm, [&](const std::vector<int64_t>& j) {
      LD v = (xv[row * cols + c] - mean) * inv * param(scale, j);
      if (bias) v += param(*bias, j);
      r.y[row * cols + c++] = double(v);
    });
  }
  return r;
}

Attrs eps_attrs(Opcode op, double eps) { return attrs_named(op, {{"epsilon", floating(eps)}}); }

double tol(DType dt) { return dt == DType::f32 ? 2e-5 : 1e-12; }

// Positive random variances.
Tensor random_var(DType dt, int64_t c, std::mt19937_64& rng) {
  std::vector<double> v;
  for (int64_t k = 0; k < c; ++k) v.push_back(0.05 + std::uniform_real_distribution<double>(0, 2)(rng));
  return make(dt, Dims{c}, v);
}

const std::vector<Dims>& nchw_shapes() {
  static const std::vector<Dims> s = {{2, 3}, {2, 3, 5}, {2, 3, 4, 5}, {1, 1, 1, 1}, {3, 2, 2, 3, 2}, {1, 5, 17, 9}};
  return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(norm_kernels)

BOOST_AUTO_TEST_CASE(batch_norm_every_rank_layout_dtype) {
  std::mt19937_64 rng(71);
  ThreadPool pool(2);
  for (DType dt : kFloatDTypes)
    for (const Dims& s : nchw_shapes())
      for (Layout l : kLayouts) {
        if (l == Layout::broadcast && s[0] == 1) continue;  // nothing to repeat
        BOOST_TEST_CONTEXT(dtype_name(dt) << dims_to_string(s) << " " << layout_name(l)) {
          const int64_t c = s[1];
          Tensor x = random_for(l, dt, s, rng, 0, 0, {0});
          Tensor sc = random_tensor(dt, Dims{c}, rng), b = random_tensor(dt, Dims{c}, rng);
          Tensor m = random_tensor(dt, Dims{c}, rng), v = random_var(dt, c, rng);
          const double eps = l == Layout::sliced ? 1e-3 : 1e-5;
          Tensor y = run_op(Opcode::batch_norm, {relayout(x, l), relayout(sc, Layout::flipped), b, m, v},
                            eps_attrs(Opcode::batch_norm, eps), &pool);
          BOOST_TEST(y.dtype() == dt);
          expect_close(y, s, ref_batch_norm(x, sc, b, m, v, eps), tol(dt), tol(dt));
        }
      }
}

BOOST_AUTO_TEST_CASE(batch_norm_onnx_example_nan_empty) {
  // onnx/backend/test/case/node/batchnorm.py, test_batchnorm_example.
  Tensor x = make(DType::f32, Dims{1, 2, 1, 3}, {-1, 0, 1, 2, 3, 4});
  Tensor s = make(DType::f32, Dims{2}, {1, 1.5}), b = make(DType::f32, Dims{2}, {0, 1});
  Tensor m = make(DType::f32, Dims{2}, {0, 3}), v = make(DType::f32, Dims{2}, {1, 1.5});
  expect_close(run_op(Opcode::batch_norm, {x, s, b, m, v}, eps_attrs(Opcode::batch_norm, 1e-5)), Dims{1, 2, 1, 3},
               {-0.999995, 0, 0.999995, -0.22474074, 1, 2.2247407}, 1e-6, 1e-6);
  // NaN stays in its element; a zero variance with eps = 0 divides by zero (inf, or NaN at x = mean).
  const double nan = std::nan("");
  Tensor xn = make(DType::f64, Dims{1, 2, 2}, {nan, 1, 2, 3});
  Tensor z = make(DType::f64, Dims{2}, {0, 0}), one = make(DType::f64, Dims{2}, {1, 1});
  expect_close(run_op(Opcode::batch_norm, {xn, one, z, make(DType::f64, Dims{2}, {0, 3}), z},
                      eps_attrs(Opcode::batch_norm, 0)),
               Dims{1, 2, 2}, {nan, INFINITY, -INFINITY, nan}, 0, 0);
  for (Dims e : {Dims{0, 2}, Dims{2, 2, 0}}) {
    Tensor y = run_op(Opcode::batch_norm, {Tensor::empty(DType::f64, e), one, one, one, one}, {});
    BOOST_TEST(y.shape() == e);
  }
}

BOOST_AUTO_TEST_CASE(instance_norm_every_rank_layout_dtype) {
  std::mt19937_64 rng(72);
  ThreadPool pool(2);
  for (DType dt : kFloatDTypes)
    for (const Dims& s : nchw_shapes())
      for (Layout l : kLayouts) {
        if (l == Layout::broadcast && s[0] == 1) continue;
        BOOST_TEST_CONTEXT(dtype_name(dt) << dims_to_string(s) << " " << layout_name(l)) {
          Tensor x = random_for(l, dt, s, rng, 0, 0, {0});
          Tensor sc = random_tensor(dt, Dims{s[1]}, rng), b = random_tensor(dt, Dims{s[1]}, rng);
          Tensor y = run_op(Opcode::instance_norm, {relayout(x, l), sc, relayout(b, Layout::sliced)},
                            eps_attrs(Opcode::instance_norm, 1e-5), &pool);
          expect_close(y, s, ref_instance_norm(x, sc, b, 1e-5), tol(dt), tol(dt));
        }
      }
}

BOOST_AUTO_TEST_CASE(instance_norm_onnx_example_and_offsets) {
  // onnx/backend/test/case/node/instancenorm.py, test_instancenorm_example.
  Tensor x = make(DType::f32, Dims{1, 2, 1, 3}, {-1, 0, 1, 2, 3, 4});
  Tensor s = make(DType::f32, Dims{2}, {1, 1.5}), b = make(DType::f32, Dims{2}, {0, 1});
  expect_close(run_op(Opcode::instance_norm, {x, s, b}, {}), Dims{1, 2, 1, 3},
               {-1.2247356, 0, 1.2247356, -0.8371035, 1, 2.8371034}, 1e-6, 1e-6);
  // A large common offset: the variance (1e-2) is tiny against the mean (1e4); a one-pass
  // E[x²] - E[x]² in f32 would lose it entirely.
  std::mt19937_64 rng(73);
  std::vector<double> v;
  for (int k = 0; k < 4 * 300; ++k) v.push_back(1e4 + std::uniform_real_distribution<double>(-0.2, 0.2)(rng));
  Tensor xo = make(DType::f32, Dims{2, 2, 300}, v);
  Tensor ones = make(DType::f32, Dims{2}, {1, 1}), zeros = make(DType::f32, Dims{2}, {0, 0});
  expect_close(run_op(Opcode::instance_norm, {xo, ones, zeros}, {}), Dims{2, 2, 300},
               ref_instance_norm(xo, ones, zeros, 1e-5), 1e-5, 1e-5);
  // One spatial element per plane (rank 2): y = bias.
  expect_close(run_op(Opcode::instance_norm, {make(DType::f64, Dims{1, 2}, {5, 7}), make(DType::f64, Dims{2}, {1, 1}),
                                              make(DType::f64, Dims{2}, {3, 4})}, {}),
               Dims{1, 2}, {3, 4}, 0, 0);
}

BOOST_AUTO_TEST_CASE(layer_norm_every_axis_and_parameter_shape) {
  std::mt19937_64 rng(74);
  ThreadPool pool(2);
  const std::vector<Dims> shapes = {{7}, {3, 5}, {2, 3, 4}, {2, 1, 3, 5}, {2, 300}};
  for (DType dt : kFloatDTypes)
    for (const Dims& s : shapes)
      for (int axis = -s.size(); axis < s.size(); ++axis)
        for (int variant = 0; variant < 3; ++variant) {
          const int a = axis < 0 ? axis + s.size() : axis;
          // variant 0: full normalized shape with bias; 1: the last dim only (lower rank), no
          // bias; 2: size 1 on the first normalized dim, bias of the last dim.
          Dims ps, bs;
          for (int d = a; d < s.size(); ++d) ps.push_back(s[d]);
          bs = ps;
          if (variant == 1) ps = Dims{s.back()};
          if (variant == 2) {
            ps[0] = 1;
            bs = Dims{s.back()};
          }
          for (Layout l : kLayoutsNoBroadcast) {
            BOOST_TEST_CONTEXT(dtype_name(dt) << dims_to_string(s) << " axis " << axis << " variant " << variant
                                              << " " << layout_name(l)) {
              Tensor x = random_tensor(dt, s, rng);
              Tensor sc = random_tensor(dt, ps, rng), b = random_tensor(dt, bs, rng);
              std::vector<Tensor> in = {relayout(x, l), relayout(sc, l)};
              if (variant != 1) in.push_back(b);
              const std::vector<Tensor> out = run_all(
                  Opcode::layer_norm, in,
                  attrs_named(Opcode::layer_norm, {{"axis", integer(axis)}, {"epsilon", floating(1e-4)}}), &pool);
              const LayerRef r = ref_layer_norm(x, a, sc, variant != 1 ? &b : nullptr, 1e-4);
              expect_close(out[0], s, r.y, tol(dt), tol(dt));
              Dims st = s;
              for (int d = a; d < s.size(); ++d) st[d] = 1;
              BOOST_TEST(out[1].dtype() == DType::f32);
              BOOST_TEST(out[2].dtype() == DType::f32);
              expect_close(out[1], st, r.mean, 1e-6, 1e-7);
              expect_close(out[2], st, r.inv, 1e-6, 1e-7);
            }
          }
        }
}

BOOST_AUTO_TEST_CASE(layer_norm_stability_nan_broadcast_empty) {
  std::mt19937_64 rng(75);
  std::vector<double> v;
  for (int k = 0; k < 3 * 500; ++k) v.push_back(3e4 + std::uniform_real_distribution<double>(-0.5, 0.5)(rng));
  Tensor x = make(DType::f32, Dims{3, 500}, v);
  Tensor one = make(DType::f32, Dims{1}, {1});
  const LayerRef r = ref_layer_norm(x, 1, one, nullptr, 1e-5);
  std::vector<Tensor> out = run_all(Opcode::layer_norm, {x, one}, attrs_for(Opcode::layer_norm));
  expect_close(out[0], Dims{3, 500}, r.y, 1e-5, 1e-5);
  expect_close(out[2], Dims{3, 1}, r.inv, 1e-5, 0);
  // NaN poisons its own row only.
  const double nan = std::nan("");
  Tensor xn = make(DType::f64, Dims{2, 2}, {nan, 1, 2, 4});
  out = run_all(Opcode::layer_norm, {xn, make(DType::f64, Dims{2}, {1, 1}), make(DType::f64, Dims{2}, {0, 10})},
                attrs_named(Opcode::layer_norm, {{"epsilon", floating(0)}}));
  expect_close(out[0], Dims{2, 2}, {nan, nan, -1, 11}, 1e-15, 0);
  expect_close(out[1], Dims{2, 1}, {nan, 3}, 0, 0);
  expect_close(out[2], Dims{2, 1}, {nan, 1}, 0, 0);
  // broadcast (stride 0) input rows
  Tensor row = make(DType::f32, Dims{1, 2}, {1, 3});
  out = run_all(Opcode::layer_norm, {row.with_layout(Dims{3, 2}, Dims{0, 1}, 0), make(DType::f32, Dims{1}, {2})},
                attrs_named(Opcode::layer_norm, {{"epsilon", floating(0)}}));
  expect_close(out[0], Dims{3, 2}, {-2, 2, -2, 2, -2, 2}, 1e-6, 0);
  // empty rows: y and the statistics are empty; empty normalized dims: NaN statistics
  out = run_all(Opcode::layer_norm, {Tensor::empty(DType::f32, Dims{0, 4}), make(DType::f32, Dims{4}, {1, 1, 1, 1})},
                attrs_for(Opcode::layer_norm));
  BOOST_TEST(out[0].shape() == Dims({0, 4}));
  BOOST_TEST(out[1].shape() == Dims({0, 1}));
  out = run_all(Opcode::layer_norm, {Tensor::empty(DType::f32, Dims{2, 0}), Tensor::empty(DType::f32, Dims{0})},
                attrs_for(Opcode::layer_norm));
  expect_close(out[1], Dims{2, 1}, {nan, nan}, 0, 0);
}

BOOST_AUTO_TEST_CASE(in_place_when_donated) {
  Tensor x = guarded_copy(make(DType::f64, Dims{1, 1, 2}, {1, 3}));
  Tensor one = make(DType::f64, Dims{1}, {1}), zero = make(DType::f64, Dims{1}, {0});
  std::vector<Tensor> out = run_all(Opcode::instance_norm, {x, one, zero}, eps_attrs(Opcode::instance_norm, 0), nullptr, 1u);
  BOOST_TEST(out[0].storage() == x.storage());
  expect_close(out[0], Dims{1, 1, 2}, {-1, 1}, 1e-15, 0);
}

BOOST_AUTO_TEST_CASE(static_rules_and_errors) {
  const Attrs none_ = attrs_for(Opcode::batch_norm);
  TensorType c = tt(DType::f32, Dims{3});
  TensorType t = infer_op(Opcode::batch_norm, {tt(DType::f32, Dims{kDynamic, 3, 4}), c, c, c, c}, none_);
  BOOST_TEST(t.dims == Dims({kDynamic, 3, 4}));
  expect_error([&] { infer_op(Opcode::batch_norm, {tt(DType::i32, Dims{1, 3}), c, c, c, c}, none_); },
               ErrorKind::invalid, "batch_norm: x must be f32 or f64, got i32[1, 3]");
  expect_error([&] { infer_op(Opcode::batch_norm, {tt(DType::f32, Dims{3}), c, c, c, c}, none_); },
               ErrorKind::invalid, "batch_norm: x must have rank >= 2 (N, C, ...), got f32[3]");
  expect_error([&] { infer_op(Opcode::batch_norm, {tt(DType::f32, Dims{1, 3}), c, c, tt(DType::f32, Dims{4}), c}, none_); },
               ErrorKind::invalid, "batch_norm: mean must be f32[3] (the channels of x f32[1, 3]), got f32[4]");
  expect_error([&] { infer_op(Opcode::instance_norm, {tt(DType::f64, Dims{1, 3}), c, c}, none_); }, ErrorKind::invalid,
               "instance_norm: scale must be f64[3]");
  // a `?` channel count passes statically and traps at run time when it disagrees
  t = infer_op(Opcode::instance_norm, {tt(DType::f32, Dims{1, kDynamic, 2}), c, c}, none_);
  BOOST_TEST(t.dims == Dims({1, kDynamic, 2}));
  Tensor x4 = Tensor::zeros_owned(DType::f32, Dims{1, 4, 2}), v3 = Tensor::zeros_owned(DType::f32, Dims{3});
  expect_error([&] { run_op(Opcode::instance_norm, {x4, v3, v3}, none_); }, ErrorKind::trap,
               "instance_norm: scale must be f32[4]");
  // layer_norm
  const Attrs ln = attrs_for(Opcode::layer_norm);
  std::vector<TensorType> ts = infer_all(Opcode::layer_norm, {tt(DType::f64, Dims{2, kDynamic, 4}), tt(DType::f64, Dims{4}), absent()},
                                         attrs_named(Opcode::layer_norm, {{"axis", integer(1)}}));
  BOOST_TEST(ts.size() == 3u);
  BOOST_TEST(ts[0].dims == Dims({2, kDynamic, 4}));
  BOOST_TEST(ts[1].dims == Dims({2, 1, 1}));
  BOOST_TEST(ts[2].dtype == DType::f32);
  expect_error([&] { infer_all(Opcode::layer_norm, {tt(DType::f32, Dims{2, 3}), tt(DType::f32, Dims{4})}, ln); },
               ErrorKind::invalid,
               "layer_norm: scale must be f32 and broadcast to the normalized dims [3] of x f32[2, 3] (axis 1), got f32[4]");
  expect_error([&] { infer_all(Opcode::layer_norm, {tt(DType::f32, Dims{2, 3}), tt(DType::f32, Dims{2, 3})}, ln); },
               ErrorKind::invalid, "layer_norm: scale must be f32 and broadcast");
  expect_error([&] { infer_all(Opcode::layer_norm, {tt(DType::f32, Dims{2, 3}), tt(DType::f32, Dims{3}), tt(DType::f64, Dims{3})}, ln); },
               ErrorKind::invalid, "layer_norm: bias must be f32");
  expect_error([&] {
    infer_all(Opcode::layer_norm, {tt(DType::f32, Dims{2, 3}), tt(DType::f32, Dims{3})},
              attrs_named(Opcode::layer_norm, {{"axis", integer(2)}}));
  }, ErrorKind::invalid, "layer_norm: axis 2 is out of range for rank 2 (expected -2 to 1)");
  expect_error([&] { infer_all(Opcode::layer_norm, {tt(DType::i8, Dims{2, 3}), tt(DType::i8, Dims{3})}, ln); },
               ErrorKind::invalid, "layer_norm: x must be f32 or f64, got i8[2, 3]");
}

BOOST_AUTO_TEST_SUITE_END()
