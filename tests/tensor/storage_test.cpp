// Storage and value modes: borrowed host memory (bounds, lifetime, read-only), the 64-byte
// alignment of owned storage, and zeros / ones / full checked over every element.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "common/checks.hpp"
#include "common/dtypes.hpp"
#include "tensor/copy.hpp"
#include "tensor/error.hpp"
#include "tensor/huge_pages.hpp"
#include "tensor/storage.hpp"
#include "tensor/test_reference.hpp"
#include "tensor/views.hpp"

namespace mlvm {
namespace {

namespace R = testref;
using V = std::vector<int64_t>;

using testing::kAllDTypes;

using testing::expect_error;

// A keepalive that owns nothing: its deleter only records that mlvm let go of it.
std::shared_ptr<void> flag_keepalive(bool& released) {
  released = false;
  return std::shared_ptr<void>(static_cast<void*>(&released),
                               [](void* p) { *static_cast<bool*>(p) = true; });
}

bool aligned64(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 64 == 0; }

BOOST_AUTO_TEST_SUITE(tensor_storage)

BOOST_AUTO_TEST_CASE(borrow_checks_the_whole_range) {
  float buf[6] = {0, 1, 2, 3, 4, 5};
  const int64_t bytes = sizeof buf;
  // Exactly fitting layouts are accepted.
  Tensor a = Tensor::borrow(DType::f32, Dims{2, 3}, buf, bytes, false);
  BOOST_CHECK(a.strides() == (Dims{3, 1}));
  BOOST_CHECK_EQUAL(static_cast<void*>(a.raw_data()), static_cast<void*>(buf));
  const Dims col{1, 2};  // f32[2, 3] in column-major order
  Tensor c = Tensor::borrow(DType::f32, Dims{2, 3}, buf, bytes, false, &col);
  const int64_t i12[2] = {1, 2};
  BOOST_CHECK_EQUAL(c.get_double(i12), 5.0);
  const Dims bc{0, 1};  // a broadcast row reaches only 3 elements
  BOOST_CHECK_EQUAL(Tensor::borrow(DType::f32, Dims{100, 3}, buf, 12, false, &bc).numel(), 300);
  // Anything reaching past `bytes` is an error, not a crash.
  expect_error([&] { Tensor::borrow(DType::f32, Dims{2, 4}, buf, bytes, false); },
               ErrorKind::invalid, "reaches outside its storage of 6 elements");
  expect_error([&] { Tensor::borrow(DType::f64, Dims{4}, buf, bytes, false); },
               ErrorKind::invalid, "reaches outside its storage of 3 elements");
  expect_error([&] { Tensor::borrow(DType::f32, Dims{2, 3}, buf, bytes - 1, false); },
               ErrorKind::invalid, "reaches outside");
  const Dims too_wide{4, 1};
  expect_error([&] { Tensor::borrow(DType::f32, Dims{2, 3}, buf, bytes, false, &too_wide); },
               ErrorKind::invalid, "with strides [4, 1]");
  const Dims negative{-1};  // reaches before the start
  expect_error([&] { Tensor::borrow(DType::f32, Dims{2}, buf, bytes, false, &negative); },
               ErrorKind::invalid, "reaches outside");
  const Dims huge{INT64_MAX / 2, 1};
  expect_error([&] { Tensor::borrow(DType::f32, Dims{3, 1}, buf, bytes, false, &huge); },
               ErrorKind::invalid, "reaches outside");
  const Dims short_strides{1};
  expect_error([&] { Tensor::borrow(DType::f32, Dims{2, 3}, buf, bytes, false, &short_strides); },
               ErrorKind::invalid, "do not match shape");
  expect_error([&] { Tensor::borrow(DType::f32, Dims{2, 3}, buf, -4, false); }, ErrorKind::usage,
               "negative size");
  expect_error([&] { Tensor::borrow(DType::f32, Dims{2, 3}, nullptr, bytes, false); },
               ErrorKind::usage, "null");
  expect_error([&] { Tensor::borrow(DType::f32, Dims{-1}, buf, bytes, false); },
               ErrorKind::invalid, "negative or dynamic dimension");
  expect_error([&] { Tensor::borrow(DType::f32, Dims{}, buf, bytes, false); }, ErrorKind::invalid,
               "rank 0");
  // An empty tensor reaches nothing: any strides, even no memory at all.
  const Dims wild{INT64_MAX, -5};
  BOOST_CHECK_EQUAL(Tensor::borrow(DType::f32, Dims{0, 3}, buf, 0, true, &wild).numel(), 0);
  Tensor none = Tensor::borrow(DType::i64, Dims{0}, nullptr, 0, true);
  BOOST_CHECK_EQUAL(none.numel(), 0);
  BOOST_CHECK_EQUAL(none.mode(), ValueMode::borrowed);
  // The host's values are untouched by all of this.
  for (int k = 0; k < 6; ++k) BOOST_CHECK_EQUAL(buf[k], float(k));
}

BOOST_AUTO_TEST_CASE(borrow_keepalive_outlives_every_view) {
  // The host memory sits in the middle of an array on the stack: if mlvm ever passed it to
  // free() the process would abort.
  struct {
    double pad[3];
    double data[12];
    double tail[3];
  } host{};
  for (int k = 0; k < 12; ++k) host.data[k] = k * 1.5;
  bool released = false;
  {
    std::shared_ptr<void> keep = flag_keepalive(released);
    Tensor t = Tensor::borrow(DType::f64, Dims{3, 4}, host.data, sizeof host.data, true, nullptr,
                              keep);
    keep.reset();  // mlvm's reference is now the only one
    BOOST_CHECK(!released);
    BOOST_CHECK(t.storage()->origin() == StorageOrigin::borrowed);
    Tensor v1 = transpose(t);
    Tensor v2 = strided_slice(flip(t, 1), V{1}, V{3});
    Tensor v3 = broadcast_to(reshape(t, V{12}), V{2, 12});
    t = Tensor();
    BOOST_CHECK(!released);
    const int64_t i30[2] = {3, 0};
    BOOST_CHECK_EQUAL(v1.get_double(i30), host.data[3]);
    v1 = Tensor();
    v3 = Tensor();
    BOOST_CHECK(!released);
    const int64_t i00[2] = {0, 0};
    BOOST_CHECK_EQUAL(v2.get_double(i00), host.data[4 + 3]);
    Tensor copy = v2;  // a copy of the last view holds it too
    v2 = Tensor();
    BOOST_CHECK(!released);
    copy = Tensor();
    BOOST_CHECK(released);  // the last user is gone
  }
  // The memory was used in place and never freed: still readable (and unchanged).
  for (int k = 0; k < 12; ++k) BOOST_CHECK_EQUAL(host.data[k], k * 1.5);

  // Outputs that share the storage keep it too; a clone does not.
  std::vector<int32_t> vec = {1, 2, 3, 4, 5, 6};
  Tensor cl;
  {
    Tensor b = Tensor::borrow(DType::i32, Dims{2, 3}, vec.data(), int64_t(vec.size() * 4), false,
                              nullptr, flag_keepalive(released));
    cl = clone(transpose(b));
    BOOST_CHECK_EQUAL(cl.mode(), ValueMode::owned);
    BOOST_CHECK(cl.storage() != b.storage());
    Tensor same = contiguous(b);  // already contiguous: the tensor itself
    BOOST_CHECK(same.storage() == b.storage());
    BOOST_CHECK_EQUAL(same.mode(), ValueMode::borrowed);
  }
  BOOST_CHECK(released);
  const int64_t i21[2] = {2, 1};
  BOOST_CHECK_EQUAL(cl.get_int(i21), 6);
  BOOST_CHECK_EQUAL(vec[5], 6);

  // A keepalive that owns the memory (the usual host pattern) frees it only after the last
  // view; without a keepalive the host's memory simply stays the host's.
  bool freed = false;
  Tensor survivor;
  {
    auto* mem = new float[8];
    for (int k = 0; k < 8; ++k) mem[k] = float(k);
    std::shared_ptr<void> owner(static_cast<void*>(mem), [&freed](void* p) {
      freed = true;
      delete[] static_cast<float*>(p);
    });
    Tensor b = Tensor::borrow(DType::f32, Dims{8}, mem, 32, false, nullptr, owner);
    owner.reset();
    survivor = flip(b, 0);
  }
  BOOST_CHECK(!freed);
  const int64_t i0[1] = {0};
  BOOST_CHECK_EQUAL(survivor.get_double(i0), 7.0);
  survivor = Tensor();
  BOOST_CHECK(freed);

  float plain[4] = {9, 8, 7, 6};
  {
    Tensor b = Tensor::borrow(DType::f32, Dims{4}, plain, sizeof plain, true);
    b.data<float>()[1] = -1;  // writes go straight to the host's memory
  }
  BOOST_CHECK_EQUAL(plain[0], 9.0f);
  BOOST_CHECK_EQUAL(plain[1], -1.0f);
}

BOOST_AUTO_TEST_CASE(borrow_read_only_rejects_writes) {
  int16_t ro[6] = {1, 2, 3, 4, 5, 6};
  Tensor t = Tensor::borrow(DType::i16, Dims{2, 3}, ro, sizeof ro, false);
  BOOST_CHECK(!t.storage()->writable());
  BOOST_CHECK(!t.is_writable());
  expect_error([&] { t.check_writable("output"); }, ErrorKind::invalid,
               "output i16[2, 3] is read-only");
  Tensor src = R::to_tensor(R::iota({2, 3}, 1, 100), DType::i16);
  expect_error([&] { copy_into(src, t); }, ErrorKind::invalid, "copy destination");
  // Views of read-only memory are read-only too.
  for (const Tensor& v : {transpose(t), flip(t, 1), strided_slice(t, V{1}, V{2}),
                          reshape(t, V{6}), expand_dims(t, 0)}) {
    BOOST_CHECK(!v.is_writable());
    BOOST_CHECK_THROW(v.check_writable(), Error);
  }
  expect_error([&] { copy_into(transpose(src), transpose(t)); }, ErrorKind::invalid,
               "read-only");
  for (int k = 0; k < 6; ++k) BOOST_CHECK_EQUAL(ro[k], k + 1);

  // Writable borrowed memory takes copies in place, through views too.
  int16_t rw[6] = {};
  Tensor w = Tensor::borrow(DType::i16, Dims{2, 3}, rw, sizeof rw, true);
  BOOST_CHECK(w.is_writable());
  w.check_writable();
  copy_into(src, w);
  for (int k = 0; k < 6; ++k) BOOST_CHECK_EQUAL(rw[k], 100 + k);
  copy_into(flip(src, 1), flip(w, 0));  // rw[i][j] = src[1 - i][2 - j]
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) BOOST_CHECK_EQUAL(rw[3 * i + j], 100 + 3 * (1 - i) + (2 - j));
  // ... but a broadcast view of it (stride 0 over a dim > 1) is not.
  Tensor b = broadcast_to(strided_slice(w, V{0}, V{1}), V{4, 3});
  BOOST_CHECK(!b.is_writable());
  expect_error([&] { copy_into(R::to_tensor(R::iota({4, 3}), DType::i16), b); },
               ErrorKind::invalid, "read-only");
  // Empty borrowed tensors have nothing to write.
  BOOST_CHECK(Tensor::borrow(DType::i16, Dims{0, 3}, ro, 0, false).is_writable());
}

BOOST_AUTO_TEST_CASE(borrow_mode_and_views) {
  uint8_t host[24];
  for (int k = 0; k < 24; ++k) host[k] = uint8_t(k);
  Tensor t = Tensor::borrow(DType::u8, Dims{2, 3, 4}, host, sizeof host, true);
  BOOST_CHECK_EQUAL(t.mode(), ValueMode::borrowed);
  BOOST_CHECK_EQUAL(std::string(value_mode_name(t.mode())), "borrowed");
  BOOST_CHECK(t.is_contiguous());
  BOOST_CHECK_EQUAL(t.offset(), 0);
  BOOST_CHECK_EQUAL(t.storage()->bytes(), 24);
  R::RefArray x = R::iota({2, 3, 4});
  BOOST_CHECK(R::equals(t, x, "borrowed"));
  const std::vector<std::pair<Tensor, R::RefArray>> views = {
      {transpose(t), R::transpose(x, {})},
      {flip(t, 2), R::flip(x, 2)},
      {strided_slice(t, V{1, 0, 3}, V{2, 3, 0}, V{1, 2, -2}),
       R::strided_slice(x, {1, 0, 3}, {2, 3, 0}, {1, 2, -2}, {})},
      {broadcast_to(t, V{2, 2, 3, 4}), R::broadcast_to(x, {2, 2, 3, 4})},
      {reshape(t, V{6, 4}), R::reshape(x, {6, 4})},
      {flatten(t), R::reshape(x, {24})},
      {squeeze(expand_dims(t, 1)), x},
      {rot90(t, 1, V{1, 2}), R::rot90(x, 1, 1, 2)},
      {slice_like(t, Dims{1, 2, 3}), R::slice_like(x, {1, 2, 3}, {})},
      {t.with_layout(Dims{4}, Dims{5}, 2), R::RefArray{{4}, {2, 7, 12, 17}}},
  };
  for (const auto& [v, ref] : views) {
    BOOST_CHECK_EQUAL(v.mode(), ValueMode::view);
    BOOST_CHECK(v.storage() == t.storage());
    BOOST_CHECK(v.storage()->origin() == StorageOrigin::borrowed);
    BOOST_CHECK(v.raw_data() >= reinterpret_cast<std::byte*>(host) &&
                v.raw_data() < reinterpret_cast<std::byte*>(host) + 24);
    R::equals(v, ref, "view of borrowed " + dims_to_string(v.shape()));
  }
  // Views see host writes (no copy was made).
  host[5] = 200;
  const int64_t i011[3] = {0, 1, 1};
  BOOST_CHECK_EQUAL(t.get_int(i011), 200);
  const int64_t i110[3] = {1, 1, 0};
  BOOST_CHECK_EQUAL(transpose(t).get_int(i110), 200);
  // A view that would leave the borrowed range is refused.
  expect_error([&] { t.with_layout(Dims{5}, Dims{6}, 0); }, ErrorKind::invalid, "reaches outside");
  expect_error([&] { t.with_layout(Dims{2}, Dims{-1}, 0); }, ErrorKind::invalid, "reaches outside");
  // Only a materializing copy leaves borrowed memory: owned, elsewhere.
  Tensor c = clone(flip(t, 0));
  BOOST_CHECK_EQUAL(c.mode(), ValueMode::owned);
  BOOST_CHECK(c.storage()->origin() == StorageOrigin::allocated);
}

BOOST_AUTO_TEST_CASE(owned_storage_is_64_byte_aligned) {
  for (int64_t bytes : {0, 1, 2, 3, 7, 8, 63, 64, 65, 127, 128, 1000, 4096, 4097, 1 << 20}) {
    auto s = Storage::allocate(bytes);
    BOOST_CHECK_MESSAGE(aligned64(s->data()), bytes << " bytes");
    BOOST_CHECK_EQUAL(s->bytes(), bytes);
    BOOST_CHECK(s->origin() == StorageOrigin::allocated);
    auto z = Storage::allocate_zeroed(bytes);
    BOOST_CHECK(aligned64(z->data()));
    for (int64_t k = 0; k < bytes; ++k)
      if (z->data()[k] != std::byte{0}) {
        BOOST_ERROR("allocate_zeroed(" << bytes << ") byte " << k << " is not 0");
        break;
      }
  }
  // Owned tensors of every dtype and many sizes, including 0 and 1 element; the budget sees
  // exactly the element bytes and gets them back.
  auto budget = std::make_shared<MemoryBudget>();
  for (DType dt : kAllDTypes)
    for (const Dims& shape :
         {Dims{0}, Dims{1}, Dims{2}, Dims{3}, Dims{5}, Dims{7}, Dims{16}, Dims{17}, Dims{1, 1},
          Dims{3, 0, 2}, Dims{3, 5}, Dims{9, 7, 3}, Dims{1, 1, 1, 1, 1, 1, 1, 1},
          Dims{2, 1, 3, 1, 2, 1, 1, 5}, Dims{1000}}) {
      const std::string what = std::string(dtype_name(dt)) + dims_to_string(shape);
      Tensor e = Tensor::empty(dt, shape, budget);
      Tensor z = Tensor::zeros_owned(dt, shape, budget);
      const int64_t n = checked_numel(shape), nbytes = n * int64_t(dtype_size(dt));
      BOOST_CHECK_EQUAL(budget->live(), 2 * nbytes);
      for (const Tensor* t : {&e, &z}) {
        BOOST_CHECK_EQUAL(t->mode(), ValueMode::owned);
        BOOST_CHECK_MESSAGE(aligned64(t->raw_data()), what);
        BOOST_CHECK_MESSAGE(aligned64(t->storage()->data()), what);
        BOOST_CHECK(t->is_contiguous());
        BOOST_CHECK_EQUAL(t->numel(), n);
        BOOST_CHECK_EQUAL(t->storage()->bytes(), nbytes);
      }
      R::RefArray zero{V(shape.begin(), shape.end()), std::vector<double>(std::size_t(n), 0.0)};
      R::equals(z, zero, "zeros_owned " + what);
      if (n > 0) {
        Tensor c = clone(flip(z, 0));
        BOOST_CHECK_MESSAGE(aligned64(c.raw_data()), "clone " + what);
      }
    }
  BOOST_CHECK_EQUAL(budget->live(), 0);
}

// Every element of t equals `want` (integers compared exactly through get_int).
void check_all(const Tensor& t, DType dt, const Dims& shape, const Scalar& want,
               const std::string& what) {
  BOOST_CHECK_MESSAGE(t.dtype() == dt, what);
  BOOST_REQUIRE_MESSAGE(t.shape() == shape, what << ": shape " << dims_to_string(t.shape()));
  BOOST_CHECK_EQUAL(t.numel(), checked_numel(shape));
  int64_t seen = 0;
  bool ok = true;
  R::for_each_index(V(shape.begin(), shape.end()), [&](const R::Index& idx) {
    ++seen;
    if (!ok) return;
    if (is_float(dt) ? t.get_double(idx) != want.as_double()
                     : t.get_int(idx) != (want.is_float ? int64_t(want.f) : want.i)) {
      BOOST_ERROR(what << ": element " << seen - 1 << " is " << t.get_double(idx));
      ok = false;
    }
  });
  BOOST_CHECK_EQUAL(seen, t.numel());
}

BOOST_AUTO_TEST_CASE(zeros_ones_full_every_element) {
  const std::vector<Dims> shapes = {Dims{1},       Dims{6},          Dims{0},
                                    Dims{2, 3},    Dims{3, 0, 2},    Dims{4, 1, 3},
                                    Dims{1, 1, 1, 1, 1, 1, 1, 1},    Dims{2, 1, 3, 1, 2, 1, 1, 2},
                                    Dims{0, 0, 0, 0, 0, 0, 0, 0}};
  auto extreme = [](DType dt) -> Scalar {
    switch (dt) {
      case DType::f32: return Scalar::from_float(-double(std::numeric_limits<float>::max()));
      case DType::f64: return Scalar::from_float(1e300);
      case DType::i8: return Scalar::from_int(-128);
      case DType::u8: return Scalar::from_int(255);
      case DType::i16: return Scalar::from_int(-32768);
      case DType::i32: return Scalar::from_int(INT32_MAX);
      case DType::i64: return Scalar::from_int(INT64_MIN);
      case DType::boolean: return Scalar::from_int(1);
    }
    return {};
  };
  for (DType dt : kAllDTypes)
    for (const Dims& shape : shapes) {
      const std::string what = std::string(dtype_name(dt)) + dims_to_string(shape);
      const Scalar fv = dt == DType::f32       ? Scalar::from_float(-0.375)
                        : dt == DType::boolean ? Scalar::from_int(0)
                                               : Scalar::from_int(7);
      const std::vector<std::pair<Tensor, Scalar>> made = {
          {zeros(dt, shape), Scalar::from_int(0)},
          {ones(dt, shape), Scalar::from_int(1)},
          {full(dt, shape, fv), fv},
          {full(dt, shape, extreme(dt)), extreme(dt)},
      };
      for (const auto& [t, want] : made) {
        const std::string w = what + " = " + want.to_string();
        BOOST_CHECK_EQUAL(t.mode(), ValueMode::constant);
        BOOST_CHECK(t.strides() == Dims::filled(shape.size(), 0));
        BOOST_CHECK_EQUAL(t.storage()->bytes(), int64_t(dtype_size(dt)));
        BOOST_CHECK_EQUAL(t.is_writable(), t.numel() == 0);
        check_all(t, dt, shape, want, w);
        // Materialized: an owned dense copy with the same value everywhere.
        Tensor c = clone(t);
        BOOST_CHECK_EQUAL(c.mode(), ValueMode::owned);
        check_all(c, dt, shape, want, "clone of " + w);
        // Views of constants stay constant and keep the value.
        if (t.numel() > 0) {
          Tensor v = flip(transpose(t), 0);
          BOOST_CHECK_EQUAL(v.mode(), ValueMode::constant);
          check_all(v, dt, v.shape(), want, "view of " + w);
        }
      }
    }
  // Values a dtype cannot hold are refused.
  expect_error([] { full(DType::u8, Dims{2}, Scalar::from_int(256)); }, ErrorKind::invalid,
               "not representable in u8");
  expect_error([] { full(DType::i8, Dims{2}, Scalar::from_int(-129)); }, ErrorKind::invalid,
               "not representable");
  expect_error([] { full(DType::i32, Dims{2}, Scalar::from_float(1.5)); }, ErrorKind::invalid,
               "not representable");
  expect_error([] { full(DType::boolean, Dims{2}, Scalar::from_int(2)); }, ErrorKind::invalid,
               "not representable");
  BOOST_CHECK_THROW(zeros(DType::f32, Dims{}), Error);
  BOOST_CHECK_THROW(ones(DType::f32, Dims{-1}), Error);
  // Special float values fill every element too.
  Tensor n = full(DType::f64, Dims{3, 2}, Scalar::from_float(NAN));
  R::for_each_index({3, 2},
                    [&](const R::Index& idx) { BOOST_CHECK(std::isnan(n.get_double(idx))); });
  Tensor inf = full(DType::f32, Dims{5}, Scalar::from_float(-INFINITY));
  check_all(inf, DType::f32, Dims{5}, Scalar::from_float(-INFINITY), "-inf");
}

// Large storages are advised to huge pages (tensor/huge_pages.hpp). The advice is a hint that
// must never touch the contents: data written before and after it reads back, for any
// alignment and size, and sizes or pointers it does not apply to are ignored.
BOOST_AUTO_TEST_CASE(huge_page_advice_keeps_the_contents) {
  advise_huge_pages(nullptr, std::size_t(64) << 20);
  std::vector<uint32_t> small(1000, 7u);
  advise_huge_pages(small.data(), small.size() * 4);
  BOOST_TEST(small[999] == 7u);
  for (std::size_t skew : {std::size_t(0), std::size_t(4), std::size_t(4096 + 12)}) {
    const std::size_t words = (std::size_t(9) << 20) / 4;
    std::vector<uint32_t> big(words + skew);
    for (std::size_t i = 0; i < big.size(); ++i) big[i] = uint32_t(i * 2654435761u);
    advise_huge_pages(big.data() + skew, words * 4);
    bool same = true;
    for (std::size_t i = 0; i < big.size(); ++i) same = same && big[i] == uint32_t(i * 2654435761u);
    BOOST_TEST(same, "skew " << skew);
  }
  // A storage big enough to be advised is usable like any other.
  auto s = Storage::allocate_zeroed(int64_t(6) << 20);
  auto* p = reinterpret_cast<uint8_t*>(s->data());
  bool zero = true;
  for (int64_t i = 0; i < s->bytes(); i += 4093) zero = zero && p[i] == 0;
  BOOST_TEST(zero);
  p[s->bytes() - 1] = 9;
  BOOST_TEST(p[s->bytes() - 1] == 9);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace mlvm
