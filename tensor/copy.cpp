#include "tensor/copy.hpp"

#include <cstring>

#include "tensor/error.hpp"
#include "tensor/strided_loop.hpp"

namespace mlvm {

namespace {

template <std::size_t S>
void copy_run(std::byte* d, const std::byte* s, int64_t n, int64_t ds, int64_t ss) {
  if (ds == int64_t(S) && ss == int64_t(S)) {
    std::memcpy(d, s, std::size_t(n) * S);
    return;
  }
  for (int64_t k = 0; k < n; ++k, d += ds, s += ss) std::memcpy(d, s, S);
}

}  // namespace

void copy_into(const Tensor& src, const Tensor& dst) {
  if (src.dtype() != dst.dtype() || !(src.shape() == dst.shape()))
    fail_invalid("copy from " + src.type_string() + " into " + dst.type_string() + ": types differ");
  dst.check_writable("copy destination");
  auto L = plan_strided_loop<2>(dst.shape(), std::array<const Tensor*, 2>{&dst, &src},
                                LoopOptions{true, false});
  const int64_t isz = dst.itemsize();
  for_each_run(L, {dst.raw_data(), src.raw_data()}, [&](auto p, int64_t n, auto st) {
    switch (isz) {
      case 1: copy_run<1>(p[0], p[1], n, st[0], st[1]); break;
      case 2: copy_run<2>(p[0], p[1], n, st[0], st[1]); break;
      case 4: copy_run<4>(p[0], p[1], n, st[0], st[1]); break;
      default: copy_run<8>(p[0], p[1], n, st[0], st[1]); break;
    }
  });
}

Tensor contiguous(const Tensor& src, std::shared_ptr<MemoryBudget> budget) {
  if (src.is_contiguous()) return src;
  return clone(src, std::move(budget));
}

Tensor clone(const Tensor& src, std::shared_ptr<MemoryBudget> budget) {
  Tensor out = Tensor::empty(src.dtype(), src.shape(), std::move(budget));
  if (out.numel() > 0) copy_into(src, out);
  return out;
}

}  // namespace mlvm
