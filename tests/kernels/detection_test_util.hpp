// Helpers shared by the detection suites (valid_count_test.cpp, nms_test.cpp,
// nms_reference_test.cpp): the box dtypes, running get_valid_count and non_max_suppression by
// opcode with checked attributes (common/op_runner.hpp), and their rows. Tensors, layouts,
// checks and attribute values come from the common headers.
#pragma once

#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <vector>

#include "common/attr_values.hpp"
#include "common/checks.hpp"
#include "common/layouts.hpp"
#include "common/op_runner.hpp"
#include "common/tensors.hpp"

namespace detection_test {

using namespace mlvm;
using namespace mlvm::testing;

inline const DType kBoxDTypes[] = {DType::f32, DType::f64, DType::i8,
                                   DType::i16, DType::i32, DType::i64};

// The kernel of `op` on `in` with checked attributes (values in declared order, trailing ones
// defaulted); it must give `nout` contiguous results.
inline std::vector<Tensor> run(Opcode op, std::vector<Tensor> in, std::vector<AttrValue> attrs,
                               int nout) {
  std::vector<Tensor> out = run_all(op, std::move(in), attrs_for(op, std::move(attrs)));
  BOOST_REQUIRE_EQUAL(out.size(), std::size_t(nout));
  for (const Tensor& t : out) {
    BOOST_REQUIRE(t.defined());
    BOOST_REQUIRE(t.is_contiguous());
  }
  return out;
}

// The static rule of `op` on `in` with checked attributes; every result type.
inline std::vector<TensorType> infer(Opcode op, std::vector<TensorType> in,
                                     std::vector<AttrValue> attrs) {
  return infer_all(op, std::move(in), attrs_for(op, std::move(attrs)));
}

// ---- non_max_suppression ------------------------------------------------------------------

// non_max_suppression's attribute values (defaults as declared in ir/attrs.def).
struct NmsParams {
  int64_t iou_threshold = 50, max_output_size = -1;
  bool force_suppress = false;
  int64_t top_k = -1;
};

inline Tensor nms(const Tensor& x, const Tensor& vc, const NmsParams& a) {
  return run(Opcode::non_max_suppression, {x, vc},
             {integer(a.iou_threshold), integer(a.max_output_size), boolean(a.force_suppress),
              integer(a.top_k)},
             1)[0];
}

// Rows as (class, score, x1, y1, x2, y2).
using Row = std::vector<double>;
inline std::vector<double> flat(const std::vector<Row>& rows) {
  std::vector<double> v;
  for (const Row& r : rows) v.insert(v.end(), r.begin(), r.end());
  return v;
}
inline const Row kNone = {-1, -1, -1, -1, -1, -1};

struct Lcg {
  uint64_t s;
  int64_t next(int64_t n) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return int64_t((s >> 33) % uint64_t(n));
  }
};

}  // namespace detection_test
