// Plan-time fusion (vm/fuse.cpp): a relu or clip that alone reads a conv2d, dense or matmul's
// float result is folded into it, and the fused program gives the very bits of the unfused
// one — NaN, infinities and -0 included, at every SIMD level and thread count. The
// unfused reference is the same program with the intermediate also declared an output, which
// keeps it alive past the activation and so blocks fusion (checked on its plan).
#include <boost/test/unit_test.hpp>

#include <cstring>
#include <limits>

#include "common/tensor_helpers.hpp"
#include "common/tensors.hpp"
#include "kernels/simd/cpu_features.hpp"
#include "vm/compiled.hpp"
#include "vm/program_access.hpp"
#include "vm/vm_test_util.hpp"

using namespace mlvm;
using namespace mlvm::test;
using namespace mlvm::testing;

namespace {

// Which steps of the program's plan are fused activations, and which carry a clamp.
struct FusionShape {
  std::vector<bool> fused, clamped;
};

FusionShape fusion_of(const Program& p) {
  const ExecPlan& plan = ProgramAccess::compiled(p).plan;
  FusionShape f;
  for (std::size_t pc = 0; pc < plan.code.size(); ++pc) {
    f.fused.push_back(plan.code[pc].kind == StepKind::fused);
    f.clamped.push_back(plan.extras_of(pc) && plan.extras_of(pc)->activation.has_value());
  }
  return f;
}


// Runs two programs over `inputs`: `fused_text`, where the activation must be fused into the
// instruction at `producer`, and `plain_text`, the same computation where nothing may be
// fused. Output y must agree bit for bit.
void check_same_bits(const std::string& fused_text, const std::string& plain_text, std::size_t producer,
                     const TensorMap& inputs) {
  const Program fused = program_from(fused_text, "fused.mlasm");
  const Program plain = program_from(plain_text, "plain.mlasm");
  const FusionShape f = fusion_of(fused), u = fusion_of(plain);
  BOOST_REQUIRE(producer + 1 < f.fused.size());
  BOOST_TEST(f.clamped[producer]);
  BOOST_TEST(f.fused[producer + 1]);
  for (std::size_t pc = 0; pc < u.fused.size(); ++pc) {
    BOOST_TEST(!u.fused[pc]);
    BOOST_TEST(!u.clamped[pc]);
  }
  expect_same_y_everywhere(fused, plain, inputs);
}

// The common case: the unfused twin declares the intermediate `hidden_output` an output too,
// which keeps it alive past the activation. Both take the same number of steps.
void check_fused_like_unfused(const std::string& header, const std::string& hidden_output,
                              const std::string& body, std::size_t producer, const TensorMap& inputs) {
  check_same_bits(header + body, header + hidden_output + "\n" + body, producer, inputs);
  Session sf(program_from(header + body), single_thread());
  Session su(program_from(header + hidden_output + "\n" + body), single_thread());
  sf.run(inputs);
  su.run(inputs);
  BOOST_TEST(sf.stats().steps == su.stats().steps);
}

// A producer step `h = ...` (step 0) with its declarations, the unfused twin's extra output
// keeping h alive, and its inputs: check_after_each_producer puts one activation after each.
struct ProducerCase {
  const char* decl;
  const char* plain_out;
  const char* producer;
  TensorMap inputs;
};

void check_after_each_producer(const std::vector<ProducerCase>& cases, const std::string& activation) {
  for (const ProducerCase& c : cases)
    BOOST_TEST_CONTEXT(c.producer) {
      check_fused_like_unfused(c.decl, c.plain_out, std::string(c.producer) + activation, 0, c.inputs);
    }
}

// Pseudo-random f32/f64 values with NaN, infinities, -0 and ±1 sprinkled in.
Tensor specials(DType dt, const Dims& shape, uint64_t seed) {
  return make_input(dt, shape, Layout::contiguous, Fill::specials, seed);
}
Tensor plain_values(DType dt, const Dims& shape, uint64_t seed) {
  return make_input(dt, shape, Layout::contiguous, Fill::small, seed);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(vm_fusion)

BOOST_AUTO_TEST_CASE(conv_then_relu) {
  check_fused_like_unfused(R"(
.input x : f32[2, 3, 9, 11]
.input w : f32[6, 3, 3, 3]
.input b : f32[6]
.output y : f32[2, 6, 9, 11]
)", ".output h : f32[2, 6, 9, 11]", R"(
    h = conv2d x, w, b, padding=(1, 1)
    y = relu h
)", 0, {{"x", specials(DType::f32, {2, 3, 9, 11}, 1)}, {"w", plain_values(DType::f32, {6, 3, 3, 3}, 2)},
          {"b", plain_values(DType::f32, {6}, 3)}});
}

BOOST_AUTO_TEST_CASE(strided_conv_then_relu6_as_clip) {
  check_fused_like_unfused(R"(
.input x : f32[1, 4, 13, 12]
.input w : f32[5, 4, 3, 3]
.output y : f32[1, 5, 7, 6]
)", ".output h : f32[1, 5, 7, 6]", R"(
    h = conv2d x, w, padding=(1, 1), strides=(2, 2)
    y = clip h, a_min=0, a_max=6
)", 0, {{"x", specials(DType::f32, {1, 4, 13, 12}, 4)}, {"w", plain_values(DType::f32, {5, 4, 3, 3}, 5)}});
}

BOOST_AUTO_TEST_CASE(depthwise_conv_then_clip_in_place) {
  // h = clip h: the activation overwrites its own input register. The unfused twin reads h
  // once more in between.
  const std::string header = R"(
.input x : f32[1, 8, 37, 41]
.input w : f32[8, 1, 3, 3]
.input b : f32[8]
.output y : f32[1, 8, 19, 21]
.output k : f32[1, 8, 19, 21]
    h = conv2d x, w, b, padding=(1, 1), strides=(2, 2), groups=8
)";
  check_same_bits(header + "    h = clip h, a_min=-0.5, a_max=6\n    y = copy h\n    k = copy h\n",
                  header + "    k = copy h\n    h = clip h, a_min=-0.5, a_max=6\n    y = copy h\n", 0,
                  {{"x", specials(DType::f32, {1, 8, 37, 41}, 6)}, {"w", plain_values(DType::f32, {8, 1, 3, 3}, 7)},
                   {"b", plain_values(DType::f32, {8}, 8)}});
}

BOOST_AUTO_TEST_CASE(dense_f64_then_relu) {
  check_fused_like_unfused(R"(
.input x : f64[5, 17]
.input w : f64[9, 17]
.input b : f64[9]
.output y : f64[5, 9]
)", ".output h : f64[5, 9]", R"(
    h = dense x, w, b
    y = relu h
)", 0, {{"x", specials(DType::f64, {5, 17}, 9)}, {"w", plain_values(DType::f64, {9, 17}, 10)},
          {"b", plain_values(DType::f64, {9}, 11)}});
}

BOOST_AUTO_TEST_CASE(batched_matmul_then_clip) {
  check_fused_like_unfused(R"(
.input a : f32[3, 4, 6]
.input b : f32[3, 6, 5]
.output y : f32[3, 4, 5]
)", ".output h : f32[3, 4, 5]", R"(
    h = matmul a, b
    y = clip h, a_min=-1, a_max=1
)", 0, {{"a", specials(DType::f32, {3, 4, 6}, 12)}, {"b", plain_values(DType::f32, {3, 6, 5}, 13)}});
}

BOOST_AUTO_TEST_CASE(conv_then_silu) {
  // EfficientNet's activation as PyTorch exports it: sigmoid, then a mul of the two.
  check_fused_like_unfused(R"(
.input x : f32[1, 5, 23, 19]
.input w : f32[7, 5, 1, 1]
.input b : f32[7]
.output y : f32[1, 7, 23, 19]
)", ".output h : f32[1, 7, 23, 19]", R"(
    h = conv2d x, w, b
    s = sigmoid h
    y = mul h, s
)", 0, {{"x", specials(DType::f32, {1, 5, 23, 19}, 19)}, {"w", plain_values(DType::f32, {7, 5, 1, 1}, 20)},
          {"b", plain_values(DType::f32, {7}, 21)}});
}

BOOST_AUTO_TEST_CASE(depthwise_conv_then_silu_sigmoid_first) {
  check_fused_like_unfused(R"(
.input x : f32[1, 6, 31, 29]
.input w : f32[6, 1, 5, 5]
.output y : f32[1, 6, 16, 15]
)", ".output h : f32[1, 6, 16, 15]", R"(
    h = conv2d x, w, padding=(2, 2), strides=(2, 2), groups=6
    s = sigmoid h
    y = mul s, h
)", 0, {{"x", specials(DType::f32, {1, 6, 31, 29}, 22)}, {"w", plain_values(DType::f32, {6, 1, 5, 5}, 23)}});
}

BOOST_AUTO_TEST_CASE(matmul_then_silu_over_many_chunks) {
  // 3 x 1500 results: the silu pass goes over them in several chunks.
  check_fused_like_unfused(R"(
.input a : f32[3, 40]
.input b : f32[40, 1500]
.output y : f32[3, 1500]
)", ".output h : f32[3, 1500]", R"(
    h = matmul a, b
    s = sigmoid h
    y = mul h, s
)", 0, {{"a", specials(DType::f32, {3, 40}, 24)}, {"b", plain_values(DType::f32, {40, 1500}, 25)}});
}

// The GEMM applies a fused silu to each block of its result as it finishes it
// (GemmArgs::finish): every path of the convolution's GEMM and dense's.
BOOST_AUTO_TEST_CASE(silu_on_every_gemm_path) {
  const std::vector<ProducerCase> cases = {
      // Wide rows in two L2-sized blocks of output rows (stride 2: the phase planes are a
      // column wider than the output).
      {".input x : f32[1, 3, 40, 60]\n.input w : f32[200, 3, 3, 3]\n.output y : f32[1, 200, 20, 30]\n",
       ".output h : f32[1, 200, 20, 30]", "    h = conv2d x, w, padding=(1, 1), strides=(2, 2)\n",
       {{"x", specials(DType::f32, {1, 3, 40, 60}, 31)}, {"w", plain_values(DType::f32, {200, 3, 3, 3}, 32)}}},
      // 1x1 with 49 pixels and 120 channels: the transposed GEMM.
      {".input x : f32[1, 100, 7, 7]\n.input w : f32[120, 100, 1, 1]\n.output y : f32[1, 120, 7, 7]\n",
       ".output h : f32[1, 120, 7, 7]", "    h = conv2d x, w\n",
       {{"x", specials(DType::f32, {1, 100, 7, 7}, 33)}, {"w", plain_values(DType::f32, {120, 100, 1, 1}, 34)}}},
      // Weights too big to stay resident: the blocked loop nest.
      {".input x : f32[1, 400, 12, 12]\n.input w : f32[300, 400, 1, 1]\n.output y : f32[1, 300, 12, 12]\n",
       ".output h : f32[1, 300, 12, 12]", "    h = conv2d x, w\n",
       {{"x", specials(DType::f32, {1, 400, 12, 12}, 35)}, {"w", plain_values(DType::f32, {300, 400, 1, 1}, 36)}}},
      {".input x : f32[5, 64]\n.input w : f32[70, 64]\n.input b : f32[70]\n.output y : f32[5, 70]\n",
       ".output h : f32[5, 70]", "    h = dense x, w, b\n",
       {{"x", specials(DType::f32, {5, 64}, 37)}, {"w", plain_values(DType::f32, {70, 64}, 38)},
        {"b", plain_values(DType::f32, {70}, 39)}}},
  };
  check_after_each_producer(cases, "    s = sigmoid h\n    y = mul h, s\n");
}

// leaky_relu after the convolution paths (implicit GEMM with padding, 1x1, depthwise, Winograd
// 3x3 over several planes), dense and matmul: specials (NaN, infinities, -0) through all.
BOOST_AUTO_TEST_CASE(leaky_relu_on_every_path) {
  const std::vector<ProducerCase> cases = {
      {".input x : f32[2, 3, 19, 17]\n.input w : f32[8, 3, 3, 3]\n.output y : f32[2, 8, 19, 17]\n",
       ".output h : f32[2, 8, 19, 17]", "    h = conv2d x, w, padding=(1, 1)\n",
       {{"x", specials(DType::f32, {2, 3, 19, 17}, 41)}, {"w", plain_values(DType::f32, {8, 3, 3, 3}, 42)}}},
      {".input x : f32[1, 32, 30, 34]\n.input w : f32[32, 32, 3, 3]\n.output y : f32[1, 32, 30, 34]\n",
       ".output h : f32[1, 32, 30, 34]", "    h = conv2d x, w, padding=(1, 1)\n",
       {{"x", plain_values(DType::f32, {1, 32, 30, 34}, 43)}, {"w", plain_values(DType::f32, {32, 32, 3, 3}, 44)}}},
      {".input x : f32[1, 100, 7, 7]\n.input w : f32[120, 100, 1, 1]\n.output y : f32[1, 120, 7, 7]\n",
       ".output h : f32[1, 120, 7, 7]", "    h = conv2d x, w\n",
       {{"x", specials(DType::f32, {1, 100, 7, 7}, 45)}, {"w", plain_values(DType::f32, {120, 100, 1, 1}, 46)}}},
      {".input x : f32[1, 6, 31, 29]\n.input w : f32[6, 1, 3, 3]\n.output y : f32[1, 6, 31, 29]\n",
       ".output h : f32[1, 6, 31, 29]", "    h = conv2d x, w, padding=(1, 1), groups=6\n",
       {{"x", specials(DType::f32, {1, 6, 31, 29}, 47)}, {"w", plain_values(DType::f32, {6, 1, 3, 3}, 48)}}},
      {".input x : f32[5, 64]\n.input w : f32[70, 64]\n.output y : f32[5, 70]\n", ".output h : f32[5, 70]",
       "    h = dense x, w\n",
       {{"x", specials(DType::f32, {5, 64}, 49)}, {"w", plain_values(DType::f32, {70, 64}, 50)}}},
      {".input a : f32[3, 40]\n.input b : f32[40, 300]\n.output y : f32[3, 300]\n", ".output h : f32[3, 300]",
       "    h = matmul a, b\n",
       {{"a", specials(DType::f32, {3, 40}, 51)}, {"b", plain_values(DType::f32, {40, 300}, 52)}}},
  };
  check_after_each_producer(cases, "    y = leaky_relu h, alpha=0.2\n");
  // f64: not fused (the after-pass is f32's), and still right.
  const Program p = program_from(R"(
.input x : f64[4, 8]
.input w : f64[3, 8]
.output y : f64[4, 3]
    h = dense x, w
    y = leaky_relu h, alpha=0.1
)");
  BOOST_TEST(!fusion_of(p).fused[1]);
}

// leaky_relu and then a maximum with a one-element constant (openWakeWord's max(·, -0.4)),
// either operand order: both folded into the producer, the very bits of the two kernels.
BOOST_AUTO_TEST_CASE(leaky_relu_then_maximum_of_a_constant) {
  const std::string c = ".const c : f32[1] = [-0.4]\n";
  const std::vector<ProducerCase> cases = {
      {".input x : f32[2, 3, 19, 17]\n.input w : f32[8, 3, 1, 3]\n.output y : f32[2, 8, 19, 17]\n",
       ".output h : f32[2, 8, 19, 17]", "    h = conv2d x, w, padding=(0, 1)\n",
       {{"x", specials(DType::f32, {2, 3, 19, 17}, 61)}, {"w", plain_values(DType::f32, {8, 3, 1, 3}, 62)}}},
      {".input x : f32[5, 64]\n.input w : f32[70, 64]\n.output y : f32[5, 70]\n", ".output h : f32[5, 70]",
       "    h = dense x, w\n",
       {{"x", specials(DType::f32, {5, 64}, 63)}, {"w", plain_values(DType::f32, {70, 64}, 64)}}},
      // Small planes, stacked (kernels/conv_stacked.hpp), with a bias.
      {".input x : f32[3, 5, 7, 5]\n.input w : f32[8, 5, 1, 3]\n.input b : f32[8]\n.output y : f32[3, 8, 7, 5]\n",
       ".output h : f32[3, 8, 7, 5]", "    h = conv2d x, w, b, padding=(0, 1)\n",
       {{"x", specials(DType::f32, {3, 5, 7, 5}, 65)}, {"w", plain_values(DType::f32, {8, 5, 1, 3}, 66)},
        {"b", plain_values(DType::f32, {8}, 67)}}},
  };
  for (const char* max : {"    y = maximum t, c\n", "    y = maximum c, t\n"})
    for (const ProducerCase& k : cases)
      BOOST_TEST_CONTEXT(k.producer << max) {
        const std::string header = std::string(k.decl) + c;
        const std::string body = std::string(k.producer) + "    t = leaky_relu h, alpha=0.2\n" + max;
        check_fused_like_unfused(header, k.plain_out, body, 0, k.inputs);
        BOOST_TEST(fusion_of(program_from(header + body)).fused[2]);
      }
  // Not folded (the leaky_relu still is): a NaN constant, a zero first operand (maximum keeps
  // it on ties with -0), three elements, an input rather than a constant, t read again.
  const char* decl = ".input x : f32[4, 8]\n.input w : f32[3, 8]\n.input v : f32[1]\n.output y : f32[4, 3]\n";
  for (const char* rest : {".const c : f32[1] = [nan]\n", ".const c : f32[1] = [0]\n",
                           ".const c : f32[1, 3] = [[1, 2, 3]]\n", "",
                           ".const c : f32[1] = [-0.4]\n.output z : f32[4, 3]\n"})
    BOOST_TEST_CONTEXT(rest) {
      const std::string r = rest;
      const std::string max = r.empty()                         ? "maximum t, v"
                              : r.find("[0]") != std::string::npos ? "maximum c, t"
                                                                   : "maximum t, c";
      const std::string text = decl + r + "    h = dense x, w\n    t = leaky_relu h, alpha=0.2\n    y = " + max +
                               "\n" + (r.find(".output z") != std::string::npos ? "    z = add t, t\n" : "");
      const FusionShape f = fusion_of(program_from(text));
      BOOST_TEST(f.fused[1]);
      BOOST_TEST(!f.fused[2]);
    }
}

// HardSwish as paddle2onnx exports it, h·clip(h + 3, 0, 6) / 6 in four steps (both orders of
// the add and of the mul), after the convolution paths (implicit GEMM, 1x1, depthwise,
// stacked small planes), dense (K = 0 too: the bias' specials, -3 among them, reach the
// activation unchanged) and matmul: all four folded, the bits of the unfused steps.
BOOST_AUTO_TEST_CASE(hardswish_on_every_path) {
  const std::string c = ".const c3 : f32[1] = [3]\n.const c6 : f32[1] = [6]\n";
  const std::vector<ProducerCase> cases = {
      {".input x : f32[2, 3, 19, 17]\n.input w : f32[8, 3, 3, 3]\n.output y : f32[2, 8, 19, 17]\n",
       ".output h : f32[2, 8, 19, 17]", "    h = conv2d x, w, padding=(1, 1)\n",
       {{"x", specials(DType::f32, {2, 3, 19, 17}, 71)}, {"w", plain_values(DType::f32, {8, 3, 3, 3}, 72)}}},
      {".input x : f32[1, 100, 7, 7]\n.input w : f32[120, 100, 1, 1]\n.output y : f32[1, 120, 7, 7]\n",
       ".output h : f32[1, 120, 7, 7]", "    h = conv2d x, w\n",
       {{"x", specials(DType::f32, {1, 100, 7, 7}, 73)}, {"w", plain_values(DType::f32, {120, 100, 1, 1}, 74)}}},
      {".input x : f32[1, 6, 31, 29]\n.input w : f32[6, 1, 3, 3]\n.output y : f32[1, 6, 16, 15]\n",
       ".output h : f32[1, 6, 16, 15]", "    h = conv2d x, w, padding=(1, 1), strides=(2, 2), groups=6\n",
       {{"x", specials(DType::f32, {1, 6, 31, 29}, 75)}, {"w", plain_values(DType::f32, {6, 1, 3, 3}, 76)}}},
      {".input x : f32[3, 5, 7, 5]\n.input w : f32[8, 5, 1, 3]\n.input b : f32[8]\n.output y : f32[3, 8, 7, 5]\n",
       ".output h : f32[3, 8, 7, 5]", "    h = conv2d x, w, b, padding=(0, 1)\n",
       {{"x", specials(DType::f32, {3, 5, 7, 5}, 77)}, {"w", plain_values(DType::f32, {8, 5, 1, 3}, 78)},
        {"b", plain_values(DType::f32, {8}, 79)}}},
      {".input x : f32[5, 64]\n.input w : f32[70, 64]\n.output y : f32[5, 70]\n", ".output h : f32[5, 70]",
       "    h = dense x, w\n",
       {{"x", specials(DType::f32, {5, 64}, 80)}, {"w", plain_values(DType::f32, {70, 64}, 81)}}},
      {".input x : f32[4, 0]\n.input w : f32[13, 0]\n.input b : f32[13]\n.output y : f32[4, 13]\n",
       ".output h : f32[4, 13]", "    h = dense x, w, b\n",
       {{"x", plain_values(DType::f32, {4, 0}, 82)}, {"w", plain_values(DType::f32, {13, 0}, 83)},
        {"b", make(DType::f32, {13}, {-3.0, -0.0, 0.0, 3.0, -3.5, 2.5, 7.0, -1e30, 1e30,
                                      std::numeric_limits<double>::infinity(),
                                      -std::numeric_limits<double>::infinity(),
                                      std::numeric_limits<double>::quiet_NaN(), -2.9999998})}}},
      {".input a : f32[3, 40]\n.input b : f32[40, 300]\n.output y : f32[3, 300]\n", ".output h : f32[3, 300]",
       "    h = matmul a, b\n",
       {{"a", specials(DType::f32, {3, 40}, 84)}, {"b", plain_values(DType::f32, {40, 300}, 85)}}},
  };
  // Then PP-OCRv4's scale and shift (either operand order), or the scale alone: the scale
  // -0.75 turns -0 into +0 and the shift 0.5 rounds; the scale is applied before the shift.
  const char* tails[] = {"    y = div m, c6\n", "    q = div m, c6\n    y = mul q, ks\n",
                         "    q = div m, c6\n    r = mul ks, q\n    y = add r, kb\n",
                         "    q = div m, c6\n    r = mul q, ks\n    y = add kb, r\n"};
  const std::string affine = ".const ks : f32[1] = [-0.75]\n.const kb : f32[1] = [0.5]\n";
  for (const char* add : {"add h, c3", "add c3, h"})
    for (const char* mul : {"mul h, k", "mul k, h"})
      for (std::size_t tail = 0; tail < std::size(tails); ++tail)
        for (const ProducerCase& p : cases)
          BOOST_TEST_CONTEXT(p.producer << add << ", " << mul << "; " << tails[tail]) {
            const std::string header = std::string(p.decl) + c + affine;
            const std::string body = std::string(p.producer) + "    t = " + add +
                                     "\n    k = clip t, a_min=0, a_max=6\n    m = " + mul + "\n" + tails[tail];
            check_fused_like_unfused(header, p.plain_out, body, 0, p.inputs);
            const FusionShape f = fusion_of(program_from(header + body));
            BOOST_TEST((f.fused[2] && f.fused[3] && f.fused[4]));
            if (tail > 0) BOOST_TEST(f.fused[5]);
            if (tail > 1) BOOST_TEST(f.fused[6]);
          }
}

// Not hardswish, so nothing fused: another constant in the add, the clip or the div, a -0
// lower bound (clip(+0) would be -0), the div's operands swapped, three-element constants, and
// each intermediate read again.
BOOST_AUTO_TEST_CASE(near_hardswish_is_not_fused) {
  const std::string decl = ".input x : f32[4, 8]\n.input w : f32[3, 8]\n.output y : f32[4, 3]\n"
                           ".const c3 : f32[1] = [3]\n.const c6 : f32[1] = [6]\n.const d : f32[1] = [2.5]\n"
                           ".const v3 : f32[3] = [3, 3, 3]\n";
  struct Variant {
    const char *add, *clip, *mul, *div, *extra;
  };
  const char* k06 = "clip t, a_min=0, a_max=6";
  const std::vector<Variant> variants = {
      {"add h, d", k06, "mul h, k", "div m, c6", ""},
      {"add h, c3", "clip t, a_min=0, a_max=5", "mul h, k", "div m, c6", ""},
      {"add h, c3", "clip t, a_min=-0.0, a_max=6", "mul h, k", "div m, c6", ""},
      {"add h, c3", k06, "mul h, k", "div m, d", ""},
      {"add h, c3", k06, "mul h, k", "div c6, m", ""},
      {"add h, v3", k06, "mul h, k", "div m, c6", ""},
      {"add h, c3", k06, "mul h, k", "div m, v3", ""},
      {"add h, c3", k06, "mul h, t", "div m, c6", ""},
      {"add h, c3", k06, "mul h, k", "div m, c6", ".output z : f32[4, 3]\n    z = add t, t\n"},
      {"add h, c3", k06, "mul h, k", "div m, c6", ".output z : f32[4, 3]\n    z = add k, k\n"},
      {"add h, c3", k06, "mul h, k", "div m, c6", ".output z : f32[4, 3]\n    z = add m, m\n"},
  };
  // A NaN scale or shift after a hardswish stays a step of its own (the hardswish, and the
  // scale before a NaN shift, still fuse): with two NaN operands a mul or add returns the first.
  const FusionShape nan_scale = fusion_of(program_from(
      decl + ".const n : f32[1] = [nan]\n    h = dense x, w\n    t = add h, c3\n    k = " + k06 +
      "\n    m = mul h, k\n    q = div m, c6\n    y = mul n, q\n"));
  BOOST_TEST((nan_scale.fused[4] && !nan_scale.fused[5]));
  const FusionShape nan_shift = fusion_of(program_from(
      decl + ".const n : f32[1] = [nan]\n    h = dense x, w\n    t = add h, c3\n    k = " + k06 +
      "\n    m = mul h, k\n    q = div m, c6\n    r = mul q, d\n    y = add n, r\n"));
  BOOST_TEST((nan_shift.fused[5] && !nan_shift.fused[6]));
  for (const Variant& v : variants)
    BOOST_TEST_CONTEXT(v.add << "; " << v.clip << "; " << v.mul << "; " << v.div << "; " << v.extra) {
      const std::string extra = v.extra;
      const std::size_t split = extra.find('\n') + 1;
      const std::string text = decl + extra.substr(0, split) + "    h = dense x, w\n    t = " + v.add +
                               "\n    k = " + v.clip + "\n    m = " + v.mul + "\n    y = " + v.div + "\n" +
                               extra.substr(split);
      const FusionShape f = fusion_of(program_from(text));
      for (std::size_t pc = 0; pc < f.fused.size(); ++pc) BOOST_TEST(!f.fused[pc]);
    }
}

BOOST_AUTO_TEST_CASE(dense_of_zero_depth_then_clip) {
  // K = 0: the result is the bias alone, clamped.
  check_fused_like_unfused(R"(
.input x : f32[2, 0]
.input w : f32[7, 0]
.input b : f32[7]
.output y : f32[2, 7]
)", ".output h : f32[2, 7]", R"(
    h = dense x, w, b
    y = clip h, a_min=-2, a_max=3
)", 0, {{"x", plain_values(DType::f32, {2, 0}, 16)}, {"w", plain_values(DType::f32, {7, 0}, 17)},
          {"b", specials(DType::f32, {7}, 18)}});
}

BOOST_AUTO_TEST_CASE(nothing_is_fused_where_the_value_or_the_path_forbids) {
  // An integer result; a relu reading something else; a relu a jump lands on; an
  // intermediate read again after the relu; an op that takes no clamp; a sigmoid read again
  // after the mul; a mul that is not h · sigmoid(h).
  const Program p = program_from(R"(
.input xi : i32[2, 3]
.input wi : i32[3, 4]
.input x : f32[2, 3]
.input w : f32[4, 3]
.output a : i32[2, 4]
.output c : f32[2, 4]
.output d : f32[2, 4]
.output e : f32[2, 3]
.output n : f32[2, 4]
.output f : f32[2, 4]
.output t : f32[2, 4]
.output u : f32[2, 4]
    a = matmul xi, wi
    a = relu a
    h = dense x, w
    c = relu x
    g = dense x, w
    jmp there
there:
    c = relu g
    k = dense x, w
    d = relu k
    d = add d, k
    e = add x, x
    e = relu e
    m = dense x, w
    s = sigmoid m
    n = mul m, s
    f = add s, s
    q = dense x, w
    t = sigmoid q
    u = mul q, q
)");
  const FusionShape f = fusion_of(p);
  BOOST_REQUIRE_GE(f.fused.size(), 19u);
  for (std::size_t pc = 0; pc < f.fused.size(); ++pc) {
    BOOST_TEST_CONTEXT("instruction " << pc) {
      BOOST_TEST(!f.fused[pc]);
      BOOST_TEST(!f.clamped[pc]);
    }
  }
}

BOOST_AUTO_TEST_CASE(fused_result_written_into_a_bound_output) {
  const std::string text = R"(
.input x : f32[1, 2, 6, 6]
.input w : f32[3, 2, 3, 3]
.output y : f32[1, 3, 4, 4]
    h = conv2d x, w
    y = relu h
)";
  const Program p = program_from(text);
  BOOST_REQUIRE(fusion_of(p).fused[1]);
  const TensorMap in = {{"x", specials(DType::f32, {1, 2, 6, 6}, 14)}, {"w", plain_values(DType::f32, {3, 2, 3, 3}, 15)}};
  Session plain(p, single_thread());
  const Tensor want = plain.run(in).at("y");
  std::vector<float> host(48, -7.0f);
  Session bound(p, single_thread());
  bound.bind_output("y", borrow_tensor<float>({1, 3, 4, 4}, host.data(), /*writable=*/true));
  const TensorMap out = bound.run(in);
  BOOST_TEST(out.at("y").data<float>() == host.data());
  BOOST_TEST(same_bits(out.at("y"), want));
  BOOST_TEST(bound.stats().allocated_bytes == 0);
}

BOOST_AUTO_TEST_SUITE_END()
