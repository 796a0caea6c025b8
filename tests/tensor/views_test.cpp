// Every view against the index-by-index reference (test_reference.hpp): single ops, the
// seed's test-shape grid, chains, random chains, empty / size-1 / rank-8 shapes, errors, and
// a >1 GiB-element view chain over one stored element.
#include "tensor/views.hpp"

#include <boost/test/unit_test.hpp>
#include <random>

#include "common/checks.hpp"
#include "common/shape_grid.hpp"
#include "tensor/copy.hpp"
#include "tensor/error.hpp"
#include "tensor/test_reference.hpp"

namespace mlvm {
namespace {

namespace R = testref;
using V = std::vector<int64_t>;

using testing::expect_error;

BOOST_AUTO_TEST_SUITE(tensor_views)

BOOST_AUTO_TEST_CASE(seed_grid_single_ops) {
  // The CVM shape grid with the view ops' interior points.
  for (const Dims& d : testing::cvm_shape_grid(
           {Dims{1, 40, 35, 47}, Dims{1, 14, 69, 24}, Dims{1, 79, 18, 70}})) {
    const V s(d.begin(), d.end());
    R::RefArray x = R::iota(s, 0.5, -7);
    Tensor t = R::to_tensor(x);
    const std::string tag = dims_to_string(Dims(std::span<const int64_t>(s)));
    R::equals(transpose(t), R::transpose(x, {}), "transpose () " + tag);
    R::equals(transpose(t, V{0, 2, 3, 1}), R::transpose(x, {0, 2, 3, 1}),
              "transpose (0,2,3,1) " + tag);
    R::equals(transpose(t, V{-1, 0, -2, 1}), R::transpose(x, {-1, 0, -2, 1}),
              "transpose (-1,0,-2,1) " + tag);
    bool copied = true;
    R::equals(reshape(t, V{s[3], s[2], s[1], s[0]}, &copied),
              R::reshape(x, {s[3], s[2], s[1], s[0]}), "reshape (r,l,j,i) " + tag);
    BOOST_CHECK(!copied);
    R::equals(expand_dims(t, 2), R::expand_dims(x, 2, 1), "expand_dims 2 " + tag);
    R::equals(expand_dims(t, -1, 3), R::expand_dims(x, -1, 3), "expand_dims -1 x3 " + tag);
    R::equals(squeeze(t), R::squeeze(x, {}), "squeeze () " + tag);
    R::equals(squeeze(t, V{0}), R::squeeze(x, {0}), "squeeze (0) " + tag);
    R::equals(flatten(t), R::reshape(x, {x.numel()}), "flatten " + tag);
    R::equals(strided_slice(t, V{0, 1, -5, 10}, V{1, 90, 0, -1}, V{1, 3, -2, 4}),
              R::strided_slice(x, {0, 1, -5, 10}, {1, 90, 0, -1}, {1, 3, -2, 4}, {}),
              "strided_slice " + tag);
    R::equals(strided_slice(t, V{-1}, V{-1000}, V{-7}, V{3}),
              R::strided_slice(x, {-1}, {-1000}, {-7}, {3}), "strided_slice axes=(3) " + tag);
    V like{1, (s[1] + 1) / 2, s[2], 1};
    R::equals(slice_like(t, Dims(std::span<const int64_t>(like)), V{0, 1}),
              R::slice_like(x, like, {0, 1}), "slice_like (0,1) " + tag);
    R::equals(flip(t, 2), R::flip(x, 2), "flip 2 " + tag);
    R::equals(rot90(t, 1, V{1, 3}), R::rot90(x, 1, 1, 3), "rot90 " + tag);
  }
}

BOOST_AUTO_TEST_CASE(hand_computed_values) {
  // rot90 of [[1, 2], [3, 4]] is [[2, 4], [1, 3]] (NumPy).
  R::RefArray m{{2, 2}, {1, 2, 3, 4}};
  Tensor t = R::to_tensor(m);
  BOOST_CHECK(R::equals(rot90(t), R::RefArray{{2, 2}, {2, 4, 1, 3}}, "rot90 k=1"));
  BOOST_CHECK(R::equals(rot90(t, 2), R::RefArray{{2, 2}, {4, 3, 2, 1}}, "rot90 k=2"));
  BOOST_CHECK(R::equals(rot90(t, -1), R::RefArray{{2, 2}, {3, 1, 4, 2}}, "rot90 k=-1"));
  BOOST_CHECK(R::equals(rot90(t, 7), R::RefArray{{2, 2}, {3, 1, 4, 2}}, "rot90 k=7"));
  BOOST_CHECK(
      R::equals(rot90(t, 1, V{1, 0}), R::RefArray{{2, 2}, {3, 1, 4, 2}}, "rot90 axes (1,0)"));
  BOOST_CHECK(R::equals(rot90(t, 4), m, "rot90 k=4"));
  // Transpose of [[1,2,3],[4,5,6]].
  Tensor a = R::to_tensor(R::RefArray{{2, 3}, {1, 2, 3, 4, 5, 6}});
  BOOST_CHECK(R::equals(transpose(a), R::RefArray{{3, 2}, {1, 4, 2, 5, 3, 6}}, "transpose"));
  // NumPy slicing of arange(10).
  Tensor r = R::to_tensor(R::iota({10}));
  auto sl = [&](V b, V e, V s) { return strided_slice(r, b, e, s); };
  BOOST_CHECK(
      R::equals(sl({}, {}, {-1}), R::RefArray{{10}, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}}, "[::-1]"));
  BOOST_CHECK(R::equals(sl({8}, {2}, {-2}), R::RefArray{{3}, {8, 6, 4}}, "[8:2:-2]"));
  BOOST_CHECK(R::equals(sl({-100}, {100}, {}), R::iota({10}), "[-100:100]"));
  BOOST_CHECK(
      R::equals(sl({5}, {-100}, {-1}), R::RefArray{{6}, {5, 4, 3, 2, 1, 0}}, "[5:-100:-1]"));
  BOOST_CHECK(R::equals(sl({100}, {-100}, {-3}), R::RefArray{{4}, {9, 6, 3, 0}}, "[100:-100:-3]"));
  BOOST_CHECK(R::equals(sl({-3}, {}, {}), R::RefArray{{3}, {7, 8, 9}}, "[-3:]"));
  BOOST_CHECK(R::equals(sl({3}, {3}, {}), R::RefArray{{0}, {}}, "[3:3]"));
  BOOST_CHECK(R::equals(sl({2}, {5}, {-1}), R::RefArray{{0}, {}}, "[2:5:-1]"));
  BOOST_CHECK(R::equals(sl({0}, {10}, {INT64_MAX}), R::RefArray{{1}, {0}}, "[0:10:huge]"));
  BOOST_CHECK(R::equals(sl({9}, {-11}, {INT64_MIN}), R::RefArray{{1}, {9}}, "[9:-11:-huge]"));
  BOOST_CHECK(R::equals(sl({-1}, {-11}, {-1}), R::RefArray{{10}, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}},
                        "[-1:-11:-1]"));
  BOOST_CHECK(
      R::equals(sl({INT64_MIN}, {INT64_MAX}, {3}), R::RefArray{{4}, {0, 3, 6, 9}}, "[min:max:3]"));
  // broadcast_to: [a,1] -> [a,b] has strides {1, 0} (docs/ops.md, "Views, read-only views and storage reuse").
  Tensor col = R::to_tensor(R::iota({3, 1}));
  Tensor b = broadcast_to(col, V{3, 4});
  BOOST_CHECK(b.strides() == (Dims{1, 0}));
  BOOST_CHECK(!b.is_writable());
  BOOST_CHECK_EQUAL(b.mode(), ValueMode::view);
  // squeeze of all-ones gives [1].
  Tensor ones3 = R::to_tensor(R::iota({1, 1, 1}));
  BOOST_CHECK(squeeze(ones3).shape() == Dims{1});
}

BOOST_AUTO_TEST_CASE(chain_transpose_of_flipped_slice_of_broadcast) {
  R::RefArray x = R::iota({3, 1, 4});
  Tensor t = R::to_tensor(x);
  // Start from a transposed base so strides are not C order.
  R::RefArray rx = R::transpose(x, {2, 0, 1});
  Tensor tx = transpose(t, V{2, 0, 1});
  R::RefArray r = R::broadcast_to(rx, {2, 4, 3, 5});
  Tensor v = broadcast_to(tx, V{2, 4, 3, 5});
  r = R::strided_slice(r, {1, 3, 0, -1}, {2, 0, 3, 0}, {1, -1, 2, -2}, {});
  v = strided_slice(v, V{1, 3, 0, -1}, V{2, 0, 3, 0}, V{1, -1, 2, -2});
  r = R::flip(r, 2);
  v = flip(v, 2);
  r = R::transpose(r, {3, 1, 0, 2});
  v = transpose(v, V{3, 1, 0, 2});
  BOOST_CHECK(R::equals(v, r, "chain"));
  BOOST_CHECK(v.storage() == t.storage());
  BOOST_CHECK_EQUAL(v.mode(), ValueMode::view);
  // Materialized copy agrees too.
  Tensor c = clone(v);
  BOOST_CHECK(c.is_contiguous());
  BOOST_CHECK(R::equals(c, r, "chain clone"));
}

// Random chains of random views (each validated against the reference after every step).
BOOST_AUTO_TEST_CASE(random_chains) {
  std::mt19937_64 rng(12345);
  auto rnd = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  int views = 0, copies = 0;
  for (int chain = 0; chain < 400; ++chain) {
    V shape;
    int rank = int(rnd(1, 4));
    for (int i = 0; i < rank; ++i) shape.push_back(rnd(0, 9) == 0 ? 0 : rnd(1, 5));
    R::RefArray r = R::iota(shape, 1, -3);
    Tensor t = R::to_tensor(r, rnd(0, 1) ? DType::f64 : DType::i32);
    std::string log = dims_to_string(t.shape());
    for (int step = 0; step < 7; ++step) {
      int n = t.rank();
      int op = int(rnd(0, 9));
      if (op == 0) {
        V perm(n);
        for (int i = 0; i < n; ++i) perm[i] = i;
        std::shuffle(perm.begin(), perm.end(), rng);
        t = transpose(t, perm), r = R::transpose(r, perm);
        log += " transpose";
      } else if (op == 1) {
        int64_t a = rnd(-n, n - 1);
        t = flip(t, a), r = R::flip(r, a);
        log += " flip" + std::to_string(a);
      } else if (op == 2) {
        V b, e, s;
        for (int i = 0; i < n; ++i) {
          b.push_back(rnd(-7, 7));
          e.push_back(rnd(-7, 7));
          int64_t st = rnd(-3, 3);
          s.push_back(st == 0 ? 1 : st);
        }
        t = strided_slice(t, b, e, s), r = R::strided_slice(r, b, e, s, {});
        log += " slice";
      } else if (op == 3 && n < kMaxRank) {
        int64_t a = rnd(-n - 1, n);
        t = expand_dims(t, a), r = R::expand_dims(r, a, 1);
        log += " expand" + std::to_string(a);
      } else if (op == 4) {
        t = squeeze(t), r = R::squeeze(r, {});
        log += " squeeze";
      } else if (op == 5) {
        V target;
        int extra = int(rnd(0, std::min(2, kMaxRank - n)));
        for (int i = 0; i < extra; ++i) target.push_back(rnd(1, 3));
        for (int i = 0; i < n; ++i) target.push_back(t.dim(i) == 1 ? rnd(0, 3) : t.dim(i));
        t = broadcast_to(t, target), r = R::broadcast_to(r, target);
        log += " broadcast";
      } else if (op == 6 || op == 7) {
        // Reshape to a random factorization of numel (or a random permutation of dims).
        int64_t numel = t.numel();
        V target;
        if (numel == 0) {
          target = {0, rnd(1, 3)};
        } else {
          int64_t rest = numel;
          while (rest > 1 && int(target.size()) < 5) {
            int64_t f = rnd(2, 6);
            if (rest % f == 0)
              target.push_back(f), rest /= f;
            else if (rnd(0, 3) == 0)
              target.push_back(rest), rest = 1;
          }
          if (rest > 1 || target.empty()) target.push_back(rest);
          std::shuffle(target.begin(), target.end(), rng);
          if (rnd(0, 1)) target[rnd(0, int64_t(target.size()) - 1)] = -1;
        }
        bool copied = false;
        int64_t known = 1;
        for (int64_t q : target)
          if (q != -1) known *= q;
        V resolved = target;
        for (auto& d : resolved)
          if (d == -1) d = numel / known;
        Tensor before = t;
        t = reshape(t, target, &copied), r = R::reshape(r, resolved);
        (copied ? copies : views) += 1;
        BOOST_CHECK_EQUAL(copied, t.storage() != before.storage());
        log += copied ? " reshape(copy)" : " reshape(view)";
      } else if (op == 8 && n >= 2) {
        int64_t k = rnd(-5, 5), a0 = rnd(0, n - 1), a1 = rnd(0, n - 2);
        if (a1 >= a0) ++a1;
        t = rot90(t, k, V{a0, a1}), r = R::rot90(r, k, a0, a1);
        log += " rot90";
      } else if (op == 9) {
        V like;
        for (int i = 0; i < n; ++i) like.push_back(rnd(0, t.dim(i)));
        t = slice_like(t, Dims(std::span<const int64_t>(like))), r = R::slice_like(r, like, {});
        log += " slice_like";
      }
      if (!R::equals(t, r, log)) break;
    }
  }
  BOOST_TEST_MESSAGE("reshape views " << views << ", copies " << copies);
  BOOST_CHECK_GT(views, 50);
  BOOST_CHECK_GT(copies, 20);
}

BOOST_AUTO_TEST_CASE(empty_size1_rank8) {
  // Empty.
  R::RefArray e = R::iota({3, 0, 2});
  Tensor te = R::to_tensor(e);
  BOOST_CHECK(R::equals(transpose(te), R::transpose(e, {}), "empty transpose"));
  BOOST_CHECK(R::equals(flip(te, 1), R::flip(e, 1), "empty flip"));
  BOOST_CHECK(R::equals(reshape(te, V{0, 6}), R::reshape(e, {0, 6}), "empty reshape"));
  BOOST_CHECK(R::equals(flatten(te), R::reshape(e, {0}), "empty flatten"));
  BOOST_CHECK(R::equals(strided_slice(te, V{1, 0, -1}, V{3, 0, -3}, V{1, 1, -1}),
                        R::strided_slice(e, {1, 0, -1}, {3, 0, -3}, {1, 1, -1}, {}),
                        "empty slice"));
  R::RefArray one = R::iota({1, 1});
  BOOST_CHECK(R::equals(broadcast_to(R::to_tensor(one), V{4, 0, 1}),
                        R::broadcast_to(one, {4, 0, 1}), "1 -> 0 broadcast"));
  // Size 1 everywhere.
  BOOST_CHECK(R::equals(rot90(R::to_tensor(one), 3), R::rot90(one, 3), "size-1 rot90"));
  BOOST_CHECK(
      R::equals(expand_dims(R::to_tensor(one), 0, 6), R::expand_dims(one, 0, 6), "to rank 8"));
  // Rank 8.
  V s8{2, 1, 2, 3, 1, 2, 2, 1};
  R::RefArray x = R::iota(s8);
  Tensor t = R::to_tensor(x);
  BOOST_CHECK(R::equals(transpose(t), R::transpose(x, {}), "rank-8 transpose"));
  BOOST_CHECK(R::equals(transpose(t, V{7, 1, 3, 0, 6, 2, 5, 4}),
                        R::transpose(x, {7, 1, 3, 0, 6, 2, 5, 4}), "rank-8 permute"));
  BOOST_CHECK(R::equals(squeeze(t), R::squeeze(x, {}), "rank-8 squeeze"));
  BOOST_CHECK(R::equals(flip(flip(t, 3), -2), R::flip(R::flip(x, 3), -2), "rank-8 flips"));
  BOOST_CHECK(R::equals(rot90(t, 1, V{3, 6}), R::rot90(x, 1, 3, 6), "rank-8 rot90"));
  BOOST_CHECK(R::equals(reshape(transpose(t), V{6, -1, 2}),
                        R::reshape(R::transpose(x, {}), {6, 4, 2}), "rank-8 reshape of transpose"));
  BOOST_CHECK(R::equals(strided_slice(t, V{1, -1}, V{-3, 0}, V{-1, -1}, V{3, 6}),
                        R::strided_slice(x, {1, -1}, {-3, 0}, {-1, -1}, {3, 6}),
                        "rank-8 slice axes"));
  // broadcast_to at rank 8: size-1 dims stretched, and a lower-rank input prefixed with 1s.
  V b8{2, 3, 2, 3, 4, 2, 2, 5};
  BOOST_CHECK(R::equals(broadcast_to(t, b8), R::broadcast_to(x, b8), "rank-8 broadcast_to"));
  Tensor bt = broadcast_to(transpose(t, V{7, 1, 3, 0, 6, 2, 5, 4}), V{1, 3, 3, 2, 2, 2, 2, 4});
  BOOST_CHECK(R::equals(bt,
                        R::broadcast_to(R::transpose(x, {7, 1, 3, 0, 6, 2, 5, 4}),
                                        {1, 3, 3, 2, 2, 2, 2, 4}),
                        "rank-8 broadcast_to of a permutation"));
  R::RefArray low = R::iota({3, 1, 2}, 2, -5);
  V b8_low{2, 1, 2, 2, 1, 3, 4, 2};
  BOOST_CHECK(R::equals(broadcast_to(R::to_tensor(low), b8_low), R::broadcast_to(low, b8_low),
                        "rank 3 -> 8 broadcast_to"));
  const V b8_bad{2, 1, 3, 3, 1, 2, 2, 1};
  expect_error([&] { broadcast_to(t, b8_bad); }, ErrorKind::invalid, "broadcast");
  // slice_like at rank 8: a like of rank 8, a shorter like (leading dims) and named axes.
  const Dims like8{1, 1, 2, 2, 1, 1, 2, 1};
  BOOST_CHECK(R::equals(slice_like(t, like8), R::slice_like(x, V(like8.begin(), like8.end()), {}),
                        "rank-8 slice_like"));
  BOOST_CHECK(R::equals(slice_like(t, Dims{1, 1, 1}), R::slice_like(x, {1, 1, 1}, {}),
                        "rank-8 slice_like of leading dims"));
  const Dims like_axes{9, 9, 9, 1, 9, 1, 9, 9};
  const V like_axes_ref(like_axes.begin(), like_axes.end());
  BOOST_CHECK(R::equals(slice_like(flip(t, 3), like_axes, V{3, -3}),
                        R::slice_like(R::flip(x, 3), like_axes_ref, {3, -3}),
                        "rank-8 slice_like on axes"));
  expect_error([&] { slice_like(t, Dims{3}); }, ErrorKind::invalid, "slice_like");
  // flatten at rank 8: a view when contiguous, a copy of a permutation or a broadcast.
  bool copied = true;
  Tensor ft = flatten(t, &copied);
  BOOST_CHECK(!copied);
  BOOST_CHECK(ft.storage() == t.storage());
  BOOST_CHECK(R::equals(ft, R::reshape(x, {48}), "rank-8 flatten"));
  Tensor fp = flatten(transpose(t, V{7, 1, 3, 0, 6, 2, 5, 4}), &copied);
  BOOST_CHECK(copied);
  BOOST_CHECK(R::equals(fp, R::reshape(R::transpose(x, {7, 1, 3, 0, 6, 2, 5, 4}), {48}),
                        "rank-8 flatten of a permutation"));
  BOOST_CHECK(R::equals(flatten(broadcast_to(t, b8)), R::reshape(R::broadcast_to(x, b8), {2880}),
                        "rank-8 flatten of a broadcast"));
  BOOST_CHECK(R::equals(flatten(flip(squeeze(t, V{1, 4, 7}), 2)),
                        R::reshape(R::flip(R::squeeze(x, {1, 4, 7}), 2), {48}),
                        "flatten of a flipped squeeze"));
  R::RefArray e8 = R::iota({2, 1, 2, 0, 1, 2, 2, 1});
  BOOST_CHECK(R::equals(flatten(R::to_tensor(e8)), R::reshape(e8, {0}), "empty rank-8 flatten"));
  expect_error([&] { expand_dims(t, 0); }, ErrorKind::invalid, "result rank 9");
}

BOOST_AUTO_TEST_CASE(huge_constant_chain_allocates_one_element) {
  auto budget = std::make_shared<MemoryBudget>();
  Tensor c = full(DType::f32, Dims{1}, Scalar::from_float(2.5));
  BOOST_CHECK_EQUAL(c.mode(), ValueMode::constant);
  BOOST_CHECK_EQUAL(c.storage()->bytes(), 4);
  Tensor b = broadcast_to(c, V{65536, 32768});  // 2^31 elements, 8 GiB if dense
  Tensor t = transpose(b);
  Tensor s = strided_slice(t, V{5, -1}, V{-5, 0}, V{3, -2});
  Tensor f = flip(s, 0);
  Tensor r = reshape(f, V{-1}, nullptr, budget);
  BOOST_CHECK_EQUAL(b.numel(), int64_t(1) << 31);
  BOOST_CHECK(f.shape() == (Dims{10920, 32768}));
  for (const Tensor* v : {&b, &t, &s, &f, &r}) {
    BOOST_CHECK_EQUAL(v->mode(), ValueMode::constant);
    BOOST_CHECK_EQUAL(v->storage()->bytes(), 4);
    BOOST_CHECK(v->storage() == c.storage());
    BOOST_CHECK(!v->is_writable());
  }
  BOOST_CHECK_EQUAL(budget->peak(), 0);
  const int64_t idx[2] = {123, 4567};
  BOOST_CHECK_EQUAL(f.get_double(idx), 2.5);
  expect_error([&] { f.check_writable("out"); }, ErrorKind::invalid, "read-only");
  // Also from a one-element owned tensor (mode view, not constant).
  Tensor one = R::to_tensor(R::RefArray{{1}, {7}});
  Tensor big = flip(transpose(broadcast_to(one, V{65536, 32768})), 1);
  BOOST_CHECK_EQUAL(big.mode(), ValueMode::view);
  BOOST_CHECK_EQUAL(big.storage()->bytes(), 8);
}

BOOST_AUTO_TEST_CASE(constants) {
  for (DType dt : {DType::f32, DType::f64, DType::i8, DType::u8, DType::i16, DType::i32, DType::i64,
                   DType::boolean}) {
    Tensor z = zeros(dt, Dims{2, 3}), o = ones(dt, Dims{4}),
           f = full(dt, Dims{3, 0}, Scalar::from_int(1));
    BOOST_CHECK_EQUAL(z.mode(), ValueMode::constant);
    BOOST_CHECK(z.strides() == (Dims{0, 0}));
    BOOST_CHECK_EQUAL(z.storage()->bytes(), int64_t(dtype_size(dt)));
    const int64_t i12[2] = {1, 2}, i3[1] = {3};
    BOOST_CHECK_EQUAL(z.get_double(i12), 0.0);
    BOOST_CHECK_EQUAL(o.get_double(i3), 1.0);
    BOOST_CHECK_EQUAL(f.numel(), 0);
  }
  Tensor m = full(DType::i8, Dims{2}, Scalar::from_int(-128));
  const int64_t i1[1] = {1};
  BOOST_CHECK_EQUAL(m.get_int(i1), -128);
  const int64_t i0[1] = {0};
  BOOST_CHECK_EQUAL(full(DType::i32, Dims{1}, Scalar::from_float(-3.0)).get_int(i0), -3);
  expect_error([] { full(DType::i8, Dims{2}, Scalar::from_int(128)); }, ErrorKind::invalid,
               "full: value 128 is not representable in i8");
  expect_error([] { full(DType::i32, Dims{2}, Scalar::from_float(2.5)); }, ErrorKind::invalid,
               "not representable in i32");
  expect_error([] { full(DType::boolean, Dims{2}, Scalar::from_int(2)); }, ErrorKind::invalid,
               "not representable in bool");
  expect_error([] { zeros(DType::f32, Dims{2, -1}); }, ErrorKind::invalid, "negative dim");
  expect_error([] { ones(DType::f32, Dims{}); }, ErrorKind::invalid, "rank 0");
  expect_error([] { zeros(DType::f32, Dims{INT64_MAX, 3}); }, ErrorKind::invalid, "more elements");
  // Views of a constant stay constant.
  Tensor z = zeros(DType::f32, Dims{2, 3});
  BOOST_CHECK_EQUAL(transpose(z).mode(), ValueMode::constant);
  BOOST_CHECK_EQUAL(strided_slice(z, V{1}, V{2}).mode(), ValueMode::constant);
  bool copied = true;
  BOOST_CHECK_EQUAL(reshape(z, V{3, 2}, &copied).mode(), ValueMode::constant);
  BOOST_CHECK(!copied);
}

BOOST_AUTO_TEST_CASE(writability) {
  Tensor t = R::to_tensor(R::iota({3, 1}));
  BOOST_CHECK(t.is_writable());
  BOOST_CHECK(transpose(t).is_writable());
  BOOST_CHECK(flip(t, 0).is_writable());
  BOOST_CHECK(expand_dims(t, 0).is_writable());
  Tensor b = broadcast_to(t, V{3, 5});
  BOOST_CHECK(!b.is_writable());
  expect_error([&] { b.check_writable("destination"); }, ErrorKind::invalid, "read-only");
  expect_error(
      [&] {
        copy_into(R::to_tensor(R::iota({3, 5})), b);
      },
      ErrorKind::invalid, "read-only");
  // A broadcast dim of size 1 (stride 0, size 1) is still writable.
  BOOST_CHECK(broadcast_to(t, V{1, 3, 1}).is_writable());
  // Slicing a broadcast view down to one column makes it writable again only if no stride-0
  // dim of size > 1 remains.
  BOOST_CHECK(strided_slice(b, V{0, 0}, V{3, 1}).is_writable());
  BOOST_CHECK(!strided_slice(b, V{0, 0}, V{3, 2}).is_writable());
}

BOOST_AUTO_TEST_CASE(errors) {
  Tensor t = R::to_tensor(R::iota({2, 3}));
  const ErrorKind inv = ErrorKind::invalid;
  expect_error([&] { transpose(t, V{0}); }, inv,
               "transpose: axes (0) has 1 entries but x has rank 2");
  expect_error([&] { transpose(t, V{0, 0}); }, inv, "transpose: axis 0 is repeated");
  expect_error([&] { transpose(t, V{0, 2}); }, inv, "transpose: axis 2 is out of range for rank 2");
  expect_error(
      [&] {
        broadcast_to(t, V{4, 3});
      },
      inv, "broadcast_to: cannot broadcast f64[2, 3] to [4, 3] (dim 0: 2 vs 4");
  expect_error([&] { broadcast_to(t, V{3}); }, inv, "target rank 1 is smaller than 2");
  expect_error([&] { broadcast_to(t, V{2, -3}); }, inv, "negative dim");
  expect_error(
      [&] {
        broadcast_to(t, V{1, 3, 3}, ErrorKind::trap);
      },
      ErrorKind::trap, "dim 1: 2 vs 3");
  expect_error([&] { expand_dims(t, 4); }, inv,
               "expand_dims: axis 4 is out of range for rank 2 (expected -3 to 2)");
  expect_error([&] { expand_dims(t, -4); }, inv, "expand_dims: axis -4 is out of range");
  expect_error([&] { expand_dims(t, 0, 9); }, inv, "num_newaxis 9 is out of range");
  expect_error([&] { squeeze(t, V{1}); }, inv, "squeeze: dim 1 has size 3, not 1");
  expect_error([&] { squeeze(t, V{1}, ErrorKind::trap); }, ErrorKind::trap,
               "squeeze: dim 1 has size 3, not 1");
  expect_error([&] { squeeze(t, V{5}); }, inv, "squeeze: axis 5 is out of range");
  expect_error(
      [&] {
        reshape(t, V{4, 2});
      },
      inv, "reshape: cannot reshape f64[2, 3] (6 elements) to [4, 2] (8 elements)");
  expect_error([&] { reshape(t, V{-1, 4}); }, inv, "6 is not a multiple of 4");
  expect_error([&] { reshape(t, V{-1, -1}); }, inv, "more than one -1");
  expect_error([&] { reshape(t, V{2, -3}); }, inv, "is -3; expected >= 0 or a single -1");
  expect_error([&] { reshape(t, V{}); }, inv, "rank 0");
  expect_error([&] { reshape(t, V{1, 1, 1, 1, 1, 1, 1, 2, 3}); }, inv, "rank 9");
  expect_error(
      [&] {
        reshape(R::to_tensor(R::iota({0, 3})), V{-1, 0});
      },
      inv, "cannot infer the -1");
  expect_error([&] { strided_slice(t, V{0}, V{2}, V{0}); }, inv, "step of 0 for dim 0");
  expect_error([&] { strided_slice(t, V{0, 0, 0}, V{}, V{}); }, inv, "but x has rank 2");
  expect_error(
      [&] {
        strided_slice(t, V{0, 0}, V{1, 1}, V{}, V{1});
      },
      inv, "at most one entry per axis");
  expect_error([&] { strided_slice(t, V{0}, V{1}, V{}, V{2}); }, inv,
               "strided_slice: axis 2 is out of range");
  expect_error([&] { strided_slice(t, V{0, 0}, V{1, 1}, V{}, V{1, -1}); }, inv, "repeated");
  expect_error(
      [&] {
        slice_like(t, Dims{3, 3});
      },
      inv, "slice_like: like [3, 3] has 3 in dim 0 but x f64[2, 3] has only 2");
  expect_error([&] { slice_like(t, Dims{1, 1, 1}); }, inv, "has rank 3");
  expect_error([&] { slice_like(t, Dims{1}, V{1}); }, inv, "does not have");
  expect_error([&] { flip(t, 2); }, inv, "flip: axis 2 is out of range for rank 2");
  expect_error([&] { rot90(t, 1, V{0, 0}); }, inv, "two different dims");
  expect_error([&] { rot90(t, 1, V{0}); }, inv, "exactly two dims");
  expect_error([&] { rot90(R::to_tensor(R::iota({3})), 1); }, inv, "needs rank 2");
  // A layout that reaches outside the storage is refused by with_layout.
  expect_error([&] { t.with_layout(Dims{7}, Dims{1}, 0); }, inv, "reaches outside its storage");
}

BOOST_AUTO_TEST_CASE(shape_rules_with_dynamic_dims) {
  const int64_t D = kDynamic;
  const DType f = DType::f32;
  BOOST_CHECK(transpose_shape(Dims{D, 3}, {}) == (Dims{3, D}));
  BOOST_CHECK(broadcast_to_shape(f, Dims{D, 1}, V{4, 5}) == (Dims{4, 5}));
  BOOST_CHECK(expand_dims_shape(Dims{D}, -1, 2) == (Dims{D, 1, 1}));
  BOOST_CHECK(squeeze_shape(f, Dims{D, 1}, V{0}) == (Dims{1}));
  expect_error(
      [&] {
        squeeze_shape(f, Dims{D, 1}, {});
      },
      ErrorKind::invalid, "dim 0 of f32[?, 1] is ?");
  BOOST_CHECK(reshape_shape(f, Dims{D, 4}, V{-1, 2}) == (Dims{D, 2}));
  BOOST_CHECK(reshape_shape(f, Dims{D, 4}, V{8}) == (Dims{8}));
  BOOST_CHECK(reshape_shape(f, Dims{D, 0}, V{-1, 5}) == (Dims{0, 5}));
  expect_error(
      [&] {
        reshape_shape(f, Dims{D, 0}, V{3});
      },
      ErrorKind::invalid, "(0 elements) to [3]");
  BOOST_CHECK(flatten_shape(Dims{D, 4}) == (Dims{D}));
  BOOST_CHECK(flatten_shape(Dims{D, 0}) == (Dims{0}));
  BOOST_CHECK(flatten_shape(Dims{3, 4}) == (Dims{12}));
  BOOST_CHECK(strided_slice_shape(Dims{D, 10}, V{0, 2}, V{3, 8}, V{1, 3}, {}) == (Dims{D, 2}));
  BOOST_CHECK(strided_slice_shape(Dims{D, 10}, V{1}, V{9}, V{}, V{1}) == (Dims{D, 8}));
  BOOST_CHECK(slice_like_shape(f, Dims{D, 5}, Dims{2, D}, {}) == (Dims{2, D}));
  expect_error(
      [&] {
        slice_like_shape(f, Dims{D, 5}, Dims{2, 6}, {});
      },
      ErrorKind::invalid, "has only 5");
  BOOST_CHECK(rot90_shape(Dims{D, 3, 4}, -3, V{2, 0}) == (Dims{4, 3, D}));
  BOOST_CHECK(rot90_shape(Dims{D, 3, 4}, 2, {}) == (Dims{D, 3, 4}));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace mlvm
