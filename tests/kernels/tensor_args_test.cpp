// TensorArgs (kernels/op_api.hpp): a kernel's inputs as an array of tensors or as pointers to
// the interpreter's registers. Both forms must read the same tensors, by index and by
// iteration, and a kernel must compute the same result through either.
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <vector>

#include "common/op_runner.hpp"
#include "kernels/op_api.hpp"
#include "kernels/run_table.hpp"

using namespace mlvm;

namespace {

Tensor filled(float start, int64_t n) {
  Tensor t = Tensor::empty(DType::f32, Dims{n});
  for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = start + float(i);
  return t;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kernels_tensor_args)

BOOST_AUTO_TEST_CASE(values_and_refs_read_the_same_tensors) {
  std::vector<Tensor> values{filled(0, 3), Tensor(), filled(10, 5)};
  // Pointers in another order than the tensors lie in memory.
  std::vector<const Tensor*> refs{&values[0], &values[1], &values[2]};
  const TensorArgs by_value(values), by_ref = TensorArgs::refs(refs.data(), refs.size());
  for (const TensorArgs* args : {&by_value, &by_ref}) {
    BOOST_TEST(args->size() == 3u);
    BOOST_TEST(!args->empty());
    for (std::size_t k = 0; k < 3; ++k) BOOST_TEST(&(*args)[k] == &values[k]);
    std::vector<const Tensor*> seen;
    for (const Tensor& t : *args) seen.push_back(&t);
    BOOST_TEST(seen == refs);
    BOOST_TEST((args->end() - args->begin()) == 3);
    BOOST_TEST(std::count_if(args->begin(), args->end(),
                             [](const Tensor& t) { return t.defined(); }) == 2);
    BOOST_TEST(&args->begin()[2] == &values[2]);
    BOOST_TEST(args->begin()->numel() == 3);
  }
  BOOST_TEST(TensorArgs().empty());
}

BOOST_AUTO_TEST_CASE(a_kernel_computes_the_same_through_refs) {
  const Tensor a = filled(1, 7), b = filled(-3, 7);
  const Tensor* refs[] = {&b, &a};  // sub b, a
  std::vector<Tensor> out(1);
  const Attrs attrs = testing::attrs_for(Opcode::sub);
  ExecEnv env;
  KernelContext ctx{TensorArgs::refs(refs, 2), std::span<Tensor>(out), attrs, env};
  run_sub(ctx);
  BOOST_REQUIRE(out[0].defined());
  for (int64_t i = 0; i < 7; ++i) BOOST_TEST(out[0].data<float>()[i] == -4.0f);
}

BOOST_AUTO_TEST_SUITE_END()
