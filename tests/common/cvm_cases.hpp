// One CVM op through the importer, checked against the same program written in .mlasm: a
// case builds a graph `data` + parameters -> one op node (every output a head), imports it,
// assembles the reference text, runs both on the same input and compares every output
// exactly (integers are bit-exact). Used by tests/cvm/.
#pragma once

#include <boost/test/unit_test.hpp>
#include <map>
#include <string>
#include <vector>

#include "assembler/assembler.hpp"
#include "common/cvm_writer.hpp"
#include "cvm/importer.hpp"
#include "mlvm/mlvm.hpp"
#include "tensor/tensor.hpp"
#include "vm/program_access.hpp"

namespace mlvm::cvm_test {

struct OpCase {
  std::string func_name;
  std::map<std::string, std::string> attrs;
  std::vector<int64_t> data_shape;
  int data_precision = 8;
  std::vector<ParamArray> params;   // declared with precision 8
  std::vector<std::string> inputs;  // "data" or a parameter's name, in the op's input order
  std::vector<std::vector<int64_t>> out_shapes;
  std::string body;                 // the reference: reads `d` (data as i32) and the params, writes y (y1, ...)
  std::vector<int32_t> data_values = {};  // default: a spread of values within the precision
};

inline int64_t numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// Row-major values spread over [-b, b], b = 2^(p-1) - 1, zero included.
inline std::vector<int32_t> spread(int64_t n, int precision) {
  const int64_t b = (int64_t(1) << (precision - 1)) - 1;
  std::vector<int32_t> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(int32_t((i * 37 + 11) % (2 * b + 1) - b));
  return v;
}

// A parameter named `name` of `shape` holding spread() values within `precision` bits.
inline ParamArray spread_param(const std::string& name, std::vector<int64_t> shape, int precision) {
  return ParamArray{name, shape, spread(numel(shape), precision)};
}

// The .mlasm literal of row-major `values` shaped `shape`: [[1, 2], [3, 4]].
inline std::string literal(const std::vector<int64_t>& shape, const std::vector<int32_t>& values, std::size_t dim = 0,
                           std::size_t at = 0) {
  if (dim == shape.size()) return std::to_string(values[at]);
  std::size_t inner = 1;
  for (std::size_t k = dim + 1; k < shape.size(); ++k) inner *= std::size_t(shape[k]);
  std::string s = "[";
  for (int64_t i = 0; i < shape[dim]; ++i)
    s += (i ? ", " : "") + literal(shape, values, dim + 1, at + std::size_t(i) * inner);
  return s + "]";
}

inline std::string type_text(const char* dtype, const std::vector<int64_t>& shape) {
  std::string s = std::string(dtype) + "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

inline Tensor data_tensor(const std::vector<int64_t>& shape, int precision, const std::vector<int32_t>& values) {
  const bool i8 = precision >= 1 && precision <= 8;
  Tensor t = Tensor::empty(i8 ? DType::i8 : DType::i32, Dims(std::span<const int64_t>(shape)));
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i8) t.data<int8_t>()[i] = int8_t(values[i]);
    else t.data<int32_t>()[i] = values[i];
  }
  return t;
}

inline std::vector<int64_t> ints_of(const Tensor& t) {
  Tensor c = t.contiguous();
  std::vector<int64_t> v;
  for (int64_t i = 0; i < c.numel(); ++i) v.push_back(c.dtype() == DType::i64 ? c.data<int64_t>()[i] : c.data<int32_t>()[i]);
  return v;
}

inline std::vector<Tensor> run_module(Module m, const Tensor& input) {
  Session s(program_from_module(std::move(m)));
  std::vector<Tensor> in{input};
  return s.run_positional(std::span<const Tensor>(in));
}

// The graph of a case, written by CvmWriter.
inline CvmWriter case_graph(const OpCase& c) {
  CvmWriter w;
  std::map<std::string, int> node;
  node["data"] = w.data(c.data_shape, c.data_precision);
  for (const ParamArray& p : c.params) node[p.name] = w.param(p.name, p.shape, p.values, 8, p.bits);
  std::vector<Entry> in;
  for (const std::string& name : c.inputs) in.push_back({node.at(name), 0});
  const int op = w.op(c.func_name, "op0", in, c.attrs, c.out_shapes);
  for (std::size_t k = 0; k < c.out_shapes.size(); ++k) w.head(op, int(k));
  return w;
}

// The reference program of a case.
inline std::string case_mlasm(const OpCase& c) {
  const bool i8 = c.data_precision <= 8;
  std::string s = ".input data : " + type_text(i8 ? "i8" : "i32", c.data_shape) +
                  " precision=" + std::to_string(c.data_precision) + "\n";
  for (const ParamArray& p : c.params)
    s += ".const " + p.name + " : " + type_text("i32", p.shape) + " = " + literal(p.shape, p.values) + "\n";
  for (std::size_t k = 0; k < c.out_shapes.size(); ++k) s += ".output y" + (k ? std::to_string(k) : "") + "\n";
  s += i8 ? "    d = cast data, dtype=i32\n" : "    d = copy data\n";
  return s + c.body + "\n";
}

// Imports the case, runs it and its reference, and compares: same shapes, same values, i32.
inline void check_case(const OpCase& c) {
  BOOST_TEST_CONTEXT("CVM op " << c.func_name) {
    const CvmWriter w = case_graph(c);
    CvmImport imported = import_cvm(w.symbol(), w.params());
    const Module reference = assemble_or_throw(case_mlasm(c), c.func_name + ".mlasm");
    const std::vector<int32_t> values = c.data_values.empty() ? spread(numel(c.data_shape), c.data_precision) : c.data_values;
    const Tensor x = data_tensor(c.data_shape, c.data_precision, values);
    std::vector<Tensor> got = run_module(std::move(imported.module), x);
    std::vector<Tensor> want = run_module(reference, x);
    BOOST_TEST_REQUIRE(got.size() == want.size());
    for (std::size_t k = 0; k < got.size(); ++k) {
      BOOST_TEST(got[k].dtype() == DType::i32);
      BOOST_TEST(got[k].shape() == want[k].shape());
      BOOST_TEST(ints_of(got[k]) == ints_of(want[k]), boost::test_tools::per_element());
    }
  }
}

// Imports and expects Error(kind) whose message holds every part and whose location holds
// `location_part`; anything else (success, another exception) fails the test.
inline Error expect_import_error(const std::vector<uint8_t>& symbol, const std::vector<uint8_t>& params,
                                 ErrorKind kind, std::initializer_list<std::string> parts,
                                 const std::string& location_part) {
  try {
    import_cvm(symbol, params);
  } catch (const Error& e) {
    BOOST_TEST_INFO("error: " << e.describe());
    BOOST_TEST(error_kind_name(e.kind()) == error_kind_name(kind));
    for (const std::string& part : parts) BOOST_TEST(e.message().find(part) != std::string::npos, "'" << part << "' in " << e.message());
    BOOST_TEST(e.location().find(location_part) != std::string::npos, "'" << location_part << "' in location " << e.location());
    return e;
  }
  BOOST_FAIL("expected an mlvm::Error of kind " << error_kind_name(kind));
  return Error(kind, "");
}

}  // namespace mlvm::cvm_test
