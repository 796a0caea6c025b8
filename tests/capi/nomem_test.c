/* The C API, part 6: MLVM_ERR_NOMEM. The system refusing memory is simulated the only way a
 * test can do it exactly: this program replaces malloc (glibc allows it; the __libc_*
 * functions are the real allocator) and makes one chosen allocation fail. Then:
 *  - with every allocation refused, a call returns MLVM_ERR_NOMEM and an error that needs no
 *    memory (preallocated) — the boundary never throws, never aborts;
 *  - refusing the 1st, 2nd, ... allocation of a whole host flow (assemble, load bytes,
 *    session, inputs, run, outputs, copy), each call returns OK or NOMEM, and nothing crashes
 *    or leaks a C++ exception. Some C++ layers catch std::bad_alloc themselves and report it
 *    with another kind (see answered_for_memory); those must still say it was memory.
 * Built only without sanitizers: ASan and TSan replace malloc themselves. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

extern void* __libc_malloc(size_t size);
extern void* __libc_calloc(size_t count, size_t size);
extern void* __libc_realloc(void* p, size_t size);
extern void __libc_free(void* p);

/* g_refuse_all: refuse every allocation; else g_countdown > 0 refuses only the n-th from now. */
static volatile int g_refuse_all = 0;
static volatile long g_countdown = 0;
static volatile long g_refused = 0;
static long g_converted = 0;

static int refuse(void) {
  if (g_refuse_all || (g_countdown > 0 && --g_countdown == 0)) {
    ++g_refused;
    return 1;
  }
  return 0;
}

void* malloc(size_t size) {
  return refuse() ? NULL : __libc_malloc(size);
}
void* calloc(size_t count, size_t size) {
  return refuse() ? NULL : __libc_calloc(count, size);
}
void* realloc(void* p, size_t size) {
  return refuse() ? NULL : __libc_realloc(p, size);
}
void free(void* p) {
  __libc_free(p);
}

static const char kProgram[] =
    ".input  x : f32[2, 3]\n"
    ".output y : f32[3, 2]\n"
    ".output z : f32[2, 3]\n"
    "    y = transpose x\n"
    "    z = mul x, x\n";

static void test_every_allocation_refused(void) {
  mlvm_program* p = (mlvm_program*)&p;
  mlvm_error* err = NULL;
  mlvm_status st;
  g_refuse_all = 1;
  st = mlvm_program_assemble(kProgram, sizeof kProgram - 1, NULL, &p, &err);
  g_refuse_all = 0;
  CHECK(st == MLVM_ERR_NOMEM);
  CHECK(p == NULL);
  CHECK(mlvm_error_status(err) == MLVM_ERR_NOMEM);
  CHECK(strstr(mlvm_error_message(err), "out of memory") != NULL);
  mlvm_error_free(err); /* the preallocated error: freeing it is a no-op */
  CHECK(mlvm_program_assemble(kProgram, sizeof kProgram - 1, NULL, &p, NULL) == MLVM_OK);
  mlvm_program_free(p);
}

/* Whether a failed call answered as the C API promises under memory exhaustion:
 * MLVM_ERR_NOMEM, or — where the C++ layers below catch std::bad_alloc themselves and report
 * it with another kind — a message that says it was memory: the assembler ("out of memory
 * while assembling": invalid), the verifier ("internal error in the type rule ...:
 * std::bad_alloc": invalid) and the interpreter (a kernel's scratch: limit). */
static int answered_for_memory(mlvm_status st, const mlvm_error* err) {
  const char* m = mlvm_error_message(err);
  if (st == MLVM_OK || st == MLVM_ERR_NOMEM) return 1;
  if (st != MLVM_ERR_INVALID && st != MLVM_ERR_LIMIT) return 0;
  if (strstr(m, "out of memory") || strstr(m, "bad_alloc")) {
    ++g_converted;
    return 1;
  }
  return 0;
}

/* One whole host flow with the n-th allocation refused; returns 1 if one was refused. */
static int flow_with_refusal(long n, const char* text, const void* bytes, size_t size) {
  static const float x[6] = {1, 2, 3, 4, 5, 6};
  static const char* const calls[7] = {"assemble", "load_bytes", "session_new", "set_input",
                                       "run",      "output",     "copy_to"};
  const int64_t shape[2] = {2, 3};
  mlvm_program* p = NULL;
  mlvm_program* q = NULL;
  mlvm_session* s = NULL;
  mlvm_session_options o;
  const mlvm_tensor* t = NULL;
  mlvm_error* err[7] = {NULL};
  mlvm_status st[7];
  float out[6];
  int k, ok = 1;
  memset(&o, 0, sizeof o);
  o.threads = 1;
  for (k = 0; k < 7; ++k) st[k] = MLVM_OK;

  g_refused = 0;
  g_countdown = n;
  /* Each call of the session's chain only when the one before it succeeded. */
  st[0] = mlvm_program_assemble(text, strlen(text), NULL, &p, &err[0]);
  st[1] = mlvm_program_load_bytes(bytes, size, &q, &err[1]);
  if (st[1] == MLVM_OK) st[2] = mlvm_session_new(q, &o, &s, &err[2]);
  if (st[1] == MLVM_OK && st[2] == MLVM_OK)
    st[3] = mlvm_session_set_input(s, "x", MLVM_F32, 2, shape, NULL, x, sizeof x, 0, &err[3]);
  if (st[1] == MLVM_OK && st[2] == MLVM_OK && st[3] == MLVM_OK) {
    st[4] = mlvm_session_run(s, &err[4]);
    if (st[4] == MLVM_OK) st[5] = mlvm_session_output(s, "y", &t, &err[5]);
    if (st[4] == MLVM_OK && st[5] == MLVM_OK)
      st[6] = mlvm_tensor_copy_to(t, out, sizeof out, &err[6]);
  }
  g_countdown = 0;

  for (k = 0; k < 7; ++k) {
    if (!answered_for_memory(st[k], err[k])) {
      fprintf(stderr, "refusing allocation %ld: %s returned %s: %s\n", n, calls[k],
              mlvm_status_name(st[k]), mlvm_error_message(err[k]));
      ok = 0;
    }
    mlvm_error_free(err[k]);
  }
  CHECK(ok);
  if (t && st[6] == MLVM_OK) CHECK(out[0] == 1 && out[1] == 4 && out[5] == 6);
  mlvm_session_free(s);
  mlvm_program_free(q);
  mlvm_program_free(p);
  return g_refused > 0;
}

static void test_each_allocation_of_a_flow_refused(void) {
  mlvm_program* p = harness_assemble(kProgram);
  size_t size = 0;
  void* bytes;
  long n;
  int refused_any = 1;
  CHECK(mlvm_program_to_bytes(p, NULL, 0, &size, NULL) == MLVM_OK);
  bytes = malloc(size);
  CHECK(mlvm_program_to_bytes(p, bytes, size, &size, NULL) == MLVM_OK);
  mlvm_program_free(p);
  /* Until the flow makes fewer allocations than n: then each one has been refused once. */
  for (n = 1; refused_any && n < 100000; ++n)
    refused_any = flow_with_refusal(n, kProgram, bytes, size);
  printf(
      "refused each of the %ld allocations of a host flow in turn; %ld answered as a "
      "memory error of another kind by the C++ layers\n",
      n - 2, g_converted);
  CHECK(n > 10);
  free(bytes);
}

int main(void) {
  test_every_allocation_refused();
  test_each_allocation_of_a_flow_refused();
  return harness_finish("capi.nomem");
}
