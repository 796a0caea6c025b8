#include "onnx/tensor_proto.hpp"

#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "tensor/error.hpp"
#include "tensor/file_read.hpp"

namespace mlvm {

namespace {

namespace fs = std::filesystem;
using TP = onnx::TensorProto;

[[noreturn]] void bad(const std::string& what, const std::string& why) {
  throw Error(ErrorKind::malformed, what + ": " + why);
}

// Reads `length` bytes at `offset` of the external file named by the proto, which must stay
// inside root.dir (no absolute path, no `..` leaving it, no symlink out of it).
std::vector<uint8_t> read_external(const TP& proto, const std::string& what,
                                   const ExternalDataRoot& root, int64_t want_bytes) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto& kv : proto.external_data()) {
    try {
      if (kv.key() == "location") location = kv.value();
      else if (kv.key() == "offset") offset = std::stoll(kv.value());
      else if (kv.key() == "length") length = std::stoll(kv.value());
    } catch (const std::exception&) {
      bad(what, "external data " + kv.key() + " '" + kv.value() + "' is not a number");
    }
  }
  if (root.dir.empty())
    bad(what, "external data '" + location +
                  "' cannot be read: the model was not loaded from a file (no folder to read from)");
  if (location.empty()) bad(what, "external data has no location");
  fs::path rel(location);
  if (rel.is_absolute()) bad(what, "external data path '" + location + "' is absolute");
  for (const auto& part : rel)
    if (part == "..") bad(what, "external data path '" + location + "' leaves the model's folder");
  std::error_code ec;
  fs::path base = fs::weakly_canonical(fs::path(root.dir), ec);
  fs::path full = fs::weakly_canonical(base / rel, ec);
  if (ec) bad(what, "external data path '" + location + "' cannot be resolved");
  auto [b, f] = std::mismatch(base.begin(), base.end(), full.begin(), full.end());
  if (b != base.end()) bad(what, "external data path '" + location + "' leaves the model's folder");
  if (offset < 0 || (length >= 0 && length != want_bytes))
    bad(what, "external data offset " + std::to_string(offset) + " / length " +
                  std::to_string(length) + " do not give the " + std::to_string(want_bytes) +
                  " bytes its dims need");
  InputFile file(full.string());
  if (file.size() < 0 || offset > file.size() || file.size() - offset < want_bytes)
    bad(what, "external data file '" + location + "' is shorter than offset " +
                  std::to_string(offset) + " + " + std::to_string(want_bytes) + " bytes");
  std::vector<uint8_t> skip(std::size_t(std::min<int64_t>(offset, 1 << 20)));
  for (int64_t left = offset; left > 0;) {
    std::size_t n = file.read(skip.data(), std::size_t(std::min<int64_t>(left, int64_t(skip.size()))));
    if (n == 0) bad(what, "external data file '" + location + "' ended early");
    left -= int64_t(n);
  }
  std::vector<uint8_t> out(static_cast<std::size_t>(want_bytes));
  if (want_bytes > 0 && file.read(out.data(), out.size()) != out.size())
    bad(what, "external data file '" + location + "' ended early");
  return out;
}

float from_bits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// IEEE binary16 to binary32: every value (subnormals, infinities, NaN payloads) exactly.
float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  if (exp == 0) return std::copysign(std::ldexp(float(mant), -24), from_bits(sign | 0x3f800000u));
  if (exp == 31) return from_bits(sign | 0x7f800000u | (mant << 13));
  return from_bits(sign | ((exp + 112) << 23) | (mant << 13));
}

float bfloat_to_float(uint16_t b) { return from_bits(uint32_t(b) << 16); }

// An f16 or bf16 tensor widened to f32 (exact): from external data, raw_data (little-endian
// pairs of bytes) or int32_data (one value per entry, its low 16 bits). The data is checked
// against the dims before anything of their size is allocated: a hostile file's dims may ask
// for petabytes.
Tensor widened_half(const TP& proto, const std::string& what, const ExternalDataRoot& root,
                    const Dims& shape, int64_t numel) {
  std::vector<uint8_t> external;
  const uint8_t* bytes = nullptr;  // null: int32_data
  if (proto.data_location() == TP::EXTERNAL) {
    external = read_external(proto, what, root, 2 * numel);  // checks the file holds them first
    bytes = external.data();
  } else if (proto.has_raw_data()) {
    if (int64_t(proto.raw_data().size()) != 2 * numel)
      bad(what, "raw_data has " + std::to_string(proto.raw_data().size()) + " bytes, dims " +
                    dims_to_string(shape) + " of " + onnx_dtype_name(proto.data_type()) + " need " +
                    std::to_string(2 * numel));
    bytes = reinterpret_cast<const uint8_t*>(proto.raw_data().data());
  } else if (int64_t(proto.int32_data_size()) != numel) {
    bad(what, "int32_data holds " + std::to_string(proto.int32_data_size()) + " values, dims " +
                  dims_to_string(shape) + " need " + std::to_string(numel));
  }
  Tensor t = Tensor::empty(DType::f32, shape);
  float* out = t.data<float>();
  const bool half = proto.data_type() == TP::FLOAT16;
  for (int64_t k = 0; k < numel; ++k) {
    const uint16_t b = bytes ? uint16_t(bytes[2 * k] | (bytes[2 * k + 1] << 8)) : uint16_t(proto.int32_data(int(k)));
    out[k] = half ? half_to_float(b) : bfloat_to_float(b);
  }
  return t;
}

template <class Src, class Dst>
void copy_field(const google::protobuf::RepeatedField<Src>& field, Tensor& t) {
  Dst* out = t.data<Dst>();
  for (int i = 0; i < field.size(); ++i) out[i] = static_cast<Dst>(field.Get(i));
}

}  // namespace

std::optional<DType> dtype_from_onnx(int32_t code) {
  switch (code) {
    case TP::FLOAT: return DType::f32;
    case TP::DOUBLE: return DType::f64;
    case TP::INT8: return DType::i8;
    case TP::UINT8: return DType::u8;
    case TP::INT16: return DType::i16;
    case TP::INT32: return DType::i32;
    case TP::INT64: return DType::i64;
    case TP::BOOL: return DType::boolean;
    case TP::FLOAT16:
    case TP::BFLOAT16: return DType::f32;  // half-precision models compute in f32
    default: return std::nullopt;
  }
}

int32_t onnx_from_dtype(DType t) {
  switch (t) {
    case DType::f32: return TP::FLOAT;
    case DType::f64: return TP::DOUBLE;
    case DType::i8: return TP::INT8;
    case DType::u8: return TP::UINT8;
    case DType::i16: return TP::INT16;
    case DType::i32: return TP::INT32;
    case DType::i64: return TP::INT64;
    case DType::boolean: return TP::BOOL;
  }
  return TP::UNDEFINED;
}

std::string onnx_dtype_name(int32_t code) {
  if (TP::DataType_IsValid(code)) {
    std::string n = TP::DataType_Name(TP::DataType(code));
    for (char& c : n) c = char(std::tolower(static_cast<unsigned char>(c)));
    return n;
  }
  // Types added after Debian's ONNX 1.12 (opsets 19-23), named so a refusal says which.
  static const char* const later[] = {"float8e4m3fn",   "float8e4m3fnuz", "float8e5m2",
                                      "float8e5m2fnuz", "uint4",          "int4",
                                      "float4e2m1"};
  if (code >= 17 && code <= 23) return later[code - 17];
  return "data type " + std::to_string(code);
}

OnnxTensor tensor_from_proto(const TP& proto, const std::string& what, const ExternalDataRoot& root,
                             std::shared_ptr<const void> keepalive) {
  std::optional<DType> dt = dtype_from_onnx(proto.data_type());
  if (!dt) bad(what, "dtype " + onnx_dtype_name(proto.data_type()) + " is not supported by mlvm");
  if (proto.has_segment()) bad(what, "segmented tensors are not supported");
  if (proto.dims_size() > kMaxRank)
    bad(what, "rank " + std::to_string(proto.dims_size()) + " is above mlvm's " +
                  std::to_string(kMaxRank));
  OnnxTensor r;
  Dims shape;
  for (int64_t d : proto.dims()) {
    if (d < 0) bad(what, "dim " + std::to_string(d) + " is negative");
    shape.push_back(d);
  }
  if (shape.empty()) {
    r.scalar = true;
    shape.push_back(1);
  }
  int64_t numel = 1;
  for (int64_t d : shape) {
    if (d != 0 && numel > INT64_MAX / 8 / d) bad(what, "dims " + dims_to_string(shape) + " overflow");
    numel *= d;
  }
  if (proto.data_type() == TP::FLOAT16 || proto.data_type() == TP::BFLOAT16) {
    r.value = widened_half(proto, what, root, shape, numel);
    return r;
  }
  const int64_t bytes = numel * int64_t(dtype_size(*dt));
  auto size_error = [&](const std::string& field, int64_t have) {
    bad(what, field + " holds " + std::to_string(have) + " values, dims " +
                  dims_to_string(shape) + " need " + std::to_string(numel));
  };
  if (proto.data_location() == TP::EXTERNAL) {
    std::vector<uint8_t> data = read_external(proto, what, root, bytes);
    r.value = Tensor::empty(*dt, shape);
    if (bytes) std::memcpy(r.value.raw_data(), data.data(), data.size());
    return r;
  }
  if (proto.has_raw_data()) {
    const std::string& raw = proto.raw_data();
    if (int64_t(raw.size()) != bytes)
      bad(what, "raw_data has " + std::to_string(raw.size()) + " bytes, dims " +
                    dims_to_string(shape) + " of " + std::string(dtype_name(*dt)) + " need " +
                    std::to_string(bytes));
    const bool aligned = reinterpret_cast<uintptr_t>(raw.data()) % dtype_size(*dt) == 0;
    if (keepalive && bytes > 0 && aligned && *dt != DType::boolean) {
      r.value = Tensor::borrow(*dt, shape, const_cast<char*>(raw.data()), bytes, false, nullptr,
                               std::const_pointer_cast<void>(keepalive));
      return r;
    }
    r.value = Tensor::empty(*dt, shape);
    if (bytes) std::memcpy(r.value.raw_data(), raw.data(), raw.size());
    if (*dt == DType::boolean) {
      uint8_t* p = r.value.data<uint8_t>();
      for (int64_t i = 0; i < numel; ++i) p[i] = p[i] != 0;
    }
    return r;
  }
  auto check = [&](const std::string& field, int n) {
    if (int64_t(n) != numel) size_error(field, n);
    r.value = Tensor::empty(*dt, shape);
  };
  switch (*dt) {
    case DType::f32: check("float_data", proto.float_data_size());
      copy_field<float, float>(proto.float_data(), r.value); break;
    case DType::f64: check("double_data", proto.double_data_size());
      copy_field<double, double>(proto.double_data(), r.value); break;
    case DType::i64: check("int64_data", proto.int64_data_size());
      copy_field<int64_t, int64_t>(proto.int64_data(), r.value); break;
    case DType::i32: check("int32_data", proto.int32_data_size());
      copy_field<int32_t, int32_t>(proto.int32_data(), r.value); break;
    case DType::i16: check("int32_data", proto.int32_data_size());
      copy_field<int32_t, int16_t>(proto.int32_data(), r.value); break;
    case DType::i8: check("int32_data", proto.int32_data_size());
      copy_field<int32_t, int8_t>(proto.int32_data(), r.value); break;
    case DType::u8: check("int32_data", proto.int32_data_size());
      copy_field<int32_t, uint8_t>(proto.int32_data(), r.value); break;
    case DType::boolean: {
      check("int32_data", proto.int32_data_size());
      uint8_t* p = r.value.data<uint8_t>();
      for (int i = 0; i < proto.int32_data_size(); ++i) p[i] = proto.int32_data(i) != 0;
      break;
    }
  }
  return r;
}

OnnxTensor tensor_from_proto_bytes(std::span<const uint8_t> bytes, const std::string& what) {
  TP proto;
  if (bytes.size() > size_t(INT32_MAX) || !proto.ParseFromArray(bytes.data(), int(bytes.size())))
    bad(what, "not a valid ONNX TensorProto");
  return tensor_from_proto(proto, what);
}

}  // namespace mlvm
