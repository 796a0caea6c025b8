/* A small test harness for the C API's tests, in C99: each check that fails prints where and
 * what, and the program's exit status says whether any failed. No framework: a C host has
 * none, and the tests should read like one. */
#ifndef MLVM_CAPI_HARNESS_H
#define MLVM_CAPI_HARNESS_H

#include <mlvm/mlvm.h>
#include <stddef.h>
#include <stdint.h>

/* A plain condition. */
#define CHECK(cond) harness_check((cond) != 0, #cond, __FILE__, __LINE__)

/* A call's status and error: `want` is the expected status; for a failure, `needle` (may be
 * NULL) must occur in mlvm_error_message and `line` (-1: not checked) must be
 * mlvm_error_line. The error is freed and `err` set back to NULL for the next call. The call
 * is evaluated before `err` is read (the statement sequence fixes the order). */
#define EXPECT_STATUS(err, call, want, needle, line)                                          \
  do {                                                                                        \
    mlvm_status harness_got_ = (call);                                                        \
    harness_expect(harness_got_, (err), (want), (needle), (line), #call, __FILE__, __LINE__); \
    (err) = NULL;                                                                             \
  } while (0)
#define EXPECT_OK(err, call) EXPECT_STATUS(err, call, MLVM_OK, NULL, -1)

int harness_check(int ok, const char* expr, const char* file, int line);
void harness_expect(mlvm_status got, mlvm_error* err, mlvm_status want, const char* needle,
                    int line_want, const char* call, const char* file, int line);
/* Prints "NAME: N checks, M failed" and returns the exit status for main. */
int harness_finish(const char* name);

/* Assembles `text` or ends the test program: every later check would depend on it. */
mlvm_program* harness_assemble(const char* text);
/* A session with `threads` kernel threads (1 keeps the tests' timing simple), or exit. */
mlvm_session* harness_session(const mlvm_program* program, int threads);

/* Every element of an f32 / i64 output in row-major index order, read through its strides
 * from mlvm_tensor_data (the way a host reads a view without copying). */
void harness_read_f32(const mlvm_tensor* t, float* out);
void harness_read_i64(const mlvm_tensor* t, int64_t* out);
/* The product of an output's shape. */
size_t harness_numel(const mlvm_tensor* t);
/* Whether `n` floats match `want` exactly (the values here are small integers). */
int harness_same_f32(const float* got, const float* want, size_t n);

#endif
