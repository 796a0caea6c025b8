// conv2d against the CVM formalization's formula (docs/ops.md, "conv2d") evaluated index by index
// (generalized to any groups and (top, left, bottom, right) padding): every dtype,
// grouped/depthwise, dilation, strides, strided inputs, threads, empty batch, static rule, and
// every error.
#include <boost/test/unit_test.hpp>

#include <array>

#include "nn_test_util.hpp"

using namespace mlvm;
using namespace nn_test;

namespace {

struct Conv {
  std::array<int64_t, 4> pad;  // top, left, bottom, right
  std::array<int64_t, 2> stride, dilation;
  int64_t groups;
};

// Y[n, o, p, q] = sum_c sum_ki sum_kj pad(X)[n, g·Cg + c, p·SH - top + ki·DH, q·SW - left + kj·DW]
//                 · W[o, c, ki, kj] + B[o],  g = o / (OC / groups).
Expected ref_conv(const Tensor& x, const Tensor& w, const Tensor* b, const Conv& cv, Dims* shape) {
  const int64_t N = x.dim(0), H = x.dim(2), W = x.dim(3);
  const int64_t OC = w.dim(0), Cg = w.dim(1), KH = w.dim(2), KW = w.dim(3);
  const int64_t OH = (H + cv.pad[0] + cv.pad[2] - cv.dilation[0] * (KH - 1) - 1) / cv.stride[0] + 1;
  const int64_t OW = (W + cv.pad[1] + cv.pad[3] - cv.dilation[1] * (KW - 1) - 1) / cv.stride[1] + 1;
  *shape = Dims{N, OC, OH, OW};
  const int64_t OCg = OC / cv.groups;
  Expected e;
  const DType out = acc_dtype(x.dtype());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < OC; ++o)
      for (int64_t p = 0; p < OH; ++p)
        for (int64_t q = 0; q < OW; ++q) {
          long double s = 0;
          uint64_t si = 0;
          const int64_t g = o / OCg;
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t ki = 0; ki < KH; ++ki)
              for (int64_t kj = 0; kj < KW; ++kj) {
                const int64_t ih = p * cv.stride[0] - cv.pad[0] + ki * cv.dilation[0];
                const int64_t iw = q * cv.stride[1] - cv.pad[1] + kj * cv.dilation[1];
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;  // pad(...) = 0
                std::array<int64_t, 4> xi{n, g * Cg + c, ih, iw}, wi{o, c, ki, kj};
                s += (long double)x.get_double(xi) * w.get_double(wi);
                si += uint64_t(x.get_int(xi)) * uint64_t(w.get_int(wi));
              }
          if (b) {
            std::array<int64_t, 1> bi{o};
            s += b->get_double(bi);
            si += uint64_t(b->get_int(bi));
          }
          e.f.push_back(double(s));
          e.i.push_back(wrap_to(out, si));
        }
  return e;
}

std::vector<AttrValue> conv_attrs(const Conv& cv) {
  return {ints({cv.pad[0], cv.pad[1], cv.pad[2], cv.pad[3]}), ints({cv.stride[0], cv.stride[1]}),
          ints({cv.dilation[0], cv.dilation[1]}), integer(cv.groups)};
}
std::vector<AttrValue> conv_attrs_raw(std::vector<int64_t> pad, std::vector<int64_t> strides,
                                      std::vector<int64_t> dilation, int64_t groups) {
  return {ints(pad), ints(strides), ints(dilation), integer(groups)};
}

struct Case {
  Dims x, w;
  Conv cv;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {{1, 3, 5, 5}, {4, 3, 3, 3}, {{0, 0, 0, 0}, {1, 1}, {1, 1}, 1}},
      {{2, 3, 6, 7}, {4, 3, 3, 3}, {{1, 1, 1, 1}, {1, 1}, {1, 1}, 1}},
      {{1, 4, 7, 6}, {6, 2, 3, 2}, {{1, 0, 2, 1}, {2, 1}, {1, 1}, 2}},       // grouped, 4-tuple padding
      {{2, 6, 8, 8}, {6, 1, 3, 3}, {{1, 1, 1, 1}, {2, 2}, {1, 1}, 6}},       // depthwise, strided
      {{1, 2, 6, 9}, {4, 1, 3, 3}, {{2, 2, 2, 2}, {1, 2}, {2, 3}, 2}},       // depth multiplier 2, dilation
      {{1, 6, 5, 5}, {9, 2, 2, 2}, {{0, 1, 1, 0}, {1, 3}, {2, 1}, 3}},       // groups 3
      {{2, 4, 4, 5}, {8, 4, 1, 1}, {{0, 0, 0, 0}, {1, 1}, {1, 1}, 1}},       // 1x1 (reads x directly)
      {{1, 4, 4, 5}, {8, 2, 1, 1}, {{0, 0, 0, 0}, {1, 1}, {3, 3}, 2}},       // 1x1 grouped, dilation moot
      {{1, 3, 5, 5}, {2, 3, 1, 1}, {{1, 1, 1, 1}, {2, 2}, {1, 1}, 1}},       // 1x1 with padding/stride
      {{1, 1, 3, 3}, {1, 1, 3, 3}, {{0, 0, 0, 0}, {1, 1}, {1, 1}, 1}},       // window == input
      {{1, 2, 1, 8}, {3, 2, 1, 4}, {{0, 3, 0, 3}, {1, 3}, {1, 2}, 1}},       // H = 1, wide padding
      {{3, 8, 9, 9}, {8, 2, 3, 3}, {{1, 1, 1, 1}, {1, 1}, {1, 1}, 4}},
      // Column-shifted planes exactly as wide as the input (left + right = KW - 1, no top or
      // bottom padding): not the input itself (openWakeWord's embedding model read past it).
      {{2, 1, 9, 8}, {6, 1, 3, 3}, {{0, 1, 0, 1}, {1, 1}, {1, 1}, 1}},
  };
  return c;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(conv2d_kernel)

BOOST_AUTO_TEST_CASE(every_dtype_every_case) {
  std::mt19937_64 rng(11);
  for (DType dt : kNumericDTypes)
    for (std::size_t ci = 0; ci < cases().size(); ++ci) {
      const Case& c = cases()[ci];
      BOOST_TEST_CONTEXT(dtype_name(dt) << " case " << ci) {
        Tensor x = random_tensor(dt, c.x, rng), w = random_tensor(dt, c.w, rng);
        Tensor b = bias_for(dt, c.w[0], rng);
        Dims shape;
        Expected e = ref_conv(x, w, &b, c.cv, &shape);
        Tensor y = run_op(Opcode::conv2d, {x, w, b}, conv_attrs(c.cv));
        BOOST_TEST(y.dtype() == acc_dtype(dt));
        expect_values(y, shape, e);
        e = ref_conv(x, w, nullptr, c.cv, &shape);
        expect_values(run_op(Opcode::conv2d, {x, w, Tensor()}, conv_attrs(c.cv)), shape, e);
        TensorType t = infer_op(Opcode::conv2d, {type_of(x), type_of(w), absent()}, conv_attrs(c.cv));
        BOOST_TEST(t.dims == shape);
      }
    }
}

BOOST_AUTO_TEST_CASE(hand_computed) {
  // x = 1..9 as 3x3, w = [[1, 0], [0, -1]], padding 1 on top/left only, stride 2:
  // windows start at (-1,-1), (-1,1), (1,-1), (1,1).
  Tensor x = make(DType::i8, Dims{1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  Tensor w = make(DType::i8, Dims{1, 1, 2, 2}, {1, 0, 0, -1});
  Tensor y = run_op(Opcode::conv2d, {x, w}, conv_attrs_raw({1, 1, 0, 0}, {2}, {1}, 1));
  // (0-1), (0-3), (0-7), (5-9)
  expect_ints(y, Dims{1, 1, 2, 2}, {-1, -3, -7, -4});
  // A single-int padding means both; single-int strides/dilation too.
  Tensor y2 = run_op(Opcode::conv2d, {x, w}, conv_attrs_raw({1}, {2}, {1}, 1));
  BOOST_TEST(y2.shape() == Dims({1, 1, 2, 2}));
  // padding (1, 1) gives windows at -1 and 1 on both axes: same numbers as above
  expect_ints(y2, Dims{1, 1, 2, 2}, {-1, -3, -7, -4});
}

BOOST_AUTO_TEST_CASE(strided_inputs_and_threads) {
  std::mt19937_64 rng(12);
  ThreadPool pool(2);
  const Case& c = cases()[4];
  for (DType dt : {DType::f32, DType::i8, DType::i32})
    for (Layout lx : {Layout::transposed, Layout::flipped, Layout::sliced, Layout::broadcast})
      for (Layout lw : {Layout::contiguous, Layout::flipped, Layout::transposed, Layout::broadcast}) {
        BOOST_TEST_CONTEXT(dtype_name(dt) << " x " << layout_name(lx) << " w " << layout_name(lw)) {
          // broadcast: x repeats along H (N is 1), w along OC and KH; C, W and KW still vary
          Tensor x = random_for(lx, dt, c.x, rng), w = random_for(lw, dt, c.w, rng), b = bias_for(dt, c.w[0], rng);
          Dims shape;
          Expected e = ref_conv(x, w, &b, c.cv, &shape);
          expect_values(run_op(Opcode::conv2d, {relayout(x, lx), relayout(w, lw), relayout(b, Layout::sliced)},
                               conv_attrs(c.cv), &pool),
                        shape, e);
        }
      }
  // 1x1 direct path on a transposed input, and a bigger grouped case with the pool, whose
  // integer result must not depend on the thread count.
  const Case& d = cases()[6];
  Tensor x = random_tensor(DType::i16, d.x, rng), w = random_tensor(DType::i16, d.w, rng);
  Dims shape;
  Expected e = ref_conv(x, w, nullptr, d.cv, &shape);
  expect_values(run_op(Opcode::conv2d, {relayout(x, Layout::transposed), w}, conv_attrs(d.cv), &pool), shape, e);
  Conv big{{1, 1, 1, 1}, {1, 1}, {1, 1}, 2};
  Tensor xb = random_tensor(DType::i8, Dims{2, 16, 20, 20}, rng), wb = random_tensor(DType::i8, Dims{32, 8, 3, 3}, rng);
  Tensor y1 = run_op(Opcode::conv2d, {xb, wb}, conv_attrs(big));
  Tensor y2 = run_op(Opcode::conv2d, {xb, wb}, conv_attrs(big), &pool);
  e = ref_conv(xb, wb, nullptr, big, &shape);
  expect_values(y1, shape, e);
  BOOST_TEST(std::memcmp(y1.raw_data(), y2.raw_data(), std::size_t(y1.numel()) * 4) == 0);
  // broadcast bias (stride 0)
  Tensor bc = constant_tensor(DType::i32, Dims{32}, Scalar::from_int(-5));
  e = ref_conv(xb, wb, &bc, big, &shape);
  expect_values(run_op(Opcode::conv2d, {xb, wb, bc}, conv_attrs(big), &pool), shape, e);
  // Other broadcast dims on every case: x repeated over N and C (grouped channels read the
  // same plane; H when both are 1), w over its input channels and KW; the rest varies.
  for (std::size_t ci = 0; ci < cases().size(); ++ci) {
    BOOST_TEST_CONTEXT("broadcast x (N, C), w (C/groups, KW), case " << ci) {
      const Case& k = cases()[ci];
      const std::vector<int> xd = k.x[0] * k.x[1] > 1 ? std::vector<int>{0, 1} : std::vector<int>{2};  // (1, 1, 3, 3): H
      Tensor xc = random_for(Layout::broadcast, DType::i16, k.x, rng, 0, 0, xd);
      Tensor wc = random_for(Layout::broadcast, DType::i16, k.w, rng, 0, 0, {1, 3});
      e = ref_conv(xc, wc, nullptr, k.cv, &shape);
      expect_values(run_op(Opcode::conv2d, {relayout(xc, Layout::broadcast), relayout(wc, Layout::broadcast)},
                           conv_attrs(k.cv), ci % 2 ? &pool : nullptr),
                    shape, e);
    }
  }
}

BOOST_AUTO_TEST_CASE(empty_batch) {
  Tensor x = Tensor::empty(DType::f32, Dims{0, 3, 5, 5}), w = Tensor::zeros_owned(DType::f32, Dims{2, 3, 3, 3});
  Tensor y = run_op(Opcode::conv2d, {x, w}, conv_attrs_raw({0, 0}, {1, 1}, {1, 1}, 1));
  BOOST_TEST(y.shape() == Dims({0, 2, 3, 3}));
  // OC = 0 is empty too
  Tensor w0 = Tensor::empty(DType::f32, Dims{0, 3, 3, 3}), x1 = Tensor::zeros_owned(DType::f32, Dims{1, 3, 5, 5});
  BOOST_TEST(run_op(Opcode::conv2d, {x1, w0}, conv_attrs_raw({0, 0}, {1, 1}, {1, 1}, 1)).shape() == Dims({1, 0, 3, 3}));
}

// C = 0 (docs/ops.md, "Dtypes, shapes and broadcasting": empty tensors are valid wherever the
// shape rule allows them; 0 channels divide into any groups): every output sums nothing, so y is
// the bias, or 0 without one — a full-size result, not an empty one. groups must still divide OC,
// and w must expect C/groups = 0 channels.
BOOST_AUTO_TEST_CASE(zero_input_channels) {
  std::mt19937_64 rng(13);
  ThreadPool pool(2);
  Tensor xh = Tensor::empty(DType::i8, Dims{1, 0, 3, 3}), wh = Tensor::empty(DType::i8, Dims{2, 0, 2, 2});
  Tensor bh = make(DType::i32, Dims{2}, {7, -3});
  expect_ints(run_op(Opcode::conv2d, {xh, wh, bh}, conv_attrs_raw({0}, {1}, {1}, 1)), Dims{1, 2, 2, 2},
              {7, 7, 7, 7, -3, -3, -3, -3});
  expect_ints(run_op(Opcode::conv2d, {xh, wh}, conv_attrs_raw({0}, {1}, {1}, 2)), Dims{1, 2, 2, 2},
              std::vector<int64_t>(8, 0));
  for (DType dt : {DType::f32, DType::f64, DType::i8, DType::u8, DType::i16, DType::i64})
    for (int64_t g : {1, 2, 4}) {
      BOOST_TEST_CONTEXT(dtype_name(dt) << " groups " << g) {
        const Conv cv{{1, 0, 2, 1}, {2, 1}, {1, 2}, g};
        Tensor x = Tensor::empty(dt, Dims{2, 0, 5, 6}), w = Tensor::empty(dt, Dims{4, 0, 3, 2});
        Tensor b = bias_for(dt, 4, rng);
        Dims shape;
        Expected e = ref_conv(x, w, &b, cv, &shape);
        BOOST_TEST(shape == Dims({2, 4, 3, 5}));
        Tensor y = run_op(Opcode::conv2d, {x, w, b}, conv_attrs(cv), &pool);
        BOOST_TEST(y.dtype() == acc_dtype(dt));
        expect_values(y, shape, e);
        e = ref_conv(x, w, nullptr, cv, &shape);
        expect_values(run_op(Opcode::conv2d, {x, w}, conv_attrs(cv)), shape, e);
        BOOST_TEST(infer_op(Opcode::conv2d, {type_of(x), type_of(w), type_of(b)}, conv_attrs(cv)).dims == shape);
      }
    }
  // a strided (flipped) bias over the empty sum
  Tensor x = Tensor::empty(DType::f32, Dims{1, 0, 4, 4}), w = Tensor::empty(DType::f32, Dims{3, 0, 1, 1});
  Tensor b = random_tensor(DType::f32, Dims{3}, rng);
  Dims shape;
  const Conv one{{0, 0, 0, 0}, {1, 1}, {1, 1}, 3};
  expect_values(run_op(Opcode::conv2d, {x, w, relayout(b, Layout::flipped)}, conv_attrs(one)), Dims{1, 3, 4, 4},
                ref_conv(x, w, &b, one, &shape));
  // errors, statically (invalid) and at run time (trap)
  auto infer0 = [](Dims xd, Dims wd, int64_t g) {
    return [=] { infer_op(Opcode::conv2d, {tt(DType::f32, xd), tt(DType::f32, wd)}, conv_attrs_raw({0}, {1}, {1}, g)); };
  };
  expect_error(infer0({1, 0, 5, 5}, {4, 0, 3, 3}, 3), ErrorKind::invalid,
               "conv2d: groups = 3 does not divide the 4 output channels of w f32[4, 0, 3, 3]");
  expect_error(infer0({1, 0, 5, 5}, {4, 1, 3, 3}, 1), ErrorKind::invalid,
               "conv2d: channel mismatch: x f32[1, 0, 5, 5] has 0 channels, w f32[4, 1, 3, 3] expects C/groups = 1 "
               "with groups = 1");
  expect_error(infer0({1, 2, 5, 5}, {4, 0, 3, 3}, 1), ErrorKind::invalid,
               "conv2d: channel mismatch: x f32[1, 2, 5, 5] has 2 channels, w f32[4, 0, 3, 3] expects C/groups = 0");
  Tensor x0 = Tensor::empty(DType::f32, Dims{1, 0, 5, 5});
  expect_error([&] { run_op(Opcode::conv2d, {x0, Tensor::zeros_owned(DType::f32, Dims{4, 1, 3, 3})}, conv_attrs_raw({0}, {1}, {1}, 1)); },
               ErrorKind::trap, "conv2d: channel mismatch: x f32[1, 0, 5, 5] has 0 channels");
  expect_error([&] { run_op(Opcode::conv2d, {x0, Tensor::empty(DType::f32, Dims{4, 0, 3, 3})}, conv_attrs_raw({0}, {1}, {1}, 3)); },
               ErrorKind::trap, "conv2d: groups = 3 does not divide the 4 output channels");
}

BOOST_AUTO_TEST_CASE(static_rule) {
  auto a = conv_attrs_raw({1, 1}, {2, 2}, {1, 1}, 2);
  TensorType t = infer_op(Opcode::conv2d, {tt(DType::i8, Dims{kDynamic, 4, 9, kDynamic}, 6), tt(DType::i8, Dims{8, 2, 3, 3}, 5),
                                         tt(DType::i32, Dims{8}, 3)},
                          a);
  BOOST_TEST(t.dtype == DType::i32);
  BOOST_TEST(t.dims == Dims({kDynamic, 8, 5, kDynamic}));
  BOOST_TEST(t.precision == 6 + 5 + 5 + 1);  // K = 2·3·3 = 18 -> ceil_log2 = 5; bias: max(16, 3) + 1
  t = infer_op(Opcode::conv2d, {tt(DType::i16, Dims{1, 4, 9, 9}, 6), tt(DType::i16, Dims{8, 2, 3, 3}, 5), absent()}, a);
  BOOST_TEST(t.precision == 16);
  BOOST_TEST(infer_op(Opcode::conv2d, {tt(DType::i16, Dims{1, 4, 9, 9}), tt(DType::i16, Dims{8, 2, 3, 3}, 5)}, a).precision == 0);
  BOOST_TEST(infer_op(Opcode::conv2d, {tt(DType::i16, Dims{1, 4, 9, 9}, 3), tt(DType::i16, Dims{8, 2, kDynamic, 3}, 5)}, a)
                 .precision == 0);
  // dynamic channels: unchecked statically; OC from the bias when w's is dynamic
  t = infer_op(Opcode::conv2d, {tt(DType::f32, Dims{1, kDynamic, 9, 9}), tt(DType::f32, Dims{kDynamic, 2, 3, 3}),
                              tt(DType::f32, Dims{6})},
               a);
  BOOST_TEST(t.dims == Dims({1, 6, 5, 5}));
  BOOST_TEST(t.precision == 0);
}

BOOST_AUTO_TEST_CASE(errors) {
  auto base = [](std::vector<AttrValue> a, Dims x = {1, 4, 5, 5}, Dims w = {4, 2, 3, 3}) {
    return [=] { infer_op(Opcode::conv2d, {tt(DType::f32, x), tt(DType::f32, w)}, a); };
  };
  auto ok = conv_attrs_raw({0, 0}, {1, 1}, {1, 1}, 2);
  BOOST_CHECK_NO_THROW(base(ok)());
  expect_error(base(conv_attrs_raw({0, 0}, {1, 1}, {1, 1}, 3)), ErrorKind::invalid,
               "conv2d: groups = 3 does not divide the 4 input channels of x f32[1, 4, 5, 5]");
  expect_error(base(ok, {1, 4, 5, 5}, {3, 2, 3, 3}), ErrorKind::invalid,
               "conv2d: groups = 2 does not divide the 3 output channels of w f32[3, 2, 3, 3]");
  expect_error(base(ok, {1, 4, 5, 5}, {4, 4, 3, 3}), ErrorKind::invalid,
               "conv2d: channel mismatch: x f32[1, 4, 5, 5] has 4 channels, w f32[4, 4, 3, 3] expects C/groups = 4 "
               "with groups = 2");
  expect_error(base(ok, {1, 4, 2, 5}), ErrorKind::invalid,
               "conv2d: the dilated kernel height 3 is larger than the padded input height 2");
  expect_error(base(conv_attrs_raw({0, 0}, {1, 1}, {1, 3}, 2)), ErrorKind::invalid,
               "conv2d: the dilated kernel width 7 is larger than the padded input width 5");
  expect_error(base(conv_attrs_raw({0, 0}, {0, 1}, {1, 1}, 2)), ErrorKind::invalid,
               "conv2d: strides must be >= 1 (and at most 2^31), got (0, 1)");
  expect_error(base(conv_attrs_raw({0, 0}, {1, 1}, {1, 0}, 2)), ErrorKind::invalid,
               "conv2d: dilation must be >= 1 (and at most 2^31), got (1, 0)");
  expect_error(base(conv_attrs_raw({0, 0}, {1, 1, 1}, {1, 1}, 2)), ErrorKind::invalid,
               "conv2d: strides must be an int or a pair (h, w), got (1, 1, 1)");
  expect_error(base(conv_attrs_raw({0, -1}, {1, 1}, {1, 1}, 2)), ErrorKind::invalid,
               "conv2d: padding must be >= 0 (and at most 2^31), got (0, -1)");
  expect_error(base(conv_attrs_raw({0, 1, 1}, {1, 1}, {1, 1}, 2)), ErrorKind::invalid,
               "conv2d: padding must be an int, (PH, PW) or (top, left, bottom, right), got (0, 1, 1)");
  // groups' range (>= 1) is declared with the attribute (ir/attrs.def), so it is checked with
  // the attributes, before the rule runs
  expect_error(base(conv_attrs_raw({0, 0}, {1, 1}, {1, 1}, 0)), ErrorKind::invalid,
               "attribute 'groups' of conv2d is 0; expected a value >= 1");
  expect_error(base(ok, {1, 4, 5}), ErrorKind::invalid, "conv2d: x must have rank 4 (N, C, H, W), got f32[1, 4, 5]");
  expect_error(base(ok, {1, 4, 5, 5}, {4, 2, 3}), ErrorKind::invalid,
               "conv2d: w must have rank 4 (OC, C/groups, KH, KW), got f32[4, 2, 3]");
  expect_error([&] { infer_op(Opcode::conv2d, {tt(DType::i8, Dims{1, 4, 5, 5}), tt(DType::u8, Dims{4, 2, 3, 3})}, ok); },
               ErrorKind::invalid, "conv2d: inputs must have one dtype, got i8[1, 4, 5, 5] and u8[4, 2, 3, 3]");
  expect_error([&] { infer_op(Opcode::conv2d, {tt(DType::boolean, Dims{1, 4, 5, 5}), tt(DType::boolean, Dims{4, 2, 3, 3})}, ok); },
               ErrorKind::invalid, "conv2d: bool inputs are not supported");
  expect_error([&] { infer_op(Opcode::conv2d, {tt(DType::u8, Dims{1, 4, 5, 5}), tt(DType::u8, Dims{4, 2, 3, 3}), tt(DType::u8, Dims{4})}, ok); },
               ErrorKind::invalid, "conv2d: bias must be i32 for u8 inputs, got u8[4]");
  expect_error([&] { infer_op(Opcode::conv2d, {tt(DType::f32, Dims{1, 4, 5, 5}), tt(DType::f32, Dims{4, 2, 3, 3}), tt(DType::f32, Dims{5})}, ok); },
               ErrorKind::invalid, "conv2d: bias must have shape [4] (OC of w f32[4, 2, 3, 3]), got f32[5]");
  // run time: a channel mismatch hidden by `?` traps
  Tensor x = Tensor::zeros_owned(DType::f32, Dims{1, 6, 5, 5}), w = Tensor::zeros_owned(DType::f32, Dims{4, 2, 3, 3});
  expect_error([&] { run_op(Opcode::conv2d, {x, w}, ok); }, ErrorKind::trap, "conv2d: channel mismatch");
  Tensor xs = Tensor::zeros_owned(DType::f32, Dims{1, 4, 2, 2});
  expect_error([&] { run_op(Opcode::conv2d, {xs, w}, ok); }, ErrorKind::trap, "larger than the padded input");
}

BOOST_AUTO_TEST_SUITE_END()
