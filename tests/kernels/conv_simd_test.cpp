// conv2d at every SIMD level in one process, against a naive loop written from the definition
// (independent of conv_test.cpp's): the implicit-im2col path (stride 1, any padding and
// dilation), strided convolutions over stride phases, grouped and depthwise convolutions, 1x1
// windows, a weight matrix too big to stay resident, i8 extremes; one and two threads must
// give identical bits, floats included.
#include <boost/test/unit_test.hpp>

#include <array>
#include <cstring>

#include "kernels/simd/cpu_features.hpp"
#include "nn_test_util.hpp"
#include "simd_test_support.hpp"

using namespace mlvm;
using namespace nn_test;

namespace {

struct ConvCase {
  Dims x, w;
  std::array<int64_t, 4> pad;  // top, left, bottom, right
  std::array<int64_t, 2> stride, dilation;
  int64_t groups;
};

const std::vector<ConvCase>& conv_cases() {
  static const std::vector<ConvCase> c = {
      {{1, 16, 20, 20}, {24, 16, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}, 1},    // the common 3x3 "same"
      {{2, 5, 9, 11}, {7, 5, 3, 3}, {0, 2, 1, 0}, {1, 1}, {1, 1}, 1},        // asymmetric padding
      {{1, 6, 12, 10}, {6, 6, 3, 2}, {2, 1, 2, 1}, {1, 1}, {2, 3}, 1},       // dilation
      {{1, 8, 13, 13}, {12, 8, 3, 3}, {1, 1, 1, 1}, {2, 2}, {1, 1}, 1},      // stride 2: four phases
      {{1, 3, 23, 21}, {10, 3, 7, 7}, {3, 3, 3, 3}, {2, 2}, {1, 1}, 1},      // ResNet's stem, small
      {{1, 5, 12, 12}, {7, 5, 1, 1}, {0, 0, 0, 0}, {2, 2}, {1, 1}, 1},       // 1x1 stride 2: one phase, direct out
      {{1, 4, 17, 19}, {6, 4, 3, 3}, {2, 0, 1, 2}, {3, 2}, {2, 2}, 1},       // stride 3 x dilation 2, stride 2 x 2
      {{2, 3, 14, 15}, {5, 3, 2, 3}, {1, 2, 0, 1}, {4, 5}, {1, 3}, 1},       // strides past the kernel
      {{1, 6, 11, 9}, {9, 2, 5, 3}, {2, 1, 0, 1}, {1, 2}, {1, 2}, 3},        // grouped, strided w
      {{2, 16, 10, 10}, {32, 4, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}, 4},     // grouped
      {{1, 8, 14, 14}, {8, 1, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}, 8},       // depthwise
      {{2, 6, 15, 12}, {12, 1, 3, 5}, {0, 2, 1, 2}, {2, 1}, {2, 1}, 6},      // depthwise x2, strided, dilated
      {{1, 12, 7, 9}, {20, 12, 1, 1}, {0, 0, 0, 0}, {1, 1}, {1, 1}, 1},      // 1x1, reads x as is
      {{1, 4, 6, 6}, {8, 4, 1, 1}, {1, 0, 2, 1}, {1, 1}, {1, 1}, 1},         // 1x1 with padding
      {{1, 3, 5, 5}, {4, 3, 5, 5}, {0, 0, 0, 0}, {1, 1}, {1, 1}, 1},         // window == input
      {{1, 64, 9, 9}, {200, 64, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}, 1},     // weights not resident
      {{1, 2, 40, 70}, {3, 2, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}, 1},       // wide rows, many N chunks
      {{1, 5, 37, 71}, {5, 1, 3, 3}, {1, 1, 1, 1}, {2, 2}, {1, 1}, 5},      // depthwise stride 2, MobileNet-like
      {{2, 3, 30, 67}, {6, 1, 5, 5}, {2, 2, 2, 2}, {1, 1}, {1, 1}, 3},      // depthwise 5x5 x2, odd-wide rows
      {{1, 4, 9, 40}, {4, 1, 3, 3}, {2, 3, 2, 1}, {1, 1}, {2, 2}, 4},       // depthwise dilated, asymmetric pads
      {{1, 2, 7, 7}, {2, 1, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}, 2},        // depthwise rows narrower than a register
      // Depthwise a register of channels at a time: whole and partial channel blocks at every
      // level, 5x5 and non-square windows, strides and dilation, outputs narrower than 4.
      {{2, 17, 9, 11}, {17, 1, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}, 17},    // 17 channels: 1, 2 or 4 blocks + 1
      {{1, 32, 14, 14}, {32, 1, 5, 5}, {2, 2, 2, 2}, {2, 2}, {1, 1}, 32},   // EfficientNet's 5x5 stride 2
      {{1, 9, 6, 3}, {9, 1, 3, 1}, {0, 0, 1, 0}, {1, 2}, {2, 1}, 9},        // 3x1, 2 output columns
      {{1, 16, 1, 1}, {16, 1, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}, 16},     // 1 x 1 plane: every tap but one is padding
      {{1, 24, 11, 29}, {24, 1, 3, 3}, {0, 3, 2, 1}, {2, 3}, {2, 1}, 24},   // strided, dilated, asymmetric pads
      // Planes big enough for several strips of output rows (kernels/simd/conv_depthwise.hpp:
      // depthwise_strip_rows), the last one partial, at every level's register width.
      {{1, 9, 40, 100}, {9, 1, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}, 9},     // 3x3 stride 1
      {{1, 16, 61, 150}, {16, 1, 3, 3}, {1, 1, 1, 1}, {2, 2}, {1, 1}, 16},  // stride 2
      {{1, 8, 50, 90}, {8, 1, 5, 5}, {2, 3, 1, 2}, {1, 1}, {2, 1}, 8},      // 5x5 dilated: a halo of 8 rows
      {{1, 35, 13, 17}, {35, 1, 5, 5}, {2, 2, 2, 2}, {2, 2}, {1, 1}, 35},   // 5x5 stride 2: rows of 7 and 9
      // Column-shifted planes, one per tap column and as wide as the output (kernels/conv.cpp,
      // implicit_layout): few input channels, many outputs. (The 600-, 700- and 200-channel
      // cases below take them too.)
      {{1, 3, 23, 21}, {64, 3, 7, 7}, {3, 3, 3, 3}, {2, 2}, {1, 1}, 1},     // ResNet's stem with its 64 outputs
      {{1, 2, 19, 23}, {48, 2, 3, 3}, {1, 2, 0, 1}, {2, 3}, {2, 2}, 1},     // dilated, strided, asymmetric pads
      // The usual phases with wide rows (shifted planes would cost more than the copy out):
      // output rows in L2 blocks, five of them, taken whole by two threads, and phase planes
      // big enough to be built by both.
      {{1, 9, 105, 210}, {24, 9, 1, 3}, {0, 1, 0, 1}, {1, 2}, {1, 1}, 1},
      // 1x1 with few pixels and many channels: the GEMM runs transposed (floats).
      {{1, 40, 7, 7}, {100, 40, 1, 1}, {0, 0, 0, 0}, {1, 1}, {1, 1}, 1},    // 49 pixels, 100 channels
      {{1, 32, 9, 9}, {192, 16, 1, 1}, {0, 0, 0, 0}, {1, 1}, {1, 1}, 2},    // grouped: 96 channels a group
      {{2, 24, 13, 13}, {130, 24, 1, 1}, {0, 0, 0, 0}, {2, 2}, {1, 1}, 1},  // stride 2: one phase plane
      {{1, 200, 1, 1}, {40, 200, 1, 1}, {0, 0, 0, 0}, {1, 1}, {1, 1}, 1},   // one pixel (a squeeze), few channels
      {{2, 12, 1, 1}, {5, 12, 1, 1}, {0, 0, 0, 0}, {1, 1}, {1, 1}, 1},      // one pixel, two images
      // Results too big for L2 in one piece, written straight into y from shifted planes built
      // band by band (kernels/conv.cpp, conv_stem_bands), the last band partial.
      {{1, 2, 20, 30}, {600, 2, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}, 1},    // stride 1: 5 bands of 4 rows
      {{1, 3, 23, 31}, {700, 3, 3, 3}, {1, 1, 1, 1}, {2, 2}, {1, 1}, 1},    // stride 2: 3 bands, each GEMM on both threads
      // Bands taken whole by the two threads, each on its own planes.
      {{1, 3, 80, 80}, {200, 3, 3, 3}, {1, 1, 1, 1}, {2, 2}, {1, 1}, 1},    // 6 bands of 7 rows
      // Stride 1 read through a window over the unpadded input where the level has it (i8 with
      // AVX-512 VNNI: kernels/simd/conv_window.hpp): B panels of 32 columns spanning output rows.
      {{1, 7, 12, 40}, {9, 7, 3, 3}, {0, 0, 0, 0}, {1, 1}, {1, 1}, 1},      // rows 38 of 40: two loads a k row; K 63
      {{1, 4, 9, 3}, {6, 4, 3, 3}, {0, 0, 0, 0}, {1, 1}, {1, 1}, 1},        // one output column: a load per pixel
      {{1, 115, 6, 7}, {10, 115, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}, 1},   // K 1035: a k block starts mid-channel
      {{1, 100, 5, 6}, {512, 100, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}, 1},  // weights past L2: the blocked GEMM
      // Depthwise a plane at a time, pixels in lanes (AVX2, AVX-512: simd::DepthwisePlane).
      {{1, 6, 23, 45}, {6, 1, 3, 3}, {2, 1, 0, 1}, {1, 1}, {1, 1}, 6},     // asymmetric pads, rows of 45
      {{2, 4, 20, 79}, {4, 1, 3, 3}, {1, 1, 1, 1}, {1, 2}, {1, 1}, 4},     // column stride 2 only, two images
  };
  return c;
}

std::vector<AttrValue> attrs_of(const ConvCase& c) {
  return {ints({c.pad[0], c.pad[1], c.pad[2], c.pad[3]}), ints({c.stride[0], c.stride[1]}),
          ints({c.dilation[0], c.dilation[1]}), integer(c.groups)};
}


// y[n, o, p, q] = b[o] + sum over (c, i, j) of x[n, g·Cg + c, p·sh - top + i·dh, q·sw - left + j·dw]
// · w[o, c, i, j], out-of-range input positions being 0; g = o / (OC / groups). Floats in long
// double with an absolute error bound, integers modulo 2^64 then wrapped to the result type.
struct ConvRef {
  Dims shape;
  std::vector<long double> value, bound;
  std::vector<int64_t> exact;
};

ConvRef naive_conv(const Tensor& x, const Tensor& w, const Tensor* b, const ConvCase& c) {
  const int64_t N = x.dim(0), H = x.dim(2), W = x.dim(3), OC = w.dim(0), Cg = w.dim(1), KH = w.dim(2), KW = w.dim(3);
  const int64_t OH = (H + c.pad[0] + c.pad[2] - c.dilation[0] * (KH - 1) - 1) / c.stride[0] + 1;
  const int64_t OW = (W + c.pad[1] + c.pad[3] - c.dilation[1] * (KW - 1) - 1) / c.stride[1] + 1;
  ConvRef r;
  r.shape = Dims{N, OC, OH, OW};
  const bool f = is_float(x.dtype());
  const long double u = x.dtype() == DType::f32 ? 6e-8L : 1.2e-16L;
  const int64_t K = Cg * KH * KW;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < OC; ++o)
      for (int64_t p = 0; p < OH; ++p)
        for (int64_t q = 0; q < OW; ++q) {
          const int64_t g = o / (OC / c.groups);
          long double s = 0, mag = 0;
          uint64_t si = 0;
          for (int64_t ci = 0; ci < Cg; ++ci)
            for (int64_t i = 0; i < KH; ++i)
              for (int64_t j = 0; j < KW; ++j) {
                const int64_t ih = p * c.stride[0] - c.pad[0] + i * c.dilation[0];
                const int64_t iw = q * c.stride[1] - c.pad[1] + j * c.dilation[1];
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                const std::array<int64_t, 4> xi{n, g * Cg + ci, ih, iw}, wi{o, ci, i, j};
                if (f) {
                  const long double t = (long double)x.get_double(xi) * w.get_double(wi);
                  s += t;
                  mag += t < 0 ? -t : t;
                } else {
                  si += uint64_t(x.get_int(xi)) * uint64_t(w.get_int(wi));
                }
              }
          if (b) {
            const std::array<int64_t, 1> bi{o};
            s += b->get_double(bi);
            mag += std::fabs(b->get_double(bi));
            si += uint64_t(b->get_int(bi));
          }
          r.value.push_back(s);
          r.bound.push_back((K + 2) * 2 * u * mag + 1e-300L);
          r.exact.push_back(wrap_to(acc_dtype(x.dtype()), si));
        }
  return r;
}

void expect_conv(const Tensor& y, const ConvRef& r) {
  BOOST_REQUIRE(y.shape() == r.shape);
  std::size_t e = 0;
  int bad = 0;
  for_each_index(r.shape, [&](const std::vector<int64_t>& idx) {
    bool ok;
    if (is_float(y.dtype())) ok = std::fabs((long double)y.get_double(idx) - r.value[e]) <= r.bound[e];
    else ok = y.get_int(idx) == r.exact[e];
    if (!ok && bad++ < 3)
      BOOST_ERROR("element " << e << ": got " << y.get_double(idx) << ", want " << double(r.value[e]) << " / "
                             << r.exact[e]);
    ++e;
  });
  BOOST_TEST(bad == 0);
}

using simd_test::LevelGuard;
using simd_test::levels;

void check_case(const ConvCase& c, const Tensor& x, const Tensor& w, const Tensor* b, ThreadPool& pool) {
  const ConvRef r = naive_conv(x, w, b, c);
  const Tensor y1 = run_op(Opcode::conv2d, {x, w, b ? *b : Tensor()}, attrs_of(c));
  expect_conv(y1, r);
  const Tensor y2 = run_op(Opcode::conv2d, {x, w, b ? *b : Tensor()}, attrs_of(c), &pool);
  BOOST_TEST((std::memcmp(y1.raw_data(), y2.raw_data(), std::size_t(y1.numel()) * dtype_size(y1.dtype())) == 0),
             "2 threads differ from 1");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(conv2d_simd)

BOOST_AUTO_TEST_CASE(every_level_every_case) {
  LevelGuard guard;
  ThreadPool pool(2);
  for (const simd_test::GemmLevel& level : simd_test::gemm_levels()) {
    simd_test::set_gemm_level(level);
    std::mt19937_64 rng(21);
    for (DType dt : {DType::f32, DType::i8, DType::f64, DType::u8, DType::i16, DType::i32, DType::i64})
      for (std::size_t ci = 0; ci < conv_cases().size(); ++ci) {
        const ConvCase& c = conv_cases()[ci];
        BOOST_TEST_CONTEXT(simd::current_level_name() << " " << dtype_name(dt) << " case " << ci) {
          // The big cases (200+ output channels, 20000+ input pixels) once per level in the CVM
          // and f32 types only (naive loop time).
          const bool big = ci == 11 || ci == 12 || c.w[0] >= 200 || c.x[2] * c.x[3] >= 20000;
          if (big && dt != DType::f32 && dt != DType::i8) continue;
          const Tensor x = random_tensor(dt, c.x, rng), w = random_tensor(dt, c.w, rng);
          const Tensor b = bias_for(dt, c.w[0], rng);
          check_case(c, x, w, ci % 2 ? &b : nullptr, pool);
        }
      }
  }
}

// Strided views of x and w (the kernel reads them through contiguous copies).
BOOST_AUTO_TEST_CASE(strided_inputs) {
  LevelGuard guard;
  ThreadPool pool(2);
  for (const simd_test::GemmLevel& level : simd_test::gemm_levels()) {
    simd_test::set_gemm_level(level);
    std::mt19937_64 rng(22);
    for (std::size_t ci : {std::size_t(0), std::size_t(4), std::size_t(7)}) {
      const ConvCase& c = conv_cases()[ci];
      for (DType dt : {DType::f32, DType::i8}) {
        BOOST_TEST_CONTEXT(simd::current_level_name() << " " << dtype_name(dt) << " case " << ci) {
          const Tensor x = random_tensor(dt, c.x, rng), w = random_tensor(dt, c.w, rng);
          const Tensor b = bias_for(dt, c.w[0], rng);
          const ConvRef r = naive_conv(x, w, &b, c);
          expect_conv(run_op(Opcode::conv2d, {relayout(x, Layout::flipped), relayout(w, Layout::transposed),
                                          relayout(b, Layout::sliced)},
                             attrs_of(c), &pool),
                      r);
        }
      }
    }
  }
}

// -128 everywhere, and -128 against 127: the VNNI offset and correction at their limits.
BOOST_AUTO_TEST_CASE(i8_extremes) {
  LevelGuard guard;
  ThreadPool pool(2);
  for (const simd_test::GemmLevel& level : simd_test::gemm_levels()) {
    simd_test::set_gemm_level(level);
    for (std::size_t ci : {std::size_t(0), std::size_t(3), std::size_t(6), std::size_t(11)}) {
      const ConvCase& c = conv_cases()[ci];
      BOOST_TEST_CONTEXT(simd::current_level_name() << " case " << ci) {
        const Tensor lo_x = constant_tensor(DType::i8, c.x, Scalar::from_int(-128));
        const Tensor lo_w = constant_tensor(DType::i8, c.w, Scalar::from_int(-128));
        const Tensor hi_w = constant_tensor(DType::i8, c.w, Scalar::from_int(127));
        check_case(c, clone(lo_x), clone(lo_w), nullptr, pool);
        check_case(c, clone(lo_x), clone(hi_w), nullptr, pool);
      }
    }
  }
}

// i16 depthwise at its limits: -32768 everywhere (vpmaddwd's one pair sum past i32, 2^31,
// which must wrap as the plain sums do), -32768 against 32767, and u8 at 255.
BOOST_AUTO_TEST_CASE(i16_and_u8_depthwise_extremes) {
  LevelGuard guard;
  ThreadPool pool(2);
  for (const simd_test::GemmLevel& level : simd_test::gemm_levels()) {
    simd_test::set_gemm_level(level);
    for (std::size_t ci = 0; ci < conv_cases().size(); ++ci) {
      const ConvCase& c = conv_cases()[ci];
      if (c.w[1] != 1 || c.groups == 1 || c.x[2] * c.x[3] >= 20000) continue;  // depthwise only
      BOOST_TEST_CONTEXT(simd::current_level_name() << " case " << ci) {
        const Tensor lo_x = constant_tensor(DType::i16, c.x, Scalar::from_int(-32768));
        const Tensor lo_w = constant_tensor(DType::i16, c.w, Scalar::from_int(-32768));
        const Tensor hi_w = constant_tensor(DType::i16, c.w, Scalar::from_int(32767));
        check_case(c, clone(lo_x), clone(lo_w), nullptr, pool);
        check_case(c, clone(lo_x), clone(hi_w), nullptr, pool);
        const Tensor top_x = constant_tensor(DType::u8, c.x, Scalar::from_int(255));
        const Tensor top_w = constant_tensor(DType::u8, c.w, Scalar::from_int(255));
        check_case(c, clone(top_x), clone(top_w), nullptr, pool);
      }
    }
  }
}

// x free of -128, which sends the GEMM to AVX2's sign-trick kernel (w over the whole range,
// all -128 too: pair sums of ±32512), and the same x with one -128, which must not; x without
// negatives (the u8 kernel), and with one -1.
BOOST_AUTO_TEST_CASE(i8_x_without_min) {
  LevelGuard guard;
  ThreadPool pool(2);
  for (const simd_test::GemmLevel& level : simd_test::gemm_levels()) {
    simd_test::set_gemm_level(level);
    std::mt19937_64 rng(23);
    for (std::size_t ci = 0; ci < conv_cases().size(); ++ci) {
      const ConvCase& c = conv_cases()[ci];
      if (ci == 11 || ci == 12 || c.w[0] >= 200 || c.x[2] * c.x[3] >= 20000) continue;  // naive loop time
      BOOST_TEST_CONTEXT(simd::current_level_name() << " case " << ci) {
        const Tensor x = random_tensor(DType::i8, c.x, rng, -127, 127), w = random_tensor(DType::i8, c.w, rng);
        const Tensor b = bias_for(DType::i8, c.w[0], rng);
        check_case(c, x, w, ci % 2 ? &b : nullptr, pool);
        const Tensor lo_w = constant_tensor(DType::i8, c.w, Scalar::from_int(-128));
        check_case(c, x, clone(lo_w), nullptr, pool);
        Tensor x1 = clone(x);
        x1.template data<int8_t>()[x1.numel() / 2] = -128;
        check_case(c, x1, clone(lo_w), &b, pool);
        const Tensor x_pos = random_tensor(DType::i8, c.x, rng, 0, 127);
        check_case(c, x_pos, w, &b, pool);
        check_case(c, x_pos, clone(lo_w), nullptr, pool);
        Tensor x2 = clone(x_pos);
        x2.template data<int8_t>()[x2.numel() - 1] = -1;
        check_case(c, x2, clone(lo_w), nullptr, pool);
      }
    }
  }
}

// The quantizer's depthwise convolutions: i16 inputs over the whole range with weights of i8's
// range, which AVX2 and AVX-512 compute in i16 pairs and SSE2's narrow planes in f32 as two
// exact halves (kernels/depthwise_exact.hpp), at their limits (-32768 against -128 and 127);
// and weights one past that range's bound for 3x3 (|w| 7282: 9 · 256 · 7282 > 2^24), which
// SSE2 takes to the integer row kernels instead. Each against the naive sums.
BOOST_AUTO_TEST_CASE(i16_depthwise_with_i8_range_weights) {
  LevelGuard guard;
  ThreadPool pool(2);
  for (const simd_test::GemmLevel& level : simd_test::gemm_levels()) {
    simd_test::set_gemm_level(level);
    std::mt19937_64 rng(24);
    // The list's depthwise cases, and planes of 17 to 32 output columns (i8 through SSE2's
    // f32 blocks; kernels/depthwise_exact.hpp: exact_depthwise).
    std::vector<ConvCase> cases;
    for (const ConvCase& c : conv_cases())
      if (c.w[1] == 1 && c.groups > 1 && c.x[2] * c.x[3] < 20000) cases.push_back(c);
    cases.push_back({{1, 5, 20, 25}, {5, 1, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}, 5});   // 25 columns
    cases.push_back({{1, 18, 19, 61}, {18, 1, 3, 3}, {1, 0, 1, 1}, {2, 2}, {1, 1}, 18});  // stride 2: 31 columns
    for (std::size_t ci = 0; ci < cases.size(); ++ci) {
      const ConvCase& c = cases[ci];
      BOOST_TEST_CONTEXT(simd::current_level_name() << " case " << ci) {
        const Tensor x = random_tensor(DType::i16, c.x, rng), w = random_tensor(DType::i16, c.w, rng, -128, 127);
        const Tensor b = bias_for(DType::i16, c.w[0], rng);
        check_case(c, x, w, &b, pool);
        const Tensor lo_x = constant_tensor(DType::i16, c.x, Scalar::from_int(-32768));
        check_case(c, clone(lo_x), clone(constant_tensor(DType::i16, c.w, Scalar::from_int(-128))), nullptr, pool);
        check_case(c, clone(lo_x), clone(constant_tensor(DType::i16, c.w, Scalar::from_int(127))), &b, pool);
        Tensor w_big = clone(w);
        w_big.template data<int16_t>()[w_big.numel() - 1] = 7282;
        check_case(c, x, w_big, &b, pool);
        // i8 at its limits: -128 against -128, every sum exact in f32 (9 · 2^14 < 2^24).
        const Tensor lo8 = constant_tensor(DType::i8, c.x, Scalar::from_int(-128));
        check_case(c, clone(lo8), clone(constant_tensor(DType::i8, c.w, Scalar::from_int(-128))), nullptr, pool);
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
