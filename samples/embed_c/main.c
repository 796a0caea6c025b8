/* A C host embedding mlvm through the C API (<mlvm/mlvm.h>): assembles a small program, lends
 * it host memory as a strided input (no copy), binds one output to its own buffer, reads a
 * transposed (view) output through its strides and through mlvm_tensor_copy_to, and handles
 * a trap (integer division by zero) as a host would: status name, message, line. Exits 0 when
 * every value is right and the error was reported as expected, else 1. C99. */
#include <mlvm/mlvm.h>
#include <stdio.h>
#include <string.h>

static const char kSource[] =
    ".program embed_c\n"
    ".input  x : f32[2, 3]\n"
    ".input  d : i32[3]\n"
    ".const  twelve : i32[3] = [12, 12, 12]\n"
    ".output t : f32[3, 2]          # a view of x: no copy\n"
    ".output s : f32[2, 3]          # written into the host's buffer (bound)\n"
    ".output q : i32[3]\n"
    "    t = transpose x\n"
    "    s = mul x, 2.0\n"
    "    s = add s, 1.0\n"
    "    q = div twelve, d          # line 11: traps when d holds a 0\n";

/* Prints a failed call's error and frees it; returns 1 so callers can count failures. */
static int report(const char* what, mlvm_status status, mlvm_error* err) {
  fprintf(stderr, "%s: %s: %s\n", what, mlvm_status_name(status), mlvm_error_message(err));
  mlvm_error_free(err);
  return 1;
}

int main(void) {
  mlvm_program* program = NULL;
  mlvm_session* session = NULL;
  mlvm_error* err = NULL;
  mlvm_status st;
  const mlvm_tensor* t = NULL;
  const mlvm_tensor* q = NULL;
  int bad = 0;
  size_t i, r, c;

  /* The host's memory: a 2 x 4 matrix whose first three columns are x (row stride 4). */
  const float host[8] = {1, 2, 3, 99, 4, 5, 6, 99};
  const int64_t x_shape[2] = {2, 3}, x_strides[2] = {4, 1};
  int32_t d[3] = {1, 2, 3};
  const int64_t d_shape[1] = {3};
  float s_buffer[6] = {0};
  float t_copy[6];
  int32_t q_copy[3];
  mlvm_session_options options;

  st = mlvm_program_assemble(kSource, strlen(kSource), "embed_c.mlasm", &program, &err);
  if (st != MLVM_OK) return report("assemble", st, err);
  printf("mlvm %s, program %s: %lu inputs, %lu outputs\n", mlvm_version(),
         mlvm_program_name(program), (unsigned long)mlvm_program_input_count(program),
         (unsigned long)mlvm_program_output_count(program));

  memset(&options, 0, sizeof options);
  options.threads = 1;
  options.max_steps = 1000;
  options.max_memory = 1 << 20;
  st = mlvm_session_new(program, &options, &session, &err);
  if (st != MLVM_OK) return report("session", st, err);

  st = mlvm_session_set_input(session, "x", MLVM_F32, 2, x_shape, x_strides, host, sizeof host, 0,
                              &err);
  if (st == MLVM_OK)
    st = mlvm_session_set_input(session, "d", MLVM_I32, 1, d_shape, NULL, d, sizeof d, 0, &err);
  if (st == MLVM_OK)
    st = mlvm_session_bind_output(session, "s", MLVM_F32, 2, x_shape, NULL, s_buffer,
                                  sizeof s_buffer, 0, &err);
  if (st == MLVM_OK) st = mlvm_session_run(session, &err);
  if (st == MLVM_OK) st = mlvm_session_output(session, "t", &t, &err);
  if (st == MLVM_OK) st = mlvm_session_output(session, "q", &q, &err);
  if (st == MLVM_OK) st = mlvm_tensor_copy_to(t, t_copy, sizeof t_copy, &err);
  if (st == MLVM_OK) st = mlvm_tensor_copy_to(q, q_copy, sizeof q_copy, &err);
  if (st != MLVM_OK) {
    bad += report("run", st, err);
  } else {
    /* t = x.T, read through its strides: element (r, c) is data[r * strides[0] + c * strides[1]].
     */
    const float* data = (const float*)mlvm_tensor_data(t);
    const int64_t* strides = mlvm_tensor_strides(t);
    printf("t (strides %ld, %ld) =", (long)strides[0], (long)strides[1]);
    for (r = 0; r < 3; ++r)
      for (c = 0; c < 2; ++c) {
        const float via_strides = data[(int64_t)r * strides[0] + (int64_t)c * strides[1]];
        const float want = host[c * 4 + r];
        printf(" %g", via_strides);
        if (via_strides != want || t_copy[r * 2 + c] != want) bad = 1;
      }
    printf("\ns (bound) =");
    for (i = 0; i < 6; ++i) {
      printf(" %g", s_buffer[i]);
      if (s_buffer[i] != host[(i / 3) * 4 + i % 3] * 2 + 1) bad = 1;
    }
    printf("\nq = %d %d %d\n", q_copy[0], q_copy[1], q_copy[2]);
    if (q_copy[0] != 12 || q_copy[1] != 6 || q_copy[2] != 4) bad = 1;
  }

  /* A data error: the host's divisor holds a zero. The run reports it, with the line. */
  d[1] = 0;
  st = mlvm_session_run(session, &err);
  printf("with d[1] = 0: %s (line %d): %s\n", mlvm_status_name(st), mlvm_error_line(err),
         mlvm_error_message(err));
  if (st != MLVM_ERR_TRAP || mlvm_error_line(err) != 11) bad = 1;
  mlvm_error_free(err);

  mlvm_session_free(session);
  mlvm_program_free(program);
  printf(bad ? "FAILED\n" : "ok\n");
  return bad ? 1 : 0;
}
