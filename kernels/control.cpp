// Kernels of the control ops (jmp, br, halt, print): there are none, the interpreter runs these
// ops itself (vm/interpreter.cpp); calling one of these is a usage error. Their static rules
// are in ir/infer_control.cpp.
#include <string>

#include "kernels/run_table.hpp"

namespace mlvm {

namespace {
[[noreturn]] void interpreter_only(const char* name) {
  fail(ErrorKind::usage, std::string(name) + " is a control op executed by the interpreter, not a kernel");
}
}  // namespace

void run_jmp(KernelContext&) { interpreter_only("jmp"); }
void run_br(KernelContext&) { interpreter_only("br"); }
void run_halt(KernelContext&) { interpreter_only("halt"); }
void run_print(KernelContext&) { interpreter_only("print"); }
void run_trap(KernelContext&) { interpreter_only("trap"); }

}  // namespace mlvm
