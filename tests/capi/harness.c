/* The C API tests' harness (harness.h). */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_checks = 0;
static int g_failures = 0;

int harness_check(int ok, const char* expr, const char* file, int line) {
  ++g_checks;
  if (!ok) {
    ++g_failures;
    fprintf(stderr, "%s:%d: check failed: %s\n", file, line, expr);
  }
  return ok;
}

void harness_expect(mlvm_status got, mlvm_error* err, mlvm_status want, const char* needle,
                    int line_want, const char* call, const char* file, int line) {
  const char* message = mlvm_error_message(err);
  int ok = got == want;
  if (want == MLVM_OK) {
    ok = ok && err == NULL;
  } else if (err != NULL) { /* err is NULL when the caller passed no error pointer */
    ok = ok && mlvm_error_status(err) == want && message[0] != '\0';
    if (needle) ok = ok && strstr(message, needle) != NULL;
    if (line_want >= 0) ok = ok && mlvm_error_line(err) == line_want;
  }
  ++g_checks;
  if (!ok) {
    ++g_failures;
    fprintf(stderr,
            "%s:%d: %s\n  returned %s, expected %s%s%s%s\n  error: status %s, line %d, "
            "message: %s\n",
            file, line, call, mlvm_status_name(got), mlvm_status_name(want),
            needle ? " with \"" : "", needle ? needle : "", needle ? "\"" : "",
            mlvm_status_name(mlvm_error_status(err)), mlvm_error_line(err), message);
    if (line_want >= 0) fprintf(stderr, "  expected line %d\n", line_want);
  }
  mlvm_error_free(err);
}

int harness_finish(const char* name) {
  printf("%s: %d checks, %d failed\n", name, g_checks, g_failures);
  return g_failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

mlvm_program* harness_assemble(const char* text) {
  mlvm_program* p = NULL;
  mlvm_error* err = NULL;
  if (mlvm_program_assemble(text, strlen(text), "test.mlasm", &p, &err) != MLVM_OK) {
    fprintf(stderr, "cannot assemble a test program: %s\n%s\n", mlvm_error_message(err), text);
    mlvm_error_free(err);
    exit(EXIT_FAILURE);
  }
  return p;
}

mlvm_session* harness_session(const mlvm_program* program, int threads) {
  mlvm_session_options o;
  mlvm_session* s = NULL;
  mlvm_error* err = NULL;
  memset(&o, 0, sizeof o);
  o.threads = threads;
  if (mlvm_session_new(program, &o, &s, &err) != MLVM_OK) {
    fprintf(stderr, "cannot make a test session: %s\n", mlvm_error_message(err));
    mlvm_error_free(err);
    exit(EXIT_FAILURE);
  }
  return s;
}

size_t harness_numel(const mlvm_tensor* t) {
  const int64_t* shape = mlvm_tensor_shape(t);
  size_t n = 1, i;
  for (i = 0; i < mlvm_tensor_rank(t); ++i) n *= (size_t)shape[i];
  return n;
}

/* The element offsets (in elements, from the (0, ..., 0) element) in row-major index order:
 * an odometer over the shape, summing index * stride. */
static void strided_offsets(const mlvm_tensor* t, ptrdiff_t* offsets) {
  const size_t rank = mlvm_tensor_rank(t), n = harness_numel(t);
  const int64_t* shape = mlvm_tensor_shape(t);
  const int64_t* strides = mlvm_tensor_strides(t);
  int64_t index[8] = {0};
  size_t k;
  for (k = 0; k < n; ++k) {
    ptrdiff_t off = 0;
    size_t d;
    for (d = 0; d < rank; ++d) off += (ptrdiff_t)(index[d] * strides[d]);
    offsets[k] = off;
    for (d = rank; d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
}

void harness_read_f32(const mlvm_tensor* t, float* out) {
  const float* data = (const float*)mlvm_tensor_data(t);
  const size_t n = harness_numel(t);
  ptrdiff_t* offsets = (ptrdiff_t*)malloc((n ? n : 1) * sizeof *offsets);
  size_t k;
  strided_offsets(t, offsets);
  for (k = 0; k < n; ++k) out[k] = data[offsets[k]];
  free(offsets);
}

void harness_read_i64(const mlvm_tensor* t, int64_t* out) {
  const int64_t* data = (const int64_t*)mlvm_tensor_data(t);
  const size_t n = harness_numel(t);
  ptrdiff_t* offsets = (ptrdiff_t*)malloc((n ? n : 1) * sizeof *offsets);
  size_t k;
  strided_offsets(t, offsets);
  for (k = 0; k < n; ++k) out[k] = data[offsets[k]];
  free(offsets);
}

int harness_same_f32(const float* got, const float* want, size_t n) {
  size_t k;
  for (k = 0; k < n; ++k)
    if (got[k] != want[k]) {
      fprintf(stderr, "  element %lu: got %g, expected %g\n", (unsigned long)k, got[k], want[k]);
      return 0;
    }
  return 1;
}
