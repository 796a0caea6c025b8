// Memory: registers are released after their last use, dying buffers are donated to results,
// and nothing the host or another register still sees is ever overwritten.
#include <boost/test/unit_test.hpp>
#include <cmath>

#include "vm/session_access.hpp"
#include "vm/vm_test_util.hpp"

using namespace mlvm;
using namespace mlvm::test;

BOOST_AUTO_TEST_SUITE(vm_memory)

namespace {

// h = negative x, then `steps` more unary ops on h. Result: the sign flips of `negative`.
std::string chain_source(int steps, bool fresh_names) {
  std::string s = ".input x : f32[4096]\n.output h : f32[4096]\n    h0 = negative x\n";
  const char* ops[] = {"negative", "abs", "negative", "relu", "negative"};
  std::string prev = "h0";
  for (int k = 1; k <= steps; ++k) {
    std::string name = "h";
    name += fresh_names ? std::to_string(k) : "0";
    s += "    " + name + " = " + ops[k % 5] + " " + prev + "\n";
    prev = name;
  }
  s += "    h = copy " + prev + "\n";
  return s;
}

float chain_reference(float v, int steps) {
  v = -v;
  for (int k = 1; k <= steps; ++k) {
    switch (k % 5) {
      case 1:
        v = std::fabs(v);
        break;
      case 3:
        v = v > 0 ? v : 0;
        break;
      default:
        v = -v;
        break;
    }
  }
  return v;
}

}  // namespace

BOOST_AUTO_TEST_CASE(long_chain_keeps_two_buffers_live) {
  const int64_t buffer = 4096 * 4;
  std::vector<float> x(4096);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = float(int(i % 17) - 8) * 0.5f;
  for (bool fresh : {false, true}) {
    Program p = program_from(chain_source(40, fresh));
    Session s(p, single_thread());
    auto out = s.run({{"x", borrow_tensor<const float>({4096}, x.data())}});
    BOOST_TEST_INFO("fresh register names: " << fresh);
    BOOST_TEST(s.stats().peak_bytes >= buffer);
    BOOST_TEST(s.stats().peak_bytes <= 2 * buffer);
    std::vector<float> got = to_vector<float>(out.at("h"));
    for (std::size_t i = 0; i < x.size(); i += 97) BOOST_TEST(got[i] == chain_reference(x[i], 40));
  }
}

BOOST_AUTO_TEST_CASE(dying_buffer_seen_by_a_view_is_not_reused) {
  // a's register dies at `b = negative a`, but t (a view of a) is still live, so b must not be
  // written into a's storage.
  Program p = program_from(R"(.input x : f32[2, 2]
.output y : f32[2, 2]
    a = abs x
    t = transpose a
    b = negative a
    y = add t, b
)");
  Session s(p, single_thread());
  auto out = s.run({{"x", make_tensor<float>({2, 2}, {1, -2, 3, -4})}});
  // |x|ᵀ - |x| = [[1,3],[2,4]] - [[1,2],[3,4]]
  BOOST_TEST(to_vector<float>(out.at("y")) == std::vector<float>({0, 1, -1, 0}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(same_register_twice_is_not_donated) {
  Program p = program_from(R"(.input x : f32[3]
.output y : f32[3]
    a = abs x
    y = sub a, a
    z = add x, x
    y = add y, z
)");
  Session s(p, single_thread());
  auto out = s.run({{"x", make_tensor<float>({3}, {1, -2, 3})}});
  BOOST_TEST(to_vector<float>(out.at("y")) == std::vector<float>({2, -4, 6}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(host_inputs_are_never_written) {
  Program p = program_from(R"(.input x : f32[4]
.output y : f32[4]
    y = negative x
    y = negative y
    y = abs y
)");
  std::vector<float> host = {1, -2, 3, -4};
  Tensor owned = make_tensor<float>({4}, {5, -6, 7, -8});
  Session s(p, single_thread());
  auto a = s.run({{"x", borrow_tensor<float>({4}, host.data(), /*writable=*/true)}});
  auto b = s.run({{"x", owned}});
  BOOST_TEST(host == std::vector<float>({1, -2, 3, -4}), boost::test_tools::per_element());
  BOOST_TEST(to_vector<float>(owned) == std::vector<float>({5, -6, 7, -8}),
             boost::test_tools::per_element());
  BOOST_TEST(to_vector<float>(a.at("y")) == std::vector<float>({1, 2, 3, 4}),
             boost::test_tools::per_element());
  BOOST_TEST(to_vector<float>(b.at("y")) == std::vector<float>({5, 6, 7, 8}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(outputs_outlive_the_session_and_constants_stay_read_only) {
  Tensor kept, view_of_const, copy_of_const;
  {
    Program p = program_from(R"(.const c : f32[2, 2] = [[1, 2], [3, 4]]
.input x : f32[2]
.output y : f32[2]
.output v : f32[2, 2]
.output w : f32[2, 2]
    y = negative x
    v = transpose c
    w = copy c
)");
    Session s(p, single_thread());
    auto out = s.run({{"x", make_tensor<float>({2}, {1, 2})}});
    kept = out.at("y");
    view_of_const = out.at("v");
    copy_of_const = out.at("w");
  }
  BOOST_TEST(to_vector<float>(kept) == std::vector<float>({-1, -2}),
             boost::test_tools::per_element());
  BOOST_TEST(to_vector<float>(view_of_const) == std::vector<float>({1, 3, 2, 4}),
             boost::test_tools::per_element());
  BOOST_TEST(!view_of_const.is_writable());  // it aliases the module's constant
  BOOST_TEST(copy_of_const.is_writable());
  BOOST_CHECK_THROW(view_of_const.check_writable("output"), Error);
}

BOOST_AUTO_TEST_CASE(a_failed_run_releases_everything) {
  Program p = program_from(R"(.input a : i32[256]
.input b : i32[256]
.output y : i32[256]
    t = negative a
    y = div t, b
)");
  auto budget = std::make_shared<MemoryBudget>();
  Session s = SessionAccess::with_budget(p, single_thread(), budget);
  Tensor zero = Tensor::zeros_owned(DType::i32, {256});
  BOOST_CHECK_THROW(s.run({{"a", zero}, {"b", zero}}), Error);
  BOOST_TEST(budget->live() == 0);
}

// A session keeps the buffers of dropped outputs and intermediates for its next run: the
// same program allocates the same sizes, which then need no fresh pages.
BOOST_AUTO_TEST_CASE(a_session_reuses_the_buffers_of_its_earlier_runs) {
  Program p = program_from(R"(.input x : f32[4096]
.output y : f32[4096]
    t = exp x
    y = mul t, x
)");
  Session s(p, single_thread());
  std::vector<float> x(4096, 0.5f);
  const std::byte* first = nullptr;
  {
    TensorMap out = s.run({{"x", borrow_tensor<const float>({4096}, x.data())}});
    first = out.at("y").raw_data();
  }  // the host drops the output: its buffer goes back to the session
  TensorMap again = s.run({{"x", borrow_tensor<const float>({4096}, x.data())}});
#if !defined(__SANITIZE_ADDRESS__)
  BOOST_TEST(again.at("y").raw_data() == first);
#endif
  BOOST_TEST(s.stats().allocated_bytes == 4096 * 4);  // still counted against max_memory
  BOOST_TEST(to_vector<float>(again.at("y"))[7] == std::exp(0.5f) * 0.5f);
  (void)first;
}

BOOST_AUTO_TEST_SUITE_END()
