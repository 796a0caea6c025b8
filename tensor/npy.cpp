// .npy reader and writer. The header is a Python dict literal; it is parsed by hand with a
// small strict grammar (exactly the keys descr / fortran_order / shape, quoted strings without
// escapes, True/False, a tuple of non-negative decimal ints), because a file is untrusted
// input: every length and count is checked before it is used, and nothing is read past the
// given bytes.
#include "tensor/npy.hpp"

#include <bit>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <string_view>

#include "tensor/copy.hpp"
#include "tensor/error.hpp"
#include "tensor/file_read.hpp"

namespace mlvm {

static_assert(std::endian::native == std::endian::little,
              "the .npy code assumes a little-endian host");

namespace {

constexpr uint8_t kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

[[noreturn]] void bad(int64_t at, std::string message) {
  throw Error(ErrorKind::malformed, ".npy: " + std::move(message), "byte " + std::to_string(at));
}

std::string show_byte(uint8_t c) {
  if (c >= 0x20 && c < 0x7f) return std::string("'") + char(c) + "'";
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", c);
  return buf;
}

struct NpyHeader {
  DType dtype = DType::f32;
  Dims shape;  // a 0-d array is [1]
  bool fortran = false;
  int64_t numel = 1;
  int64_t data_offset = 0;
};

// Recursive-descent parser over the header bytes [0, n), reporting absolute byte offsets.
class HeaderParser {
 public:
  HeaderParser(const uint8_t* p, std::size_t n, int64_t base) : p_(p), n_(n), base_(base) {}

  void parse(NpyHeader& h) {
    for (std::size_t k = 0; k < n_; ++k)
      if (p_[k] >= 0x80 || (p_[k] < 0x20 && p_[k] != '\n' && p_[k] != '\t' && p_[k] != '\r'))
        bad(base_ + int64_t(k),
            "header holds byte " + show_byte(p_[k]) + "; expected printable ASCII");
    expect('{', "'{' opening the header dict");
    bool has_descr = false, has_order = false, has_shape = false;
    int64_t descr_at = 0;
    std::string descr;
    for (;;) {
      skip_ws();
      if (i_ < n_ && p_[i_] == '}') {
        ++i_;
        break;
      }
      const int64_t key_at = at();
      std::string key = string("a quoted key");
      expect(':', "':' after key '" + key + "'");
      auto once = [&](bool& seen) {
        if (seen) bad(key_at, "header repeats key '" + key + "'");
        seen = true;
      };
      if (key == "descr") {
        once(has_descr);
        skip_ws();
        descr_at = at();
        if (i_ < n_ && (p_[i_] == '[' || p_[i_] == '('))
          bad(descr_at,
              "structured dtypes are not supported; expected a simple descr such as '<f4'");
        descr = string("the descr string");
      } else if (key == "fortran_order") {
        once(has_order);
        h.fortran = boolean();
      } else if (key == "shape") {
        once(has_shape);
        h.shape = shape(h.numel);
      } else {
        bad(key_at,
            "unknown header key '" + key + "'; expected 'descr', 'fortran_order' and 'shape'");
      }
      skip_ws();
      if (i_ < n_ && p_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < n_ && p_[i_] == '}') {
        ++i_;
        break;
      }
      fail_here("',' or '}' after the value of '" + key + "'");
    }
    skip_ws();
    if (i_ != n_) bad(at(), "unexpected " + show_byte(p_[i_]) + " after the header dict");
    if (!has_descr) bad(at(), "header lacks the key 'descr'");
    if (!has_order) bad(at(), "header lacks the key 'fortran_order'");
    if (!has_shape) bad(at(), "header lacks the key 'shape'");
    h.dtype = parse_descr(descr, descr_at);
  }

 private:
  int64_t at() const { return base_ + int64_t(i_); }
  void skip_ws() {
    while (i_ < n_ && (p_[i_] == ' ' || p_[i_] == '\t' || p_[i_] == '\n' || p_[i_] == '\r')) ++i_;
  }
  [[noreturn]] void fail_here(const std::string& wanted) {
    if (i_ >= n_) bad(at(), "header ends where " + wanted + " was expected");
    bad(at(), "expected " + wanted + ", found " + show_byte(p_[i_]));
  }
  void expect(char c, const std::string& wanted) {
    skip_ws();
    if (i_ >= n_ || p_[i_] != uint8_t(c)) fail_here(wanted);
    ++i_;
  }

  std::string string(const std::string& wanted) {
    skip_ws();
    if (i_ >= n_ || (p_[i_] != '\'' && p_[i_] != '"')) fail_here(wanted);
    const uint8_t quote = p_[i_];
    const int64_t start = at();
    std::string s;
    for (++i_;; ++i_) {
      if (i_ >= n_ || p_[i_] == '\n') bad(start, "unterminated string in the header");
      if (p_[i_] == quote) break;
      if (p_[i_] == '\\') bad(at(), "escape sequences are not supported in header strings");
      s += char(p_[i_]);
    }
    ++i_;
    return s;
  }

  bool boolean() {
    skip_ws();
    auto word = [&](std::string_view w) {
      if (n_ - i_ < w.size() || std::memcmp(p_ + i_, w.data(), w.size()) != 0) return false;
      std::size_t j = i_ + w.size();
      if (j < n_ && (std::isalnum(p_[j]) || p_[j] == '_')) return false;
      i_ = j;
      return true;
    };
    if (word("True")) return true;
    if (word("False")) return false;
    fail_here("True or False for 'fortran_order'");
  }

  int64_t dim(int index) {
    skip_ws();
    const int64_t start = at();
    if (i_ < n_ && p_[i_] == '-') bad(start, "shape dim " + std::to_string(index) + " is negative");
    if (i_ >= n_ || !std::isdigit(p_[i_])) fail_here("a non-negative integer in 'shape'");
    if (p_[i_] == '0' && i_ + 1 < n_ && std::isdigit(p_[i_ + 1]))
      bad(start, "shape dim " + std::to_string(index) + " has a leading zero");
    int64_t v = 0;
    while (i_ < n_ && std::isdigit(p_[i_])) {
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, p_[i_] - '0', &v))
        bad(start, "shape dim " + std::to_string(index) + " does not fit in int64");
      ++i_;
    }
    if (i_ < n_ && (std::isalpha(p_[i_]) || p_[i_] == '_' || p_[i_] == '.'))
      bad(at(), "shape dim " + std::to_string(index) + " is not a plain integer");
    return v;
  }

  Dims shape(int64_t& numel) {
    expect('(', "'(' opening the shape tuple");
    const int64_t start = at() - 1;
    Dims d;
    bool trailing_comma = false;
    numel = 1;
    for (;;) {
      skip_ws();
      if (i_ < n_ && p_[i_] == ')') {
        ++i_;
        break;
      }
      if (d.size() == kMaxRank)
        bad(at(), "shape has more than " + std::to_string(kMaxRank) +
                      " dims; mlvm's maximum rank is " + std::to_string(kMaxRank));
      int64_t v = dim(d.size());
      if (__builtin_mul_overflow(numel, v, &numel))
        bad(start, "shape's element count overflows int64");
      d.push_back(v);
      skip_ws();
      trailing_comma = false;
      if (i_ < n_ && p_[i_] == ',') {
        ++i_;
        trailing_comma = true;
        continue;
      }
      if (i_ < n_ && p_[i_] == ')') {
        ++i_;
        break;
      }
      fail_here("',' or ')' in the shape tuple");
    }
    if (d.size() == 1 && !trailing_comma)
      bad(start, "shape (" + std::to_string(d[0]) +
                     ") is not a tuple; a one-element tuple is written (" + std::to_string(d[0]) +
                     ",)");
    if (d.empty()) d.push_back(1);  // a 0-d array is a scalar: shape [1]
    return d;
  }

  static DType parse_descr(const std::string& s, int64_t at) {
    auto unsupported = [&]() -> DType {
      bad(at,
          "unsupported dtype descr '" + s + "'; expected one of <f4 <f8 |i1 |u1 <i2 <i4 <i8 |b1");
    };
    if (s.empty() || (s[0] != '<' && s[0] != '>' && s[0] != '=' && s[0] != '|'))
      bad(at, "dtype descr '" + s + "' lacks a byte-order mark (<, >, = or |)");
    const char order = s[0];
    const std::string_view code = std::string_view(s).substr(1);
    DType t;
    if (code == "f4")
      t = DType::f32;
    else if (code == "f8")
      t = DType::f64;
    else if (code == "i1")
      t = DType::i8;
    else if (code == "u1")
      t = DType::u8;
    else if (code == "i2")
      t = DType::i16;
    else if (code == "i4")
      t = DType::i32;
    else if (code == "i8")
      t = DType::i64;
    else if (code == "b1")
      t = DType::boolean;
    else
      unsupported();
    if (dtype_size(t) > 1) {
      // '=' is the writer's native order; only little-endian hosts run mlvm, as NumPy reads it.
      if (order == '>')
        bad(at, "big-endian data ('" + s + "') is not supported; save it little-endian");
      if (order == '|')
        bad(at,
            "dtype descr '" + s + "' says byte order is irrelevant, but it is a multi-byte type");
    }
    return t;
  }

  const uint8_t* p_;
  std::size_t n_;
  int64_t base_;
  std::size_t i_ = 0;
};

NpyHeader parse_header(std::span<const uint8_t> b) {
  const int64_t size = int64_t(b.size());
  if (size < 10)
    bad(size, "file of " + std::to_string(size) + " bytes is too short for a .npy header");
  if (std::memcmp(b.data(), kMagic, 6) != 0) bad(0, "bad magic; this is not a .npy file");
  const int major = b[6], minor = b[7];
  if (!(major >= 1 && major <= 3) || minor != 0)
    bad(6, "unsupported .npy format version " + std::to_string(major) + "." +
               std::to_string(minor) + "; expected 1.0, 2.0 or 3.0");
  int64_t header_len, header_at;
  if (major == 1) {
    header_len = int64_t(b[8]) | int64_t(b[9]) << 8;
    header_at = 10;
  } else {
    if (size < 12)
      bad(size, "file of " + std::to_string(size) + " bytes is too short for a .npy 2.0 header");
    header_len = int64_t(b[8]) | int64_t(b[9]) << 8 | int64_t(b[10]) << 16 | int64_t(b[11]) << 24;
    header_at = 12;
  }
  if (header_len > size - header_at)
    bad(8, "header length " + std::to_string(header_len) + " runs past the end of the file (" +
               std::to_string(size - header_at) + " bytes follow the length field)");
  NpyHeader h;
  HeaderParser(b.data() + header_at, std::size_t(header_len), header_at).parse(h);
  h.data_offset = header_at + header_len;
  return h;
}

const char* descr_of(DType t) {
  switch (t) {
    case DType::f32:
      return "<f4";
    case DType::f64:
      return "<f8";
    case DType::i8:
      return "|i1";
    case DType::u8:
      return "|u1";
    case DType::i16:
      return "<i2";
    case DType::i32:
      return "<i4";
    case DType::i64:
      return "<i8";
    case DType::boolean:
      return "|b1";
  }
  return "?";
}

// The data size the header promises; `have` (when >= 0) must match it exactly.
int64_t promised_bytes(const NpyHeader& h, int64_t have) {
  int64_t need;
  if (__builtin_mul_overflow(h.numel, int64_t(dtype_size(h.dtype)), &need))
    bad(h.data_offset, "data size of shape " + dims_to_string(h.shape) + " overflows int64");
  if (have >= 0 && have < need)
    bad(h.data_offset, "data is truncated: the header promises " + std::to_string(need) +
                           " bytes of " + std::string(dtype_name(h.dtype)) +
                           dims_to_string(h.shape) + " but " + std::to_string(have) + " remain");
  if (have > need)
    bad(h.data_offset + need, std::to_string(have - need) + " unexpected bytes after the data of " +
                                  std::string(dtype_name(h.dtype)) + dims_to_string(h.shape));
  return need;
}

// Checks the bools and lays the raw file data (C or Fortran order) out in C order in `out`.
void finish_data(const NpyHeader& h, const uint8_t* data, int64_t need, Tensor& out) {
  if (h.dtype == DType::boolean)
    for (int64_t k = 0; k < need; ++k)
      if (data[k] > 1)
        bad(h.data_offset + k, "bool element " + std::to_string(k) + " is " +
                                   std::to_string(data[k]) + "; expected 0 or 1");
  if (need == 0 || static_cast<const void*>(data) == static_cast<const void*>(out.raw_data())) return;
  if (!h.fortran || h.shape.size() == 1) {
    std::memcpy(out.raw_data(), data, std::size_t(need));
    return;
  }
  // Fortran order: read the bytes in place through column-major strides, then copy in C order.
  Dims strides = Dims::filled(h.shape.size(), 1);
  for (int d = 1; d < h.shape.size(); ++d) strides[d] = strides[d - 1] * h.shape[d - 1];
  Tensor f = Tensor::borrow(h.dtype, h.shape, const_cast<uint8_t*>(data), need, false, &strides);
  copy_into(f, out);
}

// A header longer than this is refused before it is read: a rank-8 header needs ~200 bytes.
constexpr int64_t kMaxHeaderBytes = 1 << 20;

// Reads a .npy from `f` without ever reading past what the header promises (plus one byte to
// prove the file ends there), so an endless stream fails as soon as it breaks the format.
Tensor read_npy(InputFile& f, std::shared_ptr<MemoryBudget> budget) {
  std::vector<uint8_t> head(10);
  head.resize(f.read(head.data(), 10));
  // A short or wrong prefix: parse_npy reports exactly what it would for the whole file.
  if (head.size() < 10 || std::memcmp(head.data(), kMagic, 6) != 0 || head[6] < 1 || head[6] > 3)
    parse_npy(head);
  const std::size_t pre = head[6] == 1 ? 10 : 12;
  head.resize(pre);
  if (pre == 12) {
    const std::size_t more = f.read(head.data() + 10, 2);
    if (more != 2) parse_npy(std::span(head.data(), 10 + more));
  }
  int64_t header_len = 0;
  for (std::size_t k = 8; k < pre; ++k) header_len |= int64_t(head[k]) << (8 * (k - 8));
  if (header_len > kMaxHeaderBytes)
    bad(8, "header length " + std::to_string(header_len) + " is more than the " +
               std::to_string(kMaxHeaderBytes) + " bytes any .npy header needs");
  head.resize(pre + std::size_t(header_len));
  const std::size_t got = f.read(head.data() + pre, std::size_t(header_len));
  if (got != std::size_t(header_len)) parse_npy(std::span(head.data(), pre + got));
  const NpyHeader h = parse_header(head);
  // A regular file's size is known: a wrong size fails before any data is read.
  const int64_t need = promised_bytes(h, f.size() >= 0 ? f.size() - h.data_offset : -1);
  Tensor out = Tensor::empty(h.dtype, h.shape, std::move(budget));
  std::vector<uint8_t> staging;
  uint8_t* dest = reinterpret_cast<uint8_t*>(out.raw_data());
  if (h.fortran && h.shape.size() > 1) {
    try {
      staging.resize(std::size_t(need));
    } catch (const std::bad_alloc&) {
      fail(ErrorKind::limit, "out of memory reading " + std::to_string(need) + " bytes of data");
    }
    dest = staging.data();
  }
  const std::size_t n = f.read(dest, std::size_t(need));
  if (int64_t(n) < need) promised_bytes(h, int64_t(n));
  if (!f.at_end())
    bad(h.data_offset + need, "unexpected bytes after the data of " +
                                  std::string(dtype_name(h.dtype)) + dims_to_string(h.shape));
  finish_data(h, dest, need, out);
  return out;
}

}  // namespace

Tensor parse_npy(std::span<const uint8_t> bytes, std::shared_ptr<MemoryBudget> budget) {
  const NpyHeader h = parse_header(bytes);
  const int64_t need = promised_bytes(h, int64_t(bytes.size()) - h.data_offset);
  Tensor out = Tensor::empty(h.dtype, h.shape, std::move(budget));
  finish_data(h, bytes.data() + h.data_offset, need, out);
  return out;
}

Tensor load_npy(const std::string& path, std::shared_ptr<MemoryBudget> budget) {
  InputFile f(path);  // its errors name the path
  try {
    return read_npy(f, std::move(budget));
  } catch (const Error& e) {
    throw Error(e.kind(), e.message(), e.location().empty() ? path : path + ": " + e.location());
  }
}

std::vector<uint8_t> to_npy(const Tensor& t, const NpyWriteOptions& options) {
  if (!t.defined()) fail(ErrorKind::usage, "to_npy: the tensor is absent");
  if (options.version != 1 && options.version != 2)
    fail(ErrorKind::usage, "to_npy: cannot write .npy format version " +
                               std::to_string(options.version) + "; expected 1 or 2");
  if (options.scalar && t.numel() != 1)
    fail(ErrorKind::usage, "to_npy: a " + t.type_string() + " tensor cannot be written 0-d");
  // NumPy writes "()", "(3,)" and "(2, 3)".
  const int rank = options.scalar ? 0 : t.rank();
  std::string dict;
  dict = std::string("{'descr': '") + descr_of(t.dtype()) +
         "', 'fortran_order': " + (options.fortran_order ? "True" : "False") + ", 'shape': (";
  for (int d = 0; d < rank; ++d) {
    if (d) dict += ", ";
    dict += std::to_string(t.dim(d));
  }
  if (rank == 1) dict += ",";
  dict += "), }";
  // Pad with spaces so that the data starts on a 64-byte boundary; the header ends in '\n'.
  // Format 1.0 stores the header length in 16 bits: a longer header needs 2.0.
  auto padded_total = [&](std::size_t pre) { return (pre + dict.size() + 1 + 63) / 64 * 64; };
  const bool v1 = options.version == 1 && padded_total(10) - 10 <= 65535;
  const std::size_t pre = v1 ? 10 : 12;
  const std::size_t total = pre + dict.size() + 1, padded = padded_total(pre);
  if (padded - pre > UINT32_MAX) fail(ErrorKind::limit, "to_npy: the .npy header is too long");
  dict.append(padded - total, ' ');
  dict += '\n';
  const std::size_t hlen = dict.size();
  const int64_t data_bytes = t.numel() * t.itemsize();
  std::vector<uint8_t> out(pre + hlen + std::size_t(data_bytes));
  std::memcpy(out.data(), kMagic, 6);
  out[6] = v1 ? 1 : 2;
  out[7] = 0;
  for (std::size_t k = 0; k < pre - 8; ++k) out[8 + k] = uint8_t(hlen >> (8 * k));
  std::memcpy(out.data() + pre, dict.data(), hlen);
  if (data_bytes > 0) {
    uint8_t* data = out.data() + pre + hlen;
    if (!options.fortran_order || t.rank() == 1) {
      Tensor c = contiguous(t);
      std::memcpy(data, c.raw_data(), std::size_t(data_bytes));
    } else {
      // Column-major: copy straight into the output bytes seen through Fortran strides.
      Dims strides = Dims::filled(t.rank(), 1);
      for (int d = 1; d < t.rank(); ++d) strides[d] = strides[d - 1] * t.dim(d - 1);
      copy_into(t, Tensor::borrow(t.dtype(), t.shape(), data, data_bytes, true, &strides));
    }
  }
  return out;
}

void save_npy(const std::string& path, const Tensor& t, const NpyWriteOptions& options) {
  std::vector<uint8_t> bytes = to_npy(t, options);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!f) throw Error(ErrorKind::io, "cannot write " + path + ": " + std::strerror(errno));
  if (std::fwrite(bytes.data(), 1, bytes.size(), f.get()) != bytes.size())
    throw Error(ErrorKind::io, "cannot write " + path + ": " + std::strerror(errno));
  if (std::fclose(f.release()) != 0)
    throw Error(ErrorKind::io, "cannot write " + path + ": " + std::strerror(errno));
}

}  // namespace mlvm
