#include "assembler/literal.hpp"

#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>

#include "assembler/diagnostics.hpp"
#include "ir/precision.hpp"
#include "tensor/copy.hpp"
#include "tensor/npy.hpp"

namespace mlvm::asm_detail {

namespace {

std::string type_text(DType dt, const Dims& dims) {
  return std::string(dtype_name(dt)) + dims_to_string(dims);
}

// A number as it would be written: the shortest text that reads back as the same double
// (3.5e38, 0.1, -0.0), not 17 digits of binary noise.
std::string number_text(const Scalar& s) {
  if (!s.is_float || !std::isfinite(s.f)) return s.to_string();
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, s.f);
  std::string out;
  for (const char* p = buf; p != r.ptr; ++p)
    if (*p != '+') out += *p;  // 3.5e+38 -> 3.5e38
  if (out.find_first_of(".e") == std::string::npos) out += ".0";
  return out;
}

// FLT_MAX written so that it reads back as FLT_MAX: 3.4028235e38.
std::string flt_max_text() {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, FLT_MAX);
  std::string out;
  for (const char* p = buf; p != r.ptr; ++p)
    if (*p != '+') out += *p;
  return out;
}

template <class T>
std::string int_range() {
  return std::to_string(int64_t(std::numeric_limits<T>::min())) + ".." +
         std::to_string(int64_t(std::numeric_limits<T>::max()));
}

// One element of a nested literal or fill(V): a number, or true/false for bool tensors.
Scalar parse_element(Cursor& c, DType dtype) {
  const Token& tok = c.peek();
  Scalar s;
  if (tok.kind == TokKind::integer) {
    s = Scalar::from_int(tok.i);
  } else if (tok.kind == TokKind::floating) {
    s = Scalar::from_float(tok.f);
  } else if (tok.is_ident("true") || tok.is_ident("false")) {
    if (dtype != DType::boolean)
      Cursor::error_at(tok, tok.text + " is a bool value but the constant is " +
                                std::string(dtype_name(dtype)) + "; expected a number");
    s = Scalar::from_int(tok.text == "true" ? 1 : 0);
  } else {
    c.error_expected(dtype == DType::boolean ? "a value (true, false, 0 or 1)" : "a number");
  }
  std::string err = scalar_fit_error(s, dtype);
  if (!err.empty()) Cursor::error_at(tok, err);
  c.next();
  return s;
}

// Writes `values` (already checked to fit) into a fresh contiguous tensor.
Tensor build_tensor(DType dtype, const Dims& shape, const std::vector<Scalar>& values) {
  Tensor t = Tensor::empty(dtype, shape);
  visit_dtype(dtype, [&](auto tag) {
    using E = typename decltype(tag)::type;
    using T = storage_t<E>;
    T* out = t.data<T>();
    for (std::size_t k = 0; k < values.size(); ++k) {
      if constexpr (std::is_same_v<E, bool_tag>)
        out[k] = T(values[k].as_double() != 0);
      else
        out[k] = scalar_as<T>(values[k]);
    }
  });
  return t;
}

int precision_of_scalar(const Scalar& s, DType dtype) {
  if (!is_signed_int(dtype)) return kUnknownPrecision;
  return precision_of_value(s.is_float ? int64_t(s.f) : s.i);
}

// Data can need more than the dtype's width (-128 in i8 needs 9); such a precision is no
// bound at all, so it is recorded as unknown.
int bounded_precision(int p, DType dtype) {
  return p > signed_bits(dtype) ? kUnknownPrecision : p;
}

// Streaming parser for nested brackets: checks every list length against the declared dims
// as it goes (so errors point at the offending element), resolving `?` dims from the first
// list seen at that depth. Recursion is bounded by the rank (<= 8).
class NestedLiteral {
 public:
  NestedLiteral(Cursor& c, const TensorType& declared)
      : c_(c), dtype_(declared.dtype), dims_(declared.dims) {}

  Dims parse() {
    const Token& open = c_.peek();
    list(0);
    // `[]` is the literal of any shape with a 0 dim (docs/language.md, "`.const` literals").
    bool top_empty = top_count_ == 0;
    bool any_zero = false;
    for (int k = 0; k < dims_.size(); ++k) {
      if (dims_[k] == kDynamic && top_empty) dims_[k] = 0;
      if (dims_[k] == 0) any_zero = true;
    }
    for (int k = 0; k < dims_.size(); ++k) {
      if (dims_[k] != kDynamic) continue;
      // Only reachable when an empty inner list hid the deeper levels: nothing to size them by.
      if (!any_zero)
        Cursor::error_at(open, "cannot infer '?' dim " + std::to_string(k) + " from this literal");
      dims_[k] = 0;
    }
    if (top_empty && !any_zero)
      Cursor::error_at(open, "literal [] has no elements but " + type_text(dtype_, dims_) +
                                 " needs " + std::to_string(checked_numel(dims_)) +
                                 "; [] is only for a shape with a 0 dim");
    return dims_;
  }

  std::vector<Scalar>& values() { return values_; }

 private:
  void list(int depth) {
    const Token& open = c_.peek();
    if (!open.is_punct('[')) {
      if (depth == 0) c_.error_expected("'[', fill(...) or load(\"...\")");
      c_.error_expected("'[' (dim " + std::to_string(depth) + " of " + type_text(dtype_, dims_) +
                        " is a list)");
    }
    if (depth >= dims_.size())
      Cursor::error_at(open, "literal nests deeper than the type " + type_text(dtype_, dims_) +
                                 " (rank " + std::to_string(dims_.size()) + ")");
    int open_col = open.col;
    c_.next();
    int64_t count = 0;
    int64_t want = dims_[depth];
    while (!c_.peek().is_punct(']')) {
      if (want != kDynamic && count == want) {
        Cursor::error_at(c_.peek(), "too many elements in dim " + std::to_string(depth) + ": " +
                                        type_text(dtype_, dims_) + " has " + std::to_string(want) +
                                        " there");
      }
      if (depth + 1 == dims_.size() && c_.peek().is_punct('['))
        Cursor::error_at(c_.peek(), "literal nests deeper than the type " +
                                        type_text(dtype_, dims_) + " (rank " +
                                        std::to_string(dims_.size()) + ")");
      if (depth + 1 == dims_.size())
        values_.push_back(parse_element(c_, dtype_));
      else
        list(depth + 1);
      ++count;
      if (!c_.accept_punct(',')) {
        if (!c_.peek().is_punct(']')) c_.error_expected("',' or ']'");
      }
    }
    const Token& close = c_.next();
    if (depth == 0) top_count_ = count;
    if (count == 0 && depth == 0) return;  // `[]`: checked against the whole shape in parse()
    if (want == kDynamic) {
      dims_[depth] = count;
      return;
    }
    if (count != want)
      Cursor::error_at(close, "dim " + std::to_string(depth) + " has " + std::to_string(count) +
                                  " element" + (count == 1 ? "" : "s") + " but " +
                                  type_text(dtype_, dims_) + " needs " + std::to_string(want) +
                                  " (list opened at column " + std::to_string(open_col) + ")");
  }

  Cursor& c_;
  DType dtype_;
  Dims dims_;
  std::vector<Scalar> values_;
  int64_t top_count_ = -1;
};

ConstLiteral parse_fill(Cursor& c, const TensorType& declared) {
  const Token& kw = c.next();  // fill
  c.expect_punct('(', "'(' after fill");
  Scalar v = parse_element(c, declared.dtype);
  c.expect_punct(')', "')'");
  if (declared.has_dynamic_dims())
    Cursor::error_at(
        kw, "fill(...) needs a fully known shape, but " + declared.to_string() + " has a '?' dim");
  ConstLiteral out;
  out.type = declared;
  out.value = constant_tensor(declared.dtype, declared.dims, v);
  out.type.precision = bounded_precision(out.value.numel() == 0 && is_signed_int(declared.dtype)
                                             ? 1
                                             : precision_of_scalar(v, declared.dtype),
                                         declared.dtype);
  return out;
}

ConstLiteral parse_load(Cursor& c, const TensorType& declared, const std::string& base_dir) {
  c.next();  // load
  c.expect_punct('(', "'(' after load");
  const Token& path_tok = c.peek();
  if (path_tok.kind != TokKind::string)
    c.error_expected("a quoted file name, e.g. load(\"w.npy\")");
  c.next();
  c.expect_punct(')', "')'");

  namespace fs = std::filesystem;
  const std::string& rel = path_tok.text;
  if (rel.empty()) Cursor::error_at(path_tok, "load(\"\") needs a file name");
  fs::path path(rel);
  if (path.is_relative() && !base_dir.empty()) path = fs::path(base_dir) / path;
  std::error_code ec;
  // Only regular files: a device or FIFO (/dev/zero, a pipe) could block or never end.
  auto st = fs::status(path, ec);
  if (ec || !fs::exists(st))
    Cursor::error_at(
        path_tok, "cannot load \"" + rel + "\": no such file (looked for " + path.string() + ")");
  // Kernel pseudo-files (/proc/kcore claims terabytes) are no data files either.
  fs::path canon = fs::weakly_canonical(path, ec);
  std::string cs = ec ? path.string() : canon.string();
  bool pseudo =
      cs.rfind("/proc/", 0) == 0 || cs.rfind("/sys/", 0) == 0 || cs.rfind("/dev/", 0) == 0;
  if (!fs::is_regular_file(st) || pseudo)
    Cursor::error_at(path_tok, "cannot load \"" + rel + "\": not a regular file");
  Tensor t;
  try {
    t = load_npy(path.string());
  } catch (const Error& e) {
    std::string msg = e.message();
    if (!e.location().empty() && msg.find(e.location()) == std::string::npos)
      msg = e.location() + ": " + msg;
    Cursor::error_at(path_tok, "cannot load \"" + rel + "\": " + msg);
  } catch (const std::bad_alloc&) {
    Cursor::error_at(path_tok, "cannot load \"" + rel + "\": out of memory");
  }
  std::string found = "\"" + rel + "\" holds " + t.type_string() +
                      " but the constant is declared " + declared.to_string();
  if (t.dtype() != declared.dtype) Cursor::error_at(path_tok, found + " (dtype differs)");
  if (t.rank() != declared.dims.size()) Cursor::error_at(path_tok, found + " (rank differs)");
  ConstLiteral out;
  out.type = declared;
  for (int k = 0; k < t.rank(); ++k) {
    if (declared.dims[k] == kDynamic)
      out.type.dims[k] = t.dim(k);
    else if (declared.dims[k] != t.dim(k))
      Cursor::error_at(path_tok, found + " (dim " + std::to_string(k) + ": " +
                                     std::to_string(t.dim(k)) + " vs " +
                                     std::to_string(declared.dims[k]) + ")");
  }
  // The reader promises contiguous owned data; clone() guards a future change of that promise.
  if (!t.is_contiguous() || t.mode() != ValueMode::owned) t = clone(t);
  out.value = t;
  out.type.precision = bounded_precision(precision_of_tensor(t), t.dtype());
  return out;
}

}  // namespace

std::string scalar_fit_error(const Scalar& s, DType dtype) {
  std::string v = number_text(s);
  switch (dtype) {
    case DType::f32: {
      // Round to nearest (ties to even) overflows from FLT_MAX + half an ulp up: 2^128 - 2^103,
      // exact in a double. Below it the value rounds to a finite float (FLT_MAX at most).
      static const double kOverflow = std::ldexp(1.0, 128) - std::ldexp(1.0, 103);
      double d = s.as_double();
      if (std::isfinite(d) && std::fabs(d) >= kOverflow)
        return "value " + v + " overflows f32 (largest finite value " + flt_max_text() +
               "; use inf for infinity)";
      return "";
    }
    case DType::f64:
      return "";
    case DType::boolean:
      if (scalar_fits(s, dtype)) return "";
      return "value " + v + " is not a bool; expected true, false, 0 or 1";
    default:
      break;
  }
  if (scalar_fits(s, dtype)) return "";
  if (s.is_float && (!std::isfinite(s.f) || s.f != std::trunc(s.f)))
    return "value " + v + " is not an integer; " + std::string(dtype_name(dtype)) +
           " holds integers";
  std::string range;
  switch (dtype) {
    case DType::i8:
      range = int_range<int8_t>();
      break;
    case DType::u8:
      range = int_range<uint8_t>();
      break;
    case DType::i16:
      range = int_range<int16_t>();
      break;
    case DType::i32:
      range = int_range<int32_t>();
      break;
    default:
      range = int_range<int64_t>();
      break;
  }
  return "value " + v + " does not fit in " + std::string(dtype_name(dtype)) + " (range " + range +
         ")";
}

AttrValue parse_attr_value(Cursor& c, int depth, bool want_dtype) {
  const Token& tok = c.peek();
  if (depth >= kMaxNesting)
    Cursor::error_at(tok, "tuple nested more than " + std::to_string(kMaxNesting) + " levels deep");
  switch (tok.kind) {
    case TokKind::integer:
      c.next();
      return AttrValue::integer(tok.i);
    case TokKind::floating:
      c.next();
      return AttrValue::floating(tok.f);
    case TokKind::string:
      c.next();
      return AttrValue::string(tok.text);
    case TokKind::ident: {
      if (tok.text == "true" || tok.text == "false") {
        c.next();
        return AttrValue::boolean(tok.text == "true");
      }
      if (tok.text == "none") {
        c.next();
        return AttrValue::none();
      }
      if (auto dt = dtype_from_name(tok.text)) {
        c.next();
        return AttrValue::dtype(*dt);
      }
      std::string hint = tok.text.size() >= 2 || want_dtype ? suggest_dtype(tok.text) : "";
      const std::string dtypes = "f32 f64 i8 u8 i16 i32 i64 bool";
      if (want_dtype)
        Cursor::error_at(
            tok, "unknown dtype " + tok.describe() +
                     (hint.empty() ? "; expected one of " + dtypes
                                   : "; did you mean '" + hint + "'? (dtypes: " + dtypes + ")"));
      if (!hint.empty())
        Cursor::error_at(tok, "unknown dtype " + tok.describe() + "; did you mean '" + hint +
                                  "'? (a string would be quoted: \"" + tok.text.substr(0, 40) +
                                  "\")");
      Cursor::error_at(
          tok,
          "expected a value (number, true/false, none, dtype, \"string\" or tuple) but found " +
              tok.describe() + "; strings are quoted, e.g. \"" + tok.text.substr(0, 40) + "\"");
    }
    case TokKind::punct: {
      if (tok.is_punct('[')) {
        c.next();
        std::vector<AttrValue> items;
        while (!c.accept_punct(']')) {
          items.push_back(parse_attr_value(c, depth + 1));
          if (!c.accept_punct(',') && !c.peek().is_punct(']')) c.error_expected("',' or ']'");
        }
        return AttrValue::tuple(std::move(items));
      }
      if (tok.is_punct('(')) {
        c.next();
        if (c.accept_punct(')')) return AttrValue::tuple({});
        AttrValue first = parse_attr_value(c, depth + 1);
        if (c.accept_punct(')')) return first;  // parenthesized value, not a tuple
        c.expect_punct(',', "',' or ')'");
        std::vector<AttrValue> items{std::move(first)};
        while (!c.accept_punct(')')) {
          items.push_back(parse_attr_value(c, depth + 1));
          if (!c.accept_punct(',') && !c.peek().is_punct(')')) c.error_expected("',' or ')'");
        }
        return AttrValue::tuple(std::move(items));
      }
      break;
    }
    default:
      break;
  }
  c.error_expected("a value (number, true/false, none, dtype, \"string\" or tuple)");
}

ConstLiteral parse_const_literal(Cursor& c, const TensorType& declared,
                                 const std::string& base_dir) {
  const Token& tok = c.peek();
  if (tok.is_ident("fill") && c.peek(1).is_punct('(')) return parse_fill(c, declared);
  if (tok.is_ident("load") && c.peek(1).is_punct('(')) return parse_load(c, declared, base_dir);
  NestedLiteral lit(c, declared);
  ConstLiteral out;
  out.type = declared;
  out.type.dims = lit.parse();
  out.value = build_tensor(declared.dtype, out.type.dims, lit.values());
  out.type.precision = bounded_precision(precision_of_tensor(out.value), declared.dtype);
  return out;
}

}  // namespace mlvm::asm_detail
