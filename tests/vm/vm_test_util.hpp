// Helpers shared by the VM tests: programs from text, error expectations, and two programs
// compared bit for bit at every SIMD level and thread count.
#pragma once

#include <boost/test/unit_test.hpp>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include "common/tensors.hpp"
#include "kernels/prepare.hpp"
#include "kernels/simd/cpu_features.hpp"
#include "mlvm/mlvm.hpp"
#include "tensor/copy.hpp"
#include "tensor/storage.hpp"
#include "vm/compiled.hpp"
#include "vm/program_access.hpp"

namespace mlvm::test {

inline Program program_from(std::string_view source, const std::string& name = "test.mlasm") {
  return Program::assemble(source, name);
}

// Runs `fn`, which must throw mlvm::Error of `kind` whose message contains every string in
// `message_parts` and whose location contains `location_part`. Returns the error.
inline Error expect_error(const std::function<void()>& fn, ErrorKind kind,
                          std::initializer_list<std::string_view> message_parts,
                          std::string_view location_part = {}) {
  try {
    fn();
  } catch (const Error& e) {
    BOOST_TEST_INFO("error: " << e.describe());
    BOOST_CHECK_EQUAL(e.kind(), kind);
    for (std::string_view part : message_parts) {
      BOOST_TEST_INFO("message part: " << part << " in: " << e.message());
      BOOST_CHECK(e.message().find(part) != std::string::npos);
    }
    BOOST_TEST_INFO("location part: " << location_part << " in: " << e.location());
    BOOST_CHECK(e.location().find(location_part) != std::string::npos);
    return e;
  }
  BOOST_FAIL("expected an mlvm::Error of kind " << error_kind_name(kind));
  return Error(kind, "");
}

inline SessionOptions single_thread() {
  SessionOptions o;
  o.threads = 1;
  return o;
}

// Runs fn() at sse2, avx2, avx2 with AVX-VNNI and avx512 (the best the CPU has, if it lacks
// one), the process-wide level set for each and restored afterwards.
template <class F>
void for_every_level(F&& fn) {
  const simd::Level saved = simd::level();
  const bool saved_vnni = simd::avx2_uses_vnni();
  const std::pair<simd::Level, bool> levels[] = {
      {simd::Level::sse2, false}, {simd::Level::avx2, false}, {simd::Level::avx2, true}, {simd::Level::avx512, false}};
  for (const auto& [level, vnni] : levels) {
    simd::set_level_for_testing(level, vnni);
    fn();
  }
  simd::set_level_for_testing(saved, saved_vnni);
}

// Runs `a` and `b` on `inputs` at every level (for_every_level) on 1 and 2 threads: output y
// must agree bit for bit (a fused program and its unfused twin).
inline void expect_same_y_everywhere(const Program& a, const Program& b, const TensorMap& inputs) {
  for_every_level([&] {
    for (int threads : {1, 2}) {
      BOOST_TEST_CONTEXT(simd::current_level_name() << ", threads " << threads) {
        SessionOptions o;
        o.threads = threads;
        Session sa(a, o), sb(b, o);
        const TensorMap ya = sa.run(inputs), yb = sb.run(inputs);
        BOOST_TEST(mlvm::testing::same_bits(ya.at("y"), yb.at("y")));
      }
    }
  });
}

// The constant weights the planner prepared for instruction pc (kernels/prepare.hpp), or null.
inline const PackedWeights* prepared_at(const Program& p, std::size_t pc) {
  const ExecPlan& plan = ProgramAccess::compiled(p).plan;
  const StepExtras* x = pc < plan.code.size() ? plan.extras_of(pc) : nullptr;
  return x ? static_cast<const PackedWeights*>(x->prepared.get()) : nullptr;
}

}  // namespace mlvm::test
