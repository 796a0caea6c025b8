// The elementwise kernels compile their scalar loops only for the op and dtype pairs that have
// no SIMD run (kernels/simd/ew.hpp, has_binary_runs, has_unary_run, has_clip_run): each level's
// table must hold exactly those runs, or a kernel would reach a null run.
#include <boost/test/unit_test.hpp>

#include "kernels/simd/cpu_features.hpp"
#include "kernels/simd/ew.hpp"
#include "simd_test_support.hpp"

using namespace mlvm;

BOOST_AUTO_TEST_SUITE(simd_tables)

BOOST_AUTO_TEST_CASE(every_level_has_the_runs_the_kernels_count_on) {
  simd_test::LevelGuard guard;
  for (simd::Level level : simd_test::levels()) {
    simd::set_level_for_testing(level);
    const simd::EwTable& t = simd::ew_kernels();
    const std::string at = " at " + std::string(simd::level_name(level));
    for (int e = 0; e < simd::kNumElems; ++e) {
      for (int op = 0; op < simd::kNumBinaryOps; ++op) {
        const bool want = simd::has_binary_runs(simd::BinaryOp(op), e);
        for (int splat = 0; splat < simd::kNumSplats; ++splat)
          for (int streaming = 0; streaming < 2; ++streaming)
            BOOST_TEST((t.binary[op][e][splat][streaming] != nullptr) == want,
                       "binary op " << op << ", element " << e << ", splat " << splat << at);
      }
      for (int op = 0; op < simd::kNumUnaryOps; ++op)
        BOOST_TEST((t.unary[op][e] != nullptr) == simd::has_unary_run(simd::UnaryOp(op), e),
                   "unary op " << op << ", element " << e << at);
      BOOST_TEST((t.clip[e] != nullptr) == simd::has_clip_run(e), "clip, element " << e << at);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
