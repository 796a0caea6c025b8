// conv2d's plan-time choices (kernels/conv.cpp, prepare_conv2d), which depend on the result's
// static plane: the Winograd path (kernels/conv_winograd.hpp), whose constant filters are
// transformed and packed once at plan time, and the transposed 1x1 GEMM, whose weights are
// packed as the GEMM's B operand. Either way the run gives the very bits of the same program
// with the weights as an input (prepared on every run), and a clip after a Winograd conv is
// fused into its output transform with the bits of the unfused clip. Every SIMD level, one and
// two threads. (The values themselves are checked against naive convolutions in
// tests/kernels/conv_winograd_test.cpp and conv_simd_test.cpp.)
#include <boost/test/unit_test.hpp>

#include <cstring>
#include <sstream>

#include "common/tensor_helpers.hpp"
#include "common/tensors.hpp"
#include "kernels/prepare.hpp"
#include "kernels/simd/cpu_features.hpp"
#include "vm/compiled.hpp"
#include "vm/program_access.hpp"
#include "vm/vm_test_util.hpp"

using namespace mlvm;
using namespace mlvm::test;
using namespace mlvm::testing;

namespace {

constexpr int kOC = 20, kC = 16, kH = 18, kW = 21;  // 18 x 21 outputs: 5 x 6 tiles, partial edges

// Filter value k: a multiple of 1/64 in [-1, 1), exact in the text literal.
float filter_value(int k) { return float((k * 37 + 11) % 128 - 64) / 64.f; }

std::string filter_literal() {
  std::ostringstream s;
  int k = 0;
  s << "[";
  for (int o = 0; o < kOC; ++o) {
    s << (o ? ", [" : "[");
    for (int c = 0; c < kC; ++c) {
      s << (c ? ", [" : "[");
      for (int i = 0; i < 3; ++i) {
        s << (i ? ", [" : "[");
        for (int j = 0; j < 3; ++j) s << (j ? ", " : "") << filter_value(k++);
        s << "]";
      }
      s << "]";
    }
    s << "]";
  }
  s << "]";
  return s.str();
}

Tensor filter_tensor() {
  Tensor w = Tensor::empty(DType::f32, Dims{kOC, kC, 3, 3});
  for (int k = 0; k < kOC * kC * 9; ++k) w.data<float>()[k] = filter_value(k);
  return w;
}

const std::string kTypes = "f32[1, 16, 18, 21]";
const std::string kOut = "f32[1, 20, 18, 21]";

std::string program(bool constant_filters, bool clip, bool clip_hidden) {
  std::string s = ".input x : " + kTypes + "\n.input b : f32[20]\n.output y : " + kOut + "\n";
  s += constant_filters ? ".const w : f32[20, 16, 3, 3] = " + filter_literal() + "\n" : ".input w : f32[20, 16, 3, 3]\n";
  if (clip && clip_hidden) s += ".output h : " + kOut + "\n";
  if (clip) s += "    h = conv2d x, w, b, padding=(1, 1)\n    y = clip h, a_min=-0.5, a_max=0.75\n";
  else s += "    y = conv2d x, w, b, padding=(1, 1)\n";
  return s;
}


const PackedWeights* prepared_at(const Program& p, std::size_t pc) {
  const ExecPlan& plan = ProgramAccess::compiled(p).plan;
  if (plan.prepared.size() <= pc) return nullptr;
  return static_cast<const PackedWeights*>(plan.prepared[pc].get());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(vm_conv_plan)

BOOST_AUTO_TEST_CASE(prepared_filters_give_the_same_bits) {
  const TensorMap in{{"x", make_input(DType::f32, {1, kC, kH, kW}, Layout::contiguous, Fill::specials, 7)},
                     {"b", make_input(DType::f32, {kOC}, Layout::contiguous, Fill::small, 8)},
                     {"w", filter_tensor()}};
  TensorMap in_const = in;  // the programs with constant filters take no w
  in_const.erase("w");
  const simd::Level saved = simd::level();
  for (simd::Level level : {simd::Level::sse2, simd::Level::avx2, simd::Level::avx512}) {
    simd::set_level_for_testing(level);
    // Planned at this level: the prepared filters are the Winograd ones, packed for it.
    const Program constant = program_from(program(true, false, false));
    const Program input = program_from(program(false, false, false));
    const Program fused = program_from(program(true, true, false));
    const Program unfused = program_from(program(true, true, true));
    const PackedWeights* pw = prepared_at(constant, 0);
    BOOST_REQUIRE(pw);
    BOOST_TEST(pw->winograd_level == int(simd::level()));
    BOOST_TEST(pw->parts.size() == 36u);
    BOOST_TEST(!prepared_at(input, 0));
    BOOST_TEST((ProgramAccess::compiled(fused).plan.code[1].kind == StepKind::fused));
    for (int threads : {1, 2}) {
      BOOST_TEST_CONTEXT(simd::level_name(simd::level()) << ", threads " << threads) {
        SessionOptions o;
        o.threads = threads;
        Session sc(constant, o), si(input, o), sf(fused, o), su(unfused, o);
        const Tensor yc = sc.run(in_const).at("y"), yi = si.run(in).at("y");
        BOOST_TEST(same_bits(yc, yi));
        BOOST_TEST(same_bits(sf.run(in_const).at("y"), su.run(in_const).at("y")));
      }
    }
  }
  // Planned at one level and run at another: the packed filters do not fit, and the kernel
  // transforms them again, with the same bits as that level's own plan.
  simd::set_level_for_testing(simd::Level::sse2);
  const Program sse2_plan = program_from(program(true, false, false));
  simd::set_level_for_testing(saved);
  const Program own_plan = program_from(program(true, false, false));
  Session a(sse2_plan, single_thread()), b(own_plan, single_thread());
  BOOST_TEST(same_bits(a.run(in_const).at("y"), b.run(in_const).at("y")));
  simd::set_level_for_testing(saved);
}

BOOST_AUTO_TEST_CASE(transposed_1x1_weights_prepared_as_b) {
  // 120 output channels over a 7 x 7 plane: the transposed GEMM (kernels/conv.cpp).
  const std::string io = ".input x : f32[1, 16, 7, 7]\n.input b : f32[120]\n.output y : f32[1, 120, 7, 7]\n";
  std::ostringstream lit;
  lit << "[";
  for (int o = 0; o < 120; ++o) {
    lit << (o ? ", [" : "[");
    for (int c = 0; c < 16; ++c) lit << (c ? ", [[" : "[[") << filter_value(o * 16 + c) << "]]";
    lit << "]";
  }
  lit << "]";
  const std::string body = "    h = conv2d x, w, b\n    y = relu h\n";
  const std::string constant = io + ".const w : f32[120, 16, 1, 1] = " + lit.str() + "\n" + body;
  const std::string input = io + ".input w : f32[120, 16, 1, 1]\n" + body;
  Tensor w = Tensor::empty(DType::f32, Dims{120, 16, 1, 1});
  for (int k = 0; k < 120 * 16; ++k) w.data<float>()[k] = filter_value(k);
  const TensorMap in_const{{"x", make_input(DType::f32, {1, 16, 7, 7}, Layout::contiguous, Fill::specials, 9)},
                           {"b", make_input(DType::f32, {120}, Layout::contiguous, Fill::small, 10)}};
  TensorMap in = in_const;
  in["w"] = w;
  const simd::Level saved = simd::level();
  for (simd::Level level : {simd::Level::sse2, simd::Level::avx2, simd::Level::avx512}) {
    simd::set_level_for_testing(level);
    const Program pc = program_from(constant), pi = program_from(input);
    const PackedWeights* pw = prepared_at(pc, 0);
    BOOST_REQUIRE(pw);
    BOOST_TEST(pw->b_side);
    BOOST_TEST(pw->winograd_level == -1);
    for (int threads : {1, 2}) {
      BOOST_TEST_CONTEXT(simd::level_name(simd::level()) << ", threads " << threads) {
        SessionOptions o;
        o.threads = threads;
        Session sc(pc, o), si(pi, o);
        BOOST_TEST(same_bits(sc.run(in_const).at("y"), si.run(in).at("y")));
      }
    }
  }
  simd::set_level_for_testing(saved);
}

BOOST_AUTO_TEST_SUITE_END()
