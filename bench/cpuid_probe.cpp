// cpuid_probe: what bench/test_cpuid_avx2.py runs with and without libmlvm_cpuid_avx2.so
// preloaded.
//   cpuid_probe            prints "avx2 B avx512f B avx512bw B avx512vnni B avx_vnni B" (CPUID leaf 7)
//   cpuid_probe handler    installs a SIGSEGV handler of its own, faults, and exits 42 from it
//   cpuid_probe fault      faults with no handler of its own (ends by SIGSEGV)
#include <cpuid.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace {

void exit_42(int) { _exit(42); }

int fault() {
  volatile int* volatile p = nullptr;
  return *p;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "handler") == 0) {
    struct sigaction sa{};
    sa.sa_handler = exit_42;
    sigaction(SIGSEGV, &sa, nullptr);
    return fault();
  }
  if (argc > 1 && std::strcmp(argv[1], "fault") == 0) return fault();
  unsigned a, b, c, d, a1, b1, c1, d1;
  __cpuid_count(7, 0, a, b, c, d);
  __cpuid_count(7, 1, a1, b1, c1, d1);
  std::printf("avx2 %u avx512f %u avx512bw %u avx512vnni %u avx_vnni %u\n", (b >> 5) & 1, (b >> 16) & 1,
              (b >> 30) & 1, (c >> 11) & 1, (a1 >> 4) & 1);
  return 0;
}
