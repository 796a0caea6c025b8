// conv_transpose2d against a reference scatter written from the ONNX ConvTranspose definition
// (every input element times the kernel, added into the output at (ih·SH − top + kh·DH,
// iw·SW − left + kw·DW), then the bias) in long double: ONNX's documented examples, strides,
// dilation, asymmetric padding, output_padding, groups, every layout, both pool paths (bit
// for bit the same results with and without threads), empty inputs, static rules and every
// error.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstring>

#include "nn_test_util.hpp"

using namespace mlvm;
using namespace nn_test;

namespace {

struct ConvTransposeCase {
  Dims x, w;  // (N, C, H, W), (C, OC/groups, KH, KW)
  int64_t groups;
  std::array<int64_t, 2> stride, dil, out_pad;
  std::array<int64_t, 4> pad;  // top, left, bottom, right
  bool bias;
};

std::vector<AttrValue> attrs_of(const ConvTransposeCase& c) {
  return {ints({c.pad[0], c.pad[1], c.pad[2], c.pad[3]}), ints({c.stride[0], c.stride[1]}),
          ints({c.dil[0], c.dil[1]}), ints({c.out_pad[0], c.out_pad[1]}), integer(c.groups)};
}

std::vector<double> ref_conv_transpose(const ConvTransposeCase& c, const Tensor& x, const Tensor& w, const Tensor* b, Dims* shape) {
  const int64_t N = c.x[0], C = c.x[1], H = c.x[2], W = c.x[3];
  const int64_t ocg = c.w[1], KH = c.w[2], KW = c.w[3], OC = ocg * c.groups, cg = C / c.groups;
  const int64_t OH = c.stride[0] * (H - 1) + c.out_pad[0] + c.dil[0] * (KH - 1) + 1 - c.pad[0] - c.pad[2];
  const int64_t OW = c.stride[1] * (W - 1) + c.out_pad[1] + c.dil[1] * (KW - 1) + 1 - c.pad[1] - c.pad[3];
  *shape = Dims{N, OC, OH, OW};
  std::vector<long double> y(std::size_t(N * OC * OH * OW), 0.0L);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t ci = 0; ci < C; ++ci)
      for (int64_t ih = 0; ih < H; ++ih)
        for (int64_t iw = 0; iw < W; ++iw) {
          const std::array<int64_t, 4> xi{n, ci, ih, iw};
          const long double xv = x.get_double(xi);
          const int64_t g = ci / cg;
          for (int64_t o = 0; o < ocg; ++o)
            for (int64_t kh = 0; kh < KH; ++kh)
              for (int64_t kw = 0; kw < KW; ++kw) {
                const int64_t oh = ih * c.stride[0] - c.pad[0] + kh * c.dil[0];
                const int64_t ow = iw * c.stride[1] - c.pad[1] + kw * c.dil[1];
                if (oh < 0 || oh >= OH || ow < 0 || ow >= OW) continue;
                const std::array<int64_t, 4> wi{ci, o, kh, kw};
                y[std::size_t(((n * OC + g * ocg + o) * OH + oh) * OW + ow)] += xv * w.get_double(wi);
              }
        }
  std::vector<double> out;
  for (std::size_t k = 0; k < y.size(); ++k) {
    long double v = y[k];
    if (b) {
      const std::array<int64_t, 1> bi{int64_t((k / std::size_t(OH * OW)) % std::size_t(OC))};
      v += b->get_double(bi);
    }
    out.push_back(double(v));
  }
  return out;
}

const std::vector<ConvTransposeCase>& conv_transpose_cases() {
  static const std::vector<ConvTransposeCase> c = {
      {{1, 1, 3, 3}, {1, 2, 3, 3}, 1, {1, 1}, {1, 1}, {0, 0}, {0, 0, 0, 0}, false},
      {{2, 3, 4, 5}, {3, 2, 3, 3}, 1, {2, 2}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true},
      {{1, 2, 5, 4}, {2, 3, 2, 3}, 1, {3, 2}, {1, 1}, {0, 1}, {1, 2, 0, 1}, true},
      {{2, 4, 3, 3}, {4, 1, 3, 2}, 2, {1, 2}, {2, 1}, {0, 0}, {2, 0, 1, 1}, true},   // groups 2, dilation
      {{1, 6, 4, 4}, {6, 1, 3, 3}, 6, {2, 2}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true},   // depthwise
      {{1, 3, 1, 1}, {3, 2, 4, 4}, 1, {1, 1}, {1, 1}, {0, 0}, {0, 0, 0, 0}, true},   // one pixel
      {{1, 2, 6, 7}, {2, 2, 1, 1}, 1, {2, 3}, {1, 1}, {1, 2}, {0, 0, 0, 0}, false},  // 1x1, strided gaps
      {{1, 1, 2, 2}, {1, 1, 2, 2}, 1, {1, 1}, {3, 3}, {0, 0}, {2, 2, 2, 2}, false},  // pads eat the edges
      // Stride equal to the kernel: each output element one tap (col_to_tiles); then with an
      // output padding, whose cells only the bias reaches (the general path again).
      {{1, 3, 4, 5}, {3, 2, 2, 2}, 1, {2, 2}, {1, 1}, {0, 0}, {0, 0, 0, 0}, true},
      {{2, 4, 3, 3}, {4, 3, 3, 2}, 1, {3, 2}, {1, 1}, {0, 0}, {0, 0, 0, 0}, false},
      {{1, 4, 3, 3}, {4, 2, 2, 2}, 2, {2, 2}, {1, 1}, {0, 0}, {0, 0, 0, 0}, true},   // groups 2
      {{1, 3, 4, 5}, {3, 2, 2, 2}, 1, {2, 2}, {1, 1}, {1, 0}, {0, 0, 0, 0}, true},
  };
  return c;
}

double tol(DType dt) { return dt == DType::f32 ? 1e-5 : 1e-12; }

}  // namespace

BOOST_AUTO_TEST_SUITE(conv_transpose_kernel)

BOOST_AUTO_TEST_CASE(onnx_examples) {
  std::vector<double> xs = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  Tensor x = make(DType::f32, Dims{1, 1, 3, 3}, xs);
  Tensor w = make(DType::f32, Dims{1, 2, 3, 3}, std::vector<double>(18, 1.0));
  auto both = [](std::vector<double> plane) {
    std::vector<double> v = plane;
    v.insert(v.end(), plane.begin(), plane.end());
    return v;
  };
  // test_convtranspose
  expect_close(run_op(Opcode::conv_transpose2d, {x, w}, {}), Dims{1, 2, 5, 5},
               both({0, 1, 3, 3, 2, 3, 8, 15, 12, 7, 9, 21, 36, 27, 15, 9, 20, 33, 24, 13, 6, 13, 21, 15, 8}), 0, 0);
  // test_convtranspose_pads: strides (3, 2), pads (1, 2, 1, 2)
  expect_close(run_op(Opcode::conv_transpose2d, {x, w},
                      attrs_named(Opcode::conv_transpose2d, {{"strides", ints({3, 2})}, {"padding", ints({1, 2, 1, 2})}})),
               Dims{1, 2, 7, 3}, both({1, 1, 3, 1, 1, 3, 7, 4, 9, 7, 4, 9, 7, 4, 9, 13, 7, 15, 13, 7, 15}), 0, 0);
  // test_convtranspose_pad: strides (3, 2), output_padding (1, 1)
  std::vector<double> row0 = {0, 0, 1, 1, 3, 2, 2, 0}, row1 = {3, 3, 7, 4, 9, 5, 5, 0}, row2 = {6, 6, 13, 7, 15, 8, 8, 0};
  std::vector<double> plane;
  for (auto* r : {&row0, &row0, &row0, &row1, &row1, &row1, &row2, &row2, &row2}) plane.insert(plane.end(), r->begin(), r->end());
  plane.insert(plane.end(), 8, 0.0);
  expect_close(run_op(Opcode::conv_transpose2d, {x, w},
                      attrs_named(Opcode::conv_transpose2d, {{"strides", ints({3, 2})}, {"output_padding", ints({1, 1})}})),
               Dims{1, 2, 10, 8}, both(plane), 0, 0);
  // test_convtranspose_autopad_same (SAME_UPPER, strides 2: pads (0, 0, 1, 1))
  expect_close(run_op(Opcode::conv_transpose2d, {x, w},
                      attrs_named(Opcode::conv_transpose2d, {{"strides", ints({2})}, {"padding", ints({0, 0, 1, 1})}})),
               Dims{1, 2, 6, 6},
               both({0, 0, 1, 1, 3, 2, 0, 0, 1, 1, 3, 2, 3, 3, 8, 5, 12, 7, 3, 3, 7, 4, 9, 5, 9, 9, 20, 11, 24, 13, 6, 6, 13, 7, 15, 8}),
               0, 0);
  // test_convtranspose_dilations
  Tensor xd = make(DType::f64, Dims{1, 1, 3, 3}, {3, 8, 1, 9, 5, 7, 3, 2, 6});
  Tensor wd = make(DType::f64, Dims{1, 1, 2, 2}, {7, 2, 1, 9});
  expect_close(run_op(Opcode::conv_transpose2d, {xd, wd}, attrs_named(Opcode::conv_transpose2d, {{"dilation", ints({2, 2})}})),
               Dims{1, 1, 5, 5},
               {21, 56, 13, 16, 2, 63, 35, 67, 10, 14, 24, 22, 76, 76, 21, 9, 5, 88, 45, 63, 3, 2, 33, 18, 54}, 0, 0);
}

BOOST_AUTO_TEST_CASE(every_case_layout_and_dtype) {
  std::mt19937_64 rng(81);
  ThreadPool pool(2);
  for (DType dt : kFloatDTypes)
    for (std::size_t ci = 0; ci < conv_transpose_cases().size(); ++ci)
      for (Layout l : kLayoutsNoBroadcast) {
        BOOST_TEST_CONTEXT(dtype_name(dt) << " case " << ci << " " << layout_name(l)) {
          const ConvTransposeCase& c = conv_transpose_cases()[ci];
          Tensor x = random_tensor(dt, c.x, rng), w = random_tensor(dt, c.w, rng);
          Tensor b = random_tensor(dt, Dims{c.w[1] * c.groups}, rng);
          Dims shape;
          const std::vector<double> want = ref_conv_transpose(c, x, w, c.bias ? &b : nullptr, &shape);
          std::vector<Tensor> in = {relayout(x, l), relayout(w, l)};
          if (c.bias) in.push_back(relayout(b, l));
          Tensor y = run_op(Opcode::conv_transpose2d, in, attrs_of(c), &pool);
          BOOST_TEST(y.dtype() == dt);
          expect_close(y, shape, want, tol(dt), tol(dt));
          BOOST_TEST(infer_op(Opcode::conv_transpose2d, {type_of(x), type_of(w)}, attrs_of(c)).dims == shape);
        }
      }
}

// Both scheduling paths (many small jobs shared over the pool; one big job with the pool inside
// the GEMM and the col2im), the row chunking of the col matrix, and the same bits with and
// without threads.
BOOST_AUTO_TEST_CASE(large_shapes_threads_bit_identical) {
  std::mt19937_64 rng(82);
  ThreadPool pool(3);
  const std::vector<ConvTransposeCase> big = {
      {{1, 32, 30, 31}, {32, 16, 3, 3}, 1, {2, 2}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true},  // one big job
      {{4, 8, 9, 9}, {8, 4, 4, 4}, 2, {2, 2}, {1, 1}, {0, 0}, {1, 1, 1, 1}, true},      // small jobs
      {{1, 2, 300, 40}, {2, 64, 3, 3}, 1, {1, 1}, {1, 1}, {0, 0}, {1, 1, 1, 1}, false}, // chunked rows
      {{1, 24, 60, 80}, {24, 24, 2, 2}, 1, {2, 2}, {1, 1}, {0, 0}, {0, 0, 0, 0}, true},  // one tap each
  };
  for (std::size_t ci = 0; ci < big.size(); ++ci) {
    BOOST_TEST_CONTEXT("case " << ci) {
      const ConvTransposeCase& c = big[ci];
      Tensor x = random_tensor(DType::f32, c.x, rng), w = random_tensor(DType::f32, c.w, rng);
      Tensor b = random_tensor(DType::f32, Dims{c.w[1] * c.groups}, rng);
      std::vector<Tensor> in = {x, w};
      if (c.bias) in.push_back(b);
      Tensor y1 = run_op(Opcode::conv_transpose2d, in, attrs_of(c));
      Tensor y3 = run_op(Opcode::conv_transpose2d, in, attrs_of(c), &pool);
      BOOST_REQUIRE(y1.shape() == y3.shape());
      BOOST_TEST(std::memcmp(y1.data<float>(), y3.data<float>(), std::size_t(y1.numel()) * sizeof(float)) == 0);
      Dims shape;
      expect_close(y1, shape = y1.shape(), ref_conv_transpose(c, x, w, c.bias ? &b : nullptr, &shape), 1e-4, 1e-4);
    }
  }
}

BOOST_AUTO_TEST_CASE(empty_and_degenerate) {
  // empty batch; no input channels (the bias only); zero-size spatial input (the bias over the
  // kernel-sized output)
  Tensor w = make(DType::f32, Dims{2, 1, 2, 2}, std::vector<double>(8, 1.0));
  BOOST_TEST(run_op(Opcode::conv_transpose2d, {Tensor::empty(DType::f32, Dims{0, 2, 3, 3}), w}, {}).shape() ==
             Dims({0, 1, 4, 4}));
  Tensor b = make(DType::f32, Dims{3}, {1, 2, 3});
  Tensor w0 = Tensor::empty(DType::f32, Dims{0, 3, 2, 2});
  expect_close(run_op(Opcode::conv_transpose2d, {Tensor::empty(DType::f32, Dims{1, 0, 1, 1}), w0, b}, {}),
               Dims{1, 3, 2, 2}, {1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}, 0, 0);
  Tensor w1 = make(DType::f32, Dims{1, 1, 3, 3}, std::vector<double>(9, 1.0));
  expect_close(run_op(Opcode::conv_transpose2d, {Tensor::empty(DType::f32, Dims{1, 1, 0, 2}), w1, make(DType::f32, Dims{1}, {5})},
                      {}),
               Dims{1, 1, 2, 4}, std::vector<double>(8, 5.0), 0, 0);
  // NaN reaches exactly the outputs its input element touches
  const double nan = std::nan("");
  Tensor xn = make(DType::f64, Dims{1, 1, 1, 3}, {1, nan, 1});
  Tensor wk = make(DType::f64, Dims{1, 1, 1, 1}, {2});
  expect_close(run_op(Opcode::conv_transpose2d, {xn, wk}, attrs_named(Opcode::conv_transpose2d, {{"strides", ints({1, 2})}})),
               Dims{1, 1, 1, 5}, {2, 0, nan, 0, 2}, 0, 0);
}

BOOST_AUTO_TEST_CASE(static_rule_and_errors) {
  const Attrs a = attrs_for(Opcode::conv_transpose2d);
  auto ct = [](std::vector<TensorType> in, const Attrs& at) { return infer_op(Opcode::conv_transpose2d, std::move(in), at); };
  TensorType t = ct({tt(DType::f32, Dims{kDynamic, 4, kDynamic, 5}), tt(DType::f32, Dims{4, 3, 2, 2})}, a);
  BOOST_TEST(t.dims == Dims({kDynamic, 3, kDynamic, 6}));
  const Attrs g2 = attrs_named(Opcode::conv_transpose2d, {{"groups", integer(2)}});
  t = ct({tt(DType::f64, Dims{1, 4, 3, 3}), tt(DType::f64, Dims{4, 3, 2, 2}), tt(DType::f64, Dims{6})}, g2);
  BOOST_TEST(t.dims == Dims({1, 6, 4, 4}));
  expect_error([&] { ct({tt(DType::i8, Dims{1, 1, 2, 2}), tt(DType::i8, Dims{1, 1, 2, 2})}, a); }, ErrorKind::invalid,
               "conv_transpose2d: x and w must both be f32 or both f64, got i8[1, 1, 2, 2] and i8[1, 1, 2, 2]");
  expect_error([&] { ct({tt(DType::f32, Dims{1, 1, 2, 2}), tt(DType::f64, Dims{1, 1, 2, 2})}, a); }, ErrorKind::invalid,
               "conv_transpose2d: x and w must both be f32 or both f64");
  expect_error([&] { ct({tt(DType::f32, Dims{1, 2, 2}), tt(DType::f32, Dims{1, 1, 2, 2})}, a); }, ErrorKind::invalid,
               "conv_transpose2d: x must have rank 4 (N, C, H, W), got f32[1, 2, 2]");
  expect_error([&] { ct({tt(DType::f32, Dims{1, 1, 2, 2}), tt(DType::f32, Dims{1, 2, 2})}, a); }, ErrorKind::invalid,
               "conv_transpose2d: w must have rank 4 (C, OC/groups, KH, KW), got f32[1, 2, 2]");
  expect_error([&] { ct({tt(DType::f32, Dims{1, 3, 2, 2}), tt(DType::f32, Dims{3, 1, 2, 2})}, g2); }, ErrorKind::invalid,
               "conv_transpose2d: groups = 2 does not divide the 3 input channels of x f32[1, 3, 2, 2]");
  expect_error([&] { ct({tt(DType::f32, Dims{1, 3, 2, 2}), tt(DType::f32, Dims{2, 1, 2, 2})}, a); }, ErrorKind::invalid,
               "conv_transpose2d: channel mismatch: x f32[1, 3, 2, 2] has 3 channels, w f32[2, 1, 2, 2] expects C = 2");
  expect_error([&] { ct({tt(DType::f32, Dims{1, 1, 2, 2}), tt(DType::f32, Dims{1, 1, 0, 2})}, a); }, ErrorKind::invalid,
               "conv_transpose2d: w must have KH, KW >= 1, got f32[1, 1, 0, 2]");
  expect_error([&] { ct({tt(DType::f32, Dims{1, 1, 2, 2}), tt(DType::f32, Dims{1, 2, 2, 2}), tt(DType::f32, Dims{3})}, a); },
               ErrorKind::invalid, "conv_transpose2d: bias must be f32[2] (OC = groups * w's dim 1, w f32[1, 2, 2, 2]), got f32[3]");
  expect_error([&] {
    ct({tt(DType::f32, Dims{1, 1, 1, 1}), tt(DType::f32, Dims{1, 1, 2, 2})},
       attrs_named(Opcode::conv_transpose2d, {{"padding", ints({2, 0})}}));
  }, ErrorKind::invalid, "conv_transpose2d: the output height would be negative");
  expect_error([&] { ct({tt(DType::f32, Dims{1, 1, 2, 2}), tt(DType::f32, Dims{1, 1, 2, 2})},
                        attrs_named(Opcode::conv_transpose2d, {{"output_padding", ints({-1})}})); },
               ErrorKind::invalid, "conv_transpose2d: output_padding must be >= 0 (and at most 2^31), got (-1)");
  expect_error([&] { ct({tt(DType::f32, Dims{1, 1, 2, 2}), tt(DType::f32, Dims{1, 1, 2, 2})},
                        attrs_named(Opcode::conv_transpose2d, {{"strides", ints({1, 0})}})); },
               ErrorKind::invalid, "conv_transpose2d: strides must be >= 1 (and at most 2^31), got (1, 0)");
  expect_error([&] { ct({tt(DType::f32, Dims{1, 1, 2, 2}), tt(DType::f32, Dims{1, 1, 2, 2})},
                        attrs_named(Opcode::conv_transpose2d, {{"padding", ints({1, 1, 1})}})); },
               ErrorKind::invalid, "conv_transpose2d: padding must be an int, (PH, PW) or (top, left, bottom, right), got (1, 1, 1)");
  // a `?` dim that disagrees traps at run time with the static message
  Tensor x = Tensor::zeros_owned(DType::f32, Dims{1, 3, 2, 2}), w = Tensor::zeros_owned(DType::f32, Dims{2, 1, 2, 2});
  expect_error([&] { run_op(Opcode::conv_transpose2d, {x, w}, a); }, ErrorKind::trap,
               "conv_transpose2d: channel mismatch");
}

BOOST_AUTO_TEST_SUITE_END()
