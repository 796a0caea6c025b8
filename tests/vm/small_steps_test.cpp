// Small steps (vm/small_steps.cpp): elementwise instructions on a few elements that the run
// loop does itself, in place over a dying argument, with the SIMD run their kernel would
// call. A program must give the very bits it gives with every step run by its kernel (its
// twin below, the same plan with the small steps turned back into kernel steps), and the
// exact ops the values of a scalar loop; the run-time conditions (the donor's storage is its
// alone, the operands are contiguous) must send every other case to the kernel.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

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

// Per step, whether it is a small step.
std::vector<bool> small_steps_of(const Program& p) {
  const ExecPlan& plan = ProgramAccess::compiled(p).plan;
  std::vector<bool> small;
  for (const PlannedInstruction& s : plan.code) small.push_back(s.kind == StepKind::small);
  return small;
}

// The same program with every small step run by its kernel. It points into `p`'s compiled
// program (attributes, constants), so `p` must outlive it.
Program kernel_twin(const Program& p) {
  auto twin = std::make_shared<CompiledProgram>(ProgramAccess::compiled(p));
  for (PlannedInstruction& s : twin->plan.code)
    if (s.kind == StepKind::small) s.kind = StepKind::kernel;
  twin->plan.small.clear();
  return ProgramAccess::make(std::move(twin));
}

// The ops every numeric dtype has, each written over a dying value: binary with equal
// shapes, with a one-element b (vs) and a one-element a (sv), unary, and a result in another
// register (its donor moves there). The first step reads the host's x, which must not be
// written: it runs its kernel.
std::string numeric_chain(DType dt, const Dims& shape) {
  const std::string t = std::string(dtype_name(dt)) + dims_to_string(shape);
  const std::string one = std::string(dtype_name(dt)) + "[1]";
  return ".input x : " + t + "\n.input c : " + t + "\n.input s : " + one + "\n.output y : " + t +
         "\n" + R"(
    t = add x, c
    t = mul t, s
    t = sub s, t
    t = maximum t, c
    t = minimum t, x
    u = negative t
    u = abs u
    v = relu u
    w = sub v, c
    y = add w, s
)";
}

// The same chain by a scalar loop, wrapping integers as the ops do (two's complement).
template <class T>
std::vector<double> numeric_reference(const Tensor& x, const Tensor& c, const Tensor& s) {
  using W = std::conditional_t<std::is_floating_point_v<T>, T, int64_t>;
  auto wrap = [](W v) { return T(v); };  // C++20: conversion to a signed type is modular
  const std::vector<double> xs = values(x), cs = values(c);
  const T sv = T(values(s)[0]);
  auto mx = [](T a, T b) { return (a >= b || a != a) ? a : b; };
  auto mn = [](T a, T b) { return (a <= b || a != a) ? a : b; };
  std::vector<double> out;
  for (std::size_t k = 0; k < xs.size(); ++k) {
    const T xv = T(xs[k]), cv = T(cs[k]);
    T t = wrap(W(xv) + W(cv));
    t = wrap(W(t) * W(sv));
    t = wrap(W(sv) - W(t));
    t = mx(t, cv);
    t = mn(t, xv);
    T u = wrap(-W(t));
    u = wrap(u < T(0) ? -W(u) : W(u));
    const T v = u < T(0) ? T(0) : u;
    const T w = wrap(W(v) - W(cv));
    out.push_back(double(wrap(W(w) + W(sv))));
  }
  return out;
}

// div, sqrt, exp, tanh (f32 only: f64 has no SIMD tanh) and sigmoid, whose runs differ
// between levels by an ulp or so: x and c of `dt`[3, 5].
std::string float_chain(DType dt) {
  const std::string t = std::string(dtype_name(dt)) + "[3, 5]";
  return ".input x : " + t + "\n.input c : " + t + "\n.output y : " + t + "\n" + R"(
    a = abs x
    a = add a, c
    a = div a, c
    a = sqrt a
    a = exp a
)" + (dt == DType::f32 ? "    a = tanh a\n" : "    a = negative a\n") + "    y = sigmoid a\n";
}

TensorMap chain_inputs(DType dt, const Dims& shape, uint64_t seed) {
  return {{"x", make_input(dt, shape, Layout::contiguous, Fill::small, seed)},
          {"c", make_input(dt, shape, Layout::contiguous, Fill::small, seed + 1)},
          {"s", make_input(dt, {1}, Layout::contiguous, Fill::small, seed + 2)}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(vm_small_steps)

BOOST_AUTO_TEST_CASE(numeric_chains_give_the_kernels_bits_and_the_scalar_values) {
  for (DType dt : {DType::f32, DType::f64, DType::i8, DType::u8, DType::i16, DType::i32,
                   DType::i64}) {
    for (const Dims& shape : {Dims{1}, Dims{5}, Dims{2, 3}, Dims{17}, Dims{4, 8, 9}}) {
      BOOST_TEST_CONTEXT(dtype_name(dt) << dims_to_string(shape)) {
        const Program p = program_from(numeric_chain(dt, shape));
        // Every step but the first (x is the host's) may run in place.
        const std::vector<bool> want_small = {false, true, true, true, true,
                                              true,  true, true, true, true};
        BOOST_TEST(small_steps_of(p) == want_small, boost::test_tools::per_element());
        const Program twin = kernel_twin(p);
        BOOST_TEST(small_steps_of(twin) == std::vector<bool>(10, false),
                   boost::test_tools::per_element());
        Session small(p, single_thread()), kernels(twin, single_thread());
        for (uint64_t seed : {3, 40}) {
          const TensorMap in = chain_inputs(dt, shape, seed);
          const Tensor x_before = clone(in.at("x"));
          const Tensor y = small.run(in).at("y");
          BOOST_TEST(same_bits(y, kernels.run(in).at("y")));
          BOOST_TEST(same_bits(in.at("x"), x_before));  // the host's input is untouched
          std::vector<double> want;
          visit_dtype(dt, [&](auto tag) {
            using T = storage_t<typename decltype(tag)::type>;
            if constexpr (!std::is_same_v<T, bool>)
              want = numeric_reference<T>(in.at("x"), in.at("c"), in.at("s"));
          });
          check_values(y, dt, shape, want);
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_level_chosen_after_planning_reaches_small_steps) {
  // Each program is planned once; each level's run must then give that level's kernel bits
  // (exp, tanh and sigmoid differ between levels by an ulp here and there), as the kernels
  // take their runs from the level current when they run.
  std::vector<double> xs, cs;
  for (int k = 0; k < 1000; ++k) {
    xs.push_back(-8 + 0.0161 * k);
    cs.push_back(0.001 * (k % 7));
  }
  const TensorMap in = {{"x", make(DType::f32, {1000}, xs)}, {"c", make(DType::f32, {1000}, cs)}};
  for (const char* op : {"exp", "tanh", "sigmoid"}) {
    const Program p = program_from(std::string(".input x : f32[1000]\n.input c : f32[1000]\n"
                                               ".output y : f32[1000]\n    a = add x, c\n    y = ") +
                                   op + " a\n");
    // Both steps may run in place; the add reads the host's x and c, so it runs its kernel.
    BOOST_TEST(small_steps_of(p) == std::vector<bool>({true, true}), boost::test_tools::per_element());
    const Program twin = kernel_twin(p);
    const simd::Level saved = simd::level();
    for (simd::Level level : {simd::Level::sse2, simd::Level::avx2, simd::Level::avx512}) {
      simd::set_level_for_testing(level);  // the best the CPU has, if it lacks this one
      BOOST_TEST_CONTEXT(op << " at " << simd::level_name(simd::level())) {
        Session small(p, single_thread()), kernels(twin, single_thread());
        BOOST_TEST(same_bits(small.run(in).at("y"), kernels.run(in).at("y")));
      }
    }
    simd::set_level_for_testing(saved);
  }
}

BOOST_AUTO_TEST_CASE(float_ops_give_the_kernels_bits) {
  // div, sqrt, exp, tanh and sigmoid: within an ulp or so of the exact value, so the check is
  // against the kernels' bits (and loosely against libm).
  for (DType dt : {DType::f32, DType::f64}) {
    const bool has_tanh = dt == DType::f32;  // f64 tanh has no SIMD run: it stays a kernel step
    const Program p = program_from(float_chain(dt));
    // Even the first step may run in place (x dies there); at run time x is the host's, so
    // its kernel runs.
    BOOST_TEST(small_steps_of(p) == std::vector<bool>(7, true), boost::test_tools::per_element());
    const Program twin = kernel_twin(p);
    Session small(p, single_thread()), kernels(twin, single_thread());
    const Tensor x = make(dt, {3, 5}, {0.5, -1, 2, 3, -4, 0.25, 1, 1.5, -2.5, 3, 0.1, 0.2, -0.3, 4, 5});
    const Tensor c = make(dt, {3, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
    const Tensor y = small.run({{"x", x}, {"c", c}}).at("y");
    BOOST_TEST(same_bits(y, kernels.run({{"x", x}, {"c", c}}).at("y")));
    const std::vector<double> xs = values(x), cs = values(c), ys = values(y);
    for (std::size_t k = 0; k < xs.size(); ++k) {
      double a = std::exp(std::sqrt((std::abs(xs[k]) + cs[k]) / cs[k]));
      a = has_tanh ? std::tanh(a) : -a;
      BOOST_TEST(ys[k] == 1 / (1 + std::exp(-a)), boost::test_tools::tolerance(1e-5));
    }
  }
}

BOOST_AUTO_TEST_CASE(a_donor_shared_with_a_live_view_runs_its_kernel) {
  // v is a view of t's storage and outlives t: writing y over t would change v.
  const Program p = program_from(R"(
.input x : f32[6]
.const one : f32[1] = [1]
.output y : f32[6]
.output v : f32[2, 3]
    t = mul x, x
    v = reshape t, shape=(2, 3)
    y = add t, one
)");
  BOOST_TEST(small_steps_of(p) == std::vector<bool>({false, false, true}),
             boost::test_tools::per_element());
  Session s(p, single_thread());
  const TensorMap out = s.run({{"x", make(DType::f32, {6}, {1, 2, 3, -4, 5, 0.5})}});
  check_values(out.at("v"), DType::f32, {2, 3}, {1, 4, 9, 16, 25, 0.25});
  check_values(out.at("y"), DType::f32, {6}, {2, 5, 10, 17, 26, 1.25});
}

BOOST_AUTO_TEST_CASE(a_strided_operand_runs_its_kernel) {
  // wt is a transposed view: the contiguous run would read it in storage order.
  const Program p = program_from(R"(
.input x : f32[2, 3]
.input w : f32[3, 2]
.output y : f32[2, 3]
    t = mul x, x
    wt = transpose w
    y = add t, wt
)");
  BOOST_TEST(small_steps_of(p) == std::vector<bool>({false, false, true}),
             boost::test_tools::per_element());
  Session s(p, single_thread());
  const TensorMap out = s.run({{"x", make(DType::f32, {2, 3}, {1, 2, 3, 4, 5, 6})},
                               {"w", make(DType::f32, {3, 2}, {10, 20, 30, 40, 50, 60})}});
  check_values(out.at("y"), DType::f32, {2, 3}, {11, 34, 59, 36, 65, 96});
}

BOOST_AUTO_TEST_CASE(steps_that_stay_kernel_steps) {
  // Dynamic dims, more than 1024 elements, a comparison, integer division, bool maximum, a
  // broadcast bigger than either operand, an op without a SIMD run, an argument read twice,
  // and an f64 tanh (no SIMD run).
  const Program p = program_from(R"(
.input d : f32[?]
.input big : f32[1025]
.input x : f32[3, 1]
.input z : f32[1, 4]
.input i : i32[4]
.input j : i32[4]
.input b : bool[4]
.input e : f64[2]
.output o1 : f32[?]
.output o2 : f32[1025]
.output o3 : bool[4]
.output o4 : i32[4]
.output o5 : bool[4]
.output o6 : f32[3, 4]
.output o7 : i32[4]
.output o8 : i32[4]
.output o9 : f64[2]
    d2 = mul d, d
    o1 = add d2, d2
    b2 = mul big, big
    o2 = add b2, big
    i2 = add i, j
    o3 = less i2, j
    i3 = mul i, j
    o4 = div i3, j
    o5 = maximum b, b
    x2 = mul x, x
    o6 = add x2, z
    i4 = mul j, j
    o7 = mod i4, j
    i5 = add j, i
    o8 = mul i5, i5
    e2 = mul e, e
    o9 = tanh e2
)");
  // The one small step checks that the program can have them: i5 = add j, i, where both
  // inputs die (at run time they are the host's, so its kernel runs).
  std::vector<bool> want(17, false);
  want[13] = true;
  BOOST_TEST(small_steps_of(p) == want, boost::test_tools::per_element());
  Session s(p, single_thread());
  const Tensor i = make(DType::i32, {4}, {1, 2, 3, 4}), j = make(DType::i32, {4}, {5, 6, 7, 8});
  TensorMap in = {{"d", make(DType::f32, {2}, {1, 2})},
                  {"big", Tensor::zeros_owned(DType::f32, {1025})},
                  {"x", make(DType::f32, {3, 1}, {1, 2, 3})},
                  {"z", make(DType::f32, {1, 4}, {1, 2, 3, 4})},
                  {"i", i},
                  {"j", j},
                  {"b", make(DType::boolean, {4}, {1, 0, 1, 0})},
                  {"e", make(DType::f64, {2}, {0.5, 1})}};
  const TensorMap out = s.run(in);
  check_values(out.at("o8"), DType::i32, {4}, {36, 64, 100, 144});
  check_values(i, DType::i32, {4}, {1, 2, 3, 4});
  check_values(j, DType::i32, {4}, {5, 6, 7, 8});
}

BOOST_AUTO_TEST_CASE(step_limits_profiles_and_bound_outputs_see_small_steps) {
  const Program p = program_from(R"(
.input x : i32[3]
.const k : i32[1] = [3]
.output y : i32[3]
    t = add x, k
    t = mul t, k
    t = sub t, k
    t = add t, k
    t = mul t, k
    y = sub t, k
)");
  BOOST_TEST(small_steps_of(p) == std::vector<bool>(6, true), boost::test_tools::per_element());
  const Tensor x = make(DType::i32, {3}, {1, -2, 7});
  const std::vector<double> want = {(((1 + 3) * 3 - 3 + 3) * 3 - 3), (((-2 + 3) * 3 - 3 + 3) * 3 - 3),
                                    (((7 + 3) * 3 - 3 + 3) * 3 - 3)};
  {
    SessionOptions o = single_thread();
    o.max_steps = 4;
    Session s(p, o);
    expect_error([&] { s.run({{"x", x}}); }, ErrorKind::limit, {"step limit of 4"}, "instruction 4");
  }
  {
    SessionOptions o = single_thread();
    o.profile = true;
    Session s(p, o);
    check_values(s.run({{"x", x}}).at("y"), DType::i32, {3}, want);
    int64_t counted = 0;
    for (const OpTiming& t : s.stats().ops) counted += t.count;
    BOOST_TEST(counted == 6);
    BOOST_TEST(s.stats().steps == 6);
  }
  {
    Session s(p, single_thread());
    Tensor y = Tensor::empty(DType::i32, {3});
    s.bind_output("y", y);
    const Tensor got = s.run({{"x", x}}).at("y");
    BOOST_TEST(got.raw_data() == y.raw_data());
    check_values(y, DType::i32, {3}, want);
  }
}

BOOST_AUTO_TEST_SUITE_END()
