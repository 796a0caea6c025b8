// libmlvm_cpuid_avx2.so: preloaded into a peer's process (ONNX Runtime in node, torch in
// python) by the bench drivers' --isa avx2, so that on an AVX-512 machine the peer runs the
// kernels it would run on an AVX2 CPU, as mlvm does with MLVM_SIMD=avx2. Without it the AVX2
// tables compared mlvm's AVX2 code with ORT's AVX-512 code.
//
// How: Linux's CPUID faulting (arch_prctl ARCH_SET_CPUID, the cpuid_fault CPU flag) makes
// every CPUID instruction of the process raise SIGSEGV; the handler executes it with
// faulting briefly off, clears the AVX-512, AMX and VNNI feature bits (leaf 7: the ones an
// AVX2-only CPU such as Zen 2/3 lacks) and steps over the instruction. Libraries read CPUID
// when they start, so the cost is a few faults a process. The process's own SIGSEGV handlers
// (V8 installs one) are kept and called for every other fault: sigaction is wrapped so that
// this handler stays first. Where the kernel or CPU cannot fault on CPUID the library ends
// the process at once with a message, rather than let the peer run at its own level
// unnoticed.
#include <asm/prctl.h>
#include <dlfcn.h>
#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

namespace {

using SigactionFn = int (*)(int, const struct sigaction*, struct sigaction*);
SigactionFn real_sigaction = nullptr;
struct sigaction theirs;  // the process's own SIGSEGV disposition

bool cpuid_faulting(bool on) { return syscall(SYS_arch_prctl, ARCH_SET_CPUID, on ? 0 : 1) == 0; }

constexpr uint32_t bit(int i) { return uint32_t(1) << i; }

// Leaf 7 subleaf 0: EBX AVX512F, DQ, IFMA, PF, ER, CD, BW, VL; ECX VBMI, VBMI2, VNNI, BITALG,
// VPOPCNTDQ; EDX 4VNNIW, 4FMAPS, VP2INTERSECT, AMX-BF16, AVX512-FP16, AMX-TILE, AMX-INT8.
// Subleaf 1: EAX AVX-VNNI, AVX512-BF16.
void mask(uint32_t leaf, uint32_t sub, uint32_t& a, uint32_t& b, uint32_t& c, uint32_t& d) {
  if (leaf != 7) return;
  if (sub == 0) {
    b &= ~(bit(16) | bit(17) | bit(21) | bit(26) | bit(27) | bit(28) | bit(30) | bit(31));
    c &= ~(bit(1) | bit(6) | bit(11) | bit(12) | bit(14));
    d &= ~(bit(2) | bit(3) | bit(8) | bit(22) | bit(23) | bit(24) | bit(25));
  } else if (sub == 1) {
    a &= ~(bit(4) | bit(5));
  }
}

void on_segv(int sig, siginfo_t* si, void* ctx) {
  greg_t* r = static_cast<ucontext_t*>(ctx)->uc_mcontext.gregs;
  const auto* ip = reinterpret_cast<const unsigned char*>(r[REG_RIP]);
  if (si->si_code == SI_KERNEL && ip[0] == 0x0f && ip[1] == 0xa2) {  // CPUID
    const auto leaf = uint32_t(r[REG_RAX]), sub = uint32_t(r[REG_RCX]);
    uint32_t a, b, c, d;
    cpuid_faulting(false);
    __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(leaf), "c"(sub));
    cpuid_faulting(true);
    mask(leaf, sub, a, b, c, d);
    r[REG_RAX] = a, r[REG_RBX] = b, r[REG_RCX] = c, r[REG_RDX] = d;
    r[REG_RIP] += 2;
    return;
  }
  if (theirs.sa_flags & SA_SIGINFO) return theirs.sa_sigaction(sig, si, ctx);
  if (theirs.sa_handler != SIG_DFL && theirs.sa_handler != SIG_IGN) return theirs.sa_handler(sig);
  // No handler of theirs: back to the default, so that the fault repeats and ends the process
  // as it would have without this library.
  struct sigaction dfl{};
  dfl.sa_handler = SIG_DFL;
  real_sigaction(SIGSEGV, &dfl, nullptr);
}

void fail(const char* what) {
  static const char prefix[] = "libmlvm_cpuid_avx2: ";
  static const char suffix[] = "; the peer would run at its own SIMD level, not at AVX2\n";
  [[maybe_unused]] ssize_t n = write(2, prefix, sizeof prefix - 1);
  n = write(2, what, std::strlen(what));
  n = write(2, suffix, sizeof suffix - 1);
  _exit(97);
}

[[gnu::constructor]] void start() {
  real_sigaction = reinterpret_cast<SigactionFn>(dlsym(RTLD_NEXT, "sigaction"));
  if (!real_sigaction) fail("sigaction not found");
  struct sigaction sa{};
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  if (real_sigaction(SIGSEGV, &sa, &theirs) != 0) fail("cannot install the SIGSEGV handler");
  if (!cpuid_faulting(true)) fail("this CPU or kernel cannot fault on CPUID (arch_prctl ARCH_SET_CPUID)");
}

}  // namespace

// The process's sigaction for SIGSEGV records its handler as the one to chain to; every other
// signal goes through untouched.
extern "C" [[gnu::visibility("default")]] int sigaction(int sig, const struct sigaction* act, struct sigaction* old) noexcept {
  if (!real_sigaction) real_sigaction = reinterpret_cast<SigactionFn>(dlsym(RTLD_NEXT, "sigaction"));
  if (sig != SIGSEGV) return real_sigaction(sig, act, old);
  if (old) *old = theirs;
  if (act) theirs = *act;
  return 0;
}
