// depth_to_space and space_to_depth against ONNX's definitions taken literally (reshape to 6-D,
// transpose, reshape back: onnx/defs/tensor/defs.cc and the backend test cases), computed by a
// generic index permutation here; ONNX's documented examples; every dtype and layout (also
// broadcast and negative strides, which the kernels read without a copy); empty tensors,
// static rules and every error.
#include <boost/test/unit_test.hpp>

#include "nn_test_util.hpp"
#include "simd_test_support.hpp"

using namespace mlvm;
using namespace nn_test;

namespace {

// reshape(transpose(reshape(x, shape6), perm), ...): the values in the result's row-major order.
std::vector<int64_t> permuted(const Tensor& x, const std::vector<int64_t>& shape6, const std::vector<int>& perm) {
  const std::vector<int64_t> flat = int_values(x);
  std::vector<int64_t> stride(6, 1);
  for (int d = 4; d >= 0; --d) stride[std::size_t(d)] = stride[std::size_t(d + 1)] * shape6[std::size_t(d + 1)];
  Dims tshape;
  for (int p : perm) tshape.push_back(shape6[std::size_t(p)]);
  std::vector<int64_t> out;
  for_each_index(tshape, [&](const std::vector<int64_t>& t) {
    int64_t off = 0;
    for (int k = 0; k < 6; ++k) off += t[std::size_t(k)] * stride[std::size_t(perm[std::size_t(k)])];
    out.push_back(flat[std::size_t(off)]);
  });
  return out;
}

std::vector<int64_t> ref_d2s(const Tensor& x, int64_t b, bool dcr) {
  const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3);
  if (dcr) return permuted(x, {n, b, b, c / (b * b), h, w}, {0, 3, 4, 1, 5, 2});
  return permuted(x, {n, c / (b * b), b, b, h, w}, {0, 1, 4, 2, 5, 3});
}

std::vector<int64_t> ref_s2d(const Tensor& x, int64_t b) {
  const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3);
  return permuted(x, {n, c, h / b, b, w / b, b}, {0, 3, 5, 1, 2, 4});
}

Attrs d2s(int64_t b, const char* mode = "DCR") {
  return attrs_named(Opcode::depth_to_space, {{"blocksize", integer(b)}, {"mode", str(mode)}});
}
Attrs s2d(int64_t b) { return attrs_named(Opcode::space_to_depth, {{"blocksize", integer(b)}}); }

std::vector<double> range(int n, int step_every = 0, int jump = 0) {
  std::vector<double> v;
  for (int k = 0; k < n; ++k) v.push_back(k + (step_every ? (k / step_every) * jump : 0));
  return v;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(space_depth_kernels)

BOOST_AUTO_TEST_CASE(onnx_examples) {
  // depthtospace.py: x (1, 8, 2, 3) holds 0..5, 9..14, ..., 63..68 (planes 9 apart)
  Tensor x = make(DType::f32, Dims{1, 8, 2, 3}, range(48, 6, 3));
  expect_close(run_op(Opcode::depth_to_space, {x}, d2s(2, "DCR")), Dims{1, 2, 4, 6},
               {0, 18, 1, 19, 2, 20, 36, 54, 37, 55, 38, 56, 3, 21, 4, 22, 5, 23, 39, 57, 40, 58, 41, 59,
                9, 27, 10, 28, 11, 29, 45, 63, 46, 64, 47, 65, 12, 30, 13, 31, 14, 32, 48, 66, 49, 67, 50, 68},
               0, 0);
  expect_close(run_op(Opcode::depth_to_space, {x}, d2s(2, "CRD")), Dims{1, 2, 4, 6},
               {0, 9, 1, 10, 2, 11, 18, 27, 19, 28, 20, 29, 3, 12, 4, 13, 5, 14, 21, 30, 22, 31, 23, 32,
                36, 45, 37, 46, 38, 47, 54, 63, 55, 64, 56, 65, 39, 48, 40, 49, 41, 50, 57, 66, 58, 67, 59, 68},
               0, 0);
  // spacetodepth.py example: (1, 1, 4, 6) -> (1, 4, 2, 3) holding 0..23
  Tensor s = make(DType::f32, Dims{1, 1, 4, 6}, {0, 6, 1, 7, 2, 8, 12, 18, 13, 19, 14, 20, 3, 9, 4, 10, 5, 11, 15, 21, 16, 22, 17, 23});
  expect_close(run_op(Opcode::space_to_depth, {s}, s2d(2)), Dims{1, 4, 2, 3}, range(24), 0, 0);
}

BOOST_AUTO_TEST_CASE(every_dtype_layout_and_blocksize) {
  std::mt19937_64 rng(101);
  for (DType dt : kAllDTypes)
    for (int64_t b : {1, 2, 3})
      for (Layout l : kLayouts) {
        BOOST_TEST_CONTEXT(dtype_name(dt) << " blocksize " << b << " " << layout_name(l)) {
          // depth_to_space: C = 2·b²; space_to_depth: H = 2b, W = 3b
          const int64_t hi = dt == DType::boolean ? 1 : 100;  // distinct values in every dtype
          Tensor x = random_for(l, dt, Dims{2, 2 * b * b, 3, 2}, rng, 0, hi, {0});
          for (const char* mode : {"DCR", "CRD"}) {
            Tensor y = run_op(Opcode::depth_to_space, {relayout(x, l)}, d2s(b, mode));
            BOOST_TEST(y.dtype() == dt);
            expect_ints(y, Dims{2, 2, 3 * b, 2 * b}, ref_d2s(x, b, std::string(mode) == "DCR"));
          }
          Tensor z = random_for(l, dt, Dims{2, 3, 2 * b, 3 * b}, rng, 0, hi, {0});
          Tensor y = run_op(Opcode::space_to_depth, {relayout(z, l)}, s2d(b));
          expect_ints(y, Dims{2, 3 * b * b, 2, 3}, ref_s2d(z, b));
          // the two are inverse (DCR)
          expect_ints(run_op(Opcode::depth_to_space, {y}, d2s(b)), z.shape(), int_values(z));
        }
      }
}

BOOST_AUTO_TEST_CASE(empty_and_constant_inputs) {
  BOOST_TEST(run_op(Opcode::depth_to_space, {Tensor::empty(DType::i8, Dims{0, 8, 2, 2})}, d2s(2)).shape() ==
             Dims({0, 2, 4, 4}));
  BOOST_TEST(run_op(Opcode::space_to_depth, {Tensor::empty(DType::f64, Dims{1, 2, 0, 4})}, s2d(2)).shape() ==
             Dims({1, 8, 0, 2}));
  // a constant view (every stride 0) is read as is
  Tensor k = constant_tensor(DType::i32, Dims{1, 4, 2, 2}, Scalar::from_int(7));
  expect_ints(run_op(Opcode::depth_to_space, {k}, d2s(2)), Dims{1, 1, 4, 4}, std::vector<int64_t>(16, 7));
}

// The integer-capable ops of this family (these two, resize with mode="nearest",
// max_pool2d_indices) give the same integers at every SIMD level and thread count.
BOOST_AUTO_TEST_CASE(integers_identical_at_every_simd_level_and_thread_count) {
  std::mt19937_64 rng(102);
  ThreadPool pool(3);
  simd_test::LevelGuard guard;
  std::vector<std::vector<int64_t>> first;
  for (simd::Level level : simd_test::levels()) {
    simd::set_level_for_testing(level);
    for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
      BOOST_TEST_CONTEXT("SIMD level " << int(level) << (p ? ", 3 threads" : ", 1 thread")) {
        std::mt19937_64 r = rng;  // the same inputs every round
        Tensor x = random_tensor(DType::i16, Dims{2, 8, 6, 10}, r);
        std::vector<std::vector<int64_t>> got;
        got.push_back(int_values(run_op(Opcode::depth_to_space, {x}, d2s(2, "CRD"), p)));
        got.push_back(int_values(run_op(Opcode::space_to_depth, {x}, s2d(2), p)));
        got.push_back(int_values(run_op(Opcode::resize, {x},
                                        attrs_named(Opcode::resize, {{"sizes", ints({2, 8, 13, 7})}}), p)));
        const std::vector<Tensor> mp = run_all(
            Opcode::max_pool2d_indices, {x},
            attrs_named(Opcode::max_pool2d_indices, {{"pool_size", ints({3})}, {"strides", ints({1})}}), p);
        got.push_back(int_values(mp[0]));
        got.push_back(int_values(mp[1]));
        if (first.empty()) first = got;
        for (std::size_t k = 0; k < got.size(); ++k) BOOST_TEST(got[k] == first[k], "result " << k << " differs");
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(static_rules_and_errors) {
  TensorType t = infer_op(Opcode::depth_to_space, {tt(DType::i8, Dims{kDynamic, 12, kDynamic, 5}, 7)}, d2s(2));
  BOOST_TEST(t.dims == Dims({kDynamic, 3, kDynamic, 10}));
  BOOST_TEST(t.precision == 7);  // values are moved, not changed
  t = infer_op(Opcode::space_to_depth, {tt(DType::boolean, Dims{2, kDynamic, 6, 9})}, s2d(3));
  BOOST_TEST(t.dims == Dims({2, kDynamic, 2, 3}));
  expect_error([] { infer_op(Opcode::depth_to_space, {tt(DType::f32, Dims{1, 12, 2})}, d2s(2)); }, ErrorKind::invalid,
               "depth_to_space: x must have rank 4 (N, C, H, W), got f32[1, 12, 2]");
  expect_error([] { infer_op(Opcode::depth_to_space, {tt(DType::f32, Dims{1, 6, 2, 2})}, d2s(2)); }, ErrorKind::invalid,
               "depth_to_space: the 6 channels of x f32[1, 6, 2, 2] are not a multiple of blocksize^2 = 4");
  expect_error([] { infer_op(Opcode::space_to_depth, {tt(DType::f32, Dims{1, 1, 5, 4})}, s2d(2)); }, ErrorKind::invalid,
               "space_to_depth: the height 5 of x f32[1, 1, 5, 4] is not a multiple of blocksize 2");
  expect_error([] { infer_op(Opcode::space_to_depth, {tt(DType::f32, Dims{1, 1, 4, 3})}, s2d(2)); }, ErrorKind::invalid,
               "space_to_depth: the width 3 of x f32[1, 1, 4, 3] is not a multiple of blocksize 2");
  expect_error([] { infer_op(Opcode::space_to_depth, {tt(DType::f32, Dims{1, 1, 4, 4})}, s2d(0)); }, ErrorKind::invalid,
               "attribute 'blocksize' of space_to_depth is 0");
  expect_error([] { infer_op(Opcode::depth_to_space, {tt(DType::f32, Dims{1, 1, 4, 4})}, d2s(int64_t(1) << 32)); },
               ErrorKind::invalid, "depth_to_space: blocksize 4294967296 is above 2^31");
  expect_error([] { infer_op(Opcode::depth_to_space, {tt(DType::f32, Dims{1, 4, 4, int64_t(1) << 62})}, d2s(2)); },
               ErrorKind::invalid, "depth_to_space: the output of x");
  expect_error([] { infer_op(Opcode::depth_to_space, {tt(DType::f32, Dims{1, 4, 4, 4})}, d2s(2, "DRC")); },
               ErrorKind::invalid, "attribute 'mode' of depth_to_space must be one of \"DCR\" \"CRD\"");
  // a `?` dim that breaks the rule traps at run time
  expect_error([] { run_op(Opcode::space_to_depth, {Tensor::zeros_owned(DType::f32, Dims{1, 1, 3, 4})}, s2d(2)); },
               ErrorKind::trap, "space_to_depth: the height 3");
}

BOOST_AUTO_TEST_SUITE_END()
