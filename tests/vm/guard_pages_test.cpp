// Host memory through the C++ API flush against an unreadable page (tests/common/guard_pages.hpp):
// inputs lent with Tensor::borrow and outputs bound with Session::bind_output sit right next to
// a PROT_NONE page, after them and in a second run before them, so that a kernel reading or
// writing one byte outside faults. Every SIMD level, 1 and 2 threads; the results are the bits
// of the same program run on ordinary memory.
#include <boost/test/unit_test.hpp>

#include "common/guard_pages.hpp"
#include "common/tensors.hpp"
#include "kernels/simd/cpu_features.hpp"
#include "vm/vm_test_util.hpp"

using namespace mlvm;
using namespace mlvm::test;
using mlvm::testing::GuardSide;
using mlvm::testing::guarded_borrow;

namespace {

// The convolution that read past its input (1 channel, 3x3, pads (0, 1, 0, 1)), a strided
// and a padded pooling, a dense layer and softmax over the pooled rows, a matmul.
constexpr std::string_view kNet = R"(
.input  x : f32[3, 1, 13, 9]
.input  w : f32[5, 1, 3, 3]
.input  d : f32[12, 30]
.output y : f32[3, 5, 11, 9]
.output p : f32[3, 5, 6, 5]
.output q : f32[3, 5, 11, 9]
.output f : f32[15, 12]
.output m : f32[15, 15]
    y = conv2d x, w, padding=(0, 1, 0, 1)
    p = max_pool2d y, pool_size=(2, 2), strides=(2, 2), padding=(0, 0, 1, 1)
    q = avg_pool2d y, pool_size=(3, 3), strides=(1, 1), padding=(1, 1, 1, 1)
    r = reshape p, shape=(15, 30)
    g = dense r, d
    f = softmax g, axis=1
    rt = transpose r
    m = matmul r, rt
)";

std::vector<float> guarded_values(std::size_t n, uint64_t seed) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    v[i] = float(int64_t(seed >> 40) % 2001 - 1000) / 250.0f;
  }
  return v;
}

const char* kOutputs[] = {"y", "p", "q", "f", "m"};

}  // namespace

BOOST_AUTO_TEST_SUITE(vm_guard_pages)

BOOST_AUTO_TEST_CASE(borrowed_inputs_and_bound_outputs_touch_only_their_bytes) {
  Program prog = program_from(kNet);
  const std::vector<float> x = guarded_values(3 * 13 * 9, 1), w = guarded_values(5 * 9, 2), d = guarded_values(12 * 30, 3);
  const Dims xs{3, 1, 13, 9}, ws{5, 1, 3, 3}, ds{12, 30};
  const simd::Level saved = simd::level();
  for (int level = 0; level <= int(simd::cpu_best_level()); ++level) {
    simd::set_level_for_testing(simd::Level(level));
    for (int threads : {1, 2}) {
      SessionOptions so;
      so.threads = threads;
      Session plain(prog, so);
      const TensorMap want = plain.run({{"x", borrow_tensor<const float>(xs, x.data())},
                                        {"w", borrow_tensor<const float>(ws, w.data())},
                                        {"d", borrow_tensor<const float>(ds, d.data())}});
      for (GuardSide side : {GuardSide::after, GuardSide::before})
        BOOST_TEST_CONTEXT(simd::level_name(simd::Level(level)) << ", " << threads << " threads, guard "
                                                                 << (side == GuardSide::after ? "after" : "before")) {
          Session s(prog, so);
          std::vector<Tensor> bound;
          for (const char* name : kOutputs) {
            const Tensor& t = want.at(name);
            const std::vector<float> junk(std::size_t(t.numel()), -7.0f);
            bound.push_back(guarded_borrow(DType::f32, t.shape(), junk.data(), /*writable=*/true, side));
            s.bind_output(name, bound.back());
          }
          const TensorMap got = s.run({{"x", guarded_borrow(DType::f32, xs, x.data(), false, side)},
                                       {"w", guarded_borrow(DType::f32, ws, w.data(), false, side)},
                                       {"d", guarded_borrow(DType::f32, ds, d.data(), false, side)}});
          for (std::size_t k = 0; k < bound.size(); ++k) {
            BOOST_TEST(got.at(kOutputs[k]).raw_data() == bound[k].raw_data(), kOutputs[k] << " written in place");
            BOOST_TEST(testing::same_bits(bound[k], want.at(kOutputs[k])), kOutputs[k]);
          }
        }
    }
  }
  simd::set_level_for_testing(saved);
}

BOOST_AUTO_TEST_SUITE_END()
