// Placed concatenations (vm/place.cpp): a concatenate whose parts are each made by a kernel
// step just before it and read by nothing else gets them written straight into its result.
// The placed program must give the very bits of the same program unplaced (its twin declares
// the parts outputs too, which keeps them alive past the concatenate and so blocks placement,
// checked on its plan), and the concatenation itself is checked against the parts.
#include <boost/test/unit_test.hpp>

#include <cstring>

#include "common/tensor_helpers.hpp"
#include "common/tensors.hpp"
#include "vm/compiled.hpp"
#include "vm/program_access.hpp"
#include "vm/vm_test_util.hpp"

using namespace mlvm;
using namespace mlvm::test;
using namespace mlvm::testing;

namespace {

// Per step, its role: -2 none, -1 a placed concatenate, k >= 0 writes part k of one.
std::vector<int> roles_of(const Program& p) {
  const ExecPlan& plan = ProgramAccess::compiled(p).plan;
  std::vector<int> roles(plan.code.size(), -2);
  for (std::size_t pc = 0; pc < plan.code.size(); ++pc)
    if (const StepExtras* x = plan.extras_of(pc); x && x->placement.group >= 0) roles[pc] = x->placement.part;
  return roles;
}

Tensor placed_values(DType dt, const Dims& shape, uint64_t seed) {
  return make_input(dt, shape, Layout::contiguous, Fill::small, seed);
}

// The elements of t along `axis` from `start`, `count` of them, as a contiguous tensor.
Tensor slab(const Tensor& t, int axis, int64_t start, int64_t count) {
  Dims shape = t.shape();
  shape[std::size_t(axis)] = count;
  return clone(t.with_layout(shape, t.strides(), t.offset() + start * t.strides()[std::size_t(axis)]));
}

// A SqueezeNet fire module: a 1x1 and a 3x3 convolution of one input, each with its relu,
// joined along the channels.
const std::string kFireHeader = R"(
.input x : f32[1, 4, 7, 9]
.input w1 : f32[5, 4, 1, 1]
.input w3 : f32[6, 4, 3, 3]
.input b : f32[6]
.output y : f32[1, 11, 7, 9]
)";
const std::string kFireBody = R"(
    h1 = conv2d x, w1
    e1 = relu h1
    h3 = conv2d x, w3, b, padding=(1, 1)
    e3 = relu h3
    y = concatenate e1, e3, axis=1
)";

TensorMap fire_inputs(uint64_t seed) {
  return {{"x", placed_values(DType::f32, {1, 4, 7, 9}, seed)},
          {"w1", placed_values(DType::f32, {5, 4, 1, 1}, seed + 1)},
          {"w3", placed_values(DType::f32, {6, 4, 3, 3}, seed + 2)},
          {"b", placed_values(DType::f32, {6}, seed + 3)}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(vm_placement)

BOOST_AUTO_TEST_CASE(fire_module_parts_are_written_into_the_concatenation) {
  const Program placed = program_from(kFireHeader + kFireBody);
  const Program plain = program_from(kFireHeader + ".output e1 : f32[1, 5, 7, 9]\n.output e3 : f32[1, 6, 7, 9]\n" + kFireBody);
  // Steps: conv (relu fused), relu, conv (relu fused), relu, concatenate.
  BOOST_TEST(roles_of(placed) == std::vector<int>({0, -2, 1, -2, -1}), boost::test_tools::per_element());
  BOOST_TEST(roles_of(plain) == std::vector<int>(5, -2), boost::test_tools::per_element());
  for (int threads : {1, 2}) {
    SessionOptions o;
    o.threads = threads;
    Session sp(placed, o), su(plain, o);
    for (uint64_t seed : {1, 20}) {  // a second run reuses the first one's buffers
      const TensorMap in = fire_inputs(seed);
      const Tensor y = sp.run(in).at("y");
      const TensorMap want = su.run(in);
      BOOST_TEST(same_bits(y, want.at("y")));
      BOOST_TEST(same_bits(slab(y, 1, 0, 5), want.at("e1")));
      BOOST_TEST(same_bits(slab(y, 1, 5, 6), want.at("e3")));
      BOOST_TEST(y.is_contiguous());
    }
    // The parts cost no storage of their own: the placed run allocates less.
    BOOST_TEST(sp.stats().peak_bytes < su.stats().peak_bytes);
  }
}

BOOST_AUTO_TEST_CASE(parts_from_any_kernel_along_an_inner_axis) {
  // Three parts along axis 2 of [1, 1, *, 4]: an add, a view (reshape takes no destination:
  // the concatenate copies it), and an integer multiply.
  const Program p = program_from(R"(
.input a : i32[1, 1, 2, 4]
.input b : i32[8]
.input c : i32[1, 1, 3, 4]
.output y : i32[1, 1, 7, 4]
    s = add a, a
    r = reshape b, shape=(1, 1, 2, 4)
    m = mul c, c
    y = concatenate s, r, m, axis=2
)");
  BOOST_TEST(roles_of(p) == std::vector<int>({0, 1, 2, -1}), boost::test_tools::per_element());
  const std::vector<double> a = {1, 2, 3, 4, 5, 6, 7, 8}, b = {-1, -2, -3, -4, -5, -6, -7, -8},
                            c = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  std::vector<double> want;
  for (double v : a) want.push_back(2 * v);
  want.insert(want.end(), b.begin(), b.end());
  for (double v : c) want.push_back(v * v);
  Session s(p, single_thread());
  for (int run = 0; run < 2; ++run) {
    const TensorMap out = s.run({{"a", make(DType::i32, {1, 1, 2, 4}, a)},
                                 {"b", make(DType::i32, {8}, b)},
                                 {"c", make(DType::i32, {1, 1, 3, 4}, c)}});
    check_values(out.at("y"), DType::i32, {1, 1, 7, 4}, want);
  }
}

BOOST_AUTO_TEST_CASE(nothing_is_placed_where_the_slices_or_the_values_forbid) {
  // A batch of 2 (the slices would be strided); the same part twice; a part that is an input
  // (so the other, a placeable one, is not placed either); a part computed before a jump
  // target; a dynamic result. (A part read again after the concatenate: see the next case.)
  const Program p = program_from(R"(
.input x : f32[2, 3]
.input v : f32[?, 3]
.input z : f32[1, 3]
.output y1 : f32[2, 6]
.output y3 : f32[1, 6]
.output y4 : f32[1, 6]
.output y5 : f32[1, 6]
.output y6 : f32[?, 6]
    a = add x, x
    b = mul x, x
    y1 = concatenate a, b, axis=1
    xr = strided_slice x, begin=(0, 0), end=(1, 3)
    d = abs xr
    y3 = concatenate d, d, axis=1
    e = exp xr
    y4 = concatenate z, e, axis=1
    f = relu xr
    jmp there
there:
    g = negative xr
    y5 = concatenate f, g, axis=1
    h = negative v
    i = abs v
    y6 = concatenate h, i, axis=1
)");
  for (int role : roles_of(p)) BOOST_TEST(role == -2);
  const TensorMap out = Session(p, single_thread()).run({{"x", make(DType::f32, {2, 3}, {1, -2, 3, -4, 5, -6})},
                                                         {"v", make(DType::f32, {1, 3}, {1, 2, 3})},
                                                         {"z", make(DType::f32, {1, 3}, {7, 8, 9})}});
  check_values(out.at("y1"), DType::f32, {2, 6}, {2, -4, 6, 1, 4, 9, -8, 10, -12, 16, 25, 36});
  check_values(out.at("y3"), DType::f32, {1, 6}, {1, 2, 3, 1, 2, 3});
  check_values(out.at("y5"), DType::f32, {1, 6}, {1, 0, 3, -1, 2, -3});
  check_values(out.at("y6"), DType::f32, {1, 6}, {-1, -2, -3, 1, 2, 3});
}

BOOST_AUTO_TEST_CASE(a_part_read_again_is_copied_and_the_others_are_placed) {
  // e1 is an output too, so it outlives the concatenate and stays where it is (the concatenate
  // copies it); e3 is still written into its slice. The twin declares both outputs.
  const Program placed = program_from(kFireHeader + ".output e1 : f32[1, 5, 7, 9]\n" + kFireBody);
  const Program plain = program_from(kFireHeader + ".output e1 : f32[1, 5, 7, 9]\n.output e3 : f32[1, 6, 7, 9]\n" + kFireBody);
  BOOST_TEST(roles_of(placed) == std::vector<int>({-2, -2, 1, -2, -1}), boost::test_tools::per_element());
  BOOST_TEST(roles_of(plain) == std::vector<int>(5, -2), boost::test_tools::per_element());
  for (int threads : {1, 2}) {
    SessionOptions o;
    o.threads = threads;
    Session sp(placed, o), su(plain, o);
    for (uint64_t seed : {3, 30}) {  // a second run reuses the first one's buffers
      const TensorMap in = fire_inputs(seed);
      const TensorMap got = sp.run(in), want = su.run(in);
      BOOST_TEST(same_bits(got.at("y"), want.at("y")));
      BOOST_TEST(same_bits(got.at("e1"), want.at("e1")));
      BOOST_TEST(same_bits(slab(got.at("y"), 1, 5, 6), want.at("e3")));
    }
  }
}

BOOST_AUTO_TEST_CASE(a_run_that_traps_between_the_parts_leaves_nothing_behind) {
  // The second part's integer division traps on a zero divisor after the first part has been
  // written into the concatenation; the next run starts clean.
  const Program p = program_from(R"(
.input a : i32[1, 3]
.input d : i32[1, 3]
.output y : i32[1, 6]
    s = add a, a
    q = div a, d
    y = concatenate s, q, axis=1
)");
  BOOST_TEST(roles_of(p) == std::vector<int>({0, 1, -1}), boost::test_tools::per_element());
  Session s(p, single_thread());
  const Tensor a = make(DType::i32, {1, 3}, {6, 8, 9});
  expect_error([&] { s.run({{"a", a}, {"d", make(DType::i32, {1, 3}, {1, 0, 3})}}); }, ErrorKind::trap,
               {"division by zero"}, "instruction 1");
  const TensorMap out = s.run({{"a", a}, {"d", make(DType::i32, {1, 3}, {2, 4, 3})}});
  check_values(out.at("y"), DType::i32, {1, 6}, {12, 16, 18, 3, 2, 3});
}

BOOST_AUTO_TEST_CASE(bound_output_with_an_offset_gets_strided_parts_in_their_places) {
  // The concatenation of a transposed (strided) input and a placed part, into host memory
  // that starts two floats into the host's buffer: each part at its slice of the destination.
  const Program p = program_from(R"(
.input x : f32[2, 2]
.output y : f32[1, 2, 4]
    t = transpose x, axes=(1, 0)
    r = reshape t, shape=(1, 2, 2)
    n = negative r
    y = concatenate r, n, axis=2
)");
  std::vector<float> host(10, 99.f);
  Session s(p, single_thread());
  s.bind_output("y", borrow_tensor<float>({1, 2, 4}, {8, 4, 1}, std::span<float>(host), 2, true));
  s.run({{"x", make(DType::f32, {2, 2}, {1, 2, 3, 4})}});
  BOOST_TEST(host == std::vector<float>({99, 99, 1, 3, -1, -3, 2, 4, -2, -4}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
