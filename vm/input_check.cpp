#include "vm/input_check.hpp"

#include <cstring>
#include <string>

#include "ir/precision.hpp"
#include "tensor/strided_loop.hpp"

namespace mlvm {

namespace {

std::string where(const InputDecl& decl) {
  return "input " + decl.name;
}

// Multi-index of the element at byte distance `byte_off` from element 0 (slow; only for the
// message of a failing check).
std::string index_of(const Tensor& t, const std::byte* p) {
  const int64_t isz = t.itemsize();
  // Walk every index in row-major order until the address matches.
  Dims idx = Dims::filled(t.rank(), 0);
  for (int64_t n = 0; n < t.numel(); ++n) {
    int64_t off = 0;
    for (int i = 0; i < t.rank(); ++i) off += idx[i] * t.strides()[i];
    if (t.raw_data() + off * isz == p) return dims_to_string(idx);
    for (int i = t.rank() - 1; i >= 0; --i) {
      if (++idx[i] < t.dim(i)) break;
      idx[i] = 0;
    }
  }
  return "?";
}

// The first element (in memory order) whose bytes satisfy `bad`, or null.
template <class Pred>
const std::byte* first_element_where(const Tensor& t, const Pred& bad) {
  const std::byte* found = nullptr;
  auto L = plan_strided_loop<1>(t.shape(), std::array<const Tensor*, 1>{&t},
                                LoopOptions{false, false});
  for_each_run(L, {t.raw_data()}, [&](auto ptr, int64_t n, auto st) {
    if (found) return;
    const std::byte* q = ptr[0];
    for (int64_t k = 0; k < n; ++k, q += st[0])
      if (bad(q)) {
        found = q;
        return;
      }
  });
  return found;
}

void check_precision(const InputDecl& decl, const Tensor& t) {
  const int p = decl.type.precision;
  if (p == kUnknownPrecision || !is_signed_int(t.dtype())) return;
  const int64_t bound = precision_bound(p);
  const std::byte* bad = nullptr;
  int64_t bad_value = 0;
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      auto value = [](const std::byte* q) {
        T v;
        std::memcpy(&v, q, sizeof v);
        return v;
      };
      bad = first_element_where(t, [&](const std::byte* q) {
        const T v = value(q);
        return v > bound || v < -bound;
      });
      if (bad) bad_value = int64_t(value(bad));
    }
  });
  if (bad)
    throw Error(ErrorKind::trap,
                "input " + decl.name + " breaks its declared precision " + std::to_string(p) +
                    ": element " + index_of(t, bad) + " is " + std::to_string(bad_value) +
                    ", outside [-" + std::to_string(bound) + ", " + std::to_string(bound) + "]",
                where(decl));
}

// A bool element is one byte holding 0 or 1; any other byte from a host buffer would make
// logical ops and `where` disagree with one another.
void check_bool_values(const InputDecl& decl, const Tensor& t) {
  if (t.dtype() != DType::boolean) return;
  const std::byte* bad = first_element_where(t, [](const std::byte* q) { return uint8_t(*q) > 1; });
  if (bad)
    throw Error(ErrorKind::invalid,
                "input " + decl.name + " is bool but element " + index_of(t, bad) + " holds " +
                    std::to_string(int(uint8_t(*bad))) + " (a bool byte must be 0 or 1)",
                where(decl));
}

}  // namespace

void check_input(const InputDecl& decl, const Tensor& value) {
  const TensorType& want = decl.type;
  if (!value.defined())
    throw Error(ErrorKind::usage, "input " + decl.name + " has no value", where(decl));
  bool ok = value.dtype() == want.dtype && value.rank() == want.dims.size();
  for (int i = 0; ok && i < value.rank(); ++i)
    if (want.dims[i] != kDynamic && want.dims[i] != value.dim(i)) ok = false;
  if (!ok) {
    TensorType plain = want;
    plain.precision = kUnknownPrecision;
    throw Error(ErrorKind::invalid,
                "input " + decl.name + " has type " + value.type_string() + ", expected " +
                    plain.to_string(),
                where(decl));
  }
  check_precision(decl, value);
  check_bool_values(decl, value);
}

}  // namespace mlvm
