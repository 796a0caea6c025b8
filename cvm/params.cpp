#include "cvm/params.hpp"

#include <cstring>

#include "tensor/error.hpp"

namespace mlvm {

namespace {

// The largest array the runtime accepts (graph_runtime.cc: at most 2^30 elements), so a
// header cannot ask for more than the file could ever hold anyway.
constexpr uint64_t kMaxElements = uint64_t(1) << 30;
constexpr int32_t kMaxParamRank = 6;  // the runtime's limit on ndim

// A cursor over the file: every read checks the bytes left first.
class Reader {
 public:
  explicit Reader(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  uint64_t offset() const { return at_; }
  uint64_t left() const { return bytes_.size() - at_; }

  [[noreturn]] void fail_at(uint64_t where, const std::string& message) const {
    throw Error(ErrorKind::malformed, message, "params byte " + std::to_string(where));
  }

  template <class T>
  T read(const char* what) {
    if (left() < sizeof(T))
      fail_at(at_, std::string("truncated: ") + what + " needs " + std::to_string(sizeof(T)) +
                       " bytes, " + std::to_string(left()) + " left");
    T v;
    std::memcpy(&v, bytes_.data() + at_, sizeof(T));  // little-endian hosts only (x86-64)
    at_ += sizeof(T);
    return v;
  }

  std::span<const uint8_t> take(uint64_t n, const std::string& what) {
    if (left() < n)
      fail_at(at_, "truncated: " + what + " needs " + std::to_string(n) + " bytes, " +
                       std::to_string(left()) + " left");
    auto s = bytes_.subspan(at_, n);
    at_ += n;
    return s;
  }

 private:
  std::span<const uint8_t> bytes_;
  uint64_t at_ = 0;
};

void expect_magic(Reader& r, uint64_t want, const std::string& what) {
  const uint64_t at = r.offset();
  const uint64_t got = r.read<uint64_t>(what.c_str());
  if (got != want) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "0x%016llX, expected 0x%016llX", (unsigned long long)got,
                  (unsigned long long)want);
    r.fail_at(at, what + " is " + buf);
  }
}

CvmParam read_array(Reader& r, const std::string& name) {
  CvmParam p;
  p.name = name;
  p.offset = r.offset();
  const std::string of = "array '" + name + "'";
  expect_magic(r, kCvmArrayMagic, "the magic of " + of);
  r.read<uint64_t>("reserved");
  const uint64_t dev_at = r.offset();
  const int32_t device_type = r.read<int32_t>("device_type");
  const int32_t device_id = r.read<int32_t>("device_id");
  if (device_type != 1 || device_id != 0)
    r.fail_at(dev_at, of + ": device (" + std::to_string(device_type) + ", " +
                          std::to_string(device_id) + "), expected the CPU (1, 0)");
  const uint64_t ndim_at = r.offset();
  const int32_t ndim = r.read<int32_t>("ndim");
  if (ndim < 0 || ndim > kMaxParamRank)
    r.fail_at(ndim_at, of + ": ndim " + std::to_string(ndim) + " is not in [0, " +
                           std::to_string(kMaxParamRank) + "]");
  const uint64_t type_at = r.offset();
  const uint8_t code = r.read<uint8_t>("type code");
  const uint8_t bits = r.read<uint8_t>("type bits");
  const uint16_t lanes = r.read<uint16_t>("type lanes");
  if (code != 0 || (bits != 8 && bits != 32) || lanes != 1)
    r.fail_at(type_at, of + ": type (code " + std::to_string(code) + ", bits " +
                           std::to_string(bits) + ", lanes " + std::to_string(lanes) +
                           "), expected int8 or int32 (code 0, bits 8 or 32, lanes 1)");
  p.bits = bits;
  uint64_t numel = 1;
  for (int32_t d = 0; d < ndim; ++d) {
    const uint64_t at = r.offset();
    const int64_t dim = r.read<int64_t>("a dim");
    if (dim < 0 || uint64_t(dim) > kMaxElements)
      r.fail_at(at, of + ": dim " + std::to_string(d) + " is " + std::to_string(dim));
    numel *= uint64_t(dim);  // both factors <= 2^30 and checked below: no overflow
    if (numel > kMaxElements)
      r.fail_at(at, of + ": more than 2^30 elements");
    p.dims.push_back(dim);
  }
  const uint64_t size_at = r.offset();
  const int64_t byte_size = r.read<int64_t>("byte_size");
  const uint64_t want = numel * (bits / 8);
  if (byte_size < 0 || uint64_t(byte_size) != want)
    r.fail_at(size_at, of + ": byte_size " + std::to_string(byte_size) + ", expected " +
                           std::to_string(want) + " for its shape and type");
  std::span<const uint8_t> data = r.take(want, "the data of " + of);
  p.values.resize(static_cast<std::size_t>(numel));
  for (std::size_t i = 0; i < p.values.size(); ++i) {
    if (bits == 8) {
      p.values[i] = static_cast<int8_t>(data[i]);
    } else {
      int32_t v;
      std::memcpy(&v, data.data() + 4 * i, 4);
      p.values[i] = v;
    }
  }
  return p;
}

}  // namespace

std::vector<CvmParam> read_cvm_params(std::span<const uint8_t> bytes) {
  Reader r(bytes);
  expect_magic(r, kCvmParamsMagic, "the file's magic");
  r.read<uint64_t>("reserved");
  const uint64_t count_at = r.offset();
  const uint64_t names = r.read<uint64_t>("the name count");
  // Each name takes at least its 8-byte length: a count beyond that cannot be honest.
  if (names > r.left() / 8)
    r.fail_at(count_at, "name count " + std::to_string(names) + " does not fit in the " +
                            std::to_string(r.left()) + " bytes left");
  std::vector<std::string> name_list;
  name_list.reserve(static_cast<std::size_t>(names));
  for (uint64_t i = 0; i < names; ++i) {
    const uint64_t len_at = r.offset();
    const uint64_t len = r.read<uint64_t>("a name's length");
    if (len > r.left())
      r.fail_at(len_at, "name " + std::to_string(i) + " is " + std::to_string(len) +
                            " bytes long; " + std::to_string(r.left()) + " left");
    auto s = r.take(len, "a name");
    name_list.emplace_back(reinterpret_cast<const char*>(s.data()), s.size());
  }
  const uint64_t arrays_at = r.offset();
  const uint64_t arrays = r.read<uint64_t>("the array count");
  if (arrays != names)
    r.fail_at(arrays_at, "array count " + std::to_string(arrays) + " differs from the name count " +
                             std::to_string(names));
  std::vector<CvmParam> out;
  out.reserve(name_list.size());
  for (const std::string& name : name_list) out.push_back(read_array(r, name));
  if (r.left() != 0)
    r.fail_at(r.offset(), std::to_string(r.left()) + " bytes after the last array");
  return out;
}

}  // namespace mlvm
