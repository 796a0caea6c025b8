// Helpers of the .npy reader/writer suites (npy_test.cpp, npy_errors_test.cpp): fixtures,
// crafted files and the byte-level checks of written files.
#pragma once

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <set>

#include "tensor/error.hpp"
#include "tensor/npy.hpp"
#include "tensor/test_reference.hpp"
#include "tensor/views.hpp"

namespace mlvm::npy_test {


namespace R = testref;
using V = std::vector<int64_t>;
using Bytes = std::vector<uint8_t>;

inline std::string fixture(const std::string& name) {
  return std::string(MLVM_SOURCE_DIR) + "/tests/data/npy/" + name;
}

inline Bytes read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  BOOST_REQUIRE_MESSAGE(f, "cannot open " << path);
  return Bytes(std::istreambuf_iterator<char>(f), {});
}

// Expects parse_npy(bytes) to fail with Error(malformed) whose message holds `needle` and
// whose location is "byte <at>" (at < 0: any).
inline void expect_malformed(const Bytes& bytes, const std::string& needle, int64_t at = -1) {
  try {
    parse_npy(bytes);
    BOOST_ERROR("expected a malformed error containing '" << needle << "'");
  } catch (const Error& e) {
    BOOST_CHECK_EQUAL(e.kind(), ErrorKind::malformed);
    BOOST_CHECK_MESSAGE(e.message().find(needle) != std::string::npos,
                        "message '" << e.message() << "' lacks '" << needle << "'");
    BOOST_CHECK_MESSAGE(e.location().rfind("byte ", 0) == 0, "location '" << e.location() << "'");
    if (at >= 0) BOOST_CHECK_EQUAL(e.location(), "byte " + std::to_string(at));
  }
}

// A version-1.0 file with the given header text (padded to 64 bytes with a final '\n').
inline Bytes craft(const std::string& dict, const Bytes& data, int major = 1) {
  std::string h = dict;
  std::size_t pre = major == 1 ? 10 : 12;
  while ((pre + h.size() + 1) % 64) h += ' ';
  h += '\n';
  Bytes out = {0x93, 'N', 'U', 'M', 'P', 'Y', uint8_t(major), 0};
  for (std::size_t k = 0; k < pre - 8; ++k) out.push_back(uint8_t(h.size() >> (8 * k)));
  out.insert(out.end(), h.begin(), h.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

// Element at flat C-order index k of a tensor (any layout).
inline double flat_at(const Tensor& t, int64_t k) {
  R::Index idx(t.rank());
  for (int d = t.rank() - 1; d >= 0; --d) {
    idx[d] = k % t.dim(d);
    k /= t.dim(d);
  }
  return t.get_double(idx);
}

inline void check_formula(const std::string& name, DType dt, const Dims& shape, double (*f)(int64_t)) {
  Tensor t = load_npy(fixture(name));
  BOOST_CHECK_MESSAGE(t.dtype() == dt, name << ": dtype " << t.dtype());
  BOOST_CHECK_MESSAGE(t.shape() == shape, name << ": shape " << dims_to_string(t.shape()));
  BOOST_CHECK(t.is_contiguous());
  BOOST_CHECK_EQUAL(t.mode(), ValueMode::owned);
  for (int64_t k = 0; k < t.numel(); ++k)
    if (flat_at(t, k) != f(k)) {
      BOOST_ERROR(name << ": element " << k << " is " << flat_at(t, k) << ", want " << f(k));
      break;
    }
}

// As check_formula, comparing integers exactly (i64 values beyond 2^53).
inline void check_int_formula(const std::string& name, DType dt, const Dims& shape,
                       int64_t (*f)(int64_t)) {
  Tensor t = load_npy(fixture(name));
  BOOST_CHECK_MESSAGE(t.dtype() == dt, name << ": dtype " << t.dtype());
  BOOST_REQUIRE_MESSAGE(t.shape() == shape, name << ": shape " << dims_to_string(t.shape()));
  BOOST_CHECK(t.is_contiguous());
  for (int64_t k = 0; k < t.numel(); ++k) {
    R::Index idx(t.rank());
    for (int64_t d = t.rank() - 1, r = k; d >= 0; --d) {
      idx[d] = r % t.dim(int(d));
      r /= t.dim(int(d));
    }
    if (t.get_int(idx) != f(k)) {
      BOOST_ERROR(name << ": element " << k << " is " << t.get_int(idx) << ", want " << f(k));
      break;
    }
  }
}

// The `dt` element stored at p (unaligned), as a double.
inline double element_at(DType dt, const uint8_t* p) {
  return visit_dtype(dt, [&](auto tag) -> double {
    using T = storage_t<typename decltype(tag)::type>;
    T v;
    std::memcpy(&v, p, sizeof(T));
    return double(v);
  });
}

// The reference index of element j in column-major (Fortran) order: the first index varies
// fastest.
inline R::Index fortran_index(const std::vector<int64_t>& shape, int64_t j) {
  R::Index idx(shape.size());
  for (std::size_t d = 0; d < shape.size(); ++d) {
    idx[d] = j % shape[d];
    j /= shape[d];
  }
  return idx;
}

// Checks the bytes of a file written by to_npy(src, options) without the reader: preamble,
// header text, 64-byte alignment of the data, and every data element in the requested order
// against the reference.
inline void check_written_bytes(const Bytes& b, DType dt, const R::RefArray& ref, const NpyWriteOptions& o,
                         const std::string& what) {
  const std::size_t pre = o.version == 1 ? 10 : 12;
  BOOST_REQUIRE_MESSAGE(b.size() >= pre, what);
  BOOST_CHECK_MESSAGE(std::memcmp(b.data(), "\x93NUMPY", 6) == 0, what << ": magic");
  BOOST_CHECK_MESSAGE(b[6] == o.version && b[7] == 0, what << ": version " << int(b[6]));
  std::size_t hlen = 0;
  for (std::size_t k = 0; k < pre - 8; ++k) hlen |= std::size_t(b[8 + k]) << (8 * k);
  BOOST_REQUIRE_MESSAGE(pre + hlen <= b.size(), what << ": header length " << hlen);
  BOOST_CHECK_MESSAGE((pre + hlen) % 64 == 0, what << ": data at " << pre + hlen);
  const std::string header(b.begin() + pre, b.begin() + pre + hlen);
  BOOST_CHECK_MESSAGE(header.back() == '\n', what);
  std::string shape;
  for (std::size_t d = 0; d < ref.shape.size(); ++d)
    shape += (d ? ", " : "") + std::to_string(ref.shape[d]);
  if (ref.shape.size() == 1) shape += ",";
  const std::string dict = std::string("{'descr': '") +
                           (dt == DType::f32   ? "<f4"
                            : dt == DType::f64 ? "<f8"
                            : dt == DType::i8  ? "|i1"
                            : dt == DType::u8  ? "|u1"
                            : dt == DType::i16 ? "<i2"
                            : dt == DType::i32 ? "<i4"
                            : dt == DType::i64 ? "<i8"
                                               : "|b1") +
                           "', 'fortran_order': " + (o.fortran_order ? "True" : "False") +
                           ", 'shape': (" + shape + "), }";
  BOOST_CHECK_MESSAGE(header.rfind(dict, 0) == 0, what << ": header " << header);
  const std::size_t isz = dtype_size(dt);
  BOOST_REQUIRE_MESSAGE(b.size() == pre + hlen + std::size_t(ref.numel()) * isz,
                        what << ": " << b.size() << " bytes");
  const uint8_t* data = b.data() + pre + hlen;
  for (int64_t j = 0; j < ref.numel(); ++j) {
    R::Index idx(ref.shape.size());
    if (o.fortran_order) {
      idx = fortran_index(ref.shape, j);
    } else {
      for (int64_t d = int64_t(ref.shape.size()) - 1, r = j; d >= 0; --d) {
        idx[d] = r % ref.shape[d];
        r /= ref.shape[d];
      }
    }
    const double got = element_at(dt, data + j * isz), want = ref.at(idx);
    if (got != want) {
      BOOST_ERROR(what << ": data element " << j << " is " << got << ", want " << want);
      break;
    }
  }
}


}  // namespace mlvm::npy_test
