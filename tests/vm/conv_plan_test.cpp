// conv2d's plan-time choices (kernels/conv.cpp, prepare_conv2d), which depend on the result's
// static plane: the Winograd path (kernels/conv_winograd.hpp), whose constant filters are
// transformed and packed once at plan time, and the transposed 1x1 GEMM, whose weights are
// packed as the GEMM's B operand. Either way the run gives the very bits of the same program
// with the weights as an input (prepared on every run), and a clip after a Winograd conv is
// fused into its output transform with the bits of the unfused clip; so do i8 weights, kept
// packed for the kernel of inputs holding -128 too. Every SIMD level, one and two threads.
// (The values themselves are checked against naive convolutions in
// tests/kernels/conv_winograd_test.cpp and conv_simd_test.cpp.)
#include <boost/test/unit_test.hpp>

#include <cstring>
#include <sstream>
#include <utility>

#include "common/tensor_helpers.hpp"
#include "common/tensors.hpp"
#include "kernels/prepare.hpp"
#include "kernels/simd/cpu_features.hpp"
#include "kernels/thread_pool.hpp"
#include "vm/compiled.hpp"
#include "vm/program_access.hpp"
#include "vm/vm_test_util.hpp"

using namespace mlvm;
using namespace mlvm::test;
using namespace mlvm::testing;

namespace {

// The Winograd geometries: 18 x 26 outputs (5 x 7 tiles of 4 x 4, partial edges); a 7 x 7
// plane (16 tiles of 2 x 2) with 64 output channels, whose GEMMs run transposed at AVX-512
// (8 x 32 register tile: 16 tiles as columns would pad to 32, as rows pad to none); and 6 x 64
// outputs (2 rows of 16 tiles of 4 x 4), too few tile rows to split between 2 threads, which
// then split the 24 output channels, each taking its rows of the packed filters.
struct Geometry {
  int oc, c, h, w;
  int tile;
  bool transposed_at_avx512;
};
const Geometry kGeometries[] = {{20, 16, 18, 26, 4, false}, {64, 16, 7, 7, 2, true}, {24, 16, 6, 64, 4, false}};

// Filter value k: a multiple of 1/64 in (-1, 1), exact in the text literal. Its period, 127,
// is prime, so no two output channels' filters are the same (a wrong panel of them is seen).
float filter_value(int k) { return float((k * 37 + 11) % 127 - 63) / 64.f; }

std::string filter_literal(const Geometry& g) {
  std::ostringstream s;
  int k = 0;
  s << "[";
  for (int o = 0; o < g.oc; ++o) {
    s << (o ? ", [" : "[");
    for (int c = 0; c < g.c; ++c) {
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

Tensor filter_tensor(const Geometry& g) {
  Tensor w = Tensor::empty(DType::f32, Dims{g.oc, g.c, 3, 3});
  for (int k = 0; k < g.oc * g.c * 9; ++k) w.data<float>()[k] = filter_value(k);
  return w;
}

std::string program(const Geometry& g, bool constant_filters, bool clip, bool clip_hidden) {
  const std::string plane = std::to_string(g.h) + ", " + std::to_string(g.w) + "]";
  const std::string in = "f32[1, " + std::to_string(g.c) + ", " + plane;
  const std::string out = "f32[1, " + std::to_string(g.oc) + ", " + plane;
  const std::string wt = "f32[" + std::to_string(g.oc) + ", " + std::to_string(g.c) + ", 3, 3]";
  std::string s = ".input x : " + in + "\n.input b : f32[" + std::to_string(g.oc) + "]\n.output y : " + out + "\n";
  s += constant_filters ? ".const w : " + wt + " = " + filter_literal(g) + "\n" : ".input w : " + wt + "\n";
  if (clip && clip_hidden) s += ".output h : " + out + "\n";
  if (clip) s += "    h = conv2d x, w, b, padding=(1, 1)\n    y = clip h, a_min=-0.5, a_max=0.75\n";
  else s += "    y = conv2d x, w, b, padding=(1, 1)\n";
  return s;
}

// `check(prepared weights of constant, session of constant, session of input)` at every SIMD
// level, one and two threads; `constant` has the weights as a constant, `input` as an input.
template <class Check>
void at_every_level(const std::string& constant, const std::string& input, Check&& check) {
  const simd::Level saved = simd::level();
  for (simd::Level level : {simd::Level::sse2, simd::Level::avx2, simd::Level::avx512}) {
    simd::set_level_for_testing(level);
    const Program pc = program_from(constant), pi = program_from(input);
    const PackedWeights* pw = prepared_at(pc, 0);
    BOOST_REQUIRE(pw);
    for (int threads : {1, 2}) {
      BOOST_TEST_CONTEXT(simd::level_name(simd::level()) << ", threads " << threads) {
        SessionOptions o;
        o.threads = threads;
        Session sc(pc, o), si(pi, o);
        check(*pw, sc, si);
      }
    }
  }
  simd::set_level_for_testing(saved);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(vm_conv_plan)

BOOST_AUTO_TEST_CASE(prepared_filters_give_the_same_bits) {
  const simd::Level saved = simd::level();
  for (const Geometry& g : kGeometries) {
    const TensorMap in{{"x", make_input(DType::f32, {1, g.c, g.h, g.w}, Layout::contiguous, Fill::specials, 7)},
                       {"b", make_input(DType::f32, {g.oc}, Layout::contiguous, Fill::small, 8)},
                       {"w", filter_tensor(g)}};
    TensorMap in_const = in;  // the programs with constant filters take no w
    in_const.erase("w");
    for (simd::Level level : {simd::Level::sse2, simd::Level::avx2, simd::Level::avx512}) {
      simd::set_level_for_testing(level);
      // Planned at this level: the prepared filters are the Winograd ones, packed for it.
      const Program constant = program_from(program(g, true, false, false));
      const Program input = program_from(program(g, false, false, false));
      const Program fused = program_from(program(g, true, true, false));
      const Program unfused = program_from(program(g, true, true, true));
      const PackedWeights* pw = prepared_at(constant, 0);
      BOOST_REQUIRE(pw);
      BOOST_TEST(pw->winograd_level == int(simd::level()));
      BOOST_TEST(pw->winograd_tile == g.tile);
      BOOST_TEST(pw->parts.size() == std::size_t((g.tile + 2) * (g.tile + 2)));
      BOOST_TEST(pw->b_side == (g.transposed_at_avx512 && simd::level() == simd::Level::avx512));
      BOOST_TEST(!prepared_at(input, 0));
      BOOST_TEST((ProgramAccess::compiled(fused).plan.code[1].kind == StepKind::fused));
      // 1 thread; 2 threads on cores near and far apart (ThreadPool::far_apart: the positions or
      // the output channels split between them), all with the 1-thread bits.
      Tensor y1;
      for (const auto& [threads, far] : {std::pair{1, 0}, std::pair{2, 0}, std::pair{2, 1}}) {
        BOOST_TEST_CONTEXT(simd::level_name(simd::level()) << ", threads " << threads << ", far apart " << far
                                                           << ", tile " << g.tile) {
          ThreadPool::assume_far_apart_for_testing(far);
          SessionOptions o;
          o.threads = threads;
          Session sc(constant, o), si(input, o), sf(fused, o), su(unfused, o);
          const Tensor yc = sc.run(in_const).at("y"), yi = si.run(in).at("y");
          if (threads == 1) y1 = yc;
          BOOST_TEST(same_bits(yc, y1));
          BOOST_TEST(same_bits(yc, yi));
          BOOST_TEST(same_bits(sf.run(in_const).at("y"), su.run(in_const).at("y")));
        }
      }
      ThreadPool::assume_far_apart_for_testing(-1);
    }
    // Planned at one level and run at another: the packed filters do not fit, and the kernel
    // transforms them again, with the same bits as that level's own plan.
    simd::set_level_for_testing(simd::Level::sse2);
    const Program sse2_plan = program_from(program(g, true, false, false));
    simd::set_level_for_testing(saved);
    const Program own_plan = program_from(program(g, true, false, false));
    Session a(sse2_plan, single_thread()), b(own_plan, single_thread());
    BOOST_TEST(same_bits(a.run(in_const).at("y"), b.run(in_const).at("y")));
  }
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
  at_every_level(constant, input, [&](const PackedWeights& pw, Session& sc, Session& si) {
    BOOST_TEST(pw.b_side);
    BOOST_TEST(pw.winograd_level == -1);
    BOOST_TEST(same_bits(sc.run(in_const).at("y"), si.run(in).at("y")));
  });
}

BOOST_AUTO_TEST_CASE(i8_weights_kept_packed_for_inputs_holding_min) {
  // 24 output channels of 3x3 over 12 i8 channels at 9 x 11: the implicit GEMM (too few
  // channels for the integer Winograd, tests/vm/conv_winograd_int8_test.cpp). An x holding
  // -128 takes the i16 pairs where the level has the sign trick (AVX2); their packing of the
  // constant weights is made on the first such run and kept. Either way, the bits of the same
  // program with the weights as an input.
  const std::string io = ".input x : i8[1, 12, 9, 11]\n.output y : i32[1, 24, 9, 11]\n";
  const std::string body = "    y = conv2d x, w, padding=(1, 1)\n";
  Tensor w = Tensor::empty(DType::i8, Dims{24, 12, 3, 3});
  for (int k = 0; k < 24 * 12 * 9; ++k) w.data<int8_t>()[k] = int8_t((k * 37 + 11) % 256 - 128);
  std::ostringstream lit;
  for (int k = 0; k < 24 * 12 * 9; ++k) {
    for (int period : {108, 9, 3}) lit << (k % period == 0 ? "[" : "");
    lit << int(w.data<int8_t>()[k]);
    int closed = 0;
    for (int period : {3, 9, 108}) closed += (k + 1) % period == 0;
    lit << std::string(std::size_t(closed), ']') << (k + 1 < 24 * 12 * 9 ? ", " : "");
  }
  const std::string constant = io + ".const w : i8[24, 12, 3, 3] = [" + lit.str() + "]\n" + body;
  const std::string input = io + ".input w : i8[24, 12, 3, 3]\n" + body;
  Tensor with_min = Tensor::empty(DType::i8, Dims{1, 12, 9, 11});
  Tensor without_min = Tensor::empty(DType::i8, Dims{1, 12, 9, 11});
  for (int k = 0; k < 12 * 99; ++k) {
    with_min.data<int8_t>()[k] = int8_t(k % 7 == 0 ? -128 : (k * 53) % 256 - 128);
    without_min.data<int8_t>()[k] = int8_t((k * 53) % 255 - 127);
  }
  at_every_level(constant, input, [&](const PackedWeights& pw, Session& sc, Session& si) {
    for (const Tensor& x : {without_min, with_min, without_min})
      BOOST_TEST(same_bits(sc.run({{"x", x}}).at("y"), si.run({{"x", x}, {"w", w}}).at("y")));
    if (simd::level() == simd::Level::avx2) {  // kept from the run on with_min: not made again
      bool made = false;
      pw.any_b_part(0, [&] {
        made = true;
        return std::shared_ptr<const PackedOperand>();
      });
      BOOST_TEST(!made);
    }
  });
}

BOOST_AUTO_TEST_SUITE_END()
