// The guard-page harness itself (tests/common/guard_pages.hpp): a guarded copy keeps every
// value, the layout and the mode, and the byte just outside the layout's reach faults — on the
// side asked for — while every byte inside reads. A harness whose guard sat a page too far
// would pass every kernel suite and catch nothing; this suite fails it.
#include <boost/test/unit_test.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <functional>

#include "common/guard_pages.hpp"
#include "common/dynamic_args.hpp"
#include "common/tensors.hpp"
#include "tensor/views.hpp"

using namespace mlvm;
using namespace mlvm::testing;

namespace {

// Whether f faults: run in a child process, it does not get to exit normally. (A plain build's
// child dies of SIGSEGV, the default handler taken back from Boost.Test, which reports a fault
// and goes on; under AddressSanitizer its own handler reports the fault and exits with 1.)
bool faults(const std::function<void()>& f) {
  const pid_t pid = fork();
  if (pid == 0) {
    std::signal(SIGSEGV, SIG_DFL);
    std::signal(SIGBUS, SIG_DFL);
    f();
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

uint8_t read_byte(const std::byte* p) { return *reinterpret_cast<const volatile uint8_t*>(p); }

// The first and one-past-last byte a layout reaches.
std::pair<const std::byte*, const std::byte*> byte_range(const Tensor& t) {
  const auto [lo, hi] = reach(t.shape(), t.strides());
  return {t.raw_data() + lo * t.itemsize(), t.raw_data() + hi * t.itemsize()};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(guard_pages)

BOOST_AUTO_TEST_CASE(copies_keep_values_layout_and_mode) {
  const Tensor base = iota(DType::f32, Dims{3, 5});
  const Tensor flipped = flip(base, 1);
  const std::vector<int64_t> swap{1, 0}, wide{4, 5};
  const Tensor columns = transpose(base, swap);
  const Tensor broadcast = broadcast_to(iota(DType::i16, Dims{1, 5}), wide);
  for (GuardSide side : {GuardSide::after, GuardSide::before})
    for (const Tensor& t : {base, flipped, columns, broadcast}) {
      const Tensor g = guarded_copy(t, side);
      BOOST_TEST(is_guarded(g));
      BOOST_TEST(same_bits(g, t));
      BOOST_TEST(g.strides() == t.strides());
      BOOST_TEST(int(g.mode()) == int(t.mode()));
      BOOST_TEST(guarded_copy(g).raw_data() == g.raw_data());  // lent again as it is
    }
  const Tensor empty = guarded_copy(Tensor::empty(DType::f64, Dims{0, 3}));
  BOOST_TEST(empty.numel() == 0);
}

BOOST_AUTO_TEST_CASE(the_byte_past_the_reach_faults) {
  const Tensor base = iota(DType::i32, Dims{4, 7});
  for (const Tensor& t : {base, flip(base, 0), flip(base, 1)}) {
    const Tensor after = guarded_copy(t, GuardSide::after), before = guarded_copy(t, GuardSide::before);
    const auto [a0, a1] = byte_range(after);
    const auto [b0, b1] = byte_range(before);
    BOOST_TEST(!faults([&] {
      for (const std::byte* p = a0; p < a1; ++p) read_byte(p);
      for (const std::byte* p = b0; p < b1; ++p) read_byte(p);
    }));
    BOOST_TEST(faults([&] { read_byte(a1); }));
    BOOST_TEST(faults([&] { read_byte(b0 - 1); }));
  }
  guarded_vector<int64_t> v(37, 5);
  BOOST_TEST(faults([&] { read_byte(reinterpret_cast<const std::byte*>(v.data() + v.size())); }) ==
             (guard_side() == GuardSide::after));
}

BOOST_AUTO_TEST_SUITE_END()
