// The contract between the op table, the verifier and the kernels.
//
// Every op provides two functions, both written once in its kernel family file:
//   infer(InferContext&)   — static rule: dtypes, shapes (with kDynamic dims), precision, attribute
//                            checks. Throws Error(invalid) with a message naming the problem.
//                            The same shape helpers must also serve the kernel at run time.
//   run(KernelContext&)    — computes the results from concrete tensors. Data-dependent
//                            problems (integer division by zero, take mode=raise) throw
//                            Error(trap).
#pragma once

#include <atomic>
#include <cstdint>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tensor/dims.hpp"
#include "tensor/dtype.hpp"
#include "tensor/error.hpp"
#include "tensor/scalar.hpp"
#include "tensor/tensor.hpp"

namespace mlvm {

class ThreadPool;

// ---------------------------------------------------------------------------------------------
// Types as the verifier sees them.
inline constexpr int kUnknownPrecision = 0;

struct TensorType {
  DType dtype = DType::f32;
  Dims dims;                          // kDynamic for `?`
  int precision = kUnknownPrecision;  // signed ints only; 0 = unknown (ops.md §2)
  bool present = true;                // false for an omitted optional input

  bool has_dynamic_dims() const;
  std::string to_string() const;  // "f32[2, ?]"; with precision: "i32[4] precision=8"
  friend bool operator==(const TensorType& a, const TensorType& b) {
    return a.dtype == b.dtype && a.dims == b.dims && a.precision == b.precision &&
           a.present == b.present;
  }
};
TensorType type_of(const Tensor& t);  // precision unknown

// ---------------------------------------------------------------------------------------------
// Attribute values, as written in the text language.
struct AttrValue {
  enum class Kind : uint8_t { none, integer, floating, boolean, tuple, dtype, string };
  Kind kind = Kind::none;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  DType dt = DType::f32;
  std::string s;
  std::vector<AttrValue> items;  // tuple elements
  // Filled by resolve_attrs for `ints` attributes: the flattened integer tuple.
  std::vector<int64_t> ints;

  static AttrValue none() { return {}; }
  static AttrValue integer(int64_t v);
  static AttrValue floating(double v);
  static AttrValue boolean(bool v);
  static AttrValue dtype(DType t);
  static AttrValue string(std::string v);
  static AttrValue tuple(std::vector<AttrValue> v);
  std::string to_string() const;  // in the text language's syntax; re-parses to the same value
  bool operator==(const AttrValue& o) const;
};

// What an attribute accepts (the op table writes these in a small text form; see op_table.cpp).
enum class AttrKind : uint8_t {
  integer,  // int, range-checked
  number,   // int or float (a_min, value, ...)
  boolean,
  ints,   // tuple of ints; a bare int means a one-element tuple
  pairs,  // tuple of (int, int) tuples (pad_width)
  dtype,
  string,  // one of the listed choices
};

struct AttrSpec {
  std::string name;
  AttrKind kind = AttrKind::integer;
  bool required = false;
  bool nullable = false;                     // `none` accepted (e.g. take's axis, pools' strides)
  int64_t min = INT64_MIN, max = INT64_MAX;  // for integer (and each element of ints)
  std::vector<std::string> choices;          // for string
  AttrValue default_value;
};

// Attribute values of one instruction in the op's declared order, defaults filled in.
class Attrs {
 public:
  Attrs() = default;
  explicit Attrs(std::vector<AttrValue> v) : v_(std::move(v)) {}
  int size() const { return int(v_.size()); }
  const AttrValue& operator[](int k) const { return v_[k]; }
  const std::vector<AttrValue>& values() const { return v_; }

  bool is_none(int k) const { return v_[k].kind == AttrValue::Kind::none; }
  int64_t i(int k) const { return v_[k].i; }
  bool b(int k) const { return v_[k].b; }
  DType dtype(int k) const { return v_[k].dt; }
  const std::string& str(int k) const { return v_[k].s; }
  const std::vector<int64_t>& ints(int k) const { return v_[k].ints; }
  // A number attribute as a Scalar (keeps int vs float).
  Scalar scalar(int k) const {
    return v_[k].kind == AttrValue::Kind::floating ? Scalar::from_float(v_[k].f)
                                                   : Scalar::from_int(v_[k].i);
  }
  const std::vector<AttrValue>& items(int k) const { return v_[k].items; }

 private:
  std::vector<AttrValue> v_;
};

// ---------------------------------------------------------------------------------------------
// Static rule context.
struct InferOptions {
  bool precision_check = true;  // off with --no-precision-check
  bool strict_precision = false;
};

struct InferContext {
  std::span<const TensorType> in;
  const Attrs& attrs;
  std::vector<TensorType> out;  // the rule fills one entry per result
  InferOptions options;
};

// ---------------------------------------------------------------------------------------------
// Run-time context.
class ExecEnv {
 public:
  ThreadPool* pool = nullptr;            // null: run on the calling thread
  std::shared_ptr<MemoryBudget> budget;  // null: unlimited
  // Set by the host (another thread) to stop the run; null: the run cannot be cancelled.
  const std::atomic<bool>* cancel = nullptr;

  bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
  // Long kernel loops call this between chunks: Error(limit) once the host has cancelled.
  void check_cancelled() const {
    if (cancelled()) fail(ErrorKind::limit, "run cancelled by the host");
  }
};

// A kernel's inputs, read as ctx.in[k]: either an array of tensors (tests, direct calls) or an
// array of pointers to the interpreter's registers, so that running an instruction copies no
// tensor (on one-element tensors those copies would be most of an instruction's cost).
class TensorArgs {
 public:
  class iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = Tensor;
    using difference_type = std::ptrdiff_t;
    using pointer = const Tensor*;
    using reference = const Tensor&;
    iterator() = default;
    iterator(const TensorArgs* args, std::size_t k) : args_(args), k_(k) {}
    const Tensor& operator*() const { return (*args_)[k_]; }
    const Tensor* operator->() const { return &(*args_)[k_]; }
    const Tensor& operator[](difference_type d) const { return (*args_)[k_ + std::size_t(d)]; }
    iterator& operator++() {
      ++k_;
      return *this;
    }
    iterator operator++(int) {
      iterator t = *this;
      ++k_;
      return t;
    }
    iterator& operator--() {
      --k_;
      return *this;
    }
    iterator operator--(int) {
      iterator t = *this;
      --k_;
      return t;
    }
    iterator& operator+=(difference_type d) {
      k_ += std::size_t(d);
      return *this;
    }
    iterator& operator-=(difference_type d) {
      k_ -= std::size_t(d);
      return *this;
    }
    friend iterator operator+(iterator it, difference_type d) { return it += d; }
    friend iterator operator+(difference_type d, iterator it) { return it += d; }
    friend iterator operator-(iterator it, difference_type d) { return it -= d; }
    friend difference_type operator-(const iterator& a, const iterator& b) {
      return difference_type(a.k_) - difference_type(b.k_);
    }
    friend bool operator==(const iterator& a, const iterator& b) { return a.k_ == b.k_; }
    friend auto operator<=>(const iterator& a, const iterator& b) { return a.k_ <=> b.k_; }

   private:
    const TensorArgs* args_ = nullptr;
    std::size_t k_ = 0;
  };

  TensorArgs() = default;
  TensorArgs(std::span<const Tensor> values) : values_(values.data()), n_(values.size()) {}
  TensorArgs(const std::vector<Tensor>& values) : values_(values.data()), n_(values.size()) {}
  // `n` tensors at *refs[0..n); each pointer must stay valid while the kernel runs.
  static TensorArgs refs(const Tensor* const* refs, std::size_t n) {
    TensorArgs a;
    a.refs_ = refs;
    a.n_ = n;
    return a;
  }

  std::size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  const Tensor& operator[](std::size_t k) const { return refs_ ? *refs_[k] : values_[k]; }
  iterator begin() const { return {this, 0}; }
  iterator end() const { return {this, n_}; }

 private:
  const Tensor* values_ = nullptr;
  const Tensor* const* refs_ = nullptr;
  std::size_t n_ = 0;
};

struct KernelContext {
  TensorArgs in;          // an omitted optional input is a default (undefined) Tensor
  std::span<Tensor> out;  // the kernel assigns every result
  const Attrs& attrs;
  ExecEnv& env;
  // Bit k set: input k dies at this instruction and its storage is shared with no live value,
  // so the kernel may write its result into it (see output()).
  uint32_t donatable = 0;

  // A fresh contiguous result, counted against the run's memory budget. If `reuse_input` >= 0
  // names a donatable, contiguous, writable, owned input of the same dtype and element count,
  // its storage is reused (reshaped to `shape`) instead.
  Tensor output(DType dtype, const Dims& shape, int reuse_input = -1) const;
};

using InferFn = void (*)(InferContext&);
using KernelFn = void (*)(KernelContext&);

}  // namespace mlvm
