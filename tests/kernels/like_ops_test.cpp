// zeros_like, ones_like, full_like and shape_of (docs/ops.md, "Views and constants"): results
// shaped like x whatever x's layout (contiguous, transposed, flipped, broadcast, empty), stored
// as one element with every stride 0 (never allocated), in every dtype; shape_of's values and
// its static type with `?` dims.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <vector>

#include "common/dtypes.hpp"
#include "common/op_runner.hpp"
#include "tensor/views.hpp"

using namespace mlvm;
using namespace mlvm::testing;

namespace {

// x in several layouts with the same logical shape {3, 4} (and an empty one).
std::vector<Tensor> layouts(DType dt) {
  Tensor base = Tensor::empty(dt, Dims{4, 3});
  const std::vector<int64_t> swap{1, 0}, shape{3, 4};
  std::vector<Tensor> out;
  out.push_back(Tensor::empty(dt, Dims{3, 4}));
  out.push_back(transpose(base, swap));
  out.push_back(flip(Tensor::empty(dt, Dims{3, 4}), 1));
  out.push_back(broadcast_to(Tensor::empty(dt, Dims{1, 4}), shape));
  out.push_back(Tensor::empty(dt, Dims{3, 0}));
  return out;
}

// Every stride is 0, so every element is the one at the offset.
double first_element(const Tensor& t) {
  double v = 0;
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    v = double(*reinterpret_cast<const T*>(t.raw_data()));
  });
  return v;
}

void check_constant(const Tensor& y, const Tensor& x, DType dt, double want) {
  BOOST_TEST(y.dtype() == dt);
  BOOST_TEST(y.shape() == x.shape());
  for (int d = 0; d < y.rank(); ++d) BOOST_TEST(y.strides()[d] == 0);
  BOOST_TEST((y.mode() == ValueMode::constant));
  if (y.numel() > 0) {
    const double got = first_element(y);
    BOOST_TEST(y.storage()->bytes() <= 8u);  // one element stored, not numel
    if (std::isnan(want)) BOOST_TEST(std::isnan(got));
    else BOOST_TEST(got == want);
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kernels_like_ops)

BOOST_AUTO_TEST_CASE(zeros_ones_full_like_every_dtype_and_layout) {
  for (DType dt : kAllDTypes)
    for (const Tensor& x : layouts(dt)) {
      BOOST_TEST_CONTEXT(dtype_name(dt) << " strides " << dims_to_string(x.strides())) {
        check_constant(run_all(Opcode::zeros_like, {x}, attrs_for(Opcode::zeros_like))[0], x, dt, 0);
        check_constant(run_all(Opcode::ones_like, {x}, attrs_for(Opcode::ones_like))[0], x, dt, 1);
        const int64_t v = dt == DType::boolean ? 1 : 7;  // 7 is no bool (an error, tested below)
        const Attrs full = attrs_named(Opcode::full_like, {{"value", AttrValue::integer(v)}});
        check_constant(run_all(Opcode::full_like, {x}, full)[0], x, dt, double(v));
      }
    }
}

BOOST_AUTO_TEST_CASE(dtype_attribute_overrides_the_input_dtype) {
  const Tensor x = Tensor::empty(DType::i32, Dims{2, 5});
  const Attrs a = attrs_named(Opcode::full_like, {{"value", AttrValue::floating(0.5)},
                                                  {"dtype", AttrValue::dtype(DType::f64)}});
  check_constant(run_all(Opcode::full_like, {x}, a)[0], x, DType::f64, 0.5);
  const Attrs z = attrs_named(Opcode::zeros_like, {{"dtype", AttrValue::dtype(DType::i8)}});
  check_constant(run_all(Opcode::zeros_like, {x}, z)[0], x, DType::i8, 0);
  // A value the dtype cannot hold is an error, not a wrapped constant.
  const Attrs seven = attrs_named(Opcode::full_like, {{"value", AttrValue::integer(7)}});
  TensorType b;
  b.dtype = DType::boolean;
  b.dims = Dims{2};
  BOOST_CHECK_THROW(infer_all(Opcode::full_like, {b}, seven), Error);
  // The static rule agrees, `?` dims included.
  TensorType t;
  t.dtype = DType::i32;
  t.dims = Dims{kDynamic, 5};
  const TensorType r = infer_all(Opcode::zeros_like, {t}, z)[0];
  BOOST_TEST(r.dtype == DType::i8);
  BOOST_TEST(r.dims == (Dims{kDynamic, 5}));
}

BOOST_AUTO_TEST_CASE(shape_of_values_and_static_type) {
  for (const Dims& shape : {Dims{7}, Dims{3, 0, 2}, Dims{2, 3, 4, 5}}) {
    const Tensor x = Tensor::empty(DType::f32, shape);
    const Tensor y = run_all(Opcode::shape_of, {transpose(x, {})}, attrs_for(Opcode::shape_of))[0];
    BOOST_TEST(y.dtype() == DType::i64);
    BOOST_TEST_REQUIRE(y.numel() == int64_t(shape.size()));
    // transpose with () reverses the dims.
    for (int k = 0; k < shape.size(); ++k) BOOST_TEST(y.data<int64_t>()[k] == shape[shape.size() - 1 - k]);
  }
  TensorType t;
  t.dtype = DType::u8;
  t.dims = Dims{3, 200};
  TensorType r = infer_all(Opcode::shape_of, {t}, attrs_for(Opcode::shape_of))[0];
  BOOST_TEST(r.dims == (Dims{2}));
  BOOST_TEST(r.precision == 9);  // 200 needs 9 signed bits
  t.dims = Dims{kDynamic, 200};
  r = infer_all(Opcode::shape_of, {t}, attrs_for(Opcode::shape_of))[0];
  BOOST_TEST(r.precision == kUnknownPrecision);  // a `?` dim is only known at run time
}

BOOST_AUTO_TEST_SUITE_END()
