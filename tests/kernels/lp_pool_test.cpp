// lp_pool2d and max_pool2d_indices against references written from the ONNX definitions
// (LpPool: (Σ |x|^p)^(1/p) over the window's cells inside x; MaxPool's Indices output: the flat
// row-major index into x of each window's maximum, storage_order 0), index by index: padding,
// dilation, ceil_mode, p = 1, 2, 3, every dtype for the indices (values equal max_pool2d's),
// ONNX's documented examples, NaN, layouts, threads, empty, static rules and errors.
#include <boost/test/unit_test.hpp>

#include <array>
#include <cmath>
#include <limits>

#include "nn_test_util.hpp"

using namespace mlvm;
using namespace nn_test;

namespace {

struct Window {
  std::array<int64_t, 2> size, stride;
  std::array<int64_t, 4> pad;  // top, left, bottom, right
  std::array<int64_t, 2> dil;
  bool ceil_mode;
};

int64_t out_dim(int64_t in, int64_t p0, int64_t p1, int64_t k, int64_t d, int64_t s, bool ceil_mode) {
  const double v = double(in + p0 + p1 - d * (k - 1) - 1) / double(s);
  int64_t out = int64_t(ceil_mode ? std::ceil(v) : std::floor(v)) + 1;
  if (ceil_mode && (out - 1) * s >= in + p0) out -= 1;
  return out;
}

std::vector<AttrValue> window_attrs(const Window& w) {
  return {ints({w.size[0], w.size[1]}), ints({w.stride[0], w.stride[1]}), ints({w.pad[0], w.pad[1], w.pad[2], w.pad[3]}),
          ints({w.dil[0], w.dil[1]}), boolean(w.ceil_mode)};
}

// Calls f(n, c, cells) for every output cell in row-major order, cells = the window's
// (h, w) inside x in row-major window order.
template <class F>
Dims for_each_window(const Tensor& x, const Window& w, F&& f) {
  const int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3);
  const int64_t OH = out_dim(H, w.pad[0], w.pad[2], w.size[0], w.dil[0], w.stride[0], w.ceil_mode);
  const int64_t OW = out_dim(W, w.pad[1], w.pad[3], w.size[1], w.dil[1], w.stride[1], w.ceil_mode);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < OH; ++i)
        for (int64_t j = 0; j < OW; ++j) {
          std::vector<std::array<int64_t, 2>> cells;
          for (int64_t a = 0; a < w.size[0]; ++a)
            for (int64_t b = 0; b < w.size[1]; ++b) {
              const int64_t h = i * w.stride[0] - w.pad[0] + a * w.dil[0], v = j * w.stride[1] - w.pad[1] + b * w.dil[1];
              if (h >= 0 && h < H && v >= 0 && v < W) cells.push_back({h, v});
            }
          f(n, c, cells);
        }
  return Dims{N, C, OH, OW};
}

std::vector<double> ref_lp(const Tensor& x, const Window& w, int p, Dims* shape) {
  std::vector<double> out;
  *shape = for_each_window(x, w, [&](int64_t n, int64_t c, const std::vector<std::array<int64_t, 2>>& cells) {
    long double s = 0;
    for (auto [h, v] : cells) s += std::pow(std::fabs((long double)x.get_double(std::array<int64_t, 4>{n, c, h, v})), p);
    out.push_back(double(std::pow(s, 1.0L / p)));
  });
  return out;
}

// First maximum in window order (a NaN wins at once); -1 for a window without cells.
std::vector<int64_t> ref_argmax(const Tensor& x, const Window& w, Dims* shape) {
  std::vector<int64_t> out;
  const int64_t C = x.dim(1), H = x.dim(2), W = x.dim(3);
  *shape = for_each_window(x, w, [&](int64_t n, int64_t c, const std::vector<std::array<int64_t, 2>>& cells) {
    int64_t best = -1;
    double bv = 0;
    for (auto [h, v] : cells) {
      const double xv = x.get_double(std::array<int64_t, 4>{n, c, h, v});
      if (best < 0 || xv > bv || std::isnan(xv)) {
        best = ((n * C + c) * H + h) * W + v;
        bv = xv;
        if (std::isnan(xv)) break;
      }
    }
    out.push_back(best);
  });
  return out;
}

const std::vector<Window>& windows() {
  static const std::vector<Window> w = {
      {{2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}, false}, {{3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, true},
      {{2, 3}, {1, 2}, {1, 0, 0, 2}, {1, 1}, false}, {{2, 2}, {3, 3}, {1, 1, 1, 1}, {2, 2}, true},
      {{3, 2}, {2, 3}, {2, 1, 2, 1}, {2, 1}, true},  {{4, 4}, {1, 1}, {3, 3, 3, 3}, {1, 1}, false},
  };
  return w;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(lp_pool_kernels)

BOOST_AUTO_TEST_CASE(lp_pool_every_window_p_and_layout) {
  std::mt19937_64 rng(111);
  ThreadPool pool(2);
  for (DType dt : kFloatDTypes)
    for (std::size_t wi = 0; wi < windows().size(); ++wi)
      for (int p : {1, 2, 3}) {
        const Layout l = kLayoutsNoBroadcast[(wi + std::size_t(p)) % 4];
        BOOST_TEST_CONTEXT(dtype_name(dt) << " window " << wi << " p " << p << " " << layout_name(l)) {
          Tensor x = random_tensor(dt, Dims{2, 3, 7, 8}, rng);
          std::vector<AttrValue> a = window_attrs(windows()[wi]);
          a.push_back(integer(p));
          Dims shape;
          const std::vector<double> want = ref_lp(x, windows()[wi], p, &shape);
          Tensor y = run_op(Opcode::lp_pool2d, {relayout(x, l)}, a, &pool);
          BOOST_TEST(y.dtype() == dt);
          expect_close(y, shape, want, dt == DType::f32 ? 1e-5 : 1e-12, 1e-6);
          BOOST_TEST(infer_op(Opcode::lp_pool2d, {type_of(x)}, a).dims == shape);
        }
      }
}

BOOST_AUTO_TEST_CASE(lp_pool_hand_values_nan_empty) {
  Tensor x = make(DType::f32, Dims{1, 1, 2, 2}, {1, -2, 3, -4});
  auto lp = [&](int p) { return attrs_named(Opcode::lp_pool2d, {{"pool_size", ints({2})}, {"p", integer(p)}}); };
  expect_close(run_op(Opcode::lp_pool2d, {x}, lp(1)), Dims{1, 1, 1, 1}, {10}, 0, 0);
  expect_close(run_op(Opcode::lp_pool2d, {x}, lp(2)), Dims{1, 1, 1, 1}, {std::sqrt(30.0)}, 1e-7, 0);
  expect_close(run_op(Opcode::lp_pool2d, {x}, lp(3)), Dims{1, 1, 1, 1}, {std::cbrt(100.0)}, 1e-7, 0);
  // padding cells count as 0: with padding 1 the corner windows hold one cell each
  expect_close(run_op(Opcode::lp_pool2d, {x}, attrs_named(Opcode::lp_pool2d, {{"pool_size", ints({2})}, {"padding", ints({1})}})),
               Dims{1, 1, 2, 2}, {1, 2, 3, 4}, 0, 0);
  const double nan = std::nan("");
  expect_close(run_op(Opcode::lp_pool2d, {make(DType::f64, Dims{1, 1, 1, 4}, {nan, 1, 3, 4})},
                      attrs_named(Opcode::lp_pool2d, {{"pool_size", ints({1, 2})}})),
               Dims{1, 1, 1, 2}, {nan, 5}, 1e-15, 0);
  BOOST_TEST(run_op(Opcode::lp_pool2d, {Tensor::empty(DType::f32, Dims{0, 2, 4, 4})}, lp(2)).shape() == Dims({0, 2, 2, 2}));
}

BOOST_AUTO_TEST_CASE(max_pool_indices_every_dtype) {
  std::mt19937_64 rng(112);
  ThreadPool pool(2);
  for (DType dt : kNumericDTypes)
    for (std::size_t wi = 0; wi < windows().size(); ++wi) {
      BOOST_TEST_CONTEXT(dtype_name(dt) << " window " << wi) {
        // few distinct values, so that windows hold ties (the first one wins)
        Tensor x = random_tensor(dt, Dims{2, 3, 7, 8}, rng, 0, 5);
        if (is_float(dt)) x = make(dt, x.shape(), [&] {
            std::vector<double> v;
            for (int k = 0; k < 2 * 3 * 7 * 8; ++k) v.push_back(double(rng() % 5) - 2);
            return v;
          }());
        const std::vector<AttrValue> a = window_attrs(windows()[wi]);
        const std::vector<Tensor> out = run_all(Opcode::max_pool2d_indices, {relayout(x, Layout::sliced)},
                                                attrs_for(Opcode::max_pool2d_indices, a), &pool);
        Dims shape;
        const std::vector<int64_t> want = ref_argmax(x, windows()[wi], &shape);
        BOOST_TEST(out[1].dtype() == DType::i64);
        expect_ints(out[1], shape, want);
        // the values are max_pool2d's
        Tensor ref = run_op(Opcode::max_pool2d, {x}, a);
        BOOST_TEST(out[0].dtype() == dt);
        if (is_float(dt)) expect_close(out[0], shape, values(ref), 0, 0);
        else expect_ints(out[0], shape, int_values(ref));
        const std::vector<TensorType> ts = infer_all(Opcode::max_pool2d_indices, {type_of(x)}, attrs_for(Opcode::max_pool2d_indices, a));
        BOOST_TEST(ts.size() == 2u);
        BOOST_TEST(ts[1].dims == shape);
        BOOST_TEST(ts[1].dtype == DType::i64);
      }
    }
}

BOOST_AUTO_TEST_CASE(max_pool_indices_onnx_examples_and_edges) {
  std::vector<double> v;
  for (int k = 1; k <= 25; ++k) v.push_back(k);
  Tensor x = make(DType::f32, Dims{1, 1, 5, 5}, v);
  // maxpool_with_argmax_2d_precomputed_strides
  std::vector<Tensor> out = run_all(Opcode::max_pool2d_indices, {x},
                                    attrs_named(Opcode::max_pool2d_indices, {{"pool_size", ints({2})}, {"strides", ints({2})}}));
  expect_close(out[0], Dims{1, 1, 2, 2}, {7, 9, 17, 19}, 0, 0);
  expect_ints(out[1], Dims{1, 1, 2, 2}, {6, 8, 16, 18});
  // maxpool_with_argmax_2d_precomputed_pads
  out = run_all(Opcode::max_pool2d_indices, {x},
                attrs_named(Opcode::max_pool2d_indices, {{"pool_size", ints({5})}, {"strides", ints({1})}, {"padding", ints({2})}}));
  expect_close(out[0], Dims{1, 1, 5, 5}, {13, 14, 15, 15, 15, 18, 19, 20, 20, 20, 23, 24, 25, 25, 25, 23, 24, 25, 25, 25, 23, 24, 25, 25, 25}, 0, 0);
  expect_ints(out[1], Dims{1, 1, 5, 5}, {12, 13, 14, 14, 14, 17, 18, 19, 19, 19, 22, 23, 24, 24, 24, 22, 23, 24, 24, 24, 22, 23, 24, 24, 24});
  // the batch and channel are part of the flat index; NaN wins; -inf is a real maximum
  const double nan = std::nan("");
  Tensor y = make(DType::f64, Dims{2, 1, 1, 4}, {-INFINITY, -INFINITY, 1, nan, 5, 5, 2, 1});
  out = run_all(Opcode::max_pool2d_indices, {y}, attrs_named(Opcode::max_pool2d_indices, {{"pool_size", ints({1, 2})}}));
  expect_close(out[0], Dims{2, 1, 1, 2}, {-INFINITY, nan, 5, 2}, 0, 0);
  expect_ints(out[1], Dims{2, 1, 1, 2}, {0, 3, 4, 6});
  // a dilated window entirely in the padding: lowest value, index -1
  Tensor one = make(DType::i16, Dims{1, 1, 1, 1}, {5});
  out = run_all(Opcode::max_pool2d_indices, {one},
                attrs_named(Opcode::max_pool2d_indices,
                            {{"pool_size", ints({2, 1})}, {"strides", ints({1})}, {"padding", ints({1, 0, 3, 0})}, {"dilation", ints({3, 1})}}));
  expect_ints(out[0], Dims{1, 1, 2, 1}, {-32768, 5});
  expect_ints(out[1], Dims{1, 1, 2, 1}, {-1, 0});
}

BOOST_AUTO_TEST_CASE(static_rules_and_errors) {
  const Attrs a = attrs_named(Opcode::lp_pool2d, {{"pool_size", ints({2})}});
  expect_error([&] { infer_op(Opcode::lp_pool2d, {tt(DType::i32, Dims{1, 1, 4, 4})}, a); }, ErrorKind::invalid,
               "lp_pool2d: x must be f32 or f64, got i32[1, 1, 4, 4]");
  expect_error([&] { infer_op(Opcode::lp_pool2d, {tt(DType::f32, Dims{1, 4, 4})}, a); }, ErrorKind::invalid,
               "lp_pool2d: x must have rank 4 (N, C, H, W), got f32[1, 4, 4]");
  expect_error([&] { infer_op(Opcode::lp_pool2d, {tt(DType::f32, Dims{1, 1, 4, 4})},
                              attrs_named(Opcode::lp_pool2d, {{"pool_size", ints({2})}, {"p", integer(0)}})); },
               ErrorKind::invalid, "attribute 'p' of lp_pool2d is 0; expected a value >= 1");
  expect_error([&] { infer_op(Opcode::lp_pool2d, {tt(DType::f32, Dims{1, 1, 4, 4})},
                              attrs_named(Opcode::lp_pool2d, {{"pool_size", ints({2})}, {"padding", ints({2})}})); },
               ErrorKind::invalid, "lp_pool2d: padding (2) must be smaller than the dilated window (2, 2) on every side");
  expect_error([&] { infer_op(Opcode::lp_pool2d, {tt(DType::f32, Dims{1, 1, 1, 4})}, a); }, ErrorKind::invalid,
               "lp_pool2d: the dilated window height 2 is larger than the padded input height 1");
  const Attrs m = attrs_named(Opcode::max_pool2d_indices, {{"pool_size", ints({2})}});
  expect_error([&] { infer_all(Opcode::max_pool2d_indices, {tt(DType::boolean, Dims{1, 1, 4, 4})}, m); }, ErrorKind::invalid,
               "max_pool2d_indices: bool input is not supported");
  TensorType t = infer_all(Opcode::max_pool2d_indices, {tt(DType::i8, Dims{kDynamic, 2, 4, 5}, 6)}, m)[0];
  BOOST_TEST(t.precision == 6);
  BOOST_TEST(t.dims == Dims({kDynamic, 2, 2, 2}));
  expect_error([&] { run_all(Opcode::max_pool2d_indices, {Tensor::zeros_owned(DType::f32, Dims{1, 1, 1, 4})}, m); },
               ErrorKind::trap, "max_pool2d_indices: the dilated window height 2 is larger than the padded input height 1");
}

BOOST_AUTO_TEST_SUITE_END()
