// A host reads every kind of view output — transpose, broadcast, flip, strided slice, and a
// view of a program constant — through the public accessors only (at<T>, to_vector,
// contiguous, copy_to, strides), and gets what NumPy gives for the same expression. The
// expected values are NumPy's, written out by hand for x = np.arange(12).reshape(3, 4).
#include <boost/test/unit_test.hpp>

#include "vm/vm_test_util.hpp"

using namespace mlvm;
using namespace mlvm::test;

namespace {

constexpr std::string_view kViews = R"(
.input  x : f32[3, 4]
.const  c : i64[1, 3] = [[7, -8, 9]]
.output t : f32[4, 3]
.output b : f32[2, 3, 4]
.output f : f32[3, 4]
.output s : f32[1, 2]
.output cb : i64[2, 3]
    t = transpose x
    b = broadcast_to x, shape=(2, 3, 4)
    f = flip x, axis=1
    s = strided_slice x, begin=(2, 3), end=(0, 0), strides=(-2, -2)
    cb = broadcast_to c, shape=(2, 3)
)";

std::vector<float> arange12() {
  std::vector<float> v(12);
  for (int i = 0; i < 12; ++i) v[std::size_t(i)] = float(i);
  return v;
}

// Reads every element through at<T>() in row-major index order: the strided accessor.
template <class T>
std::vector<T> read_by_index(const Tensor& t) {
  std::vector<T> out;
  std::vector<int64_t> idx(std::size_t(t.rank()), 0);
  for (int64_t n = 0; n < t.numel(); ++n) {
    out.push_back(t.at<T>(std::span<const int64_t>(idx)));
    for (int d = t.rank() - 1; d >= 0; --d) {
      if (++idx[std::size_t(d)] < t.dim(d)) break;
      idx[std::size_t(d)] = 0;
    }
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(vm_view_outputs)

BOOST_AUTO_TEST_CASE(every_view_kind_reads_as_numpy) {
  Program p = program_from(kViews);
  Session s(p, single_thread());
  std::vector<float> x = arange12();
  TensorMap out = s.run({{"x", borrow_tensor<const float>({3, 4}, x.data())}});

  // np.arange(12).reshape(3, 4).T
  const std::vector<float> t = {0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11};
  // np.broadcast_to(x, (2, 3, 4)): x twice
  std::vector<float> b = x;
  b.insert(b.end(), x.begin(), x.end());
  // np.flip(x, axis=1)
  const std::vector<float> f = {3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8};
  // x[2:0:-2, 3:0:-2]
  const std::vector<float> sl = {11, 9};  // shape (1, 2)

  const Tensor& tv = out.at("t");
  BOOST_TEST((tv.mode() == ValueMode::view || tv.mode() == ValueMode::borrowed));
  BOOST_TEST(!tv.is_contiguous());  // a transpose is a view, so its strides are not row-major
  BOOST_TEST(to_vector<float>(tv) == t, boost::test_tools::per_element());
  BOOST_TEST(read_by_index<float>(tv) == t, boost::test_tools::per_element());
  BOOST_TEST(to_vector<float>(tv.contiguous()) == t, boost::test_tools::per_element());
  BOOST_TEST(tv.contiguous().is_contiguous());
  // The raw layout: element (i, j) at data + i*strides[0] + j*strides[1], here x's (j, i).
  BOOST_TEST(tv.strides()[0] == 1);
  BOOST_TEST(tv.strides()[1] == 4);
  BOOST_TEST(tv.data<float>() == x.data());  // a view of the host's own input

  BOOST_TEST(to_vector<float>(out.at("b")) == b, boost::test_tools::per_element());
  BOOST_TEST(read_by_index<float>(out.at("b")) == b, boost::test_tools::per_element());
  BOOST_TEST(out.at("b").strides()[0] == 0);

  BOOST_TEST(to_vector<float>(out.at("f")) == f, boost::test_tools::per_element());
  BOOST_TEST(read_by_index<float>(out.at("f")) == f, boost::test_tools::per_element());
  BOOST_TEST(out.at("f").strides()[1] == -1);
  std::vector<float> copied(12);
  out.at("f").copy_to(copied.data(), copied.size() * sizeof(float));
  BOOST_TEST(copied == f, boost::test_tools::per_element());

  const Tensor& sv = out.at("s");
  BOOST_TEST(sv.shape() == Dims({1, 2}));
  BOOST_TEST(to_vector<float>(sv) == sl, boost::test_tools::per_element());
  BOOST_TEST(sv.at<float>({0, 1}) == 9.0f);

  // A broadcast view of a program constant: read-only, and read as long long (i64).
  const Tensor& cb = out.at("cb");
  BOOST_TEST(!cb.is_writable());
  const std::vector<long long> want_cb = {7, -8, 9, 7, -8, 9};
  BOOST_TEST(to_vector<long long>(cb) == want_cb, boost::test_tools::per_element());
  BOOST_TEST(to_vector<int64_t>(cb) == std::vector<int64_t>(want_cb.begin(), want_cb.end()),
             boost::test_tools::per_element());
  BOOST_TEST(cb.at<long long>({1, 2}) == 9);
}

BOOST_AUTO_TEST_CASE(accessors_refuse_wrong_types_and_indices) {
  Program p = program_from(kViews);
  Session s(p, single_thread());
  std::vector<float> x = arange12();
  TensorMap out = s.run({{"x", borrow_tensor<const float>({3, 4}, x.data())}});
  const Tensor& tv = out.at("t");
  expect_error([&] { to_vector<double>(tv); }, ErrorKind::usage, {"f32"});
  expect_error([&] { to_vector<int32_t>(tv); }, ErrorKind::usage, {"f32"});
  expect_error([&] { to_vector<uint64_t>(out.at("cb")); }, ErrorKind::usage, {"i64"});
  expect_error([&] { (void)tv.at<float>({4, 0}); }, ErrorKind::usage, {"out of range"});
  expect_error([&] { (void)tv.at<float>({0}); }, ErrorKind::usage, {"rank"});
  expect_error([&] { (void)tv.at<int32_t>({0, 0}); }, ErrorKind::usage, {"element type"});
  std::vector<float> small(11);
  expect_error([&] { tv.copy_to(small.data(), small.size() * sizeof(float)); }, ErrorKind::usage,
               {"48 bytes"});
  expect_error([&] { to_vector<float>(Tensor()); }, ErrorKind::usage, {"undefined"});
}

BOOST_AUTO_TEST_CASE(bool_and_every_integer_width_read_back) {
  Program p = program_from(R"(
.input  a : i8[3]
.input  b : u8[3]
.input  c : i16[3]
.input  d : i32[3]
.output e : bool[3]
.output fa : i8[3]
.output fb : u8[3]
.output fc : i16[3]
.output fd : i32[3]
    e = greater a, 0
    fa = flip a, axis=0
    fb = flip b, axis=0
    fc = flip c, axis=0
    fd = flip d, axis=0
)");
  Session s(p, single_thread());
  TensorMap out = s.run({{"a", make_tensor<int8_t>({3}, {-1, 0, 5})},
                         {"b", make_tensor<uint8_t>({3}, {1, 2, 255})},
                         {"c", make_tensor<int16_t>({3}, {-300, 2, 3})},
                         {"d", make_tensor<int32_t>({3}, {7, 8, -9})}});
  BOOST_TEST(to_vector<bool>(out.at("e")) == std::vector<bool>({false, false, true}));
  BOOST_TEST(to_vector<uint8_t>(out.at("e")) == std::vector<uint8_t>({0, 0, 1}));
  BOOST_TEST(out.at("e").at<bool>({2}));
  BOOST_TEST(to_vector<signed char>(out.at("fa")) == std::vector<signed char>({5, 0, -1}));
  BOOST_TEST(to_vector<unsigned char>(out.at("fb")) == std::vector<unsigned char>({255, 2, 1}));
  BOOST_TEST(to_vector<short>(out.at("fc")) == std::vector<short>({3, 2, -300}));
  BOOST_TEST(to_vector<int>(out.at("fd")) == std::vector<int>({-9, 8, 7}));
  expect_error([&] { to_vector<int8_t>(out.at("fb")); }, ErrorKind::usage, {"u8"});
}

BOOST_AUTO_TEST_SUITE_END()
