// The views and constants through the op API: the static rules (ir/infer_views.cpp: types, `?`
// dims, precision, every error with its kind and message) and the kernels (kernels/views.cpp:
// values against the index-by-index reference), with attributes checked as a module's are.
#include <boost/test/unit_test.hpp>

#include "common/attr_values.hpp"
#include "common/checks.hpp"
#include "common/one_result.hpp"
#include "common/op_runner.hpp"
#include "tensor/test_reference.hpp"

namespace mlvm {
namespace {

namespace R = testref;
using V = std::vector<int64_t>;
constexpr int64_t D = kDynamic;
using namespace testing;

// The op's kernel with checked attributes, under a memory budget the tests inspect.
struct Runner {
  ExecEnv env;
  Runner() { env.budget = std::make_shared<MemoryBudget>(); }
  Tensor operator()(Opcode op, std::vector<Tensor> in, std::vector<AttrValue> attrs) {
    const Attrs a = testing::attrs_for(op, std::move(attrs));
    std::vector<Tensor> out(1);
    KernelContext ctx{in, out, a, env};
    kernel_fn(op)(ctx);
    return out[0];
  }
};

void check_type(const TensorType& got, const TensorType& want) {
  BOOST_CHECK_MESSAGE(got == want, "type " << got.to_string() << ", want " << want.to_string());
}

BOOST_AUTO_TEST_SUITE(kernels_views)

BOOST_AUTO_TEST_CASE(infer_shapes_and_precision) {
  const DType i32 = DType::i32, f32 = DType::f32;
  check_type(infer_op(Opcode::transpose, {tt(i32, {2, D, 4}, 9)}, {ints({})}), tt(i32, {4, D, 2}, 9));
  check_type(infer_op(Opcode::transpose, {tt(i32, {2, D, 4}, 9)}, {ints({1, -1, 0})}),
             tt(i32, {D, 4, 2}, 9));
  check_type(infer_op(Opcode::broadcast_to, {tt(f32, {D, 1})}, {ints({3, 5, 6})}), tt(f32, {3, 5, 6}));
  check_type(infer_op(Opcode::expand_dims, {tt(i32, {2, 3}, 5)}, {integer(-1), integer(2)}),
             tt(i32, {2, 3, 1, 1}, 5));
  check_type(infer_op(Opcode::expand_dims, {tt(i32, {2, 3})}, {integer(1), integer(0)}),
             tt(i32, {2, 3}));
  check_type(infer_op(Opcode::squeeze, {tt(f32, {1, 3, 1})}, {ints({})}), tt(f32, {3}));
  check_type(infer_op(Opcode::squeeze, {tt(f32, {D, 3, 1})}, {ints({0, 2})}), tt(f32, {3}));
  check_type(infer_op(Opcode::squeeze, {tt(f32, {1, 1})}, {ints({})}), tt(f32, {1}));
  check_type(infer_op(Opcode::reshape, {tt(i32, {2, 3, 4}, 3)}, {ints({-1, 6})}), tt(i32, {4, 6}, 3));
  check_type(infer_op(Opcode::reshape, {tt(i32, {D, 4})}, {ints({2, -1})}), tt(i32, {2, D}));
  check_type(infer_op(Opcode::flatten, {tt(i32, {2, 3, 4}, 7)}, {}), tt(i32, {24}, 7));
  check_type(infer_op(Opcode::flatten, {tt(i32, {2, D})}, {}), tt(i32, {D}));
  check_type(infer_op(Opcode::strided_slice, {tt(f32, {10, D, 6})},
                   {ints({1, 0}), ints({-1, 2}), ints({3}), ints({})}),
             tt(f32, {3, D, 6}));
  check_type(infer_op(Opcode::strided_slice, {tt(f32, {10, 7})},
                   {ints({-1}), ints({-100}), ints({-2}), ints({1})}),
             tt(f32, {10, 4}));
  check_type(infer_op(Opcode::slice_like, {tt(i32, {5, 6, 7}, 4), tt(f32, {2, 3})}, {ints({})}),
             tt(i32, {2, 3, 7}, 4));
  check_type(infer_op(Opcode::slice_like, {tt(i32, {5, 6, 7}), tt(f32, {9, 3, 2})}, {ints({-1})}),
             tt(i32, {5, 6, 2}));
  check_type(infer_op(Opcode::flip, {tt(i32, {5, D}, 2)}, {integer(-1)}), tt(i32, {5, D}, 2));
  check_type(infer_op(Opcode::rot90, {tt(f32, {2, 3, 4})}, {integer(1), ints({0, 2})}),
             tt(f32, {4, 3, 2}));
  check_type(infer_op(Opcode::rot90, {tt(f32, {2, 3, 4})}, {integer(-2), ints({0, 1})}),
             tt(f32, {2, 3, 4}));
  check_type(infer_op(Opcode::copy, {tt(i32, {D, 3}, 12)}, {}), tt(i32, {D, 3}, 12));
  // Constants: precision from the value (signed ints only).
  check_type(infer_op(Opcode::zeros, {}, {ints({2, 3}), AttrValue::dtype(i32)}), tt(i32, {2, 3}, 1));
  check_type(infer_op(Opcode::ones, {}, {ints({4}), AttrValue::dtype(DType::i8)}),
             tt(DType::i8, {4}, 2));
  check_type(infer_op(Opcode::ones, {}, {ints({4}), AttrValue::dtype(DType::u8)}), tt(DType::u8, {4}));
  check_type(infer_op(Opcode::full, {}, {ints({1}), AttrValue::dtype(DType::i16), integer(-300)}),
             tt(DType::i16, {1}, 10));
  check_type(
      infer_op(Opcode::full, {}, {ints({1}), AttrValue::dtype(DType::i64), AttrValue::floating(-4.0)}),
      tt(DType::i64, {1}, 4));
  check_type(infer_op(Opcode::full, {}, {ints({3, 0}), AttrValue::dtype(f32), AttrValue::floating(0.5)}),
             tt(f32, {3, 0}));
  check_type(infer_op(Opcode::full, {}, {ints({2}), AttrValue::dtype(DType::boolean), integer(1)}),
             tt(DType::boolean, {2}));
}

BOOST_AUTO_TEST_CASE(infer_errors) {
  const DType f32 = DType::f32, i8 = DType::i8;
  const ErrorKind inv = ErrorKind::invalid;
  auto in = [](Dims d) { return std::vector<TensorType>{tt(DType::f32, d)}; };
  expect_error(
      [&] {
        infer_op(Opcode::transpose, in({2, 3}), {ints({0})});
      },
      inv, "transpose: axes (0) has 1 entries");
  expect_error(
      [&] {
        infer_op(Opcode::transpose, in({2, 3}), {ints({1, 1})});
      },
      inv, "transpose: axis 1 is repeated");
  expect_error(
      [&] {
        infer_op(Opcode::transpose, in({2, 3}), {ints({0, -3})});
      },
      inv, "transpose: axis -3 is out of range");
  expect_error(
      [&] {
        infer_op(Opcode::broadcast_to, in({2, 3}), {ints({3, 3})});
      },
      inv, "broadcast_to: cannot broadcast f32[2, 3] to [3, 3] (dim 0: 2 vs 3");
  expect_error([&] { infer_op(Opcode::broadcast_to, in({2, 3}), {ints({3})}); }, inv, "smaller");
  expect_error([&] { infer_op(Opcode::broadcast_to, in({2, 3}), {ints({})}); }, inv, "rank 0");
  expect_error(
      [&] {
        infer_op(Opcode::expand_dims, in({2, 3}), {integer(3), integer(1)});
      },
      inv, "expand_dims: axis 3 is out of range for rank 2");
  expect_error(
      [&] {
        infer_op(Opcode::expand_dims, in({2, 3}), {integer(0), integer(7)});
      },
      inv, "result rank 9");
  expect_error(
      [&] {
        infer_op(Opcode::squeeze, in({2, 3}), {ints({1})});
      },
      inv, "squeeze: dim 1 has size 3, not 1");
  expect_error([&] { infer_op(Opcode::squeeze, in({D, 1}), {ints({})}); }, inv, "is ?; name the axes");
  expect_error([&] { infer_op(Opcode::squeeze, in({1, 1}), {ints({0, -2})}); }, inv, "repeated");
  expect_error(
      [&] {
        infer_op(Opcode::reshape, in({2, 3}), {ints({4, 2})});
      },
      inv, "reshape: cannot reshape f32[2, 3] (6 elements) to [4, 2] (8 elements)");
  expect_error(
      [&] {
        infer_op(Opcode::reshape, in({2, 3}), {ints({-1, -1})});
      },
      inv, "more than one -1");
  expect_error(
      [&] {
        infer_op(Opcode::reshape, in({2, 3}), {ints({-1, 4})});
      },
      inv, "not a multiple of 4");
  expect_error(
      [&] {
        infer_op(Opcode::reshape, in({2, 3}), {ints({-2, 3})});
      },
      inv, "expected >= 0 or a single -1");
  expect_error(
      [&] {
        infer_op(Opcode::strided_slice, in({4}), {ints({0}), ints({4}), ints({0}), ints({})});
      },
      inv, "a step must be non-zero");
  expect_error(
      [&] {
        infer_op(Opcode::strided_slice, in({4}), {ints({0, 0}), ints({}), ints({}), ints({})});
      },
      inv, "but x has rank 1");
  expect_error(
      [&] {
        infer_op(Opcode::strided_slice, in({4, 4}), {ints({0}), ints({1}), ints({}), ints({2})});
      },
      inv, "strided_slice: axis 2 is out of range");
  expect_error(
      [&] {
        infer_op(Opcode::slice_like, {tt(f32, {2, 3}), tt(f32, {3})}, {ints({})});
      },
      inv, "slice_like: like [3] has 3 in dim 0 but x f32[2, 3] has only 2");
  expect_error(
      [&] {
        infer_op(Opcode::slice_like, {tt(f32, {2, 3}), tt(f32, {1})}, {ints({1})});
      },
      inv, "does not have");
  expect_error(
      [&] {
        infer_op(Opcode::flip, in({2, 3}), {integer(2)});
      },
      inv, "flip: axis 2 is out of range for rank 2");
  expect_error(
      [&] {
        infer_op(Opcode::rot90, in({2, 3}), {integer(1), ints({1, -1})});
      },
      inv, "two different dims");
  expect_error(
      [&] {
        infer_op(Opcode::rot90, in({2, 3}), {integer(1), ints({0, 1, 2})});
      },
      inv, "exactly two dims");
  expect_error(
      [&] {
        infer_op(Opcode::rot90, in({6}), {integer(1), ints({0, 1})});
      },
      inv, "needs rank 2");
  expect_error(
      [&] {
        infer_op(Opcode::zeros, {}, {ints({2, -1}), AttrValue::dtype(f32)});
      },
      inv, "zeros: shape (2, -1)");
  expect_error(
      [&] {
        infer_op(Opcode::ones, {}, {ints({}), AttrValue::dtype(f32)});
      },
      inv, "ones: shape () has rank 0");
  expect_error(
      [&] {
        infer_op(Opcode::full, {}, {ints({2}), AttrValue::dtype(i8), integer(200)});
      },
      inv, "full: value 200 is not representable in i8");
  expect_error(
      [&] {
        infer_op(Opcode::full, {}, {ints({2}), AttrValue::dtype(DType::i32), AttrValue::floating(0.5)});
      },
      inv, "full: value 0.5 is not representable in i32");
  expect_error(
      [&] {
        infer_op(Opcode::full, {}, {ints({2}), AttrValue::dtype(DType::boolean), integer(-1)});
      },
      inv, "not representable in bool");
  expect_error(
      [&] {
        infer_op(Opcode::full, {},
              {ints({1, 1, 1, 1, 1, 1, 1, 1, 1}), AttrValue::dtype(f32), integer(0)});
      },
      inv, "rank 9");
}

// Distinct values every dtype holds exactly: f64 quarter steps (as R::iota), i8 over its whole
// range (-128 and 127 included), bool an irregular 0/1 pattern.
R::RefArray values_for(DType dt, std::vector<int64_t> shape) {
  R::RefArray a = R::iota(std::move(shape), 0.25, -2);
  for (std::size_t k = 0; k < a.v.size(); ++k) {
    if (dt == DType::i8) a.v[k] = double(127 - int64_t(k * 85 % 256));  // k = 0: 127, k = 3: -128
    if (dt == DType::boolean) a.v[k] = double((k * 2654435761u >> 9) & 1);
  }
  return a;
}

BOOST_AUTO_TEST_CASE(run_views_match_reference) {
  for (DType dt : {DType::f64, DType::i8, DType::boolean}) {
    BOOST_TEST_CONTEXT(dtype_name(dt)) {
      Runner run;
      R::RefArray x = values_for(dt, {3, 4, 5});
      Tensor t = R::to_tensor(x, dt);
      R::equals(run(Opcode::transpose, {t}, {ints({})}), R::transpose(x, {}), "transpose");
      R::equals(run(Opcode::transpose, {t}, {ints({2, 0, 1})}), R::transpose(x, {2, 0, 1}),
                "transpose perm");
      R::RefArray col = values_for(dt, {4, 1});
      R::equals(run(Opcode::broadcast_to, {R::to_tensor(col, dt)}, {ints({2, 4, 3})}),
                R::broadcast_to(col, {2, 4, 3}), "broadcast_to");
      R::equals(run(Opcode::expand_dims, {t}, {integer(-2), integer(2)}), R::expand_dims(x, -2, 2),
                "expand_dims");
      R::RefArray o = values_for(dt, {1, 3, 1});
      R::equals(run(Opcode::squeeze, {R::to_tensor(o, dt)}, {ints({})}), R::squeeze(o, {}), "squeeze");
      R::equals(run(Opcode::squeeze, {R::to_tensor(o, dt)}, {ints({-1})}), R::squeeze(o, {-1}),
                "squeeze -1");
      Tensor rv = run(Opcode::reshape, {t}, {ints({5, -1})});
      R::equals(rv, R::reshape(x, {5, 12}), "reshape view");
      BOOST_CHECK(rv.storage() == t.storage());
      R::equals(run(Opcode::flatten, {t}, {}), R::reshape(x, {60}), "flatten view");
      R::equals(
          run(Opcode::strided_slice, {t}, {ints({2, -1}), ints({0, 0}), ints({-1, -2}), ints({0, 2})}),
          R::strided_slice(x, {2, -1}, {0, 0}, {-1, -2}, {0, 2}), "strided_slice");
      R::equals(run(Opcode::slice_like, {t, Tensor::empty(DType::i8, Dims{2, 3})}, {ints({})}),
                R::slice_like(x, {2, 3}, {}), "slice_like");
      R::equals(run(Opcode::flip, {t}, {integer(1)}), R::flip(x, 1), "flip");
      R::equals(run(Opcode::rot90, {t}, {integer(3), ints({2, 0})}), R::rot90(x, 3, 2, 0), "rot90");
      // Views share storage, are views and keep the dtype.
      Tensor v = run(Opcode::transpose, {t}, {ints({})});
      BOOST_CHECK(v.storage() == t.storage());
      BOOST_CHECK_EQUAL(v.mode(), ValueMode::view);
      BOOST_CHECK_EQUAL(v.dtype(), dt);
      BOOST_CHECK_EQUAL(run.env.budget->live(), 0);
    }
  }
}

BOOST_AUTO_TEST_CASE(run_reshape_copies_when_strides_forbid) {
  Runner run;
  R::RefArray x = R::iota({3, 4});
  Tensor tt = run(Opcode::transpose, {R::to_tensor(x)}, {ints({})});
  Tensor r = run(Opcode::reshape, {tt}, {ints({2, 6})});
  R::equals(r, R::reshape(R::transpose(x, {}), {2, 6}), "reshape copy");
  BOOST_CHECK(r.storage() != tt.storage());
  BOOST_CHECK(r.is_contiguous());
  BOOST_CHECK_EQUAL(run.env.budget->live(), 12 * 8);
  Tensor f = run(Opcode::flatten, {tt}, {});
  R::equals(f, R::reshape(R::transpose(x, {}), {12}), "flatten copy");
  // A broadcast input: [4,1] -> [4,3] flattened needs a copy.
  Tensor b = run(Opcode::broadcast_to, {R::to_tensor(R::iota({4, 1}))}, {ints({4, 3})});
  R::equals(run(Opcode::flatten, {b}, {}), R::reshape(R::broadcast_to(R::iota({4, 1}), {4, 3}), {12}),
            "flatten bcast");
  // The copy respects the budget.
  Runner tight;
  tight.env.budget = std::make_shared<MemoryBudget>(40);
  expect_error([&] { tight(Opcode::reshape, {tt}, {ints({12})}); }, ErrorKind::limit, "memory limit");
}

BOOST_AUTO_TEST_CASE(run_time_mismatches_trap) {
  // Shapes that only `?` dims can bring to run time: Error(trap).
  Runner run;
  Tensor t = R::to_tensor(R::iota({2, 3}));
  expect_error([&] { run(Opcode::squeeze, {t}, {ints({1})}); }, ErrorKind::trap,
               "squeeze: dim 1 has size 3, not 1");
  expect_error(
      [&] {
        run(Opcode::broadcast_to, {t}, {ints({4, 3})});
      },
      ErrorKind::trap, "dim 0: 2 vs 4");
  expect_error([&] { run(Opcode::reshape, {t}, {ints({4})}); }, ErrorKind::trap,
               "(6 elements) to [4] (4 elements)");
  expect_error([&] { run(Opcode::reshape, {t}, {ints({-1, 4})}); }, ErrorKind::trap, "not a multiple");
  expect_error(
      [&] {
        run(Opcode::slice_like, {t, Tensor::empty(DType::f32, Dims{2, 5})}, {ints({})});
      },
      ErrorKind::trap, "has only 3");
  // Attribute errors stay invalid.
  expect_error([&] { run(Opcode::flip, {t}, {integer(-3)}); }, ErrorKind::invalid,
               "flip: axis -3 is out of range");
}

BOOST_AUTO_TEST_CASE(run_constants_and_copy) {
  Runner run;
  Tensor z = run(Opcode::zeros, {}, {ints({65536, 32768}), AttrValue::dtype(DType::f64)});
  BOOST_CHECK_EQUAL(z.mode(), ValueMode::constant);
  BOOST_CHECK_EQUAL(z.storage()->bytes(), 8);
  BOOST_CHECK(z.strides() == (Dims{0, 0}));
  const int64_t idx[2] = {65535, 17};
  BOOST_CHECK_EQUAL(z.get_double(idx), 0.0);
  Tensor o = run(Opcode::ones, {}, {ints({3}), AttrValue::dtype(DType::boolean)});
  const int64_t i2[1] = {2};
  BOOST_CHECK_EQUAL(o.get_int(i2), 1);
  Tensor f = run(Opcode::full, {}, {ints({2, 2}), AttrValue::dtype(DType::i16), integer(-300)});
  const int64_t i11[2] = {1, 1};
  BOOST_CHECK_EQUAL(f.get_int(i11), -300);
  BOOST_CHECK(!f.is_writable());
  Tensor ff =
      run(Opcode::full, {}, {ints({1}), AttrValue::dtype(DType::f32), AttrValue::floating(0.1)});
  const int64_t i0[1] = {0};
  BOOST_CHECK_EQUAL(ff.get_double(i0), double(0.1f));
  expect_error(
      [&] {
        run(Opcode::full, {}, {ints({2}), AttrValue::dtype(DType::u8), integer(-1)});
      },
      ErrorKind::invalid, "not representable in u8");
  // copy: a fresh, contiguous, writable tensor, whatever the input's layout.
  R::RefArray x = R::iota({3, 1});
  Tensor b = run(Opcode::broadcast_to, {R::to_tensor(x)}, {ints({2, 3, 4})});
  Tensor c = run(Opcode::copy, {b}, {});
  R::equals(c, R::broadcast_to(x, {2, 3, 4}), "copy of broadcast");
  BOOST_CHECK(c.storage() != b.storage());
  BOOST_CHECK(c.is_contiguous());
  BOOST_CHECK(c.is_writable());
  BOOST_CHECK_EQUAL(c.mode(), ValueMode::owned);
  Tensor cf = run(Opcode::copy, {f}, {});
  BOOST_CHECK(cf.is_writable());
  BOOST_CHECK_EQUAL(cf.get_int(i11), -300);
  Tensor ce = run(Opcode::copy, {Tensor::empty(DType::i8, Dims{0, 4})}, {});
  BOOST_CHECK(ce.shape() == (Dims{0, 4}));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace mlvm
