// Running one op's static rule or kernel directly, as the verifier and interpreter would, with
// attributes checked the way a module's are. Shared by every kernel and ir test suite.
#pragma once

#include <cstdint>
#include <vector>

#include "common/guard_pages.hpp"
#include "ir/attr_check.hpp"
#include "ir/infer.hpp"
#include "ir/op_table.hpp"
#include "kernels/op_api.hpp"
#include "kernels/run_table.hpp"
#include "kernels/thread_pool.hpp"

namespace mlvm::testing {

// An `ints` attribute value.
inline AttrValue ints_value(const std::vector<int64_t>& v) { return AttrValue::int_tuple(v); }

// Checked attributes of `op` from values in declared order; trailing ones left out take their
// defaults (a required one left out is an Error, as in a module).
inline Attrs attrs_for(Opcode op, std::vector<AttrValue> positional = {}) {
  const OpInfo& info = op_info(op);
  for (std::size_t k = positional.size(); k < info.attrs.size(); ++k) {
    if (info.attrs[k].required)
      fail_invalid(info.name + " needs attribute '" + info.attrs[k].name + "' (test helper)");
    positional.push_back(info.attrs[k].default_value);
  }
  return check_positional_attrs(info, std::move(positional));
}

// Checked attributes of `op` from name=value pairs, as the assembler resolves them.
inline Attrs attrs_named(Opcode op, const std::vector<NamedAttr>& named) {
  return resolve_attrs(op_info(op), named);
}

// The op's static rule on `in`; every result type.
inline std::vector<TensorType> infer_all(Opcode op, std::vector<TensorType> in, const Attrs& attrs,
                                         InferOptions options = {}) {
  InferContext ctx{in, attrs, {}, options};
  infer_fn(op)(ctx);
  return ctx.out;
}

// The pool MLVM_TEST_THREADS asks for, shared by the suite's kernel runs; null for 1 thread.
inline ThreadPool* test_pool() {
  static ThreadPool* pool = test_threads() > 1 ? new ThreadPool(test_threads()) : nullptr;
  return pool;
}

// The op's kernel on `in`; every result. Each input is lent from memory flush against a guard
// page (common/guard_pages.hpp), so a kernel touching a byte outside its views faults; without
// a pool of the caller's, the kernel runs on test_pool().
inline std::vector<Tensor> run_all(Opcode op, std::vector<Tensor> in, const Attrs& attrs,
                                   ThreadPool* pool = nullptr, uint32_t donatable = 0) {
  for (Tensor& t : in) t = guarded_copy(t);
  ExecEnv env;
  env.pool = pool ? pool : test_pool();
  std::vector<Tensor> out(std::size_t(op_info(op).num_results));
  KernelContext ctx{in, out, attrs, env, donatable};
  kernel_fn(op)(ctx);
  return out;
}

}  // namespace mlvm::testing
