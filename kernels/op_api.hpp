// What a kernel sees: its inputs, its results, its op's typed attributes and the run's
// environment (thread pool, memory budget, cancellation).
//
// run_<id>(KernelContext&) computes an op's results from concrete tensors; the op's static rule
// (infer_<id>, ir/infer.hpp) has already checked types and attributes. Data-dependent problems
// (integer division by zero, take mode=raise) throw Error(trap).
#pragma once

#include <atomic>
#include <cstdint>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ir/attrs.hpp"
#include "ir/infer.hpp"
#include "ir/types.hpp"
#include "tensor/dims.hpp"
#include "tensor/dtype.hpp"
#include "tensor/error.hpp"
#include "tensor/scalar.hpp"
#include "tensor/tensor.hpp"

namespace mlvm {

class ThreadPool;
struct FusedActivation;  // kernels/fused_activation.hpp

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
  // Where the host asked this instruction's only result to go (Session::bind_output): a
  // contiguous, writable tensor no input shares. The first output() call of its dtype and
  // shape takes it; null once taken or when there is none.
  mutable const Tensor* destination = nullptr;
  // What the op's preparer made from this instruction's constant inputs at plan time
  // (kernels/prepare.hpp), or null.
  const void* prepared = nullptr;
  // An activation the planner folded into this instruction (kernels/fused_activation.hpp):
  // the kernel applies it to its result. Only set for ops that accept_fused_activation.
  const FusedActivation* activation = nullptr;

  // A fresh contiguous result, counted against the run's memory budget. The bound
  // destination, when there is one of this dtype and shape, is used instead. If `reuse_input`
  // >= 0 names a donatable, contiguous, writable, owned input of the same dtype and element
  // count, its storage is reused (reshaped to `shape`) instead.
  Tensor output(DType dtype, const Dims& shape, int reuse_input = -1) const;
};

// Whether a donated input's storage may hold a result of its dtype and element count
// (KernelContext::output, and the run loop's small steps): owned by mlvm, one contiguous
// piece from the storage's start, writable. (Such a tensor has no stride-0 dim of more than
// one element, so its storage decides whether it is writable: Tensor::is_writable.)
inline bool storage_reusable(const Tensor& x) {
  return x.defined() && x.mode() == ValueMode::owned && x.numel() > 0 && x.offset() == 0 &&
         x.is_contiguous() && x.storage()->bytes() == x.numel() * x.itemsize() &&
         x.storage()->writable();
}

using KernelFn = void (*)(KernelContext&);

}  // namespace mlvm
