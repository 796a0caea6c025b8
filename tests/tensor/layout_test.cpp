// Reshape's view-or-copy decisions, the strided iteration planner's coalescing, and
// copy_into over strided / flipped / broadcast layouts.
#include <boost/test/unit_test.hpp>

#include "tensor/copy.hpp"
#include "tensor/error.hpp"
#include "tensor/strided_loop.hpp"
#include "tensor/test_reference.hpp"
#include "tensor/views.hpp"

namespace mlvm {
namespace {

namespace R = testref;
using V = std::vector<int64_t>;

// Reshapes `t` (whose reference is `r`) and checks values, the copy flag and the strides.
void check_reshape(const Tensor& t, const R::RefArray& r, V target, bool expect_copy,
                   const std::string& what, const Dims* expect_strides = nullptr) {
  bool copied = !expect_copy;
  Tensor y = reshape(t, target, &copied);
  BOOST_CHECK_MESSAGE(copied == expect_copy, what << ": copied=" << copied);
  BOOST_CHECK_EQUAL(y.storage() == t.storage(), !expect_copy);
  BOOST_CHECK_EQUAL(reshape_view(t, y.shape()).has_value(), !expect_copy);
  if (expect_copy) {
    BOOST_CHECK(y.is_contiguous());
    BOOST_CHECK_EQUAL(y.mode(), ValueMode::owned);
  }
  if (expect_strides)
    BOOST_CHECK_MESSAGE(y.strides() == *expect_strides,
                        what << ": strides " << dims_to_string(y.strides()) << " vs "
                             << dims_to_string(*expect_strides));
  R::equals(y, R::reshape(r, R::shape_of(y)), what);
}

BOOST_AUTO_TEST_SUITE(tensor_layout)

BOOST_AUTO_TEST_CASE(reshape_view_or_copy) {
  R::RefArray x = R::iota({2, 3, 4});
  Tensor t = R::to_tensor(x);
  // Contiguous: always a view.
  Dims s64{4, 1};
  check_reshape(t, x, {6, 4}, false, "contig [6,4]", &s64);
  check_reshape(t, x, {24}, false, "contig [24]");
  check_reshape(t, x, {4, 3, 2}, false, "contig [4,3,2]");
  check_reshape(t, x, {1, 2, 1, 12, 1}, false, "contig with 1s");
  // Transposed [4,3,2] with strides (1,4,12): merging any two dims needs a copy; splitting or
  // adding 1s does not.
  Tensor tt = transpose(t);
  R::RefArray rt = R::transpose(x, {});
  check_reshape(tt, rt, {24}, true, "transposed [24]");
  check_reshape(tt, rt, {4, 6}, true, "transposed [4,6]");
  Dims s_split{2, 1, 4, 12};
  check_reshape(tt, rt, {2, 2, 3, 2}, false, "transposed split", &s_split);
  check_reshape(tt, rt, {4, 1, 3, 2, 1}, false, "transposed add 1s");
  // Sliced: every other column of [4,6] is uniformly strided by 2.
  R::RefArray m = R::iota({4, 6});
  Tensor tm = R::to_tensor(m);
  Tensor every2 = strided_slice(tm, V{}, V{}, V{1, 2});
  R::RefArray r2 = R::strided_slice(m, {}, {}, {1, 2}, {});
  Dims s2{2};
  check_reshape(every2, r2, {12}, false, "x[:, ::2] -> [12]", &s2);
  Tensor left3 = strided_slice(tm, V{0, 0}, V{4, 3});
  R::RefArray r3 = R::strided_slice(m, {0, 0}, {4, 3}, {}, {});
  check_reshape(left3, r3, {12}, true, "x[:, :3] -> [12]");
  check_reshape(left3, r3, {2, 2, 3}, false, "x[:, :3] -> [2,2,3]");
  check_reshape(left3, r3, {4, 3, 1}, false, "x[:, :3] -> [4,3,1]");
  // Broadcast [a,1] -> [a,b] (strides {1,0}) needs a copy to flatten (docs/ops.md, "Views, read-only views and storage reuse"); [1,b] -> [a,b]
  // too; adding or moving size-1 dims does not.
  R::RefArray c = R::iota({3, 1});
  Tensor bc = broadcast_to(R::to_tensor(c), V{3, 4});
  R::RefArray rbc = R::broadcast_to(c, {3, 4});
  check_reshape(bc, rbc, {12}, true, "broadcast col -> [12]");
  check_reshape(bc, rbc, {3, 2, 2}, false, "broadcast col split the 0-stride dim");
  R::RefArray row = R::iota({1, 4});
  Tensor br = broadcast_to(R::to_tensor(row), V{3, 4});
  R::RefArray rbr = R::broadcast_to(row, {3, 4});
  check_reshape(br, rbr, {12}, true, "broadcast row -> [12]");
  check_reshape(br, rbr, {3, 1, 4}, false, "broadcast row -> [3,1,4]");
  // Flipped: negative strides stay a view.
  R::RefArray v = R::iota({6});
  Tensor fl = flip(R::to_tensor(v), 0);
  Dims sf{-3, -1};
  check_reshape(fl, R::flip(v, 0), {2, 3}, false, "flipped split", &sf);
  Tensor fl2 = flip(tm, 1);  // [4,6] strides (6,-1): rows reversed in place; flattening copies
  check_reshape(fl2, R::flip(m, 1), {24}, true, "row-flipped flatten");
  Tensor fl3 = flip(flip(tm, 1), 0);  // strides (-6,-1): uniformly -1, a view
  check_reshape(fl3, R::flip(R::flip(m, 1), 0), {24}, false, "fully flipped flatten");
  // Empty and constant: always views; a constant stays constant.
  R::RefArray e = R::iota({3, 0, 2});
  check_reshape(transpose(R::to_tensor(e)), R::transpose(e, {}), {0, 5}, false, "empty");
  Tensor z = zeros(DType::f32, Dims{3, 4});
  bool copied = true;
  Tensor zr = reshape(z, V{2, -1, 2}, &copied);
  BOOST_CHECK(!copied);
  BOOST_CHECK_EQUAL(zr.mode(), ValueMode::constant);
  BOOST_CHECK(zr.shape() == (Dims{2, 3, 2}));
  // A copy goes through the budget.
  auto budget = std::make_shared<MemoryBudget>(16);
  BOOST_CHECK_THROW(reshape(tt, V{24}, nullptr, budget), Error);
  try {
    reshape(tt, V{24}, nullptr, budget);
  } catch (const Error& err) {
    BOOST_CHECK_EQUAL(err.kind(), ErrorKind::limit);
  }
  BOOST_CHECK_EQUAL(budget->live(), 0);
}

// Plans one or two operands of f32 and checks the coalesced result.
struct PlanCase {
  Dims shape;
  Dims strides;
};

BOOST_AUTO_TEST_CASE(planner_coalescing) {
  const std::array<int64_t, 1> isz{4};
  auto plan1 = [&](const Dims& shape, const Dims& st, LoopOptions opt = {}) {
    return plan_strided_loop<1>(shape, std::array<const Dims*, 1>{&st}, isz, opt);
  };
  // Contiguous [2,3,4] -> one run of 24.
  auto L = plan1(Dims{2, 3, 4}, Dims{12, 4, 1});
  BOOST_CHECK_EQUAL(L.ndim, 1);
  BOOST_CHECK_EQUAL(L.shape[0], 24);
  BOOST_CHECK_EQUAL(L.byte_strides[0][0], 4);
  // Transposed [4,3,2] strides (1,4,12): reordered then coalesced into one run.
  L = plan1(Dims{4, 3, 2}, Dims{1, 4, 12});
  BOOST_CHECK_EQUAL(L.ndim, 1);
  BOOST_CHECK_EQUAL(L.shape[0], 24);
  // ... but kept in row-major order when reordering is off.
  L = plan1(Dims{4, 3, 2}, Dims{1, 4, 12}, LoopOptions{false, true});
  BOOST_CHECK_EQUAL(L.ndim, 3);
  BOOST_CHECK_EQUAL(L.byte_strides[0][0], 4);
  BOOST_CHECK_EQUAL(L.byte_strides[0][2], 48);
  // Flipped [6] stride -1: visited forwards from the last element when flips are allowed.
  L = plan1(Dims{6}, Dims{-1});
  BOOST_CHECK_EQUAL(L.ndim, 1);
  BOOST_CHECK_EQUAL(L.byte_strides[0][0], 4);
  BOOST_CHECK_EQUAL(L.byte_offset[0], -20);
  L = plan1(Dims{6}, Dims{-1}, LoopOptions{true, false});
  BOOST_CHECK_EQUAL(L.byte_strides[0][0], -4);
  BOOST_CHECK_EQUAL(L.byte_offset[0], 0);
  // Fully flipped [4,6] strides (-6,-1) coalesces into one forward run.
  L = plan1(Dims{4, 6}, Dims{-6, -1});
  BOOST_CHECK_EQUAL(L.ndim, 1);
  BOOST_CHECK_EQUAL(L.shape[0], 24);
  BOOST_CHECK_EQUAL(L.byte_offset[0], -92);
  // Sliced [4,3] strides (6,2) coalesce into one strided run; (6,1) cannot.
  L = plan1(Dims{4, 3}, Dims{6, 2});
  BOOST_CHECK_EQUAL(L.ndim, 1);
  BOOST_CHECK_EQUAL(L.byte_strides[0][0], 8);
  L = plan1(Dims{4, 3}, Dims{6, 1});
  BOOST_CHECK_EQUAL(L.ndim, 2);
  BOOST_CHECK_EQUAL(L.inner_count(), 3);
  BOOST_CHECK_EQUAL(L.outer_count(), 4);
  // Size-1 dims vanish; all-ones is a single element; a 0 dim is empty.
  L = plan1(Dims{1, 5, 1}, Dims{99, 1, 7});
  BOOST_CHECK_EQUAL(L.ndim, 1);
  BOOST_CHECK_EQUAL(L.shape[0], 5);
  L = plan1(Dims{1, 1}, Dims{3, 3});
  BOOST_CHECK_EQUAL(L.ndim, 0);
  BOOST_CHECK_EQUAL(L.inner_count(), 1);
  BOOST_CHECK(plan1(Dims{3, 0, 2}, Dims{0, 2, 1}).empty);
  // Two operands: contiguous output, broadcast input (strides (0,1)) cannot coalesce.
  Dims out_st{4, 1}, in_st{0, 1};
  auto L2 = plan_strided_loop<2>(Dims{3, 4}, std::array<const Dims*, 2>{&out_st, &in_st}, {4, 4});
  BOOST_CHECK_EQUAL(L2.ndim, 2);
  BOOST_CHECK_EQUAL(L2.byte_strides[1][0], 0);
  // Mixed signs on a dim: no flip.
  Dims a_st{-1}, b_st{1};
  L2 = plan_strided_loop<2>(Dims{5}, std::array<const Dims*, 2>{&a_st, &b_st}, {4, 4});
  BOOST_CHECK_EQUAL(L2.byte_strides[0][0], -4);
  BOOST_CHECK_EQUAL(L2.byte_offset[0], 0);
}

BOOST_AUTO_TEST_CASE(runs_visit_every_element_once) {
  // Walk a transposed, flipped, sliced f64 view and collect values; compare as a multiset with
  // the reference (the planner may reorder) and check the run split is seamless.
  R::RefArray x = R::iota({5, 6, 7});
  Tensor t = R::to_tensor(x);
  Tensor v = flip(transpose(strided_slice(t, V{1, -1}, V{5, 0}, V{2, -2}), V{2, 0, 1}), 1);
  R::RefArray r =
      R::flip(R::transpose(R::strided_slice(x, {1, -1}, {5, 0}, {2, -2}, {}), {2, 0, 1}), 1);
  auto L = plan_strided_loop<1>(v.shape(), std::array<const Tensor*, 1>{&v});
  auto collect = [&](int64_t a, int64_t b) {
    std::vector<double> got;
    for_each_run(L, {v.raw_data()}, a, b, [&](auto p, int64_t n, auto st) {
      for (int64_t k = 0; k < n; ++k)
        got.push_back(*reinterpret_cast<const double*>(p[0] + k * st[0]));
    });
    return got;
  };
  std::vector<double> all = collect(0, L.outer_count());
  std::vector<double> first = collect(0, L.outer_count() / 3),
                      rest = collect(L.outer_count() / 3, L.outer_count());
  first.insert(first.end(), rest.begin(), rest.end());
  BOOST_CHECK(first == all);
  std::vector<double> want = r.v;
  std::sort(all.begin(), all.end());
  std::sort(want.begin(), want.end());
  BOOST_CHECK(all == want);
}

BOOST_AUTO_TEST_CASE(copy_into_strided_flipped_broadcast) {
  for (DType dt : {DType::f32, DType::f64, DType::i8, DType::i16, DType::i64, DType::boolean}) {
    R::RefArray x = R::iota({4, 1, 6}, 1, 0);
    if (dt == DType::boolean)
      for (auto& e : x.v) e = double(int64_t(e) % 2);
    if (dt == DType::i8)
      for (auto& e : x.v) e = double(int64_t(e) % 100 - 50);
    Tensor t = R::to_tensor(x, dt);
    struct Case {
      Tensor src;
      R::RefArray ref;
      const char* what;
    };
    std::vector<Case> cases;
    cases.push_back({transpose(t), R::transpose(x, {}), "transposed"});
    cases.push_back({flip(flip(t, 0), 2), R::flip(R::flip(x, 0), 2), "flipped"});
    cases.push_back(
        {broadcast_to(t, V{2, 4, 3, 6}), R::broadcast_to(x, {2, 4, 3, 6}), "broadcast"});
    cases.push_back({strided_slice(t, V{3, 0, 5}, V{0, 1, 0}, V{-2, 1, -3}),
                     R::strided_slice(x, {3, 0, 5}, {0, 1, 0}, {-2, 1, -3}, {}), "sliced"});
    cases.push_back({full(dt, Dims{3, 2}, Scalar::from_int(1)),
                     R::RefArray{{3, 2}, {1, 1, 1, 1, 1, 1}}, "constant"});
    for (auto& c : cases) {
      Tensor dst = Tensor::empty(dt, c.src.shape());
      copy_into(c.src, dst);
      R::equals(dst, c.ref, std::string(c.what) + " " + std::string(dtype_name(dt)));
      // Into a strided (transposed, flipped) destination as well.
      Tensor big = Tensor::empty(dt, transpose_shape(c.src.shape(), {}));
      Tensor dst2 = flip(transpose(big), 0);
      copy_into(c.src, dst2);
      R::equals(dst2, c.ref, std::string(c.what) + " into strided " + std::string(dtype_name(dt)));
    }
  }
  Tensor a = Tensor::empty(DType::f32, Dims{2, 3}), b = Tensor::empty(DType::f32, Dims{3, 2});
  BOOST_CHECK_THROW(copy_into(a, b), Error);
  BOOST_CHECK_THROW(copy_into(a, Tensor::empty(DType::f64, Dims{2, 3})), Error);
  BOOST_CHECK_THROW(copy_into(a, zeros(DType::f32, Dims{2, 3})), Error);
  // Empty copies are fine.
  copy_into(Tensor::empty(DType::f32, Dims{0, 3}), Tensor::empty(DType::f32, Dims{0, 3}));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace mlvm
