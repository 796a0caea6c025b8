// .npy reader/writer: NumPy-written fixtures (tests/data/gen_npy_fixtures.py) compared with
// the generator's formulas, and round trips of every dtype x format version x order through
// strided views. Bad files: npy_errors_test.cpp.
#include "tensor/npy_test_util.hpp"

namespace mlvm {
namespace {

using namespace npy_test;

BOOST_AUTO_TEST_SUITE(tensor_npy)

BOOST_AUTO_TEST_CASE(numpy_fixtures) {
  check_formula("f4_c.npy", DType::f32, Dims{2, 3, 4}, [](int64_t k) { return k * 0.5 - 3; });
  check_formula("f8_c.npy", DType::f64, Dims{3, 5}, [](int64_t k) { return double(k * k) / 7.0; });
  check_formula("i1_c.npy", DType::i8, Dims{4, 6}, [](int64_t k) { return double(k * 5 - 60); });
  check_formula("u1_c.npy", DType::u8, Dims{20}, [](int64_t k) { return double(k * 13 % 256); });
  check_formula("i2_c.npy", DType::i16, Dims{5, 4},
                [](int64_t k) { return double(k * 1000 - 9000); });
  check_formula("i4_c.npy", DType::i32, Dims{2, 2, 2},
                [](int64_t k) { return double(k * 100000000 - 300000000); });
  check_formula("b1_c.npy", DType::boolean, Dims{7},
                [](int64_t k) { return k % 3 == 0 ? 1.0 : 0.0; });
  check_formula("f4_fortran.npy", DType::f32, Dims{3, 4}, [](int64_t k) { return double(k); });
  check_formula("i2_fortran.npy", DType::i16, Dims{2, 3, 4}, [](int64_t k) { return double(k); });
  check_formula("f8_fortran_empty.npy", DType::f64, Dims{0, 3}, [](int64_t) { return 0.0; });
  // Fortran order, one per dtype (f4 and i2 above): the values are formulas of the C-order
  // index, so a reader that ignored fortran_order would see them permuted.
  check_formula("f8_fortran.npy", DType::f64, Dims{3, 2, 4},
                [](int64_t k) { return k * 0.25 - 1; });
  check_formula("i1_fortran.npy", DType::i8, Dims{4, 5},
                [](int64_t k) { return double(k * 7 - 64); });
  check_formula("u1_fortran.npy", DType::u8, Dims{2, 3, 5},
                [](int64_t k) { return double(k * 9 % 256); });
  check_formula("i4_fortran.npy", DType::i32, Dims{3, 4},
                [](int64_t k) { return double(k * -123457 + 1000); });
  check_int_formula("i8_fortran.npy", DType::i64, Dims{2, 3, 2},
                    [](int64_t k) { return k * ((int64_t(1) << 50) + 3) - (int64_t(1) << 62); });
  check_formula("b1_fortran.npy", DType::boolean, Dims{3, 5},
                [](int64_t k) { return k * 7 % 3 == 1 ? 1.0 : 0.0; });
  // The stored bytes of a Fortran fixture really are column-major (element [i, j] of f32[3, 4]
  // holds 4i + j and sits at byte 4 * (i + 3j) of the data).
  {
    const Bytes f = read_file(fixture("f4_fortran.npy"));
    BOOST_REQUIRE_EQUAL(f.size(), 128u + 48u);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j)
        BOOST_CHECK_EQUAL(element_at(DType::f32, f.data() + 128 + 4 * (i + 3 * j)), 4 * i + j);
  }
  check_formula("f8_0d.npy", DType::f64, Dims{1}, [](int64_t) { return 3.5; });
  check_formula("f4_empty.npy", DType::f32, Dims{0, 3}, [](int64_t) { return 0.0; });
  check_formula("i4_empty.npy", DType::i32, Dims{2, 0, 5}, [](int64_t) { return 0.0; });
  check_formula("u1_rank8.npy", DType::u8, Dims{1, 2, 1, 2, 1, 2, 1, 2},
                [](int64_t k) { return double(k); });
  check_formula("i4_v2.npy", DType::i32, Dims{2, 3}, [](int64_t k) { return double(k - 3); });
  check_formula("f4_v3.npy", DType::f32, Dims{2}, [](int64_t k) { return k + 0.25; });
  // i64 extremes are compared exactly as integers.
  Tensor t = load_npy(fixture("i8_c.npy"));
  BOOST_REQUIRE(t.shape() == Dims{3});
  const int64_t i0[1] = {0}, i1[1] = {1}, i2[1] = {2};
  BOOST_CHECK_EQUAL(t.get_int(i0), INT64_MIN);
  BOOST_CHECK_EQUAL(t.get_int(i1), 1234567890123);
  BOOST_CHECK_EQUAL(t.get_int(i2), INT64_MAX);
}

BOOST_AUTO_TEST_CASE(writer_matches_numpy_bytes) {
  for (const char* name :
       {"f4_c.npy", "f8_c.npy", "i1_c.npy", "u1_c.npy", "i2_c.npy", "i4_c.npy", "i8_c.npy",
        "b1_c.npy", "f4_empty.npy", "i4_empty.npy", "u1_rank8.npy"}) {
    Bytes file = read_file(fixture(name));
    BOOST_CHECK_MESSAGE(to_npy(parse_npy(file)) == file,
                        name << ": writer output differs from NumPy's");
  }
  // Format 2.0 and Fortran order as NumPy writes them.
  {
    Bytes file = read_file(fixture("i4_v2.npy"));
    BOOST_CHECK_MESSAGE(to_npy(parse_npy(file), NpyWriteOptions{2, false}) == file,
                        "i4_v2.npy: writer output differs from NumPy's");
  }
  for (const char* name :
       {"f4_fortran.npy", "f8_fortran.npy", "i1_fortran.npy", "u1_fortran.npy", "i2_fortran.npy",
        "i4_fortran.npy", "i8_fortran.npy", "b1_fortran.npy"}) {
    Bytes file = read_file(fixture(name));
    BOOST_CHECK_MESSAGE(to_npy(parse_npy(file), NpyWriteOptions{1, true}) == file,
                        name << ": writer output differs from NumPy's");
  }
}

BOOST_AUTO_TEST_CASE(unsupported_fixtures) {
  auto check = [](const char* name, const std::string& needle) {
    try {
      load_npy(fixture(name));
      BOOST_ERROR(name << " loaded");
    } catch (const Error& e) {
      BOOST_CHECK_EQUAL(e.kind(), ErrorKind::malformed);
      BOOST_CHECK_MESSAGE(e.message().find(needle) != std::string::npos,
                          name << ": " << e.message());
      BOOST_CHECK_MESSAGE(e.location().find(name) != std::string::npos,
                          "location " << e.location());
    }
  };
  check("bad_big_endian.npy", "big-endian data ('>i4') is not supported");
  check("bad_u2.npy", "unsupported dtype descr '<u2'");
  check("bad_c8.npy", "unsupported dtype descr '<c8'");
  check("bad_rank9.npy", "more than 8 dims");
  check("bad_structured.npy", "structured dtypes are not supported");
}

BOOST_AUTO_TEST_CASE(round_trip_every_dtype) {
  for (DType dt : {DType::f32, DType::f64, DType::i8, DType::u8, DType::i16, DType::i32, DType::i64,
                   DType::boolean}) {
    R::RefArray x = R::iota({3, 4, 5}, 1, 0);
    for (auto& e : x.v)
      e = dt == DType::boolean ? double(int64_t(e) % 2) : double(int64_t(e) * 7 % 120);
    Tensor t = R::to_tensor(x, dt);
    // Views are written in C order.
    Tensor v = flip(transpose(t, V{1, 2, 0}), 2);
    R::RefArray rv = R::flip(R::transpose(x, {1, 2, 0}), 2);
    for (const auto& [src, ref] : std::vector<std::pair<Tensor, R::RefArray>>{{t, x}, {v, rv}}) {
      Tensor back = parse_npy(to_npy(src));
      BOOST_CHECK_EQUAL(back.dtype(), dt);
      R::equals(back, ref, "round trip " + std::string(dtype_name(dt)));
    }
    Tensor c = full(dt, Dims{2, 2}, Scalar::from_int(1));
    R::equals(parse_npy(to_npy(c)), R::RefArray{{2, 2}, {1, 1, 1, 1}}, "constant round trip");
    const std::string path =
        std::string(MLVM_BINARY_DIR) + "/npy_round_trip_" + std::string(dtype_name(dt)) + ".npy";
    save_npy(path, v);
    R::equals(load_npy(path), rv, "file round trip " + std::string(dtype_name(dt)));
    std::remove(path.c_str());
  }
  // f64 specials survive bit-exactly.
  Tensor s = Tensor::empty(DType::f64, Dims{3});
  s.data<double>()[0] = -0.0;
  s.data<double>()[1] = INFINITY;
  s.data<double>()[2] = NAN;
  Tensor b = parse_npy(to_npy(s));
  BOOST_CHECK(std::signbit(b.data<double>()[0]));
  BOOST_CHECK(std::isinf(b.data<double>()[1]));
  BOOST_CHECK(std::isnan(b.data<double>()[2]));
  // A header too long for format 1.0 is not possible with rank <= 8, but the reader takes 2.0.
  Bytes v2 =
      craft("{'descr': '<i2', 'fortran_order': False, 'shape': (2,), }", {1, 0, 255, 255}, 2);
  Tensor t2 = parse_npy(v2);
  const int64_t i1[1] = {1};
  BOOST_CHECK_EQUAL(t2.get_int(i1), -1);
}

BOOST_AUTO_TEST_CASE(write_options_every_dtype_version_order) {
  const std::vector<NpyWriteOptions> all_options = {{1, false}, {1, true}, {2, false}, {2, true}};
  for (DType dt : {DType::f32, DType::f64, DType::i8, DType::u8, DType::i16, DType::i32, DType::i64,
                   DType::boolean}) {
    const std::string dts(dtype_name(dt));
    auto values = [&](R::RefArray a) {
      for (auto& e : a.v)
        e = dt == DType::boolean ? double(int64_t(e) % 3 == 1) : double(int64_t(e) * 7 % 120);
      return a;
    };
    const R::RefArray x = values(R::iota({3, 4, 5}, 1, 0));
    const Tensor t = R::to_tensor(x, dt);
    const R::RefArray row = values(R::iota({1, 5}, 1, 3));
    const R::RefArray r1 = values(R::iota({7}, 1, 2));
    const R::RefArray r8 = values(R::iota({2, 1, 3, 1, 2, 1, 1, 2}, 1, 1));
    const R::RefArray empty = values(R::iota({3, 0, 2}));
    struct Case {
      std::string name;
      Tensor src;
      R::RefArray ref;
    };
    const std::vector<Case> cases = {
        {"contiguous", t, x},
        {"transposed", transpose(t, V{2, 0, 1}), R::transpose(x, {2, 0, 1})},
        {"flipped", flip(t, 1), R::flip(x, 1)},
        {"transposed+flipped", flip(transpose(t), 0), R::flip(R::transpose(x, {}), 0)},
        {"stepped slice", strided_slice(t, V{0, 3, 4}, V{3, 0, 0}, V{2, -2, -3}),
         R::strided_slice(x, {0, 3, 4}, {3, 0, 0}, {2, -2, -3}, {})},
        {"broadcast", broadcast_to(R::to_tensor(row, dt), V{3, 4, 5}),
         R::broadcast_to(row, {3, 4, 5})},
        {"rank 1", R::to_tensor(r1, dt), r1},
        {"rank 1 flipped", flip(R::to_tensor(r1, dt), 0), R::flip(r1, 0)},
        {"rank 8 transposed", transpose(R::to_tensor(r8, dt)), R::transpose(r8, {})},
        {"empty", transpose(R::to_tensor(empty, dt)), R::transpose(empty, {})},
        {"constant", full(dt, Dims{2, 3}, Scalar::from_int(1)),
         R::RefArray{{2, 3}, {1, 1, 1, 1, 1, 1}}},
    };
    for (const Case& c : cases) {
      BOOST_REQUIRE_MESSAGE(R::equals(c.src, c.ref, dts + " " + c.name + " source"), c.name);
      for (const NpyWriteOptions& o : all_options) {
        const std::string what =
            dts + " " + c.name + " v" + std::to_string(o.version) + (o.fortran_order ? " F" : " C");
        const Bytes b = to_npy(c.src, o);
        check_written_bytes(b, dt, c.ref, o, what);
        const Tensor back = parse_npy(b);
        BOOST_CHECK_EQUAL(back.dtype(), dt);
        BOOST_CHECK(back.is_contiguous());
        BOOST_CHECK_EQUAL(back.mode(), ValueMode::owned);
        R::equals(back, c.ref, what + " round trip");
      }
    }
    // Through files, and the defaults are version 1.0, C order.
    const std::string path = std::string(MLVM_BINARY_DIR) + "/npy_write_options_" + dts + ".npy";
    const Tensor v = flip(transpose(t, V{1, 2, 0}), 2);
    const R::RefArray rv = R::flip(R::transpose(x, {1, 2, 0}), 2);
    for (const NpyWriteOptions& o : all_options) {
      save_npy(path, v, o);
      check_written_bytes(read_file(path), dt, rv, o, "file " + dts);
      R::equals(load_npy(path), rv, "file round trip " + dts);
    }
    BOOST_CHECK(to_npy(v) == to_npy(v, NpyWriteOptions{}));
    BOOST_CHECK(to_npy(v) == to_npy(v, NpyWriteOptions{1, false}));
    std::remove(path.c_str());
  }
}

BOOST_AUTO_TEST_CASE(write_v2_fortran_exact_bytes) {
  // i16[2, 3] holding 10 * i + j, written as 2.0 in Fortran order: the whole file, byte by byte.
  Tensor t = Tensor::empty(DType::i16, Dims{2, 3});
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) t.data<int16_t>()[3 * i + j] = int16_t(10 * i + j);
  const Bytes b = to_npy(t, NpyWriteOptions{2, true});
  std::string dict = "{'descr': '<i2', 'fortran_order': True, 'shape': (2, 3), }";
  while ((12 + dict.size() + 1) % 64) dict += ' ';
  dict += '\n';
  BOOST_REQUIRE_EQUAL(dict.size(), 116u);
  Bytes want = {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 116, 0, 0, 0};
  want.insert(want.end(), dict.begin(), dict.end());
  for (int16_t v : {0, 10, 1, 11, 2, 12}) {  // column-major
    want.push_back(uint8_t(v & 0xff));
    want.push_back(uint8_t(v >> 8));
  }
  BOOST_CHECK(b == want);
  // The existing reader takes it back into C order.
  Tensor back = parse_npy(want);
  BOOST_CHECK(back.shape() == (Dims{2, 3}));
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j) {
      const int64_t idx[2] = {i, j};
      BOOST_CHECK_EQUAL(back.get_int(idx), 10 * i + j);
    }
  // Rank 1 in Fortran order is the same data as C order, flagged True.
  Tensor r1 = flip(R::to_tensor(R::iota({4}), DType::i32), 0);
  Bytes fb = to_npy(r1, NpyWriteOptions{1, true}), cb = to_npy(r1);
  BOOST_REQUIRE_EQUAL(fb.size(), cb.size());
  BOOST_CHECK(std::equal(fb.end() - 16, fb.end(), cb.end() - 16));
  BOOST_CHECK(std::string(fb.begin(), fb.end() - 16).find("'fortran_order': True") !=
              std::string::npos);
  // Unsupported versions are a usage error; nothing is written.
  for (int version : {0, 3, -1, 256}) {
    try {
      to_npy(t, NpyWriteOptions{version, false});
      BOOST_ERROR("version " << version << " accepted");
    } catch (const Error& e) {
      BOOST_CHECK_EQUAL(e.kind(), ErrorKind::usage);
      BOOST_CHECK(e.message().find("version " + std::to_string(version)) != std::string::npos);
    }
  }
  const std::string path = std::string(MLVM_BINARY_DIR) + "/npy_bad_version.npy";
  std::remove(path.c_str());
  BOOST_CHECK_THROW(save_npy(path, t, NpyWriteOptions{3, false}), Error);
  BOOST_CHECK(!std::filesystem::exists(path));
  BOOST_CHECK_THROW(to_npy(Tensor(), NpyWriteOptions{2, true}), Error);
}

// Every file in tests/data/npy/bad/ (gen_npy_fixtures.py) is rejected with Error(malformed)
// carrying the expected message fragment; every file there must have an entry here.
BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace mlvm
